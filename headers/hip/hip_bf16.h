// HIP's bfloat16: __hip_bfloat16 holds the upper 16 bits of a float (8 exponent bits, 7 mantissa
// bits); arithmetic is done in float and rounded back to nearest even, as ROCm's does without
// native bfloat16 instructions. __hip_bfloat162 is a pair (x the low lane).
#ifndef HIPMLIR_HIP_BF16_H
#define HIPMLIR_HIP_BF16_H

#include "hip_runtime.h"

#define HIPMLIR_BF16_FN __host__ __device__ static inline

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

// Rounds a float to bfloat16's bits, to nearest, ties to even; a NaN stays a (quiet) NaN of the
// same sign.
HIPMLIR_BF16_FN unsigned short __hipmlir_float2bf16_bits(float f) {
  unsigned int u = __hipmlir_float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<unsigned short>(u >> 16);
}
// A double to bfloat16's bits, rounded once: the double is first cut to a float toward zero with
// the lowest bit set when anything was cut ("round to odd"), which a float's extra 16 bits make
// exact for the rounding that follows.
HIPMLIR_BF16_FN unsigned short __hipmlir_double2bf16_bits(double d) {
  float f = (float)d;
  if (d != d) return __hipmlir_float2bf16_bits(f);
  if ((double)f != d) {
    if (f > 0.0f ? (double)f > d : (double)f < d) f = nextafterf(f, 0.0f);
    unsigned int u = __hipmlir_float_bits(f) | 1u;
    f = __hipmlir_bits_float(u);
  }
  return __hipmlir_float2bf16_bits(f);
}

// The bits of a bfloat16, and of a pair.
struct __hip_bfloat16_raw {
  unsigned short x;
};
struct __attribute__((aligned(4))) __hip_bfloat162_raw {
  unsigned short x;
  unsigned short y;
};

// A bfloat16 value: built from a float, a double or an integer (rounded to nearest even) or from
// its bits (__hip_bfloat16_raw); converts to float and to its bits. `data` holds the bits.
struct __attribute__((aligned(2))) __hip_bfloat16 {
  unsigned short data;

  __hip_bfloat16() = default;
  __host__ __device__ constexpr __hip_bfloat16(const __hip_bfloat16_raw& r) : data(r.x) {}
  __host__ __device__ __hip_bfloat16(float f) : data(__hipmlir_float2bf16_bits(f)) {}
  __host__ __device__ __hip_bfloat16(double d) : data(__hipmlir_double2bf16_bits(d)) {}
  // Integers through double (exact for 32-bit ones), then rounded once.
  template <class I, class = typename __hipmlir_enable_if<std::is_integral<I>::value>::type>
  __host__ __device__ __hip_bfloat16(I i) : data(__hipmlir_double2bf16_bits((double)i)) {}
  __host__ __device__ __hip_bfloat16& operator=(const __hip_bfloat16_raw& r) {
    data = r.x;
    return *this;
  }
  __host__ __device__ __hip_bfloat16& operator=(float f) {
    data = __hipmlir_float2bf16_bits(f);
    return *this;
  }
  __host__ __device__ operator float() const {
    return __hipmlir_bits_float(static_cast<unsigned int>(data) << 16);
  }
  __host__ __device__ operator __hip_bfloat16_raw() const {
    __hip_bfloat16_raw r;
    r.x = data;
    return r;
  }
};
struct __attribute__((aligned(4))) __hip_bfloat162 {
  __hip_bfloat16 x, y;

  __hip_bfloat162() = default;
  __host__ __device__ __hip_bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) : x(a), y(b) {}
  __host__ __device__ __hip_bfloat162(const __hip_bfloat162_raw& r) {
    x.data = r.x;
    y.data = r.y;
  }
  __host__ __device__ operator __hip_bfloat162_raw() const {
    __hip_bfloat162_raw r;
    r.x = x.data;
    r.y = y.data;
    return r;
  }
};
typedef __hip_bfloat16 hip_bfloat16_raw;

