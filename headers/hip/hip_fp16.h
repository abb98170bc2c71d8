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

// Bit reinterpretation: the compiler's bitcasts on the device (no copy through memory, which
// the memory checker would check), memcpy on the host (where a pointer cast would break strict
// aliasing).
#if defined(__HIP_DEVICE_COMPILE__)
HIPMLIR_HALF_FN unsigned short __half_as_ushort(__half a) { return __hipmlir_half_as_ushort(a); }
HIPMLIR_HALF_FN short __half_as_short(__half a) { return (short)__hipmlir_half_as_ushort(a); }
HIPMLIR_HALF_FN __half __ushort_as_half(unsigned short a) { return __hipmlir_ushort_as_half(a); }
HIPMLIR_HALF_FN __half __short_as_half(short a) {
  return __hipmlir_ushort_as_half((unsigned short)a);
}
#else
#define HIPMLIR_HALF_BITCAST(To, From, name) \
  HIPMLIR_HALF_FN To name(From a) {          \
    To r;                                    \
    __builtin_memcpy(&r, &a, sizeof r);      \
    return r;                                \
  }
HIPMLIR_HALF_BITCAST(unsigned short, __half, __half_as_ushort)
HIPMLIR_HALF_BITCAST(short, __half, __half_as_short)
HIPMLIR_HALF_BITCAST(__half, unsigned short, __ushort_as_half)
HIPMLIR_HALF_BITCAST(__half, short, __short_as_half)
#undef HIPMLIR_HALF_BITCAST
#endif

// The bits of a half: converts both ways with __half (`__half h = raw;`, `__half_raw r = h;`) and
// is built from its bits (`__half_raw{0x3c00}`, `r.x = 0x3c00`).
struct __half_raw {
  unsigned short x;

  __half_raw() = default;
  HIPMLIR_HALF_FN constexpr __half_raw(unsigned short bits) : x(bits) {}
  // A template, so that an integer picks the bits' constructor rather than a conversion to half.
  template <class H, class = typename __hipmlir_enable_if<std::is_same<H, __half>::value>::type>
  HIPMLIR_HALF_FN __half_raw(H h) : x(__half_as_ushort(h)) {}
  HIPMLIR_HALF_FN operator __half() const { return __ushort_as_half(x); }
  HIPMLIR_HALF_FN operator __half() const volatile { return __ushort_as_half(x); }
};

// The bits of a pair of halves (lane x in the low 16 bits), which converts both ways with
// __half2.
struct __half2;
struct __attribute__((aligned(4))) __half2_raw {
  unsigned short x, y;
  __half2_raw() = default;
  HIPMLIR_HALF_FN constexpr __half2_raw(unsigned short lo, unsigned short hi) : x(lo), y(hi) {}
  HIPMLIR_HALF_FN __half2_raw(const __half2& h);
};

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

