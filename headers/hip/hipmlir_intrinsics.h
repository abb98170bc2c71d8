// HIP's device intrinsics that are plain C++ over the math library (hipmlir_math.h), compiled
// like user code rather than lowered as builtins: bit reinterpretation, conversions with a
// rounding mode, the `_rn` arithmetic (round to nearest even is the default), high halves of
// products, 24-bit products, __sad, __ldg. (`__fsqrt_rn`, `__frsqrt_rn` and `__frcp_rn` are
// builtins, declared in hipmlir_math.h.)
#ifndef HIPMLIR_INTRINSICS_H
#define HIPMLIR_INTRINSICS_H

#if defined(__HIP_DEVICE_COMPILE__)
#include "hipmlir_math.h"
#define HIPMLIR_BITCAST(To, From, name)       \
  __device__ inline To name(From x) {          \
    return *reinterpret_cast<const To*>(&x); \
  }
HIPMLIR_BITCAST(float, int, __int_as_float)
HIPMLIR_BITCAST(float, unsigned int, __uint_as_float)
HIPMLIR_BITCAST(int, float, __float_as_int)
HIPMLIR_BITCAST(unsigned int, float, __float_as_uint)
HIPMLIR_BITCAST(double, long long, __longlong_as_double)
HIPMLIR_BITCAST(long long, double, __double_as_longlong)
#undef HIPMLIR_BITCAST

#define HIPMLIR_CONVERT(To, From, suffix, T, f)                                    \
  __device__ inline To __##From##2##suffix##_rn(T x) { return (To)rint##f(x); }   \
  __device__ inline To __##From##2##suffix##_rz(T x) { return (To)x; }            \
  __device__ inline To __##From##2##suffix##_rd(T x) { return (To)floor##f(x); }  \
  __device__ inline To __##From##2##suffix##_ru(T x) { return (To)ceil##f(x); }
HIPMLIR_CONVERT(int, float, int, float, f)
HIPMLIR_CONVERT(unsigned int, float, uint, float, f)
HIPMLIR_CONVERT(long long, float, ll, float, f)
HIPMLIR_CONVERT(unsigned long long, float, ull, float, f)
HIPMLIR_CONVERT(int, double, int, double, )
HIPMLIR_CONVERT(unsigned int, double, uint, double, )
HIPMLIR_CONVERT(long long, double, ll, double, )
HIPMLIR_CONVERT(unsigned long long, double, ull, double, )
#undef HIPMLIR_CONVERT
__device__ inline double __int2double_rn(int x) { return (double)x; }

// Rounded on their own: never fused with a neighbouring operation into an FMA, as CUDA and HIP
// define them (the rest of device code may be, as hipcc compiles it).
__device__ inline float __fadd_rn(float a, float b) {
#pragma clang fp contract(off)
  return a + b;
}
__device__ inline float __fsub_rn(float a, float b) {
#pragma clang fp contract(off)
  return a - b;
}
__device__ inline float __fmul_rn(float a, float b) {
#pragma clang fp contract(off)
  return a * b;
}
__device__ inline float __fdiv_rn(float a, float b) { return a / b; }
__device__ inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
__device__ inline double __dadd_rn(double a, double b) {
#pragma clang fp contract(off)
  return a + b;
}
__device__ inline double __dsub_rn(double a, double b) {
#pragma clang fp contract(off)
  return a - b;
}
__device__ inline double __dmul_rn(double a, double b) {
#pragma clang fp contract(off)
  return a * b;
}
__device__ inline double __ddiv_rn(double a, double b) { return a / b; }
__device__ inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
__device__ inline float __saturatef(float x) { return fminf(fmaxf(x, 0.0f), 1.0f); }

__device__ inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
__device__ inline unsigned int __umulhi(unsigned int a, unsigned int b) {
  return (unsigned int)(((unsigned long long)a * b) >> 32);
}
__device__ inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  unsigned long long a_lo = a & 0xffffffffull, a_hi = a >> 32;
  unsigned long long b_lo = b & 0xffffffffull, b_hi = b >> 32;
  unsigned long long lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi;
  unsigned long long cross = (lo_lo >> 32) + (hi_lo & 0xffffffffull) + lo_hi;
  return a_hi * b_hi + (hi_lo >> 32) + (cross >> 32);
}
__device__ inline long long __mul64hi(long long a, long long b) {
  unsigned long long high = __umul64hi((unsigned long long)a, (unsigned long long)b);
  // The signed high half: subtract the other operand for each negative one.
  if (a < 0) high -= (unsigned long long)b;
  if (b < 0) high -= (unsigned long long)a;
  return (long long)high;
}
// The low 32 bits of the product of the sign-extended low 24 bits (unsigned: no overflow).
__device__ inline int __mul24(int a, int b) {
  return (int)((unsigned int)((a << 8) >> 8) * (unsigned int)((b << 8) >> 8));
}
__device__ inline unsigned int __umul24(unsigned int a, unsigned int b) {
  return (a & 0xffffffu) * (b & 0xffffffu);
}
__device__ inline unsigned int __sad(int x, int y, unsigned int z) {
  return (x > y ? (unsigned int)x - (unsigned int)y : (unsigned int)y - (unsigned int)x) + z;
}
__device__ inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) {
  return (x > y ? x - y : y - x) + z;
}
template <typename T>
__device__ inline T __ldg(const T* p) {
  return *p;
}