// ---- conversions ----
HIPMLIR_BF16_FN float __bfloat162float(__hip_bfloat16 a) { return (float)a; }
HIPMLIR_BF16_FN __hip_bfloat16 __ushort_as_bfloat16(unsigned short u) {
  __hip_bfloat16 r;
  r.data = u;
  return r;
}
HIPMLIR_BF16_FN __hip_bfloat16 __short_as_bfloat16(short s) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(s));
}
HIPMLIR_BF16_FN unsigned short __bfloat16_as_ushort(__hip_bfloat16 a) { return a.data; }
HIPMLIR_BF16_FN short __bfloat16_as_short(__hip_bfloat16 a) { return static_cast<short>(a.data); }
HIPMLIR_BF16_FN __hip_bfloat16 __float2bfloat16(float f) {
  return __ushort_as_bfloat16(__hipmlir_float2bf16_bits(f));
}
HIPMLIR_BF16_FN __hip_bfloat16 __float2bfloat16_rn(float f) { return __float2bfloat16(f); }
HIPMLIR_BF16_FN __hip_bfloat16 __double2bfloat16(double d) {
  return __ushort_as_bfloat16(__hipmlir_double2bf16_bits(d));
}

HIPMLIR_BF16_FN __hip_bfloat162 __halves2bfloat162(__hip_bfloat16 lo, __hip_bfloat16 hi) {
  return __hip_bfloat162(lo, hi);
}
HIPMLIR_BF16_FN __hip_bfloat162 __bfloat162bfloat162(__hip_bfloat16 a) {
  return __halves2bfloat162(a, a);
}
HIPMLIR_BF16_FN __hip_bfloat16 __low2bfloat16(__hip_bfloat162 a) { return a.x; }
HIPMLIR_BF16_FN __hip_bfloat16 __high2bfloat16(__hip_bfloat162 a) { return a.y; }
HIPMLIR_BF16_FN __hip_bfloat162 __low2bfloat162(__hip_bfloat162 a) {
  return __halves2bfloat162(a.x, a.x);
}
HIPMLIR_BF16_FN __hip_bfloat162 __high2bfloat162(__hip_bfloat162 a) {
  return __halves2bfloat162(a.y, a.y);
}
HIPMLIR_BF16_FN __hip_bfloat162 __lows2bfloat162(__hip_bfloat162 a, __hip_bfloat162 b) {
  return __halves2bfloat162(a.x, b.x);
}
HIPMLIR_BF16_FN __hip_bfloat162 __highs2bfloat162(__hip_bfloat162 a, __hip_bfloat162 b) {
  return __halves2bfloat162(a.y, b.y);
}
HIPMLIR_BF16_FN __hip_bfloat162 __lowhigh2highlow(__hip_bfloat162 a) {
  return __halves2bfloat162(a.y, a.x);
}
HIPMLIR_BF16_FN float __low2float(__hip_bfloat162 a) { return (float)a.x; }
HIPMLIR_BF16_FN float __high2float(__hip_bfloat162 a) { return (float)a.y; }
HIPMLIR_BF16_FN float2 __bfloat1622float2(__hip_bfloat162 a) {
  return make_float2((float)a.x, (float)a.y);
}
HIPMLIR_BF16_FN __hip_bfloat162 __float22bfloat162_rn(float2 f) {
  return __halves2bfloat162(__float2bfloat16(f.x), __float2bfloat16(f.y));
}
HIPMLIR_BF16_FN __hip_bfloat162 __floats2bfloat162_rn(float lo, float hi) {
  return __halves2bfloat162(__float2bfloat16(lo), __float2bfloat16(hi));
}
HIPMLIR_BF16_FN __hip_bfloat162 __float2bfloat162_rn(float f) {
  return __bfloat162bfloat162(__float2bfloat16(f));
}

// ---- arithmetic ----
// Through float, rounded once (a bfloat16 sum, difference or product is exact in float; a
// quotient in float is correctly rounded, and float's 24 bits keep the rounding to 8 bits right;
// the fused multiply-add is exact in double, then rounded once).
#define HIPMLIR_BF16_BINARY(name, op)                                                      \
  HIPMLIR_BF16_FN __hip_bfloat16 name(__hip_bfloat16 a, __hip_bfloat16 b) {                \
    return __float2bfloat16((float)a op (float)b);                                         \
  }                                                                                        \
  HIPMLIR_BF16_FN __hip_bfloat162 name##2(__hip_bfloat162 a, __hip_bfloat162 b) {          \
    return __halves2bfloat162(name(a.x, b.x), name(a.y, b.y));                             \
  }
