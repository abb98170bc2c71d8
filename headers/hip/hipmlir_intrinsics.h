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
__device__ inline float __int2float_rn(int x) { return (float)x; }
__device__ inline float __uint2float_rn(unsigned int x) { return (float)x; }
__device__ inline float __ll2float_rn(long long x) { return (float)x; }
__device__ inline double __int2double_rn(int x) { return (double)x; }
__device__ inline double __ll2double_rn(long long x) { return (double)x; }
__device__ inline float __double2float_rn(double x) { return (float)x; }

__device__ inline float __fadd_rn(float a, float b) { return a + b; }
__device__ inline float __fsub_rn(float a, float b) { return a - b; }
__device__ inline float __fmul_rn(float a, float b) { return a * b; }
__device__ inline float __fdiv_rn(float a, float b) { return a / b; }
__device__ inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
__device__ inline double __dadd_rn(double a, double b) { return a + b; }
__device__ inline double __dsub_rn(double a, double b) { return a - b; }
__device__ inline double __dmul_rn(double a, double b) { return a * b; }
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
#endif  // __HIP_DEVICE_COMPILE__

#endif  // HIPMLIR_INTRINSICS_H