// ---- conversions ----
// Rounding to nearest even is what a conversion does. The other modes: the nearest half, stepped
// once toward the wanted direction when it lies on the wrong side of the value (every half is
// exactly a float, so the comparison is exact). Stepping walks the bits: the next half up or down,
// through zero and to and from the infinities.
HIPMLIR_HALF_FN unsigned short __hipmlir_half_up(unsigned short b) {
  if (b & 0x8000u) return b == 0x8000u ? (unsigned short)0x0001u : (unsigned short)(b - 1u);
  return (unsigned short)(b + 1u);
}
HIPMLIR_HALF_FN unsigned short __hipmlir_half_down(unsigned short b) {
  if (b & 0x8000u) return (unsigned short)(b + 1u);
  return b == 0u ? (unsigned short)0x8001u : (unsigned short)(b - 1u);
}
// mode: 0 to nearest even, 1 toward zero, 2 down, 3 up.
HIPMLIR_HALF_FN __half __hipmlir_float2half(float f, int mode) {
  __half r = (__half)f;
  float back = (float)r;
  if (mode == 0 || back == f || f != f) return r;
  unsigned short b = __half_as_ushort(r);
  bool above = back > f;
  if (mode == 1) {
    bool away = f < 0.0f ? !above : above;
    if (away) b = f < 0.0f ? __hipmlir_half_up(b) : __hipmlir_half_down(b);
  } else if (mode == 2) {
    if (above) b = __hipmlir_half_down(b);
  } else if (above == false) {
    b = __hipmlir_half_up(b);
  }
  return __ushort_as_half(b);
}
HIPMLIR_HALF_FN __half __float2half(float a) { return (__half)a; }
HIPMLIR_HALF_FN __half __float2half_rn(float a) { return (__half)a; }
HIPMLIR_HALF_FN __half __float2half_rz(float a) { return __hipmlir_float2half(a, 1); }
HIPMLIR_HALF_FN __half __float2half_rd(float a) { return __hipmlir_float2half(a, 2); }
HIPMLIR_HALF_FN __half __float2half_ru(float a) { return __hipmlir_float2half(a, 3); }
HIPMLIR_HALF_FN __half __double2half(double a) { return (__half)a; }
HIPMLIR_HALF_FN float __half2float(__half a) { return (float)a; }

// Integers to half: through float, which is exact up to 2^24, beyond every finite half (larger
// integers round in float to values that are still beyond it, so the result is the same).
#define HIPMLIR_INT2HALF(T, name)                                                              \
  HIPMLIR_HALF_FN __half name##_rn(T i) { return __hipmlir_float2half((float)i, 0); }           \
  HIPMLIR_HALF_FN __half name##_rz(T i) { return __hipmlir_float2half((float)i, 1); }           \
  HIPMLIR_HALF_FN __half name##_rd(T i) { return __hipmlir_float2half((float)i, 2); }           \
  HIPMLIR_HALF_FN __half name##_ru(T i) { return __hipmlir_float2half((float)i, 3); }
HIPMLIR_INT2HALF(int, __int2half)
HIPMLIR_INT2HALF(unsigned int, __uint2half)
HIPMLIR_INT2HALF(short, __short2half)
HIPMLIR_INT2HALF(unsigned short, __ushort2half)
HIPMLIR_INT2HALF(long long, __ll2half)
HIPMLIR_INT2HALF(unsigned long long, __ull2half)
#undef HIPMLIR_INT2HALF

// Half to integers: the value rounded in float, then converted with saturation (a value beyond
// the type gives its limit, NaN gives 0), as CUDA and HIP define these conversions.
#define HIPMLIR_HALF2INT(T, name, lo, hi)                                                      \
  HIPMLIR_HALF_FN T __hipmlir_##name##_sat(float r) {                                          \
    if (r != r) return (T)0;                                                                   \
    if (r <= (float)(lo)) return (T)(lo);                                                      \
    if (r >= (float)(hi)) return (T)(hi);                                                      \
    return (T)r;                                                                               \
  }                                                                                            \
  HIPMLIR_HALF_FN T name##_rn(__half h) { return __hipmlir_##name##_sat(rintf((float)h)); }    \
  HIPMLIR_HALF_FN T name##_rz(__half h) { return __hipmlir_##name##_sat(truncf((float)h)); }   \
  HIPMLIR_HALF_FN T name##_rd(__half h) { return __hipmlir_##name##_sat(floorf((float)h)); }   \
  HIPMLIR_HALF_FN T name##_ru(__half h) { return __hipmlir_##name##_sat(ceilf((float)h)); }
HIPMLIR_HALF2INT(int, __half2int, -2147483647 - 1, 2147483647)
HIPMLIR_HALF2INT(unsigned int, __half2uint, 0u, 4294967295u)
HIPMLIR_HALF2INT(short, __half2short, -32768, 32767)
HIPMLIR_HALF2INT(unsigned short, __half2ushort, 0, 65535)
HIPMLIR_HALF2INT(long long, __half2ll, -9223372036854775807ll - 1, 9223372036854775807ll)
HIPMLIR_HALF2INT(unsigned long long, __half2ull, 0ull, 18446744073709551615ull)
#undef HIPMLIR_HALF2INT

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
HIPMLIR_HALF_FN float2 __half22float2(__half2 a) { return make_float2((float)a.x, (float)a.y); }
HIPMLIR_HALF_FN __half2 __float22half2_rn(float2 a) { return make_half2((__half)a.x, (__half)a.y); }

