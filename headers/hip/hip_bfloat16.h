// hip_bfloat16: the bfloat16 type of HIP's math libraries (rocBLAS's), distinct from
// __hip_bfloat16 (hip_bf16.h). Built explicitly from a float (rounded to nearest even, or cut with
// hip_bfloat16::truncate), converts to float, and computes in float. In C, a struct of its bits.
#ifndef HIPMLIR_HIP_BFLOAT16_H
#define HIPMLIR_HIP_BFLOAT16_H

#include <stdint.h>

#if !defined(__cplusplus)
typedef struct {
  uint16_t data;
} hip_bfloat16;
#else

#include "hip_runtime.h"

#define HIPMLIR_BFLOAT16_FN __host__ __device__ inline

struct hip_bfloat16 {
  uint16_t data;

  enum truncate_t { truncate };

  hip_bfloat16() = default;
  HIPMLIR_BFLOAT16_FN explicit hip_bfloat16(float f) : data(float_to_bfloat16(f)) {}
  HIPMLIR_BFLOAT16_FN explicit hip_bfloat16(float f, truncate_t)
      : data(truncate_float_to_bfloat16(f)) {}

  HIPMLIR_BFLOAT16_FN operator float() const { return bits_float(uint32_t(data) << 16); }

  static HIPMLIR_BFLOAT16_FN hip_bfloat16 round_to_bfloat16(float f) {
    hip_bfloat16 r;
    r.data = float_to_bfloat16(f);
    return r;
  }
  static HIPMLIR_BFLOAT16_FN hip_bfloat16 round_to_bfloat16(float f, truncate_t) {
    hip_bfloat16 r;
    r.data = truncate_float_to_bfloat16(f);
    return r;
  }

 private:
  static HIPMLIR_BFLOAT16_FN uint32_t float_bits(float f) {
#if defined(__HIP_DEVICE_COMPILE__)
    return *reinterpret_cast<const uint32_t*>(&f);
#else
    uint32_t u;
    __builtin_memcpy(&u, &f, sizeof u);
    return u;
#endif
  }
  static HIPMLIR_BFLOAT16_FN float bits_float(uint32_t u) {
#if defined(__HIP_DEVICE_COMPILE__)
    return *reinterpret_cast<const float*>(&u);
#else
    float f;
    __builtin_memcpy(&f, &u, sizeof f);
    return f;
#endif
  }
  // To nearest, ties to even; infinities stay; a NaN keeps a set mantissa bit.
  static HIPMLIR_BFLOAT16_FN uint16_t float_to_bfloat16(float f) {
    uint32_t u = float_bits(f);
    if ((u & 0x7f800000u) != 0x7f800000u) {
      u += 0x7fffu + ((u >> 16) & 1u);
    } else if (u & 0xffffu) {
      u |= 0x10000u;
    }
    return uint16_t(u >> 16);
  }
  // Toward zero (the upper half of the bits); a NaN keeps a set mantissa bit.
  static HIPMLIR_BFLOAT16_FN uint16_t truncate_float_to_bfloat16(float f) {
    uint32_t u = float_bits(f);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0xffffu)) u |= 0x10000u;
    return uint16_t(u >> 16);
  }
};

