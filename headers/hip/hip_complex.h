// HIP's single and double precision complex numbers: hipFloatComplex is a float2 (x the real
// part, y the imaginary part) and hipDoubleComplex a double2, as in ROCm's API, with the
// hipC* functions on the host and the device.
#ifndef HIPMLIR_HIP_COMPLEX_H
#define HIPMLIR_HIP_COMPLEX_H

#include "hip_runtime.h"

typedef float2 hipFloatComplex;
typedef double2 hipDoubleComplex;
typedef hipFloatComplex hipComplex;

#define HIPMLIR_COMPLEX_FN __host__ __device__ static inline

// One family of functions per precision: T the scalar, C the complex type, S the name suffix
// (hipCaddf for float, hipCadd for double), SQRT the square root.
#define HIPMLIR_COMPLEX_FAMILY(T, C, S, SQRT)                                                     \
  HIPMLIR_COMPLEX_FN T hipCreal##S(C z) { return z.x; }                                           \
  HIPMLIR_COMPLEX_FN T hipCimag##S(C z) { return z.y; }                                           \
  HIPMLIR_COMPLEX_FN C hipConj##S(C z) {                                                          \
    C r;                                                                                          \
    r.x = z.x;                                                                                    \
    r.y = -z.y;                                                                                   \
    return r;                                                                                     \
  }                                                                                               \
  HIPMLIR_COMPLEX_FN T hipCsqabs##S(C z) { return z.x * z.x + z.y * z.y; }                        \
  HIPMLIR_COMPLEX_FN C hipCadd##S(C p, C q) {                                                     \
    C r;                                                                                          \
    r.x = p.x + q.x;                                                                              \
    r.y = p.y + q.y;                                                                              \
    return r;                                                                                     \
  }                                                                                               \
  HIPMLIR_COMPLEX_FN C hipCsub##S(C p, C q) {                                                     \
    C r;                                                                                          \
    r.x = p.x - q.x;                                                                              \
    r.y = p.y - q.y;                                                                              \
    return r;                                                                                     \
  }                                                                                               \
  HIPMLIR_COMPLEX_FN C hipCmul##S(C p, C q) {                                                     \
    C r;                                                                                          \
    r.x = p.x * q.x - p.y * q.y;                                                                  \
    r.y = p.x * q.y + p.y * q.x;                                                                  \
    return r;                                                                                     \
  }                                                                                               \
  HIPMLIR_COMPLEX_FN C hipCdiv##S(C p, C q) {                                                     \
    T d = hipCsqabs##S(q);                                                                        \
    C r;                                                                                          \
    r.x = (p.x * q.x + p.y * q.y) / d;                                                            \
    r.y = (p.y * q.x - p.x * q.y) / d;                                                            \
    return r;                                                                                     \
  }                                                                                               \
  /* |z| scaled by its larger part, so that squaring neither overflows nor underflows. */         \
  HIPMLIR_COMPLEX_FN T hipCabs##S(C z) {                                                          \
    T a = z.x < 0 ? -z.x : z.x;                                                                   \
    T b = z.y < 0 ? -z.y : z.y;                                                                   \
    T big = a > b ? a : b;                                                                        \
    T small = a > b ? b : a;                                                                      \
    if (big == 0 || big + small == big) return big;                                               \
    T ratio = small / big;                                                                        \
    return big * SQRT(1 + ratio * ratio);                                                         \
  }                                                                                               \
  /* p * q + r */                                                                                 \
  HIPMLIR_COMPLEX_FN C hipCfma##S(C p, C q, C r) { return hipCadd##S(hipCmul##S(p, q), r); }

HIPMLIR_COMPLEX_FAMILY(float, hipFloatComplex, f, sqrtf)
HIPMLIR_COMPLEX_FAMILY(double, hipDoubleComplex, , sqrt)
#undef HIPMLIR_COMPLEX_FAMILY

HIPMLIR_COMPLEX_FN hipFloatComplex make_hipFloatComplex(float re, float im) {
  hipFloatComplex z;
  z.x = re;
  z.y = im;
  return z;
}
HIPMLIR_COMPLEX_FN hipDoubleComplex make_hipDoubleComplex(double re, double im) {
  hipDoubleComplex z;
  z.x = re;
  z.y = im;
  return z;
}
HIPMLIR_COMPLEX_FN hipComplex make_hipComplex(float re, float im) {
  return make_hipFloatComplex(re, im);
}
HIPMLIR_COMPLEX_FN hipFloatComplex hipComplexDoubleToFloat(hipDoubleComplex z) {
  return make_hipFloatComplex(static_cast<float>(z.x), static_cast<float>(z.y));
}
HIPMLIR_COMPLEX_FN hipDoubleComplex hipComplexFloatToDouble(hipFloatComplex z) {
  return make_hipDoubleComplex(z.x, z.y);
}