// ---- arithmetic ----
// Each operation rounds its exact result once (a half product and sum are exact in float, so the
// float result rounded to half is the correctly rounded half result; for __hfma the product's 22
// bits and the sum stay exact in double).
HIPMLIR_HALF_FN __half __hadd(__half a, __half b) { return a + b; }
HIPMLIR_HALF_FN __half __hsub(__half a, __half b) { return a - b; }
HIPMLIR_HALF_FN __half __hmul(__half a, __half b) { return a * b; }
HIPMLIR_HALF_FN __half __hdiv(__half a, __half b) { return a / b; }
HIPMLIR_HALF_FN __half __hneg(__half a) { return -a; }
HIPMLIR_HALF_FN __half __habs(__half a) {
  return __ushort_as_half((unsigned short)(__half_as_ushort(a) & 0x7fffu));
}
HIPMLIR_HALF_FN __half __hfma(__half a, __half b, __half c) {
  return (__half)((double)a * (double)b + (double)c);
}
// _sat: clamped to [0, 1] (NaN to 0).
HIPMLIR_HALF_FN __half __hipmlir_half_sat(__half a) {
  return a > (__half)1 ? (__half)1 : (a > (__half)0 ? a : (__half)0);
}
HIPMLIR_HALF_FN __half __hadd_sat(__half a, __half b) { return __hipmlir_half_sat(a + b); }
HIPMLIR_HALF_FN __half __hsub_sat(__half a, __half b) { return __hipmlir_half_sat(a - b); }
HIPMLIR_HALF_FN __half __hmul_sat(__half a, __half b) { return __hipmlir_half_sat(a * b); }
HIPMLIR_HALF_FN __half __hfma_sat(__half a, __half b, __half c) {
  return __hipmlir_half_sat(__hfma(a, b, c));
}
// The bits of a pair (lane x low), and the pair of some bits.
HIPMLIR_HALF_FN unsigned int __hipmlir_half2_bits(__half2 v) {
  return (unsigned int)__half_as_ushort(v.x) | ((unsigned int)__half_as_ushort(v.y) << 16);
}
HIPMLIR_HALF_FN __half2 __hipmlir_bits_half2(unsigned int u) {
  return __half2(__ushort_as_half((unsigned short)(u & 0xffffu)),
                 __ushort_as_half((unsigned short)(u >> 16)));
}
// Pairs, lane by lane. On the device, the operations PTX has for both lanes at once (f16x2) are
// one operation on the pair's bits, which the compiler emits on a vector of two halves.
// (__hipmlir_f16x2_*, declared in hipmlir_math.h).
#if defined(__HIP_DEVICE_COMPILE__)
#define HIPMLIR_HALF2_PAIR(name2, name, pair)                                       \
  HIPMLIR_HALF_FN __half2 name2(__half2 a, __half2 b) {                            \
    return __hipmlir_bits_half2(pair(__hipmlir_half2_bits(a), __hipmlir_half2_bits(b))); \
  }
#else
#define HIPMLIR_HALF2_PAIR(name2, name, pair)                                       \
  HIPMLIR_HALF_FN __half2 name2(__half2 a, __half2 b) { return make_half2(name(a.x, b.x), name(a.y, b.y)); }
