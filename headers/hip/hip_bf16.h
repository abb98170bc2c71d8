// HIP's bfloat16: __hip_bfloat16 holds the upper 16 bits of a float (8 exponent bits, 7 mantissa
// bits); arithmetic is done in float and rounded back to nearest even, as ROCm's does without
// native bfloat16 instructions. __hip_bfloat162 is a pair (x the low lane).
#ifndef HIPMLIR_HIP_BF16_H
#define HIPMLIR_HIP_BF16_H

#include "hip_runtime.h"

#define HIPMLIR_BF16_FN __host__ __device__ static inline

struct __hip_bfloat16 {
  unsigned short data;
};
struct __attribute__((aligned(4))) __hip_bfloat162 {
  __hip_bfloat16 x, y;
};
typedef __hip_bfloat16 hip_bfloat16_raw;

// A float's bits and back: pointer casts on the device (what the device frontend compiles),
// memcpy on the host (where a pointer cast would break strict aliasing).
HIPMLIR_BF16_FN unsigned int __hipmlir_float_bits(float f) {
#if defined(__HIP_DEVICE_COMPILE__)
  return *reinterpret_cast<const unsigned int*>(&f);
#else
  unsigned int u;
  __builtin_memcpy(&u, &f, sizeof u);
  return u;
#endif
}
HIPMLIR_BF16_FN float __hipmlir_bits_float(unsigned int u) {
#if defined(__HIP_DEVICE_COMPILE__)
  return *reinterpret_cast<const float*>(&u);
#else
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
#endif
}

HIPMLIR_BF16_FN float __bfloat162float(__hip_bfloat16 a) {
  return __hipmlir_bits_float(static_cast<unsigned int>(a.data) << 16);
}
// Rounds to nearest, ties to even; a NaN stays a (quiet) NaN of the same sign.
HIPMLIR_BF16_FN __hip_bfloat16 __float2bfloat16(float f) {
  unsigned int u = __hipmlir_float_bits(f);
  __hip_bfloat16 r;
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    r.data = static_cast<unsigned short>((u >> 16) | 0x40u);
    return r;
  }
  u += 0x7fffu + ((u >> 16) & 1u);
  r.data = static_cast<unsigned short>(u >> 16);
  return r;
}
HIPMLIR_BF16_FN __hip_bfloat16 __float2bfloat16_rn(float f) { return __float2bfloat16(f); }
HIPMLIR_BF16_FN __hip_bfloat16 __ushort_as_bfloat16(unsigned short u) {
  __hip_bfloat16 r;
  r.data = u;
  return r;
}
HIPMLIR_BF16_FN unsigned short __bfloat16_as_ushort(__hip_bfloat16 a) { return a.data; }

HIPMLIR_BF16_FN __hip_bfloat162 __halves2bfloat162(__hip_bfloat16 lo, __hip_bfloat16 hi) {
  __hip_bfloat162 r;
  r.x = lo;
  r.y = hi;
  return r;
}
HIPMLIR_BF16_FN __hip_bfloat162 __bfloat162bfloat162(__hip_bfloat16 a) {
  return __halves2bfloat162(a, a);
}
HIPMLIR_BF16_FN __hip_bfloat16 __low2bfloat16(__hip_bfloat162 a) { return a.x; }
HIPMLIR_BF16_FN __hip_bfloat16 __high2bfloat16(__hip_bfloat162 a) { return a.y; }
HIPMLIR_BF16_FN float2 __bfloat1622float2(__hip_bfloat162 a) {
  return make_float2(__bfloat162float(a.x), __bfloat162float(a.y));
}
HIPMLIR_BF16_FN __hip_bfloat162 __float22bfloat162_rn(float2 f) {
  return __halves2bfloat162(__float2bfloat16(f.x), __float2bfloat16(f.y));
}
HIPMLIR_BF16_FN __hip_bfloat162 __floats2bfloat162_rn(float lo, float hi) {
  return __halves2bfloat162(__float2bfloat16(lo), __float2bfloat16(hi));
}