HIPMLIR_BFLOAT16_FN hip_bfloat16 operator+(hip_bfloat16 a) { return a; }
HIPMLIR_BFLOAT16_FN hip_bfloat16 operator-(hip_bfloat16 a) {
  a.data ^= 0x8000u;
  return a;
}
HIPMLIR_BFLOAT16_FN hip_bfloat16 operator+(hip_bfloat16 a, hip_bfloat16 b) {
  return hip_bfloat16(float(a) + float(b));
}
HIPMLIR_BFLOAT16_FN hip_bfloat16 operator-(hip_bfloat16 a, hip_bfloat16 b) {
  return hip_bfloat16(float(a) - float(b));
}
HIPMLIR_BFLOAT16_FN hip_bfloat16 operator*(hip_bfloat16 a, hip_bfloat16 b) {
  return hip_bfloat16(float(a) * float(b));
}
HIPMLIR_BFLOAT16_FN hip_bfloat16 operator/(hip_bfloat16 a, hip_bfloat16 b) {
  return hip_bfloat16(float(a) / float(b));
}
HIPMLIR_BFLOAT16_FN bool operator<(hip_bfloat16 a, hip_bfloat16 b) { return float(a) < float(b); }
HIPMLIR_BFLOAT16_FN bool operator==(hip_bfloat16 a, hip_bfloat16 b) {
  return float(a) == float(b);
}
HIPMLIR_BFLOAT16_FN bool operator>(hip_bfloat16 a, hip_bfloat16 b) { return b < a; }
HIPMLIR_BFLOAT16_FN bool operator<=(hip_bfloat16 a, hip_bfloat16 b) { return !(a > b); }
HIPMLIR_BFLOAT16_FN bool operator!=(hip_bfloat16 a, hip_bfloat16 b) { return !(a == b); }
HIPMLIR_BFLOAT16_FN bool operator>=(hip_bfloat16 a, hip_bfloat16 b) { return !(a < b); }
HIPMLIR_BFLOAT16_FN hip_bfloat16& operator+=(hip_bfloat16& a, hip_bfloat16 b) {
  a = a + b;
  return a;
}
HIPMLIR_BFLOAT16_FN hip_bfloat16& operator-=(hip_bfloat16& a, hip_bfloat16 b) {
  a = a - b;
  return a;
}
HIPMLIR_BFLOAT16_FN hip_bfloat16& operator*=(hip_bfloat16& a, hip_bfloat16 b) {
  a = a * b;
  return a;
}
HIPMLIR_BFLOAT16_FN hip_bfloat16& operator/=(hip_bfloat16& a, hip_bfloat16 b) {
  a = a / b;
  return a;
}
HIPMLIR_BFLOAT16_FN hip_bfloat16& operator++(hip_bfloat16& a) {
  a = hip_bfloat16(float(a) + 1.0f);
  return a;
}
HIPMLIR_BFLOAT16_FN hip_bfloat16& operator--(hip_bfloat16& a) {
  a = hip_bfloat16(float(a) - 1.0f);
  return a;
}
HIPMLIR_BFLOAT16_FN hip_bfloat16 operator++(hip_bfloat16& a, int) {
  hip_bfloat16 old = a;
  ++a;
  return old;
}
HIPMLIR_BFLOAT16_FN hip_bfloat16 operator--(hip_bfloat16& a, int) {
  hip_bfloat16 old = a;
  --a;
  return old;
}

// Classification and the few functions the libraries overload for it.
namespace std {
HIPMLIR_BFLOAT16_FN bool isinf(hip_bfloat16 a) { return (a.data & 0x7fffu) == 0x7f80u; }
HIPMLIR_BFLOAT16_FN bool isnan(hip_bfloat16 a) { return (a.data & 0x7fffu) > 0x7f80u; }
HIPMLIR_BFLOAT16_FN bool iszero(hip_bfloat16 a) { return (a.data & 0x7fffu) == 0u; }
HIPMLIR_BFLOAT16_FN hip_bfloat16 abs(hip_bfloat16 a) {
  a.data &= 0x7fffu;
  return a;
}
HIPMLIR_BFLOAT16_FN hip_bfloat16 sin(hip_bfloat16 a) { return hip_bfloat16(sinf(float(a))); }
HIPMLIR_BFLOAT16_FN hip_bfloat16 cos(hip_bfloat16 a) { return hip_bfloat16(cosf(float(a))); }
HIPMLIR_BFLOAT16_FN hip_bfloat16 real(hip_bfloat16 a) { return a; }
}  // namespace std

#undef HIPMLIR_BFLOAT16_FN
#endif  // __cplusplus

#endif  // HIPMLIR_HIP_BFLOAT16_H