#endif
HIPMLIR_HALF2_PAIR(__hadd2, __hadd, __hipmlir_f16x2_add)
HIPMLIR_HALF2_PAIR(__hsub2, __hsub, __hipmlir_f16x2_sub)
HIPMLIR_HALF2_PAIR(__hmul2, __hmul, __hipmlir_f16x2_mul)
#define HIPMLIR_HALF2_BINARY(name2, name)                                          \
  HIPMLIR_HALF_FN __half2 name2(__half2 a, __half2 b) {                            \
    return make_half2(name(a.x, b.x), name(a.y, b.y));                             \
  }
HIPMLIR_HALF2_BINARY(__h2div, __hdiv)
HIPMLIR_HALF2_BINARY(__hadd2_sat, __hadd_sat)
HIPMLIR_HALF2_BINARY(__hsub2_sat, __hsub_sat)
HIPMLIR_HALF2_BINARY(__hmul2_sat, __hmul_sat)
#undef HIPMLIR_HALF2_BINARY
HIPMLIR_HALF_FN __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return make_half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
HIPMLIR_HALF_FN __half2 __hfma2_sat(__half2 a, __half2 b, __half2 c) {
  return make_half2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));
}
HIPMLIR_HALF_FN __half2 __hneg2(__half2 a) { return make_half2(-a.x, -a.y); }
HIPMLIR_HALF_FN __half2 __habs2(__half2 a) { return make_half2(__habs(a.x), __habs(a.y)); }

// ---- comparisons ----
// Ordered (false when either is NaN), and unordered (__h*u: true when either is NaN).
HIPMLIR_HALF_FN bool __heq(__half a, __half b) { return a == b; }
HIPMLIR_HALF_FN bool __hne(__half a, __half b) { return a < b || a > b; }
HIPMLIR_HALF_FN bool __hlt(__half a, __half b) { return a < b; }
HIPMLIR_HALF_FN bool __hle(__half a, __half b) { return a <= b; }
HIPMLIR_HALF_FN bool __hgt(__half a, __half b) { return a > b; }
HIPMLIR_HALF_FN bool __hge(__half a, __half b) { return a >= b; }
HIPMLIR_HALF_FN bool __hequ(__half a, __half b) { return !(a < b || a > b); }
HIPMLIR_HALF_FN bool __hneu(__half a, __half b) { return !(a == b); }
HIPMLIR_HALF_FN bool __hltu(__half a, __half b) { return !(a >= b); }
HIPMLIR_HALF_FN bool __hleu(__half a, __half b) { return !(a > b); }
HIPMLIR_HALF_FN bool __hgtu(__half a, __half b) { return !(a <= b); }
HIPMLIR_HALF_FN bool __hgeu(__half a, __half b) { return !(a < b); }
HIPMLIR_HALF_FN bool __hisnan(__half a) { return a != a; }
HIPMLIR_HALF_FN bool __hisinf(__half a) {
  return (__half_as_ushort(a) & 0x7fffu) == 0x7c00u;
}
// The larger (smaller) of two, the number when one is NaN; the _nan forms give NaN then.
#if defined(__HIP_DEVICE_COMPILE__)
// fmax and fmin of halves: PTX's max.f16 and min.f16 (sm_80 and newer), OpenCL's fmax on half.
// Host and device functions in both compiles, as every intrinsic here: the device compile
// parses host code that calls them.
HIPMLIR_HALF_FN __half __hmax(__half a, __half b) { return __builtin_fmaxf16(a, b); }
HIPMLIR_HALF_FN __half __hmin(__half a, __half b) { return __builtin_fminf16(a, b); }
#else
HIPMLIR_HALF_FN __half __hmax(__half a, __half b) { return a > b || b != b ? a : b; }
HIPMLIR_HALF_FN __half __hmin(__half a, __half b) { return a < b || b != b ? a : b; }
#endif
HIPMLIR_HALF_FN __half __hmax_nan(__half a, __half b) {
  return a != a ? a : (b != b ? b : (a > b ? a : b));
}
HIPMLIR_HALF_FN __half __hmin_nan(__half a, __half b) {
  return a != a ? a : (b != b ? b : (a < b ? a : b));
}
// Lane-wise comparisons: 1.0 where true, 0.0 where false. __hb*2: whether both lanes are true.
#define HIPMLIR_HALF2_CMP(name, scalar)                                                       \
  HIPMLIR_HALF_FN __half2 name##2(__half2 a, __half2 b) {                                     \
    return make_half2(scalar(a.x, b.x) ? (__half)1 : (__half)0,                               \
                      scalar(a.y, b.y) ? (__half)1 : (__half)0);                              \
  }