HIPMLIR_BF16_BINARY(__hadd, +)
HIPMLIR_BF16_BINARY(__hsub, -)
HIPMLIR_BF16_BINARY(__hmul, *)
HIPMLIR_BF16_BINARY(__hdiv, /)
#undef HIPMLIR_BF16_BINARY
HIPMLIR_BF16_FN __hip_bfloat162 __h2div(__hip_bfloat162 a, __hip_bfloat162 b) {
  return __hdiv2(a, b);
}
HIPMLIR_BF16_FN __hip_bfloat16 __hfma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) {
  return __double2bfloat16((double)(float)a * (double)(float)b + (double)(float)c);
}
HIPMLIR_BF16_FN __hip_bfloat162 __hfma2(__hip_bfloat162 a, __hip_bfloat162 b,
                                        __hip_bfloat162 c) {
  return __halves2bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
HIPMLIR_BF16_FN __hip_bfloat16 __hneg(__hip_bfloat16 a) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(a.data ^ 0x8000u));
}
HIPMLIR_BF16_FN __hip_bfloat16 __habs(__hip_bfloat16 a) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(a.data & 0x7fffu));
}
HIPMLIR_BF16_FN __hip_bfloat162 __hneg2(__hip_bfloat162 a) {
  return __halves2bfloat162(__hneg(a.x), __hneg(a.y));
}
HIPMLIR_BF16_FN __hip_bfloat162 __habs2(__hip_bfloat162 a) {
  return __halves2bfloat162(__habs(a.x), __habs(a.y));
}

// ---- comparisons ----
// Ordered (false when either is NaN), and unordered (__h*u: true when either is NaN).
#define HIPMLIR_BF16_COMPARE(name, expr)                                                   \
  HIPMLIR_BF16_FN bool name(__hip_bfloat16 a, __hip_bfloat16 b) {                          \
    float x = (float)a, y = (float)b;                                                      \
    return expr;                                                                           \
  }
HIPMLIR_BF16_COMPARE(__heq, x == y)
HIPMLIR_BF16_COMPARE(__hne, x < y || x > y)
HIPMLIR_BF16_COMPARE(__hlt, x < y)
HIPMLIR_BF16_COMPARE(__hle, x <= y)
HIPMLIR_BF16_COMPARE(__hgt, x > y)
HIPMLIR_BF16_COMPARE(__hge, x >= y)
HIPMLIR_BF16_COMPARE(__hequ, !(x < y || x > y))
HIPMLIR_BF16_COMPARE(__hneu, !(x == y))
HIPMLIR_BF16_COMPARE(__hltu, !(x >= y))
HIPMLIR_BF16_COMPARE(__hleu, !(x > y))
HIPMLIR_BF16_COMPARE(__hgtu, !(x <= y))
HIPMLIR_BF16_COMPARE(__hgeu, !(x < y))
#undef HIPMLIR_BF16_COMPARE
// Lane-wise comparisons (__heq2 ...): 1.0 where true, 0.0 where false; __hbeq2 ...: whether both
// lanes are true.
#define HIPMLIR_BF16_PAIR_COMPARE(suffix, scalar)                                          \
  HIPMLIR_BF16_FN __hip_bfloat162 __h##suffix(__hip_bfloat162 a, __hip_bfloat162 b) {      \
    return __halves2bfloat162(__float2bfloat16(scalar(a.x, b.x) ? 1.0f : 0.0f),            \
                              __float2bfloat16(scalar(a.y, b.y) ? 1.0f : 0.0f));           \
  }                                                                                        \
  HIPMLIR_BF16_FN bool __hb##suffix(__hip_bfloat162 a, __hip_bfloat162 b) {                \
    return scalar(a.x, b.x) && scalar(a.y, b.y);                                           \
  }
