// HIP's 8-bit floats in the FNUZ encodings (finite, no negative zero; 0x80 is the one NaN):
//   E4M3: 4 exponent bits (bias 8), 3 mantissa bits, largest 240, smallest 2^-10;
//   E5M2: 5 exponent bits (bias 16), 2 mantissa bits, largest 57344, smallest 2^-17.
// Conversions to them round to nearest even; a value beyond the largest is the largest with
// __HIP_SATFINITE and NaN with __HIP_NOSAT (the types' constructors saturate). Conversions from
// them are exact. Pairs and quadruples keep lane 0 in the lowest byte. Software on every target.
#ifndef HIPMLIR_HIP_FP8_H
#define HIPMLIR_HIP_FP8_H

#include "hip_fp16.h"
#include "hip_bf16.h"

typedef unsigned char __hip_fp8_storage_t;
typedef unsigned short int __hip_fp8x2_storage_t;
typedef unsigned int __hip_fp8x4_storage_t;

enum __hip_saturation_t { __HIP_NOSAT = 0, __HIP_SATFINITE = 1 };
enum __hip_fp8_interpretation_t { __HIP_E4M3_FNUZ = 0, __HIP_E5M2_FNUZ = 1 };

#define HIPMLIR_FP8_FN __host__ __device__ inline

// Exponent and mantissa widths of an interpretation.
HIPMLIR_FP8_FN int __hipmlir_fp8_exponent_bits(__hip_fp8_interpretation_t t) {
  return t == __HIP_E4M3_FNUZ ? 4 : 5;
}

// Rounds x to the format (to nearest even, on the format's grid of multiples of 2^(e - wm), e
// the exponent of x but at least the smallest normal's) and encodes it.
HIPMLIR_FP8_FN __hip_fp8_storage_t __hipmlir_fp8_encode(double x, __hip_saturation_t sat,
                                                        __hip_fp8_interpretation_t type) {
  const int we = __hipmlir_fp8_exponent_bits(type), wm = 7 - we, bias = 1 << (we - 1);
  if (x != x) return 0x80;
  const unsigned int sign = __builtin_signbit(x) ? 0x80u : 0u;
  const double largest = ldexp(2.0 - ldexp(1.0, -wm), (1 << we) - 1 - bias);
  double a = fabs(x);
  if (a == 0.0) return 0;
  if (a - a != 0.0) return sat == __HIP_SATFINITE ? (__hip_fp8_storage_t)(sign | 0x7fu) : 0x80;
  int e = ilogb(a);
  if (e < 1 - bias) e = 1 - bias;
  double step = ldexp(1.0, e - wm);
  double r = rint(a / step) * step;
  if (r > largest) return sat == __HIP_SATFINITE ? (__hip_fp8_storage_t)(sign | 0x7fu) : 0x80;
  if (r == 0.0) return 0;  // no negative zero: 0x80 is NaN
  int re = ilogb(r);
  unsigned int bits;
  if (re < 1 - bias) {
    bits = (unsigned int)(r / ldexp(1.0, 1 - bias - wm));  // subnormal: the mantissa alone
  } else {
    unsigned int mantissa = (unsigned int)(r / ldexp(1.0, re - wm)) - (1u << wm);
    bits = ((unsigned int)(re + bias) << wm) | mantissa;
  }
  return (__hip_fp8_storage_t)(sign | bits);
}
HIPMLIR_FP8_FN float __hipmlir_fp8_decode(__hip_fp8_storage_t b, __hip_fp8_interpretation_t type) {
  const int we = __hipmlir_fp8_exponent_bits(type), wm = 7 - we, bias = 1 << (we - 1);
  if (b == 0x80) return __builtin_nanf("");
  int e = (b >> wm) & ((1 << we) - 1), m = b & ((1 << wm) - 1);
  float v = e == 0 ? ldexpf((float)m, 1 - bias - wm) : ldexpf((float)((1 << wm) + m), e - bias - wm);
  return (b & 0x80) ? -v : v;
}

