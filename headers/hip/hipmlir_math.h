// HIP's device math API, declared for device code. hipmlir lowers each call to the matching
// OpenCL.std instruction (or a math-dialect op that becomes one); host code keeps <cmath>.
#ifndef HIPMLIR_MATH_H
#define HIPMLIR_MATH_H

#if defined(__HIP_DEVICE_COMPILE__)
// hipmlir's frontend includes this header before the user's code (as clang's HIP driver does
// with its wrapper header), so these device declarations come before <math.h> and <cmath>
// redeclare the same C functions: calls from device code then find the device function, and
// libstdc++'s float overloads (std::sqrt(float)) are constexpr, hence callable on the device.
extern "C" {
#define HIPMLIR_MATH1(name)          \
  __device__ float name##f(float x); \
  __device__ double name(double x);
#define HIPMLIR_MATH2(name)                   \
  __device__ float name##f(float x, float y); \
  __device__ double name(double x, double y);
HIPMLIR_MATH1(sqrt)
HIPMLIR_MATH1(rsqrt)
HIPMLIR_MATH1(cbrt)
HIPMLIR_MATH1(exp)
HIPMLIR_MATH1(exp2)
HIPMLIR_MATH1(exp10)
HIPMLIR_MATH1(expm1)
HIPMLIR_MATH1(log)
HIPMLIR_MATH1(log2)
HIPMLIR_MATH1(log10)
HIPMLIR_MATH1(log1p)
HIPMLIR_MATH1(logb)
HIPMLIR_MATH1(sin)
HIPMLIR_MATH1(cos)
HIPMLIR_MATH1(tan)
HIPMLIR_MATH1(sinpi)
HIPMLIR_MATH1(cospi)
HIPMLIR_MATH1(asin)
HIPMLIR_MATH1(acos)
HIPMLIR_MATH1(atan)
HIPMLIR_MATH1(sinh)
HIPMLIR_MATH1(cosh)
HIPMLIR_MATH1(tanh)
HIPMLIR_MATH1(asinh)
HIPMLIR_MATH1(acosh)
HIPMLIR_MATH1(atanh)
HIPMLIR_MATH1(erf)
HIPMLIR_MATH1(erfc)
HIPMLIR_MATH1(tgamma)
HIPMLIR_MATH1(lgamma)
HIPMLIR_MATH1(fabs)
HIPMLIR_MATH1(floor)
HIPMLIR_MATH1(ceil)
HIPMLIR_MATH1(round)
HIPMLIR_MATH1(trunc)
HIPMLIR_MATH1(rint)
HIPMLIR_MATH1(nearbyint)
HIPMLIR_MATH2(pow)
HIPMLIR_MATH2(atan2)
HIPMLIR_MATH2(fmin)
HIPMLIR_MATH2(fmax)
// C23's fmax and fmin of _Float16: hip_fp16.h's __hmax and __hmin (__builtin_fmaxf16).
__device__ _Float16 fmaxf16(_Float16 x, _Float16 y);
__device__ _Float16 fminf16(_Float16 x, _Float16 y);
HIPMLIR_MATH2(fmod)
HIPMLIR_MATH2(remainder)
HIPMLIR_MATH2(hypot)
HIPMLIR_MATH2(copysign)
HIPMLIR_MATH2(fdim)
HIPMLIR_MATH2(nextafter)
#undef HIPMLIR_MATH1
#undef HIPMLIR_MATH2
__device__ float fmaf(float x, float y, float z);
__device__ double fma(double x, double y, double z);
__device__ float ldexpf(float x, int e);
__device__ double ldexp(double x, int e);
__device__ void sincosf(float x, float* s, float* c);
__device__ void sincos(double x, double* s, double* c);
__device__ int abs(int a);
__device__ long labs(long a);
__device__ long long llabs(long long a);
}  // extern "C"

// Fast intrinsics, within the error bounds HIP documents for them on every device: PTX's
// approximate instructions (as nvcc's), on SPIR-V OpenCL's full-precision functions (a device's
// native_* functions may miss the bounds by far).
__device__ float __expf(float x);
__device__ float __exp10f(float x);
__device__ float __logf(float x);
__device__ float __log2f(float x);
__device__ float __log10f(float x);
__device__ float __sinf(float x);
__device__ float __cosf(float x);
__device__ float __tanf(float x);
__device__ float __powf(float x, float y);
__device__ float __fdividef(float x, float y);

// HIP's min and max overloads.
__device__ int min(int a, int b);
__device__ unsigned int min(unsigned int a, unsigned int b);
__device__ long min(long a, long b);
__device__ unsigned long min(unsigned long a, unsigned long b);
__device__ long long min(long long a, long long b);
__device__ unsigned long long min(unsigned long long a, unsigned long long b);
__device__ float min(float a, float b);
__device__ double min(double a, double b);
__device__ int max(int a, int b);
__device__ unsigned int max(unsigned int a, unsigned int b);
__device__ long max(long a, long b);
__device__ unsigned long max(unsigned long a, unsigned long b);
__device__ long long max(long long a, long long b);
__device__ unsigned long long max(unsigned long long a, unsigned long long b);
__device__ float max(float a, float b);
__device__ double max(double a, double b);
__device__ unsigned int umin(unsigned int a, unsigned int b);
__device__ unsigned int umax(unsigned int a, unsigned int b);
__device__ long long llmin(long long a, long long b);
__device__ long long llmax(long long a, long long b);
__device__ unsigned long long ullmin(unsigned long long a, unsigned long long b);
__device__ unsigned long long ullmax(unsigned long long a, unsigned long long b);

// Bit manipulation.
__device__ int __popc(unsigned int x);
__device__ int __popcll(unsigned long long x);
__device__ int __clz(int x);
__device__ int __clzll(long long x);
__device__ int __ffs(int x);
__device__ int __ffsll(long long x);
__device__ unsigned int __brev(unsigned int x);
__device__ unsigned long long __brevll(unsigned long long x);
// Byte i of the result is byte (selector nibble i & 7) of the 8 bytes y:x (selector bits 16
// and up unused): PTX's prmt.b32 on NVPTX, shifts and masks on SPIR-V.
__device__ unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s);

// A half's bits and the half of some bits (hip_fp16.h's __half_as_ushort, __ushort_as_half).
__device__ unsigned short __hipmlir_half_as_ushort(_Float16 h);
__device__ _Float16 __hipmlir_ushort_as_half(unsigned short u);

// Both halves of a __half2 at once, its bits in and out (lane x low): hip_fp16.h's __hadd2,
// __hsub2, __hmul2, __hmax2 and __hmin2 (fmax and fmin lane by lane).
__device__ unsigned int __hipmlir_f16x2_add(unsigned int a, unsigned int b);
__device__ unsigned int __hipmlir_f16x2_sub(unsigned int a, unsigned int b);
__device__ unsigned int __hipmlir_f16x2_mul(unsigned int a, unsigned int b);
__device__ unsigned int __hipmlir_f16x2_max(unsigned int a, unsigned int b);
__device__ unsigned int __hipmlir_f16x2_min(unsigned int a, unsigned int b);
#endif  // __HIP_DEVICE_COMPILE__

#endif  // HIPMLIR_MATH_H