// Conversions to a narrower floating type with a rounding mode: the nearest value, stepped once
// toward the wanted direction when it lies on the wrong side. The comparison is exact: in double
// for floats and 32-bit integers, in the integer type for 64-bit integers (a rounded value at or
// beyond 2^63, or 2^64, exceeds every source value).
__device__ inline bool __hipmlir_above(double r, double x) { return r > x; }
__device__ inline bool __hipmlir_below(double r, double x) { return r < x; }
__device__ inline bool __hipmlir_above(double r, long long x) {
  return r >= 9223372036854775808.0 ? true : (long long)r > x;
}
__device__ inline bool __hipmlir_below(double r, long long x) {
  return r >= 9223372036854775808.0 ? false : (long long)r < x;
}
__device__ inline bool __hipmlir_above(double r, unsigned long long x) {
  return r >= 18446744073709551616.0 ? true : (unsigned long long)r > x;
}
__device__ inline bool __hipmlir_below(double r, unsigned long long x) {
  return r >= 18446744073709551616.0 ? false : (unsigned long long)r < x;
}
#define HIPMLIR_ROUNDED(To, From, Exact, name, f)                                            \
  __device__ inline To name##_rn(From x) { return (To)x; }                                   \
  __device__ inline To name##_rd(From x) {                                                   \
    To r = (To)x;                                                                            \
    return __hipmlir_above((double)r, (Exact)x) ? nextafter##f(r, -(To)HUGE_VAL) : r;        \
  }                                                                                          \
  __device__ inline To name##_ru(From x) {                                                   \
    To r = (To)x;                                                                            \
    return __hipmlir_below((double)r, (Exact)x) ? nextafter##f(r, (To)HUGE_VAL) : r;         \
  }                                                                                          \
  __device__ inline To name##_rz(From x) {                                                   \
    return x < (From)0 ? name##_ru(x) : name##_rd(x);                                        \
  }
HIPMLIR_ROUNDED(float, double, double, __double2float, f)
HIPMLIR_ROUNDED(float, int, double, __int2float, f)
HIPMLIR_ROUNDED(float, unsigned int, double, __uint2float, f)
HIPMLIR_ROUNDED(float, long long, long long, __ll2float, f)
HIPMLIR_ROUNDED(float, unsigned long long, unsigned long long, __ull2float, f)
HIPMLIR_ROUNDED(double, long long, long long, __ll2double, )
HIPMLIR_ROUNDED(double, unsigned long long, unsigned long long, __ull2double, )
#undef HIPMLIR_ROUNDED
__device__ inline double __uint2double_rn(unsigned int x) { return (double)x; }

// The halves of a double's representation, and a double from them.
__device__ inline int __double2hiint(double x) {
  return (int)(__double_as_longlong(x) >> 32);
}
__device__ inline int __double2loint(double x) { return (int)__double_as_longlong(x); }
__device__ inline double __hiloint2double(int hi, int lo) {
  return __longlong_as_double(
      (long long)(((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo));
}

// Integer intrinsics.
// __byte_perm: byte i of the result is byte (selector nibble i & 7) of the 8 bytes y:x.
__device__ inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned int r = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned int sel = (s >> (4 * i)) & 7u;
    r |= (unsigned int)((v >> (8 * sel)) & 0xffull) << (8 * i);
  }
  return r;
}
// Funnel shifts of the 64 bits hi:lo: the shift taken mod 32, or clamped to 32 (_lc, _rc).
__device__ inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi,
                                               unsigned int shift) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned int)((v << (shift & 31u)) >> 32);
}
__device__ inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi,
                                                unsigned int shift) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned int)((v << (shift < 32u ? shift : 32u)) >> 32);
}
__device__ inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi,
                                               unsigned int shift) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned int)(v >> (shift & 31u));
}
__device__ inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi,
                                                unsigned int shift) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned int)(v >> (shift < 32u ? shift : 32u));
}
// Bit fields: `width` bits at `offset` (each taken mod the word size).
__device__ inline unsigned int __bitextract_u32(unsigned int src, unsigned int offset,
                                                unsigned int width) {
  offset &= 31u;
  width &= 31u;
  return width == 0u ? 0u : (src >> offset) & ((1u << width) - 1u);
}
__device__ inline unsigned long long __bitextract_u64(unsigned long long src, unsigned int offset,
                                                      unsigned int width) {
  offset &= 63u;
  width &= 63u;
  return width == 0u ? 0ull : (src >> offset) & ((1ull << width) - 1ull);
}
__device__ inline unsigned int __bitinsert_u32(unsigned int src0, unsigned int src1,
                                               unsigned int offset, unsigned int width) {
  offset &= 31u;
  width &= 31u;
  unsigned int mask = ((1u << width) - 1u) << offset;
  return (src0 & ~mask) | ((src1 << offset) & mask);
}
__device__ inline unsigned long long __bitinsert_u64(unsigned long long src0,
                                                     unsigned long long src1,
                                                     unsigned long long offset,
                                                     unsigned long long width) {
  offset &= 63ull;
  width &= 63ull;
  unsigned long long mask = ((1ull << width) - 1ull) << offset;
  return (src0 & ~mask) | ((src1 << offset) & mask);
}
// Averages without overflow: rounded down (__hadd) or up (__rhadd).
__device__ inline int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
__device__ inline int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
__device__ inline unsigned int __uhadd(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x + y) >> 1);
}
__device__ inline unsigned int __urhadd(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x + y + 1) >> 1);
}
__device__ inline int __ffs(unsigned int x) { return __ffs((int)x); }
__device__ inline int __ffsll(unsigned long long x) { return __ffsll((long long)x); }
__device__ inline int __popcll(long long x) { return __popcll((unsigned long long)x); }
#endif  // __HIP_DEVICE_COMPILE__

#endif  // HIPMLIR_INTRINSICS_H
