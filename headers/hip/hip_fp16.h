// HIP's half precision: __half is the compiler's _Float16 (arithmetic, comparisons and
// conversions are the language's own, on the device and on the host), __half2 a pair of them.
// The intrinsics below are HIP's names for those operations. Devices need cl_khr_fp16: a kernel
// using half precision on a device without it fails its launch with hipErrorNoBinaryForGpu.
#ifndef HIPMLIR_HIP_FP16_H
#define HIPMLIR_HIP_FP16_H

#include "hip_runtime.h"

typedef _Float16 __half;
typedef __half half;

struct __attribute__((aligned(4))) __half2 {
  __half x, y;
};
typedef __half2 half2;

#define HIPMLIR_HALF_FN __host__ __device__ inline

// Conversions. Rounding to nearest even is what a conversion does; the other modes go through
// float, which holds every half exactly.
HIPMLIR_HALF_FN __half __float2half(float a) { return (__half)a; }
HIPMLIR_HALF_FN __half __float2half_rn(float a) { return (__half)a; }
HIPMLIR_HALF_FN float __half2float(__half a) { return (float)a; }
HIPMLIR_HALF_FN __half __int2half_rn(int a) { return (__half)a; }
HIPMLIR_HALF_FN __half __uint2half_rn(unsigned int a) { return (__half)a; }
HIPMLIR_HALF_FN int __half2int_rz(__half a) { return (int)a; }
HIPMLIR_HALF_FN unsigned int __half2uint_rz(__half a) { return (unsigned int)a; }
HIPMLIR_HALF_FN __half2 make_half2(__half a, __half b) {
  __half2 r = {a, b};
  return r;
}
HIPMLIR_HALF_FN __half2 __float2half2_rn(float a) { return make_half2((__half)a, (__half)a); }
HIPMLIR_HALF_FN __half2 __floats2half2_rn(float a, float b) {
  return make_half2((__half)a, (__half)b);
}
HIPMLIR_HALF_FN __half2 __halves2half2(__half a, __half b) { return make_half2(a, b); }
HIPMLIR_HALF_FN float __low2float(__half2 a) { return (float)a.x; }
HIPMLIR_HALF_FN float __high2float(__half2 a) { return (float)a.y; }
HIPMLIR_HALF_FN __half __low2half(__half2 a) { return a.x; }
HIPMLIR_HALF_FN __half __high2half(__half2 a) { return a.y; }

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