// ---- conversion functions ----
HIPMLIR_FP8_FN __hip_fp8_storage_t __hip_cvt_float_to_fp8(const float f,
                                                          const __hip_saturation_t sat,
                                                          const __hip_fp8_interpretation_t type) {
  return __hipmlir_fp8_encode((double)f, sat, type);
}
HIPMLIR_FP8_FN __hip_fp8_storage_t __hip_cvt_double_to_fp8(const double d,
                                                           const __hip_saturation_t sat,
                                                           const __hip_fp8_interpretation_t type) {
  return __hipmlir_fp8_encode(d, sat, type);
}
HIPMLIR_FP8_FN __hip_fp8x2_storage_t __hip_cvt_float2_to_fp8x2(
    const float2 f2, const __hip_saturation_t sat, const __hip_fp8_interpretation_t type) {
  return (__hip_fp8x2_storage_t)(__hipmlir_fp8_encode(f2.x, sat, type) |
                                 (__hipmlir_fp8_encode(f2.y, sat, type) << 8));
}
HIPMLIR_FP8_FN __hip_fp8x2_storage_t __hip_cvt_double2_to_fp8x2(
    const double2 d2, const __hip_saturation_t sat, const __hip_fp8_interpretation_t type) {
  return (__hip_fp8x2_storage_t)(__hipmlir_fp8_encode(d2.x, sat, type) |
                                 (__hipmlir_fp8_encode(d2.y, sat, type) << 8));
}
HIPMLIR_FP8_FN __hip_fp8_storage_t __hip_cvt_halfraw_to_fp8(const __half_raw x,
                                                            const __hip_saturation_t sat,
                                                            const __hip_fp8_interpretation_t type) {
  return __hipmlir_fp8_encode((double)(float)__ushort_as_half(x.x), sat, type);
}
HIPMLIR_FP8_FN __hip_fp8x2_storage_t __hip_cvt_halfraw2_to_fp8x2(
    const __half2_raw x, const __hip_saturation_t sat, const __hip_fp8_interpretation_t type) {
  __half_raw lo(x.x), hi(x.y);
  return (__hip_fp8x2_storage_t)(__hip_cvt_halfraw_to_fp8(lo, sat, type) |
                                 (__hip_cvt_halfraw_to_fp8(hi, sat, type) << 8));
}
HIPMLIR_FP8_FN __hip_fp8_storage_t __hip_cvt_bfloat16raw_to_fp8(
    const __hip_bfloat16_raw hr, const __hip_saturation_t sat,
    const __hip_fp8_interpretation_t type) {
  return __hipmlir_fp8_encode((double)(float)__hip_bfloat16(hr), sat, type);
}
HIPMLIR_FP8_FN __hip_fp8x2_storage_t __hip_cvt_bfloat16raw2_to_fp8x2(
    const __hip_bfloat162_raw hr, const __hip_saturation_t sat,
    const __hip_fp8_interpretation_t type) {
  __hip_bfloat16_raw lo, hi;
  lo.x = hr.x;
  hi.x = hr.y;
  return (__hip_fp8x2_storage_t)(__hip_cvt_bfloat16raw_to_fp8(lo, sat, type) |
                                 (__hip_cvt_bfloat16raw_to_fp8(hi, sat, type) << 8));
}
HIPMLIR_FP8_FN __half_raw __hip_cvt_fp8_to_halfraw(const __hip_fp8_storage_t x,
                                                   const __hip_fp8_interpretation_t type) {
  return __half_raw((__half)__hipmlir_fp8_decode(x, type));
}
HIPMLIR_FP8_FN __half2_raw __hip_cvt_fp8x2_to_halfraw2(const __hip_fp8x2_storage_t x,
                                                       const __hip_fp8_interpretation_t type) {
  __half lo = (__half)__hipmlir_fp8_decode((__hip_fp8_storage_t)(x & 0xffu), type);
  __half hi = (__half)__hipmlir_fp8_decode((__hip_fp8_storage_t)(x >> 8), type);
  return __half2_raw(__half_as_ushort(lo), __half_as_ushort(hi));
}

// ---- the types ----
// One value: built from a float, a double, an integer, a __half or a __hip_bfloat16 (rounded
// to nearest even, saturating); converts to float (and through it to the other types).
#define HIPMLIR_FP8_TYPE(Name, Interp, WE)                                                       \
  struct Name {                                                                                  \
    __hip_fp8_storage_t __x;                                                                     \
    static constexpr __hip_saturation_t __default_saturation = __HIP_SATFINITE;                  \
    static constexpr __hip_fp8_interpretation_t __default_interpret = Interp;                    \
    static constexpr unsigned int __we = WE;                                                     \
    static constexpr unsigned int __wm = 7 - WE;                                                 \
    Name() = default;                                                                            \
    HIPMLIR_FP8_FN Name(float f) : __x(__hipmlir_fp8_encode((double)f, __HIP_SATFINITE, Interp)) {} \
    HIPMLIR_FP8_FN Name(double d) : __x(__hipmlir_fp8_encode(d, __HIP_SATFINITE, Interp)) {}     \
    HIPMLIR_FP8_FN Name(__half h)                                                                \
        : __x(__hipmlir_fp8_encode((double)(float)h, __HIP_SATFINITE, Interp)) {}                \
    HIPMLIR_FP8_FN Name(__hip_bfloat16 b)                                                        \
        : __x(__hipmlir_fp8_encode((double)(float)b, __HIP_SATFINITE, Interp)) {}                \
    template <class I, class = typename __hipmlir_enable_if<std::is_integral<I>::value>::type>   \
    HIPMLIR_FP8_FN Name(I i) : __x(__hipmlir_fp8_encode((double)i, __HIP_SATFINITE, Interp)) {}  \
    HIPMLIR_FP8_FN operator float() const { return __hipmlir_fp8_decode(__x, Interp); }          \
  };
