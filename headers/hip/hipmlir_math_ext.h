// HIP's math API beyond the builtins of hipmlir_math.h, as plain C++ over them, compiled like
// user code:
//   - C library functions the device lacks as builtins (frexp, modf, remquo, ilogb, scalbn, lrint,
//     lround, ...), defined for the device before <math.h> redeclares them for the host;
//   - std:: float overloads libstdc++ does not make device-callable (std::frexp(float, int*)...),
//     and the C float names in std (std::floorf, std::sqrtf...) as libc++ and clang's HIP headers
//     give them;
//   - HIP's own functions (erfinv, erfcinv, erfcx, normcdf, normcdfinv, rcbrt, rhypot, norm3d,
//     rnorm, sincospi, fdividef...) for the device and the host alike, and host versions of the
//     device builtins the C library lacks (sinpi, cospi, rsqrt);
//   - HIP's min and max overloads beyond the builtins (mixed types) and its host min/max.
// Float functions that need more than float precision internally are computed in double.
#ifndef HIPMLIR_MATH_EXT_H
#define HIPMLIR_MATH_EXT_H

#include "hipmlir_math.h"

#if defined(__HIP__) || defined(__CUDA__)
#define HIPMLIR_HD_MATH __attribute__((host)) __attribute__((device)) inline
#else
#define HIPMLIR_HD_MATH inline
#endif

// ---- C library functions on the device (before <math.h>) ----
#if defined(__HIP_DEVICE_COMPILE__)
extern "C" {
#define HIPMLIR_C_MATH(T, f)                                                                  \
  __device__ inline T frexp##f(T x, int* e) {                                                 \
    if (x == (T)0 || __builtin_isinf(x) || __builtin_isnan(x)) {                             \
      *e = 0;                                                                                 \
      return x;                                                                               \
    }                                                                                         \
    int k = (int)logb##f(x) + 1;                                                              \
    *e = k;                                                                                   \
    return ldexp##f(x, -k);                                                                   \
  }                                                                                           \
  __device__ inline T modf##f(T x, T* integral) {                                             \
    T i = trunc##f(x);                                                                        \
    *integral = i;                                                                            \
    return copysign##f(__builtin_isinf(x) ? (T)0 : x - i, x);                                 \
  }                                                                                           \
  /* The quotient's low three bits come from the remainder of |x| by 8|y|, which is exact. */ \
  __device__ inline T remquo##f(T x, T y, int* quo) {                                         \
    T r = remainder##f(x, y);                                                                 \
    T ax = fabs##f(x), ay = fabs##f(y);                                                       \
    int n = 0;                                                                                \
    if (!__builtin_isnan(r)) {                                                                \
      T a = __builtin_isinf(ay * (T)8) ? ax : fmod##f(ax, ay * (T)8);                         \
      T ra = remainder##f(a, ay);                                                             \
      n = (int)rint##f((a - ra) / ay) & 7;                                                    \
    }                                                                                         \
    *quo = ((x < (T)0) != (y < (T)0)) ? -n : n;                                               \
    return r;                                                                                 \
  }                                                                                           \
  __device__ inline int ilogb##f(T x) {                                                       \
    if (x == (T)0 || __builtin_isnan(x)) return (int)(-2147483647 - 1);                       \
    if (__builtin_isinf(x)) return 2147483647;                                                \
    return (int)logb##f(x);                                                                   \
  }                                                                                           \
  __device__ inline T scalbn##f(T x, int n) { return ldexp##f(x, n); }                        \
  __device__ inline T scalbln##f(T x, long n) {                                               \
    int k = n > 100000 ? 100000 : (n < -100000 ? -100000 : (int)n);                           \
    return ldexp##f(x, k);                                                                    \
  }                                                                                           \
  __device__ inline long lrint##f(T x) { return (long)rint##f(x); }                           \
  __device__ inline long long llrint##f(T x) { return (long long)rint##f(x); }                \
  __device__ inline long lround##f(T x) { return (long)round##f(x); }                         \
  __device__ inline long long llround##f(T x) { return (long long)round##f(x); }