HIPMLIR_BF16_PAIR_COMPARE(eq2, __heq)
HIPMLIR_BF16_PAIR_COMPARE(ne2, __hne)
HIPMLIR_BF16_PAIR_COMPARE(lt2, __hlt)
HIPMLIR_BF16_PAIR_COMPARE(le2, __hle)
HIPMLIR_BF16_PAIR_COMPARE(gt2, __hgt)
HIPMLIR_BF16_PAIR_COMPARE(ge2, __hge)
HIPMLIR_BF16_PAIR_COMPARE(equ2, __hequ)
HIPMLIR_BF16_PAIR_COMPARE(neu2, __hneu)
HIPMLIR_BF16_PAIR_COMPARE(ltu2, __hltu)
HIPMLIR_BF16_PAIR_COMPARE(leu2, __hleu)
HIPMLIR_BF16_PAIR_COMPARE(gtu2, __hgtu)
HIPMLIR_BF16_PAIR_COMPARE(geu2, __hgeu)
#undef HIPMLIR_BF16_PAIR_COMPARE
HIPMLIR_BF16_FN bool __hisnan(__hip_bfloat16 a) { return (a.data & 0x7fffu) > 0x7f80u; }
HIPMLIR_BF16_FN bool __hisinf(__hip_bfloat16 a) { return (a.data & 0x7fffu) == 0x7f80u; }
// The larger (smaller) of two, the number when one is NaN; the _nan forms give NaN then.
HIPMLIR_BF16_FN __hip_bfloat16 __hmax(__hip_bfloat16 a, __hip_bfloat16 b) {
  return __hgt(a, b) || __hisnan(b) ? a : b;
}
HIPMLIR_BF16_FN __hip_bfloat16 __hmin(__hip_bfloat16 a, __hip_bfloat16 b) {
  return __hlt(a, b) || __hisnan(b) ? a : b;
}
HIPMLIR_BF16_FN __hip_bfloat16 __hmax_nan(__hip_bfloat16 a, __hip_bfloat16 b) {
  return __hisnan(a) ? a : (__hisnan(b) ? b : (__hgt(a, b) ? a : b));
}
HIPMLIR_BF16_FN __hip_bfloat16 __hmin_nan(__hip_bfloat16 a, __hip_bfloat16 b) {
  return __hisnan(a) ? a : (__hisnan(b) ? b : (__hlt(a, b) ? a : b));
}
HIPMLIR_BF16_FN __hip_bfloat162 __hmax2(__hip_bfloat162 a, __hip_bfloat162 b) {
  return __halves2bfloat162(__hmax(a.x, b.x), __hmax(a.y, b.y));
}
HIPMLIR_BF16_FN __hip_bfloat162 __hmin2(__hip_bfloat162 a, __hip_bfloat162 b) {
  return __halves2bfloat162(__hmin(a.x, b.x), __hmin(a.y, b.y));
}

// ---- math ----
// Computed in float and rounded once to bfloat16.
#define HIPMLIR_BF16_MATH(hname, h2name, f)                                                \
  HIPMLIR_BF16_FN __hip_bfloat16 hname(__hip_bfloat16 a) {                                 \
    return __float2bfloat16(f((float)a));                                                  \
  }                                                                                        \
  HIPMLIR_BF16_FN __hip_bfloat162 h2name(__hip_bfloat162 a) {                              \
    return __halves2bfloat162(hname(a.x), hname(a.y));                                     \
  }
HIPMLIR_BF16_MATH(hsqrt, h2sqrt, sqrtf)
HIPMLIR_BF16_MATH(hrsqrt, h2rsqrt, rsqrtf)
HIPMLIR_BF16_MATH(hexp, h2exp, expf)
HIPMLIR_BF16_MATH(hexp2, h2exp2, exp2f)
HIPMLIR_BF16_MATH(hexp10, h2exp10, exp10f)
HIPMLIR_BF16_MATH(hlog, h2log, logf)
HIPMLIR_BF16_MATH(hlog2, h2log2, log2f)
HIPMLIR_BF16_MATH(hlog10, h2log10, log10f)
HIPMLIR_BF16_MATH(hsin, h2sin, sinf)
HIPMLIR_BF16_MATH(hcos, h2cos, cosf)
HIPMLIR_BF16_MATH(hceil, h2ceil, ceilf)
HIPMLIR_BF16_MATH(hfloor, h2floor, floorf)
HIPMLIR_BF16_MATH(htrunc, h2trunc, truncf)
HIPMLIR_BF16_MATH(hrint, h2rint, rintf)
#undef HIPMLIR_BF16_MATH
HIPMLIR_BF16_FN __hip_bfloat16 hrcp(__hip_bfloat16 a) {
  return __float2bfloat16(1.0f / (float)a);
}
HIPMLIR_BF16_FN __hip_bfloat162 h2rcp(__hip_bfloat162 a) {
  return __halves2bfloat162(hrcp(a.x), hrcp(a.y));
}