// Arithmetic and comparisons, lane by lane for pairs: through float, rounded once.
#define HIPMLIR_BF16_BINARY(name, op)                                                      \
  HIPMLIR_BF16_FN __hip_bfloat16 name(__hip_bfloat16 a, __hip_bfloat16 b) {                \
    return __float2bfloat16(__bfloat162float(a) op __bfloat162float(b));                   \
  }                                                                                        \
  HIPMLIR_BF16_FN __hip_bfloat162 name##2(__hip_bfloat162 a, __hip_bfloat162 b) {          \
    return __halves2bfloat162(name(a.x, b.x), name(a.y, b.y));                             \
  }
HIPMLIR_BF16_BINARY(__hadd, +)
HIPMLIR_BF16_BINARY(__hsub, -)
HIPMLIR_BF16_BINARY(__hmul, *)
HIPMLIR_BF16_BINARY(__hdiv, /)
#undef HIPMLIR_BF16_BINARY

#define HIPMLIR_BF16_COMPARE(name, op)                                                     \
  HIPMLIR_BF16_FN bool name(__hip_bfloat16 a, __hip_bfloat16 b) {                          \
    return __bfloat162float(a) op __bfloat162float(b);                                     \
  }
HIPMLIR_BF16_COMPARE(__heq, ==)
HIPMLIR_BF16_COMPARE(__hne, !=)
HIPMLIR_BF16_COMPARE(__hlt, <)
HIPMLIR_BF16_COMPARE(__hle, <=)
HIPMLIR_BF16_COMPARE(__hgt, >)
HIPMLIR_BF16_COMPARE(__hge, >=)
#undef HIPMLIR_BF16_COMPARE

HIPMLIR_BF16_FN __hip_bfloat16 __hfma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) {
  return __float2bfloat16(__bfloat162float(a) * __bfloat162float(b) + __bfloat162float(c));
}
HIPMLIR_BF16_FN __hip_bfloat16 __hneg(__hip_bfloat16 a) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(a.data ^ 0x8000u));
}
HIPMLIR_BF16_FN __hip_bfloat16 __habs(__hip_bfloat16 a) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(a.data & 0x7fffu));
}
HIPMLIR_BF16_FN bool __hisnan(__hip_bfloat16 a) { return (a.data & 0x7fffu) > 0x7f80u; }
HIPMLIR_BF16_FN bool __hisinf(__hip_bfloat16 a) { return (a.data & 0x7fffu) == 0x7f80u; }
HIPMLIR_BF16_FN __hip_bfloat16 __hmax(__hip_bfloat16 a, __hip_bfloat16 b) {
  return __hgt(a, b) || __hisnan(b) ? a : b;
}
HIPMLIR_BF16_FN __hip_bfloat16 __hmin(__hip_bfloat16 a, __hip_bfloat16 b) {
  return __hlt(a, b) || __hisnan(b) ? a : b;
}

HIPMLIR_BF16_FN __hip_bfloat16 operator+(__hip_bfloat16 a, __hip_bfloat16 b) { return __hadd(a, b); }
HIPMLIR_BF16_FN __hip_bfloat16 operator-(__hip_bfloat16 a, __hip_bfloat16 b) { return __hsub(a, b); }
HIPMLIR_BF16_FN __hip_bfloat16 operator*(__hip_bfloat16 a, __hip_bfloat16 b) { return __hmul(a, b); }
HIPMLIR_BF16_FN __hip_bfloat16 operator/(__hip_bfloat16 a, __hip_bfloat16 b) { return __hdiv(a, b); }
HIPMLIR_BF16_FN __hip_bfloat16 operator-(__hip_bfloat16 a) { return __hneg(a); }
HIPMLIR_BF16_FN bool operator==(__hip_bfloat16 a, __hip_bfloat16 b) { return __heq(a, b); }
HIPMLIR_BF16_FN bool operator!=(__hip_bfloat16 a, __hip_bfloat16 b) { return __hne(a, b); }
HIPMLIR_BF16_FN bool operator<(__hip_bfloat16 a, __hip_bfloat16 b) { return __hlt(a, b); }
HIPMLIR_BF16_FN bool operator<=(__hip_bfloat16 a, __hip_bfloat16 b) { return __hle(a, b); }
HIPMLIR_BF16_FN bool operator>(__hip_bfloat16 a, __hip_bfloat16 b) { return __hgt(a, b); }
HIPMLIR_BF16_FN bool operator>=(__hip_bfloat16 a, __hip_bfloat16 b) { return __hge(a, b); }

#undef HIPMLIR_BF16_FN
#endif