HIPMLIR_C_MATH(float, f)
HIPMLIR_C_MATH(double, )
#undef HIPMLIR_C_MATH
__device__ inline float fdividef(float x, float y) { return x / y; }
// A quiet NaN (the tag's payload is not used).
__device__ inline double nan(const char*) { return __builtin_nan(""); }
__device__ inline float nanf(const char*) { return __builtin_nanf(""); }
}  // extern "C"

// ---- Bessel functions of the first and second kind (the C library's j0 ... yn) ----
// Below x = 25: J from Miller's backward recurrence (J_{k-1} = 2k/x J_k - J_{k+1}, started far
// above the order and normalized with J_0 + 2 (J_2 + J_4 + ...) = 1), which is stable; Y0 and Y1
// from the same values through Neumann's series
//   Y0 = 2/pi (ln(x/2) + gamma) J0 - 4/pi sum_k (-1)^k J_2k / k,
//   Y1 = 2/pi ((ln(x/2) + gamma) J1 - J0 / x) + 2/pi sum_k (-1)^k (J_2k-1 - J_2k+1) / k
// (the second is minus the first's derivative). From x = 25: Hankel's asymptotic expansions,
// accurate there to far below double's precision. Higher orders: forward recurrence for Y (always
// stable) and for J below x; Miller's recurrence for J at orders above x. The float forms are
// computed in double. Accuracy is absolute near the functions' zeros, as CUDA and HIP document.
struct __hipmlir_bessel_values {
  double j0, j1, jn, y0, y1;
};
__device__ inline __hipmlir_bessel_values __hipmlir_bessel_miller(int n, double x) {
  int top = n > (int)x ? n : (int)x;
  int start = top + 24 + (int)sqrt(40.0 * (double)top);
  start += start & 1;  // even
  double j_next = 0.0, j = 1e-280, norm = 0.0, jn = 0.0, j0 = 0.0, j1 = 0.0, sy0 = 0.0, sy1 = 0.0;
  for (int m = start; m >= 0; --m) {
    // j is J_m, j_next J_{m+1} (unnormalized).
    if (m == n) jn = j;
    if (m == 1) j1 = j;
    if (m == 0) j0 = j;
    if ((m & 1) == 0) {
      norm += m == 0 ? j : 2.0 * j;
      int k = m / 2;
      if (k >= 1) sy0 += ((k & 1) ? -j : j) / (double)k;
    } else {
      int k_plus = (m + 1) / 2, k_minus = (m - 1) / 2;
      double c = ((k_plus & 1) ? -1.0 : 1.0) / (double)k_plus;
      if (k_minus >= 1) c -= ((k_minus & 1) ? -1.0 : 1.0) / (double)k_minus;
      sy1 += c * j;
    }
    if (m == 0) break;
    double j_prev = (2.0 * (double)m / x) * j - j_next;
    j_next = j;
    j = j_prev;
    if (fabs(j) > 1e250) {  // rescale everything accumulated so far
      j *= 1e-250;
      j_next *= 1e-250;
      norm *= 1e-250;
      jn *= 1e-250;
      j1 *= 1e-250;
      sy0 *= 1e-250;
      sy1 *= 1e-250;
    }
  }
  __hipmlir_bessel_values v;
  v.j0 = j0 / norm;
  v.j1 = j1 / norm;
  v.jn = jn / norm;
  double l = log(0.5 * x) + 0.57721566490153286061;  // Euler's gamma
  v.y0 = 0.63661977236758134308 * (l * v.j0) - 1.27323954473516268615 * (sy0 / norm);
  v.y1 = 0.63661977236758134308 * (l * v.j1 - v.j0 / x) + 0.63661977236758134308 * (sy1 / norm);
  return v;
}
// Hankel's expansions of J_nu and Y_nu (nu = 0 or 1) for large x.
__device__ inline void __hipmlir_bessel_hankel(int nu, double x, double* j, double* y) {
  double mu = 4.0 * (double)(nu * nu);
  double p = 1.0, q = 0.0, term = 1.0, last = HUGE_VAL;
  for (int k = 1; k < 60; ++k) {
    term *= (mu - (double)((2 * k - 1) * (2 * k - 1))) / ((double)k * 8.0 * x);
    if (fabs(term) >= last) break;  // the asymptotic series starts to grow
    last = fabs(term);
    // Terms alternate between Q (odd k) and P (even k), each with sign (-1)^(k/2).
    if (k & 1) q += ((k / 2) & 1) ? -term : term;
    else p += ((k / 2) & 1) ? -term : term;
    if (last < 1e-18) break;
  }
  double s = sin(x), c = cos(x);
  // cos and sin of x - (nu/2 + 1/4) pi, times sqrt(2).
  double cos_chi = nu == 0 ? c + s : s - c;
  double sin_chi = nu == 0 ? s - c : -s - c;
  double scale = sqrt(1.0 / (3.14159265358979323846 * x));  // sqrt(2 / (pi x)) / sqrt(2)
  *j = scale * (p * cos_chi - q * sin_chi);
  *y = scale * (p * sin_chi + q * cos_chi);
}
extern "C" {
__device__ inline double jn(int n, double x) {
  if (x != x) return x;
  double sign = 1.0;
  if (n < 0) {
    n = -n;
    if (n & 1) sign = -sign;
  }
  if (x < 0.0) {
    x = -x;
    if (n & 1) sign = -sign;
  }
  if (x == 0.0) return n == 0 ? 1.0 : 0.0;
  if (__builtin_isinf(x)) return 0.0;
  if (x >= 25.0 && (n <= 1 || (double)n < x)) {
    double j0v, j1v, y;
    __hipmlir_bessel_hankel(0, x, &j0v, &y);
    __hipmlir_bessel_hankel(1, x, &j1v, &y);
    if (n == 0) return sign * j0v;
    for (int k = 1; k < n; ++k) {
      double next = (2.0 * (double)k / x) * j1v - j0v;
      j0v = j1v;
      j1v = next;
    }
    return sign * j1v;
  }
  return sign * __hipmlir_bessel_miller(n, x).jn;
}
__device__ inline double j0(double x) { return jn(0, x); }
__device__ inline double j1(double x) { return jn(1, x); }
__device__ inline double yn(int n, double x) {
  if (x != x) return x;
  if (x < 0.0) return __builtin_nan("");
  if (x == 0.0) return -HUGE_VAL;
  if (__builtin_isinf(x)) return 0.0;
  double sign = 1.0;
  if (n < 0) {
    n = -n;
    if (n & 1) sign = -1.0;
  }
  double y0v, y1v;
  if (x >= 25.0) {
    double j;
    __hipmlir_bessel_hankel(0, x, &j, &y0v);
    __hipmlir_bessel_hankel(1, x, &j, &y1v);
  } else {
    __hipmlir_bessel_values v = __hipmlir_bessel_miller(1, x);
    y0v = v.y0;
    y1v = v.y1;
  }
  if (n == 0) return y0v;
  for (int k = 1; k < n && !__builtin_isinf(y1v); ++k) {
    double next = (2.0 * (double)k / x) * y1v - y0v;
    y0v = y1v;
    y1v = next;
  }
  return sign * y1v;
}
__device__ inline double y0(double x) { return yn(0, x); }
__device__ inline double y1(double x) { return yn(1, x); }
__device__ inline float jnf(int n, float x) { return (float)jn(n, (double)x); }
__device__ inline float j0f(float x) { return (float)jn(0, (double)x); }
__device__ inline float j1f(float x) { return (float)jn(1, (double)x); }
__device__ inline float ynf(int n, float x) { return (float)yn(n, (double)x); }
__device__ inline float y0f(float x) { return (float)yn(0, (double)x); }
__device__ inline float y1f(float x) { return (float)yn(1, (double)x); }
}  // extern "C"