// ---- operators ----
HIPMLIR_BF16_FN __hip_bfloat16 operator+(__hip_bfloat16 a, __hip_bfloat16 b) { return __hadd(a, b); }
HIPMLIR_BF16_FN __hip_bfloat16 operator-(__hip_bfloat16 a, __hip_bfloat16 b) { return __hsub(a, b); }
HIPMLIR_BF16_FN __hip_bfloat16 operator*(__hip_bfloat16 a, __hip_bfloat16 b) { return __hmul(a, b); }
HIPMLIR_BF16_FN __hip_bfloat16 operator/(__hip_bfloat16 a, __hip_bfloat16 b) { return __hdiv(a, b); }
HIPMLIR_BF16_FN __hip_bfloat16 operator-(__hip_bfloat16 a) { return __hneg(a); }
HIPMLIR_BF16_FN __hip_bfloat16 operator+(__hip_bfloat16 a) { return a; }
HIPMLIR_BF16_FN __hip_bfloat16& operator+=(__hip_bfloat16& a, __hip_bfloat16 b) {
  a = __hadd(a, b);
  return a;
}
HIPMLIR_BF16_FN __hip_bfloat16& operator-=(__hip_bfloat16& a, __hip_bfloat16 b) {
  a = __hsub(a, b);
  return a;
}
HIPMLIR_BF16_FN __hip_bfloat16& operator*=(__hip_bfloat16& a, __hip_bfloat16 b) {
  a = __hmul(a, b);
  return a;
}
HIPMLIR_BF16_FN __hip_bfloat16& operator/=(__hip_bfloat16& a, __hip_bfloat16 b) {
  a = __hdiv(a, b);
  return a;
}
HIPMLIR_BF16_FN bool operator==(__hip_bfloat16 a, __hip_bfloat16 b) { return __heq(a, b); }
HIPMLIR_BF16_FN bool operator!=(__hip_bfloat16 a, __hip_bfloat16 b) { return __hneu(a, b); }
HIPMLIR_BF16_FN bool operator<(__hip_bfloat16 a, __hip_bfloat16 b) { return __hlt(a, b); }
HIPMLIR_BF16_FN bool operator<=(__hip_bfloat16 a, __hip_bfloat16 b) { return __hle(a, b); }
HIPMLIR_BF16_FN bool operator>(__hip_bfloat16 a, __hip_bfloat16 b) { return __hgt(a, b); }
HIPMLIR_BF16_FN bool operator>=(__hip_bfloat16 a, __hip_bfloat16 b) { return __hge(a, b); }
HIPMLIR_BF16_FN __hip_bfloat162 operator+(__hip_bfloat162 a, __hip_bfloat162 b) {
  return __hadd2(a, b);
}
HIPMLIR_BF16_FN __hip_bfloat162 operator-(__hip_bfloat162 a, __hip_bfloat162 b) {
  return __hsub2(a, b);
}
HIPMLIR_BF16_FN __hip_bfloat162 operator*(__hip_bfloat162 a, __hip_bfloat162 b) {
  return __hmul2(a, b);
}
HIPMLIR_BF16_FN __hip_bfloat162 operator/(__hip_bfloat162 a, __hip_bfloat162 b) {
  return __hdiv2(a, b);
}
HIPMLIR_BF16_FN __hip_bfloat162 operator-(__hip_bfloat162 a) { return __hneg2(a); }

#undef HIPMLIR_BF16_FN
#endif