HIPMLIR_FP8_TYPE(__hip_fp8_e4m3_fnuz, __HIP_E4M3_FNUZ, 4)
HIPMLIR_FP8_TYPE(__hip_fp8_e5m2_fnuz, __HIP_E5M2_FNUZ, 5)
#undef HIPMLIR_FP8_TYPE

// Pairs (from and to float2, double2, __half2) and quadruples (float4, double4).
#define HIPMLIR_FP8_PAIR(Name, Interp)                                                           \
  struct Name {                                                                                  \
    __hip_fp8x2_storage_t __x;                                                                   \
    static constexpr __hip_saturation_t __default_saturation = __HIP_SATFINITE;                  \
    static constexpr __hip_fp8_interpretation_t __default_interpret = Interp;                    \
    Name() = default;                                                                            \
    HIPMLIR_FP8_FN Name(float2 f) : __x(__hip_cvt_float2_to_fp8x2(f, __HIP_SATFINITE, Interp)) {} \
    HIPMLIR_FP8_FN Name(double2 d)                                                               \
        : __x(__hip_cvt_double2_to_fp8x2(d, __HIP_SATFINITE, Interp)) {}                         \
    HIPMLIR_FP8_FN Name(__half2 h)                                                               \
        : __x(__hip_cvt_float2_to_fp8x2(__half22float2(h), __HIP_SATFINITE, Interp)) {}          \
    HIPMLIR_FP8_FN operator float2() const {                                                     \
      return make_float2(__hipmlir_fp8_decode((__hip_fp8_storage_t)(__x & 0xffu), Interp),       \
                         __hipmlir_fp8_decode((__hip_fp8_storage_t)(__x >> 8), Interp));         \
    }                                                                                            \
    HIPMLIR_FP8_FN operator __half2() const {                                                    \
      return __half2(__hip_cvt_fp8x2_to_halfraw2(__x, Interp));                                  \
    }                                                                                            \
  };
HIPMLIR_FP8_PAIR(__hip_fp8x2_e4m3_fnuz, __HIP_E4M3_FNUZ)
HIPMLIR_FP8_PAIR(__hip_fp8x2_e5m2_fnuz, __HIP_E5M2_FNUZ)
#undef HIPMLIR_FP8_PAIR
#define HIPMLIR_FP8_QUAD(Name, Interp)                                                           \
  struct Name {                                                                                  \
    __hip_fp8x4_storage_t __x;                                                                   \
    static constexpr __hip_saturation_t __default_saturation = __HIP_SATFINITE;                  \
    static constexpr __hip_fp8_interpretation_t __default_interpret = Interp;                    \
    Name() = default;                                                                            \
    HIPMLIR_FP8_FN Name(float4 f)                                                                \
        : __x((__hip_fp8x4_storage_t)__hipmlir_fp8_encode(f.x, __HIP_SATFINITE, Interp) |        \
              ((__hip_fp8x4_storage_t)__hipmlir_fp8_encode(f.y, __HIP_SATFINITE, Interp) << 8) | \
              ((__hip_fp8x4_storage_t)__hipmlir_fp8_encode(f.z, __HIP_SATFINITE, Interp) << 16) | \
              ((__hip_fp8x4_storage_t)__hipmlir_fp8_encode(f.w, __HIP_SATFINITE, Interp) << 24)) {} \
    HIPMLIR_FP8_FN Name(double4 d)                                                               \
        : __x((__hip_fp8x4_storage_t)__hipmlir_fp8_encode(d.x, __HIP_SATFINITE, Interp) |        \
              ((__hip_fp8x4_storage_t)__hipmlir_fp8_encode(d.y, __HIP_SATFINITE, Interp) << 8) | \
              ((__hip_fp8x4_storage_t)__hipmlir_fp8_encode(d.z, __HIP_SATFINITE, Interp) << 16) | \
              ((__hip_fp8x4_storage_t)__hipmlir_fp8_encode(d.w, __HIP_SATFINITE, Interp) << 24)) {} \
    HIPMLIR_FP8_FN operator float4() const {                                                     \
      return make_float4(__hipmlir_fp8_decode((__hip_fp8_storage_t)(__x & 0xffu), Interp),       \
                         __hipmlir_fp8_decode((__hip_fp8_storage_t)((__x >> 8) & 0xffu), Interp), \
                         __hipmlir_fp8_decode((__hip_fp8_storage_t)((__x >> 16) & 0xffu), Interp), \
                         __hipmlir_fp8_decode((__hip_fp8_storage_t)(__x >> 24), Interp));        \
    }                                                                                            \
  };
HIPMLIR_FP8_QUAD(__hip_fp8x4_e4m3_fnuz, __HIP_E4M3_FNUZ)
HIPMLIR_FP8_QUAD(__hip_fp8x4_e5m2_fnuz, __HIP_E5M2_FNUZ)
#undef HIPMLIR_FP8_QUAD

#undef HIPMLIR_FP8_FN
#endif  // HIPMLIR_HIP_FP8_H