// libstdc++'s float overloads of these are not constexpr (so host-only in HIP): device ones.
namespace std {
__device__ inline float frexp(float x, int* e) { return ::frexpf(x, e); }
__device__ inline float modf(float x, float* integral) { return ::modff(x, integral); }
__device__ inline float remquo(float x, float y, int* quo) { return ::remquof(x, y, quo); }
}  // namespace std
#endif  // __HIP_DEVICE_COMPILE__

#include <math.h>

// ---- host versions of device builtins the C library lacks ----
#if defined(__HIP_DEVICE_COMPILE__)
// The device-side parse also type-checks host code: the builtins are callable there too.
extern "C" {
double sinpi(double x);
float sinpif(float x);
double cospi(double x);
float cospif(float x);
double rsqrt(double x);
float rsqrtf(float x);
}
#elif !(defined(__GLIBC_PREREQ) && __GLIBC_PREREQ(2, 41))
// sin(pi x) and cos(pi x) with the argument reduced exactly to [-1, 1] first, so that whole and
// half-whole arguments give exact zeros.
inline double __hipmlir_sinpi_reduced(double r) {
  double a = fabs(r);
  double s = a <= 0.25 ? sin(3.14159265358979323846 * a) : (a <= 0.75 ? cos(3.14159265358979323846 * (0.5 - a)) : sin(3.14159265358979323846 * (1.0 - a)));
  return copysign(s, r);
}
inline double sinpi(double x) {
  if (__builtin_isinf(x)) return NAN;
  double r = fmod(x, 2.0);
  if (r > 1.0) r -= 2.0;
  if (r < -1.0) r += 2.0;
  if (r == 0.0) return copysign(0.0, x);
  return __hipmlir_sinpi_reduced(r);
}
inline double cospi(double x) {
  if (__builtin_isinf(x)) return NAN;
  double a = fabs(fmod(x, 2.0));
  if (a > 1.0) a = 2.0 - a;
  if (a <= 0.25) return cos(3.14159265358979323846 * a);
  if (a <= 0.75) return sin(3.14159265358979323846 * (0.5 - a));
  return -cos(3.14159265358979323846 * (1.0 - a));
}
inline float sinpif(float x) { return (float)sinpi((double)x); }
inline float cospif(float x) { return (float)cospi((double)x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rsqrtf(float x) { return (float)(1.0 / sqrt((double)x)); }
#endif

// ---- HIP's own math functions, for device and host ----
HIPMLIR_HD_MATH void sincospi(double x, double* s, double* c) {
  *s = sinpi(x);
  *c = cospi(x);
}
HIPMLIR_HD_MATH void sincospif(float x, float* s, float* c) {
  *s = sinpif(x);
  *c = cospif(x);
}
#if !defined(__HIP_DEVICE_COMPILE__)
inline float fdividef(float x, float y) { return x / y; }
#endif

// Modified Bessel functions of the first kind, orders 0 and 1: the power series (positive terms,
// so accurate) up to 30, Hankel's expansion beyond, with e^x taken in two halves so that the result
// overflows only where the function does.
HIPMLIR_HD_MATH double __hipmlir_bessel_i(int nu, double x) {
  double a = fabs(x);
  double result;
  if (a <= 30.0) {
    // The series' length from its terms, then its sum nested from the last term inward,
    // 1 + c1 (1 + c2 (1 + ...)) with c_k = (x/2)^2 / (k (k + nu)): each rounding then weighs as
    // much as the terms it multiplies, where summing the terms one by one would let the rounding
    // of every term's product build up.
    // q = (x/2)^2 is not exact in double: its rounding error q_lo enters through the series'
    // derivative, nested along with it.
    double q = 0.25 * a * a, q_lo = fma(0.25 * a, a, -q), term = 1.0, sum = 1.0;
    int terms = 1;
    for (; terms < 200; ++terms) {
      term *= q / ((double)terms * (double)(terms + nu));
      sum += term;
      if (term < sum * 1e-17) break;
    }
    double nested = 1.0, derivative = 0.0;
    for (int k = terms; k >= 1; --k) {
      double m = (double)k * (double)(k + nu);
      derivative = fma(q, derivative, nested) / m;
      nested = fma(q / m, nested, 1.0);
    }
    nested = fma(q_lo, derivative, nested);
    result = nu == 0 ? nested : 0.5 * a * nested;
  } else {
    double mu = 4.0 * (double)(nu * nu), term = 1.0, sum = 1.0;
    for (int k = 1; k < 40; ++k) {
      double next = term * -(mu - (double)((2 * k - 1) * (2 * k - 1))) / ((double)k * 8.0 * a);
      if (fabs(next) >= fabs(term)) break;
      term = next;
      sum += term;
      if (fabs(term) < 1e-18) break;
    }
    double scaled = sum / sqrt(6.28318530717958647693 * a);
    if (a < 709.0) {
      result = exp(a) * scaled;
    } else {
      double half = exp(0.5 * a);
      result = half * (half * scaled);
    }
  }
  return nu == 1 && x < 0.0 ? -result : result;
}
HIPMLIR_HD_MATH double cyl_bessel_i0(double x) { return __hipmlir_bessel_i(0, x); }
HIPMLIR_HD_MATH double cyl_bessel_i1(double x) { return __hipmlir_bessel_i(1, x); }
HIPMLIR_HD_MATH float cyl_bessel_i0f(float x) { return (float)__hipmlir_bessel_i(0, (double)x); }
HIPMLIR_HD_MATH float cyl_bessel_i1f(float x) { return (float)__hipmlir_bessel_i(1, (double)x); }

// x to an integer power.
HIPMLIR_HD_MATH double powi(double x, int n) { return pow(x, (double)n); }
HIPMLIR_HD_MATH float powif(float x, int n) { return powf(x, (float)n); }

// erfcx(x) = exp(x^2) erfc(x). x^2 is split into an exact sum (fma) so that exp's argument
// carries no rounding; past 25, where erfc underflows, the asymptotic series.
HIPMLIR_HD_MATH double erfcx(double x) {
  if (__builtin_isnan(x)) return x;
  if (x < 25.0) {
    double hi = x * x;
    double lo = fma(x, x, -hi);
    return exp(hi) * erfc(x) * (1.0 + lo);
  }
  if (__builtin_isinf(x)) return 0.0;
  double t = 1.0 / (2.0 * x * x);
  double term = 1.0, sum = 1.0;
  for (int k = 1; k <= 10; ++k) {
    term *= -(double)(2 * k - 1) * t;
    sum += term;
  }
  return sum / (x * 1.7724538509055160273);  // sqrt(pi)
}
HIPMLIR_HD_MATH float erfcxf(float x) { return (float)erfcx((double)x); }

// A first approximation of erfinv from w = -log((1 - x)(1 + x)) (Giles, "Approximating the erfinv
// function", 2010; good to about 1e-7), which the inverse functions below refine with Newton steps.
HIPMLIR_HD_MATH double __hipmlir_erfinv_seed(double w, double x) {
  double p;
  if (w < 5.0) {
    w = w - 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p * x;
}

// erfcinv for 0 < x < 1 (the result is positive): Newton steps on erfc(y) = x written relative to
// erfc(y), y += (1 - x / erfc(y)) * erfcx(y) * sqrt(pi) / 2, which neither overflows nor loses
// the tail for tiny x.
HIPMLIR_HD_MATH double __hipmlir_erfcinv_tail(double x) {
  double w = -log(x * (2.0 - x));
  double y;
  if (w < 16.0) {
    y = __hipmlir_erfinv_seed(w, 1.0 - x);
  } else {
    // erfc(y) ~ exp(-y^2) / (y sqrt(pi)) far out.
    double l = -log(x);
    y = sqrt(l);
    y = sqrt(l - log(y * 1.7724538509055160273));
  }
  for (int i = 0; i < 6; ++i) {
    double e = erfc(y);
    if (e == 0.0) break;
    y += (1.0 - x / e) * erfcx(y) * 0.88622692545275801365;  // sqrt(pi) / 2
  }
  return y;
}

HIPMLIR_HD_MATH double erfinv(double x) {
  double a = fabs(x);
  if (__builtin_isnan(x) || a > 1.0) return NAN;
  if (a == 1.0) return copysign(HUGE_VAL, x);
  if (a == 0.0) return x;
  if (a > 0.5) {
    // erfc(y) = 1 - |x|, which is exact here.
    return copysign(__hipmlir_erfcinv_tail(1.0 - a), x);
  }
  double y = __hipmlir_erfinv_seed(-log((1.0 - a) * (1.0 + a)), a);
  for (int i = 0; i < 2; ++i) {
    // erf'(y) = 2 / sqrt(pi) * exp(-y^2)
    y -= (erf(y) - a) * 0.88622692545275801365 * exp(y * y);
  }
  return copysign(y, x);
}
HIPMLIR_HD_MATH float erfinvf(float x) { return (float)erfinv((double)x); }

HIPMLIR_HD_MATH double erfcinv(double x) {
  if (__builtin_isnan(x) || x < 0.0 || x > 2.0) return NAN;
  if (x == 0.0) return HUGE_VAL;
  if (x == 2.0) return -HUGE_VAL;
  if (x < 0.5) return __hipmlir_erfcinv_tail(x);
  if (x > 1.5) return -__hipmlir_erfcinv_tail(2.0 - x);
  return erfinv(1.0 - x);  // exact argument for x in [0.5, 1.5]
}
HIPMLIR_HD_MATH float erfcinvf(float x) { return (float)erfcinv((double)x); }

// normcdf(x) = erfc(-x / sqrt(2)) / 2, with -x / sqrt(2) carried as an exact-ish sum t + dt (its
// rounding would otherwise cost about x^2 ulps in the far tail): erfc(t + dt) ~ erfc(t) -
// dt * 2 / sqrt(pi) * exp(-t^2).
HIPMLIR_HD_MATH double normcdf(double x) {
  if (__builtin_isnan(x)) return x;
  const double c_hi = 0.70710678118654757;     // 1/sqrt(2), rounded
  const double c_lo = -4.8336466567264567e-17;  // 1/sqrt(2) - c_hi
  double t = -x * c_hi;
  double dt = fma(-x, c_hi, -t) + -x * c_lo;
  double e = erfc(t) - dt * 1.1283791670955125739 * exp(-t * t);  // 2 / sqrt(pi)
  return 0.5 * e;
}
HIPMLIR_HD_MATH float normcdff(float x) { return (float)normcdf((double)x); }

HIPMLIR_HD_MATH double normcdfinv(double x) {
  return -1.4142135623730950488 * erfcinv(2.0 * x);
}
HIPMLIR_HD_MATH float normcdfinvf(float x) { return (float)normcdfinv((double)x); }

// 1 / cbrt(x), then one Newton step whose residual 1 - x y^3 is computed with y^3 as an exact-ish
// double-double (fma), which brings the result within an ulp.
HIPMLIR_HD_MATH double rcbrt(double x) {
  double y = 1.0 / cbrt(x);
  double a = fabs(x);
  if (!(a > 1e-290 && a < 1e290)) return y;
  double t = y * y, t_lo = fma(y, y, -t);
  double u = t * y, u_lo = fma(t, y, -u) + t_lo * y;
  double r = fma(-x, u, 1.0) - x * u_lo;
  return fma(y * r, 1.0 / 3.0, y);
}
HIPMLIR_HD_MATH float rcbrtf(float x) { return (float)(1.0 / cbrt((double)x)); }

// Norms of 2, 3, 4 or n values. Double ones scale by a power of two first (exact), so that no
// square overflows or underflows; float ones are computed in double.
HIPMLIR_HD_MATH double __hipmlir_norm(int n, const double* a, bool reciprocal) {
  double m = 0.0;
  bool inf = false;
  for (int i = 0; i < n; ++i) {
    double v = fabs(a[i]);
    if (__builtin_isinf(v)) inf = true;
    if (v > m || __builtin_isnan(v)) m = v;
  }
  if (inf) return reciprocal ? 0.0 : HUGE_VAL;
  if (__builtin_isnan(m)) return m;
  if (m == 0.0) return reciprocal ? HUGE_VAL : 0.0;
  int e = (int)logb(m);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    double v = ldexp(a[i], -e);
    sum = fma(v, v, sum);
  }
  return reciprocal ? ldexp(1.0 / sqrt(sum), -e) : ldexp(sqrt(sum), e);
}
HIPMLIR_HD_MATH float __hipmlir_normf(int n, const float* a, bool reciprocal) {
  double sum = 0.0;
  bool inf = false;
  for (int i = 0; i < n; ++i) {
    double v = (double)a[i];
    if (__builtin_isinf(v)) inf = true;
    sum += v * v;
  }
  if (inf) return reciprocal ? 0.0f : (float)HUGE_VAL;
  return (float)(reciprocal ? 1.0 / sqrt(sum) : sqrt(sum));
}
HIPMLIR_HD_MATH double norm(int dim, const double* a) { return __hipmlir_norm(dim, a, false); }
HIPMLIR_HD_MATH double rnorm(int dim, const double* a) { return __hipmlir_norm(dim, a, true); }
HIPMLIR_HD_MATH float normf(int dim, const float* a) { return __hipmlir_normf(dim, a, false); }
HIPMLIR_HD_MATH float rnormf(int dim, const float* a) { return __hipmlir_normf(dim, a, true); }
#define HIPMLIR_NORMS(T, f, impl)                                                    \
  HIPMLIR_HD_MATH T rhypot##f(T x, T y) {                                            \
    T a[2] = {x, y};                                                                 \
    return impl(2, a, true);                                                         \
  }                                                                                  \
  HIPMLIR_HD_MATH T norm3d##f(T x, T y, T z) {                                       \
    T a[3] = {x, y, z};                                                              \
    return impl(3, a, false);                                                        \
  }                                                                                  \
  HIPMLIR_HD_MATH T rnorm3d##f(T x, T y, T z) {                                      \
    T a[3] = {x, y, z};                                                              \
    return impl(3, a, true);                                                         \
  }                                                                                  \
  HIPMLIR_HD_MATH T norm4d##f(T x, T y, T z, T w) {                                  \
    T a[4] = {x, y, z, w};                                                           \
    return impl(4, a, false);                                                        \
  }                                                                                  \
  HIPMLIR_HD_MATH T rnorm4d##f(T x, T y, T z, T w) {                                 \
    T a[4] = {x, y, z, w};                                                           \
    return impl(4, a, true);                                                         \
  }