HIPMLIR_HALF2_CMP(__heq, __heq)
HIPMLIR_HALF2_CMP(__hne, __hne)
HIPMLIR_HALF2_CMP(__hlt, __hlt)
HIPMLIR_HALF2_CMP(__hle, __hle)
HIPMLIR_HALF2_CMP(__hgt, __hgt)
HIPMLIR_HALF2_CMP(__hge, __hge)
HIPMLIR_HALF2_CMP(__hequ, __hequ)
HIPMLIR_HALF2_CMP(__hneu, __hneu)
HIPMLIR_HALF2_CMP(__hltu, __hltu)
HIPMLIR_HALF2_CMP(__hleu, __hleu)
HIPMLIR_HALF2_CMP(__hgtu, __hgtu)
HIPMLIR_HALF2_CMP(__hgeu, __hgeu)
#undef HIPMLIR_HALF2_CMP
#define HIPMLIR_HALF2_BOTH(name, scalar)                                                      \
  HIPMLIR_HALF_FN bool name(__half2 a, __half2 b) { return scalar(a.x, b.x) && scalar(a.y, b.y); }
HIPMLIR_HALF2_BOTH(__hbeq2, __heq)
HIPMLIR_HALF2_BOTH(__hbne2, __hne)
HIPMLIR_HALF2_BOTH(__hblt2, __hlt)
HIPMLIR_HALF2_BOTH(__hble2, __hle)
HIPMLIR_HALF2_BOTH(__hbgt2, __hgt)
HIPMLIR_HALF2_BOTH(__hbge2, __hge)
HIPMLIR_HALF2_BOTH(__hbequ2, __hequ)
HIPMLIR_HALF2_BOTH(__hbneu2, __hneu)
HIPMLIR_HALF2_BOTH(__hbltu2, __hltu)
HIPMLIR_HALF2_BOTH(__hbleu2, __hleu)
HIPMLIR_HALF2_BOTH(__hbgtu2, __hgtu)
HIPMLIR_HALF2_BOTH(__hbgeu2, __hgeu)
#undef HIPMLIR_HALF2_BOTH
HIPMLIR_HALF_FN __half2 __hisnan2(__half2 a) {
  return make_half2(__hisnan(a.x) ? (__half)1 : (__half)0, __hisnan(a.y) ? (__half)1 : (__half)0);
}
HIPMLIR_HALF_FN __half2 __hisinf2(__half2 a) {
  return make_half2(__hisinf(a.x) ? (__half)1 : (__half)0, __hisinf(a.y) ? (__half)1 : (__half)0);
}
HIPMLIR_HALF2_PAIR(__hmax2, __hmax, __hipmlir_f16x2_max)
HIPMLIR_HALF2_PAIR(__hmin2, __hmin, __hipmlir_f16x2_min)
#undef HIPMLIR_HALF2_PAIR
HIPMLIR_HALF_FN __half2 __hmax2_nan(__half2 a, __half2 b) {
  return make_half2(__hmax_nan(a.x, b.x), __hmax_nan(a.y, b.y));
}
HIPMLIR_HALF_FN __half2 __hmin2_nan(__half2 a, __half2 b) {
  return make_half2(__hmin_nan(a.x, b.x), __hmin_nan(a.y, b.y));
}

// ---- math ----
// Computed in float and rounded to half (float's functions are accurate to a few float ulps,
// far below half's).
#define HIPMLIR_HALF_MATH(hname, h2name, f)                                                   \
  HIPMLIR_HALF_FN __half hname(__half a) { return (__half)f((float)a); }                       \
  HIPMLIR_HALF_FN __half2 h2name(__half2 a) { return make_half2(hname(a.x), hname(a.y)); }
