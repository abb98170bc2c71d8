// HIP's half precision: __half is the compiler's _Float16 (arithmetic, comparisons and
// conversions are the language's own, on the device and on the host), __half2 a pair of them.
// The intrinsics below are HIP's names for those operations. Devices need cl_khr_fp16: a kernel
// using half precision on a device without it fails its launch with hipErrorNoBinaryForGpu.
#ifndef HIPMLIR_HIP_FP16_H
#define HIPMLIR_HIP_FP16_H

#include "hip_runtime.h"

typedef _Float16 __half;
typedef __half half;

#define HIPMLIR_HALF_FN __host__ __device__ inline

// The bits of a half, and of a pair of halves (lane x in the low 16 bits), which converts both
// ways with __half2. (HIP's conversions between __half_raw and __half, the class there, are
// missing: __half is _Float16 here, and the device frontend does not compile conversion
// functions yet. __ushort_as_half(raw.x) and __half_as_ushort(h) do the same.)
struct __half_raw {
  unsigned short x;
};
struct __half2;
struct __attribute__((aligned(4))) __half2_raw {
  unsigned short x, y;
  __half2_raw() = default;
  HIPMLIR_HALF_FN constexpr __half2_raw(unsigned short lo, unsigned short hi) : x(lo), y(hi) {}
  HIPMLIR_HALF_FN __half2_raw(const __half2& h);
};

// Bit reinterpretation: pointer casts on the device (what hipmlir's frontend compiles), memcpy on
// the host (where a pointer cast would break strict aliasing).
#if defined(__HIP_DEVICE_COMPILE__)
#define HIPMLIR_HALF_BITCAST(To, From, name) \
  HIPMLIR_HALF_FN To name(From a) { return *reinterpret_cast<const To*>(&a); }
#else
#define HIPMLIR_HALF_BITCAST(To, From, name) \
  HIPMLIR_HALF_FN To name(From a) {          \
    To r;                                    \
    __builtin_memcpy(&r, &a, sizeof r);      \
    return r;                                \
  }
#endif
HIPMLIR_HALF_BITCAST(unsigned short, __half, __half_as_ushort)
HIPMLIR_HALF_BITCAST(short, __half, __half_as_short)
HIPMLIR_HALF_BITCAST(__half, unsigned short, __ushort_as_half)
HIPMLIR_HALF_BITCAST(__half, short, __short_as_half)
#undef HIPMLIR_HALF_BITCAST

// A pair of halves, as HIP's: built from two halves, from one (both lanes, as ROCm's constructor
// from its vector type splats a scalar: `static_cast<__half2>(3)` is (3, 3)), or from its bits;
// lane-wise arithmetic and compound assignment; comparisons true when both lanes compare true.
struct __attribute__((aligned(4))) __half2 {
  __half x, y;

  __half2() = default;
  HIPMLIR_HALF_FN constexpr __half2(__half a, __half b) : x(a), y(b) {}
  HIPMLIR_HALF_FN constexpr __half2(__half a) : x(a), y(a) {}
  HIPMLIR_HALF_FN __half2(const __half2_raw& r)
      : x(__ushort_as_half(r.x)), y(__ushort_as_half(r.y)) {}
  HIPMLIR_HALF_FN __half2& operator=(const __half2_raw& r) {
    x = __ushort_as_half(r.x);
    y = __ushort_as_half(r.y);
    return *this;
  }
  HIPMLIR_HALF_FN __half2& operator+=(const __half2& b) {
    x += b.x;
    y += b.y;
    return *this;
  }
  HIPMLIR_HALF_FN __half2& operator-=(const __half2& b) {
    x -= b.x;
    y -= b.y;
    return *this;
  }
  HIPMLIR_HALF_FN __half2& operator*=(const __half2& b) {
    x *= b.x;
    y *= b.y;
    return *this;
  }
  HIPMLIR_HALF_FN __half2& operator/=(const __half2& b) {
    x /= b.x;
    y /= b.y;
    return *this;
  }
};
typedef __half2 half2;