HIPMLIR_NORMS(double, , __hipmlir_norm)
HIPMLIR_NORMS(float, f, __hipmlir_normf)
#undef HIPMLIR_NORMS

// ---- the C float names in std (std::floorf...), as libc++ and clang's HIP headers have them ----
namespace std {
using ::acosf;
using ::asinf;
using ::atanf;
using ::atan2f;
using ::ceilf;
using ::cosf;
using ::coshf;
using ::expf;
using ::fabsf;
using ::floorf;
using ::fmodf;
using ::frexpf;
using ::ldexpf;
using ::logf;
using ::log10f;
using ::modff;
using ::powf;
using ::sinf;
using ::sinhf;
using ::sqrtf;
using ::tanf;
using ::tanhf;
using ::acoshf;
using ::asinhf;
using ::atanhf;
using ::cbrtf;
using ::copysignf;
using ::erff;
using ::erfcf;
using ::exp2f;
using ::expm1f;
using ::fdimf;
using ::fmaf;
using ::fmaxf;
using ::fminf;
using ::hypotf;
using ::ilogbf;
using ::lgammaf;
using ::llrintf;
using ::llroundf;
using ::log1pf;
using ::log2f;
using ::logbf;
using ::lrintf;
using ::lroundf;
using ::nearbyintf;
using ::nextafterf;
using ::remainderf;
using ::remquof;
using ::rintf;
using ::roundf;
using ::scalblnf;
using ::scalbnf;
using ::tgammaf;
using ::truncf;
}  // namespace std