HIPMLIR_HALF_MATH(hsqrt, h2sqrt, sqrtf)
HIPMLIR_HALF_MATH(hrsqrt, h2rsqrt, rsqrtf)
HIPMLIR_HALF_MATH(hexp, h2exp, expf)
HIPMLIR_HALF_MATH(hexp2, h2exp2, exp2f)
HIPMLIR_HALF_MATH(hexp10, h2exp10, exp10f)
HIPMLIR_HALF_MATH(hlog, h2log, logf)
HIPMLIR_HALF_MATH(hlog2, h2log2, log2f)
HIPMLIR_HALF_MATH(hlog10, h2log10, log10f)
HIPMLIR_HALF_MATH(hsin, h2sin, sinf)
HIPMLIR_HALF_MATH(hcos, h2cos, cosf)
HIPMLIR_HALF_MATH(hceil, h2ceil, ceilf)
HIPMLIR_HALF_MATH(hfloor, h2floor, floorf)
HIPMLIR_HALF_MATH(htrunc, h2trunc, truncf)
HIPMLIR_HALF_MATH(hrint, h2rint, rintf)
#undef HIPMLIR_HALF_MATH
HIPMLIR_HALF_FN __half hrcp(__half a) { return (__half)(1.0f / (float)a); }
HIPMLIR_HALF_FN __half2 h2rcp(__half2 a) { return make_half2(hrcp(a.x), hrcp(a.y)); }

// ---- warp shuffles ----
// A half through float (exact), a pair through its 32 bits.
#if defined(__HIP_DEVICE_COMPILE__)
#define HIPMLIR_HALF_SHUFFLE(name, Lane)                                                        \
  __device__ inline __half name(__half var, Lane lane) { return (__half)name((float)var, lane); } \
  __device__ inline __half name(__half var, Lane lane, int width) {                             \
    return (__half)name((float)var, lane, width);                                               \
  }                                                                                             \
  __device__ inline __half2 name(__half2 var, Lane lane) {                                      \
    return __hipmlir_bits_half2(name(__hipmlir_half2_bits(var), lane));                         \
  }                                                                                             \
  __device__ inline __half2 name(__half2 var, Lane lane, int width) {                           \
    return __hipmlir_bits_half2(name(__hipmlir_half2_bits(var), lane, width));                  \
  }                                                                                             \
  __device__ inline __half name##_sync(unsigned long long mask, __half var, Lane lane) {        \
    return (__half)name##_sync(mask, (float)var, lane);                                         \
  }                                                                                             \
  __device__ inline __half name##_sync(unsigned long long mask, __half var, Lane lane,          \
                                       int width) {                                             \
    return (__half)name##_sync(mask, (float)var, lane, width);                                  \
  }                                                                                             \
  __device__ inline __half2 name##_sync(unsigned long long mask, __half2 var, Lane lane) {      \
    return __hipmlir_bits_half2(name##_sync(mask, __hipmlir_half2_bits(var), lane));            \
  }                                                                                             \
  __device__ inline __half2 name##_sync(unsigned long long mask, __half2 var, Lane lane,        \
                                        int width) {                                            \
    return __hipmlir_bits_half2(name##_sync(mask, __hipmlir_half2_bits(var), lane, width));     \
  }
HIPMLIR_HALF_SHUFFLE(__shfl, int)
HIPMLIR_HALF_SHUFFLE(__shfl_up, unsigned int)
HIPMLIR_HALF_SHUFFLE(__shfl_down, unsigned int)
HIPMLIR_HALF_SHUFFLE(__shfl_xor, int)
#undef HIPMLIR_HALF_SHUFFLE
#endif

#undef HIPMLIR_HALF_FN
#endif  // HIPMLIR_HIP_FP16_H