#if defined(__cplusplus)
// ROCm's header gives the complex types C++ operators with complex meaning: since the types are
// float2 and double2, `a * b` and `a / b` on them are the complex product and quotient wherever
// this header is included (the vector types' element-wise operators are templates, so these
// plain functions win overload resolution, as ROCm's do). A complex times a real scalar scales
// both parts.
#define HIPMLIR_COMPLEX_OPS(C, S)                                                                 \
  HIPMLIR_COMPLEX_FN C operator-(const C& z) {                                                    \
    C r;                                                                                          \
    r.x = -z.x;                                                                                   \
    r.y = -z.y;                                                                                   \
    return r;                                                                                     \
  }                                                                                               \
  HIPMLIR_COMPLEX_FN bool operator==(const C& p, const C& q) { return p.x == q.x && p.y == q.y; } \
  HIPMLIR_COMPLEX_FN bool operator!=(const C& p, const C& q) { return !(p == q); }                \
  HIPMLIR_COMPLEX_FN C operator+(const C& p, const C& q) { return hipCadd##S(p, q); }             \
  HIPMLIR_COMPLEX_FN C operator-(const C& p, const C& q) { return hipCsub##S(p, q); }             \
  HIPMLIR_COMPLEX_FN C operator*(const C& p, const C& q) { return hipCmul##S(p, q); }             \
  HIPMLIR_COMPLEX_FN C operator/(const C& p, const C& q) { return hipCdiv##S(p, q); }             \
  HIPMLIR_COMPLEX_FN C& operator+=(C& p, const C& q) {                                            \
    p = hipCadd##S(p, q);                                                                         \
    return p;                                                                                     \
  }                                                                                               \
  HIPMLIR_COMPLEX_FN C& operator-=(C& p, const C& q) {                                            \
    p = hipCsub##S(p, q);                                                                         \
    return p;                                                                                     \
  }                                                                                               \
  HIPMLIR_COMPLEX_FN C& operator*=(C& p, const C& q) {                                            \
    p = hipCmul##S(p, q);                                                                         \
    return p;                                                                                     \
  }                                                                                               \
  HIPMLIR_COMPLEX_FN C& operator/=(C& p, const C& q) {                                            \
    p = hipCdiv##S(p, q);                                                                         \
    return p;                                                                                     \
  }

#define HIPMLIR_COMPLEX_SCALE(C, R)                                                               \
  HIPMLIR_COMPLEX_FN C operator*(const C& z, R k) {                                               \
    C r;                                                                                          \
    r.x = z.x * k;                                                                                \
    r.y = z.y * k;                                                                                \
    return r;                                                                                     \
  }
#define HIPMLIR_COMPLEX_SCALES(C)                                                                 \
  HIPMLIR_COMPLEX_SCALE(C, unsigned short)                                                        \
  HIPMLIR_COMPLEX_SCALE(C, short)                                                                 \
  HIPMLIR_COMPLEX_SCALE(C, unsigned int)                                                          \
  HIPMLIR_COMPLEX_SCALE(C, int)                                                                   \
  HIPMLIR_COMPLEX_SCALE(C, unsigned long)                                                         \
  HIPMLIR_COMPLEX_SCALE(C, long)                                                                  \
  HIPMLIR_COMPLEX_SCALE(C, unsigned long long)                                                    \
  HIPMLIR_COMPLEX_SCALE(C, long long)                                                             \
  HIPMLIR_COMPLEX_SCALE(C, float)                                                                 \
  HIPMLIR_COMPLEX_SCALE(C, double)

HIPMLIR_COMPLEX_OPS(hipFloatComplex, f)
HIPMLIR_COMPLEX_OPS(hipDoubleComplex, )
HIPMLIR_COMPLEX_SCALES(hipFloatComplex)
HIPMLIR_COMPLEX_SCALES(hipDoubleComplex)
#undef HIPMLIR_COMPLEX_SCALES
#undef HIPMLIR_COMPLEX_SCALE
#undef HIPMLIR_COMPLEX_OPS
#endif  // __cplusplus

#undef HIPMLIR_COMPLEX_FN
#endif