// ---- min and max ----
#if defined(__HIP_DEVICE_COMPILE__)
// Beyond the same-type builtins: any other type with <, mixed signedness (an unsigned comparison,
// as HIP does) and mixed float/double.
template <class T>
__device__ inline T min(T a, T b) {
  return a < b ? a : b;
}
template <class T>
__device__ inline T max(T a, T b) {
  return a > b ? a : b;
}
#define HIPMLIR_MIXED_MIN_MAX(R, A, B)                                   \
  __device__ inline R min(A a, B b) { return min((R)a, (R)b); }         \
  __device__ inline R max(A a, B b) { return max((R)a, (R)b); }
HIPMLIR_MIXED_MIN_MAX(unsigned int, int, unsigned int)
HIPMLIR_MIXED_MIN_MAX(unsigned int, unsigned int, int)
HIPMLIR_MIXED_MIN_MAX(unsigned long, long, unsigned long)
HIPMLIR_MIXED_MIN_MAX(unsigned long, unsigned long, long)
HIPMLIR_MIXED_MIN_MAX(unsigned long long, long long, unsigned long long)
HIPMLIR_MIXED_MIN_MAX(unsigned long long, unsigned long long, long long)
HIPMLIR_MIXED_MIN_MAX(double, float, double)
HIPMLIR_MIXED_MIN_MAX(double, double, float)
#undef HIPMLIR_MIXED_MIN_MAX
#endif