// Texel formats of half and half2 (hipCreateChannelDesc<T>(), hipmlir_texture_types.h).
template <>
inline hipChannelFormatDesc hipCreateChannelDesc<__half>() {
  return hipCreateChannelDesc(16, 0, 0, 0, hipChannelFormatKindFloat);
}
template <>
inline hipChannelFormatDesc hipCreateChannelDesc<__half2>() {
  return hipCreateChannelDesc(16, 16, 0, 0, hipChannelFormatKindFloat);
}
HIPMLIR_HALF_FN __half2_raw::__half2_raw(const __half2& h)
    : x(__half_as_ushort(h.x)), y(__half_as_ushort(h.y)) {}

HIPMLIR_HALF_FN __half2 operator+(const __half2& a) { return a; }
HIPMLIR_HALF_FN __half2 operator-(const __half2& a) { return __half2(-a.x, -a.y); }
HIPMLIR_HALF_FN __half2 operator+(const __half2& a, const __half2& b) {
  return __half2(a.x + b.x, a.y + b.y);
}
HIPMLIR_HALF_FN __half2 operator-(const __half2& a, const __half2& b) {
  return __half2(a.x - b.x, a.y - b.y);
}
HIPMLIR_HALF_FN __half2 operator*(const __half2& a, const __half2& b) {
  return __half2(a.x * b.x, a.y * b.y);
}
HIPMLIR_HALF_FN __half2 operator/(const __half2& a, const __half2& b) {
  return __half2(a.x / b.x, a.y / b.y);
}
HIPMLIR_HALF_FN bool operator==(const __half2& a, const __half2& b) {
  return a.x == b.x && a.y == b.y;
}
HIPMLIR_HALF_FN bool operator!=(const __half2& a, const __half2& b) { return !(a == b); }
HIPMLIR_HALF_FN bool operator<(const __half2& a, const __half2& b) {
  return a.x < b.x && a.y < b.y;
}
HIPMLIR_HALF_FN bool operator>(const __half2& a, const __half2& b) { return b < a; }
HIPMLIR_HALF_FN bool operator<=(const __half2& a, const __half2& b) { return !(b < a); }
HIPMLIR_HALF_FN bool operator>=(const __half2& a, const __half2& b) { return !(a < b); }


// Conversions. Rounding to nearest even is what a conversion does; the other modes go through
// float, which holds every half exactly.
HIPMLIR_HALF_FN __half __float2half(float a) { return (__half)a; }
HIPMLIR_HALF_FN __half __float2half_rn(float a) { return (__half)a; }
HIPMLIR_HALF_FN float __half2float(__half a) { return (float)a; }
HIPMLIR_HALF_FN __half __int2half_rn(int a) { return (__half)a; }
HIPMLIR_HALF_FN __half __uint2half_rn(unsigned int a) { return (__half)a; }
HIPMLIR_HALF_FN int __half2int_rz(__half a) { return (int)a; }
HIPMLIR_HALF_FN unsigned int __half2uint_rz(__half a) { return (unsigned int)a; }
HIPMLIR_HALF_FN __half2 make_half2(__half a, __half b) { return __half2(a, b); }
HIPMLIR_HALF_FN __half2 __float2half2_rn(float a) { return make_half2((__half)a, (__half)a); }
HIPMLIR_HALF_FN __half2 __floats2half2_rn(float a, float b) {
  return make_half2((__half)a, (__half)b);
}
HIPMLIR_HALF_FN __half2 __halves2half2(__half a, __half b) { return make_half2(a, b); }
HIPMLIR_HALF_FN float __low2float(__half2 a) { return (float)a.x; }
HIPMLIR_HALF_FN float __high2float(__half2 a) { return (float)a.y; }
HIPMLIR_HALF_FN __half __low2half(__half2 a) { return a.x; }
HIPMLIR_HALF_FN __half __high2half(__half2 a) { return a.y; }
HIPMLIR_HALF_FN __half2 __half2half2(__half a) { return __half2(a, a); }
HIPMLIR_HALF_FN __half2 __low2half2(__half2 a) { return __half2(a.x, a.x); }
HIPMLIR_HALF_FN __half2 __high2half2(__half2 a) { return __half2(a.y, a.y); }
HIPMLIR_HALF_FN __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
HIPMLIR_HALF_FN __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
HIPMLIR_HALF_FN __half2 __lowhigh2highlow(__half2 a) { return __half2(a.y, a.x); }