// Host min and max in the global namespace, as clang's HIP headers define them: int always; the
// other types with __HIP_DEFINE_EXTENDED_HOST_MIN_MAX__, mixed signedness with
// __HIP_DEFINE_MIXED_HOST_MIN_MAX__; none with __HIP_NO_HOST_MIN_MAX_IN_GLOBAL_NAMESPACE__.
#if !defined(__HIP_NO_HOST_MIN_MAX_IN_GLOBAL_NAMESPACE__)
#define HIPMLIR_HOST_MIN_MAX(R, A, B)                           \
  inline R min(const A a, const B b) { return a < b ? a : b; } \
  inline R max(const A a, const B b) { return a > b ? a : b; }
HIPMLIR_HOST_MIN_MAX(int, int, int)
#if defined(__HIP_DEFINE_EXTENDED_HOST_MIN_MAX__) && __HIP_DEFINE_EXTENDED_HOST_MIN_MAX__
HIPMLIR_HOST_MIN_MAX(unsigned int, unsigned int, unsigned int)
HIPMLIR_HOST_MIN_MAX(long, long, long)
HIPMLIR_HOST_MIN_MAX(unsigned long, unsigned long, unsigned long)
HIPMLIR_HOST_MIN_MAX(long long, long long, long long)
HIPMLIR_HOST_MIN_MAX(unsigned long long, unsigned long long, unsigned long long)
inline float min(const float a, const float b) { return fminf(a, b); }
inline double min(const double a, const double b) { return fmin(a, b); }
inline double min(const float a, const double b) { return fmin(a, b); }
inline double min(const double a, const float b) { return fmin(a, b); }
inline float max(const float a, const float b) { return fmaxf(a, b); }
inline double max(const double a, const double b) { return fmax(a, b); }
inline double max(const float a, const double b) { return fmax(a, b); }
inline double max(const double a, const float b) { return fmax(a, b); }
#endif
#if defined(__HIP_DEFINE_MIXED_HOST_MIN_MAX__) && __HIP_DEFINE_MIXED_HOST_MIN_MAX__
HIPMLIR_HOST_MIN_MAX(unsigned int, int, unsigned int)
HIPMLIR_HOST_MIN_MAX(unsigned int, unsigned int, int)
HIPMLIR_HOST_MIN_MAX(unsigned long, long, unsigned long)
HIPMLIR_HOST_MIN_MAX(unsigned long, unsigned long, long)
HIPMLIR_HOST_MIN_MAX(unsigned long long, long long, unsigned long long)
HIPMLIR_HOST_MIN_MAX(unsigned long long, unsigned long long, long long)
#endif
#undef HIPMLIR_HOST_MIN_MAX
#endif

// HIP's named integer min and max on the host (the device ones are builtins).
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) {
  return a < b ? a : b;
}
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) {
  return a > b ? a : b;
}

#undef HIPMLIR_HD_MATH
#endif  // HIPMLIR_MATH_EXT_H