// Arithmetic and comparisons.
HIPMLIR_HALF_FN __half __hadd(__half a, __half b) { return a + b; }
HIPMLIR_HALF_FN __half __hsub(__half a, __half b) { return a - b; }
HIPMLIR_HALF_FN __half __hmul(__half a, __half b) { return a * b; }
HIPMLIR_HALF_FN __half __hdiv(__half a, __half b) { return a / b; }
HIPMLIR_HALF_FN __half __hneg(__half a) { return -a; }
HIPMLIR_HALF_FN __half __habs(__half a) { return a < (__half)0 ? -a : a; }
HIPMLIR_HALF_FN __half __hfma(__half a, __half b, __half c) {
  return (__half)((float)a * (float)b + (float)c);
}
HIPMLIR_HALF_FN __half __hmax(__half a, __half b) { return a > b ? a : b; }
HIPMLIR_HALF_FN __half __hmin(__half a, __half b) { return a < b ? a : b; }
HIPMLIR_HALF_FN bool __heq(__half a, __half b) { return a == b; }
HIPMLIR_HALF_FN bool __hne(__half a, __half b) { return a != b; }
HIPMLIR_HALF_FN bool __hlt(__half a, __half b) { return a < b; }
HIPMLIR_HALF_FN bool __hle(__half a, __half b) { return a <= b; }
HIPMLIR_HALF_FN bool __hgt(__half a, __half b) { return a > b; }
HIPMLIR_HALF_FN bool __hge(__half a, __half b) { return a >= b; }
HIPMLIR_HALF_FN __half2 __hadd2(__half2 a, __half2 b) { return make_half2(a.x + b.x, a.y + b.y); }
HIPMLIR_HALF_FN __half2 __hsub2(__half2 a, __half2 b) { return make_half2(a.x - b.x, a.y - b.y); }
HIPMLIR_HALF_FN __half2 __hmul2(__half2 a, __half2 b) { return make_half2(a.x * b.x, a.y * b.y); }
HIPMLIR_HALF_FN __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return make_half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
HIPMLIR_HALF_FN __half2 __h2div(__half2 a, __half2 b) { return make_half2(a.x / b.x, a.y / b.y); }
HIPMLIR_HALF_FN __half2 __hneg2(__half2 a) { return make_half2(-a.x, -a.y); }
HIPMLIR_HALF_FN __half2 __habs2(__half2 a) { return make_half2(__habs(a.x), __habs(a.y)); }
// Lane-wise comparisons: 1.0 where true, 0.0 where false.
#define HIPMLIR_HALF2_CMP(name, OP)                                                 \
  HIPMLIR_HALF_FN __half2 name(__half2 a, __half2 b) {                              \
    return make_half2(a.x OP b.x ? (__half)1 : (__half)0, a.y OP b.y ? (__half)1 : (__half)0); \
  }
HIPMLIR_HALF2_CMP(__heq2, ==)
HIPMLIR_HALF2_CMP(__hne2, !=)
HIPMLIR_HALF2_CMP(__hlt2, <)
HIPMLIR_HALF2_CMP(__hle2, <=)
HIPMLIR_HALF2_CMP(__hgt2, >)
HIPMLIR_HALF2_CMP(__hge2, >=)
#undef HIPMLIR_HALF2_CMP
HIPMLIR_HALF_FN float2 __half22float2(__half2 a) { return make_float2((float)a.x, (float)a.y); }
HIPMLIR_HALF_FN __half2 __float22half2_rn(float2 a) { return make_half2((__half)a.x, (__half)a.y); }

#undef HIPMLIR_HALF_FN
#endif  // HIPMLIR_HIP_FP16_H
