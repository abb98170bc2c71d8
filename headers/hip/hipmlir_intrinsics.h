// HIP's device intrinsics that are plain C++ over the math library (hipmlir_math.h), compiled
// like user code rather than lowered as builtins: bit reinterpretation, conversions with a
// rounding mode, arithmetic correctly rounded in each rounding mode (to nearest even, toward
// zero, down, up), high halves of products, 24-bit products, __sad, __ldg, integer intrinsics,
// and the atomics HIP spells over the builtin ones.
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
// Float division, reciprocal and square root in double, then rounded to float: double's are
// correctly rounded on every target (OpenCL requires it; float's need not be), and a float
// operation's result rounded first to double and then to float is still correctly rounded
// (53 >= 2 * 24 + 2 bits).
__device__ inline float __fdiv_rn(float a, float b) { return (float)((double)a / (double)b); }
__device__ inline float __frcp_rn(float x) { return (float)(1.0 / (double)x); }
__device__ inline float __fsqrt_rn(float x) { return (float)sqrt((double)x); }
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
__device__ inline double __drcp_rn(double x) { return 1.0 / x; }
__device__ inline double __dsqrt_rn(double x) { return sqrt(x); }
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

// The fast sine and cosine together.
__device__ inline void __sincosf(float x, float* s, float* c) {
  *s = __sinf(x);
  *c = __cosf(x);
}

// ---- arithmetic rounded toward zero, down or up ----
// The result rounded to nearest, then stepped once toward the wanted direction when it lies on
// the wrong side of the exact result. Which side it lies on comes from an error-free
// transformation: a value with the sign of (exact - rounded), computed exactly (TwoSum for sums,
// fma for the remainder of products, quotients and square roots, taken in a range scaled by a
// power of two so that no remainder underflows). Modes: 1 toward zero, 2 down, 3 up.
__device__ inline float __hipmlir_nextafter(float x, float y) { return nextafterf(x, y); }
__device__ inline double __hipmlir_nextafter(double x, double y) { return nextafter(x, y); }
__device__ inline float __hipmlir_scalbn(float x, int n) { return scalbnf(x, n); }
__device__ inline double __hipmlir_scalbn(double x, int n) { return scalbn(x, n); }
__device__ inline int __hipmlir_ilogb(float x) { return ilogbf(x); }
__device__ inline int __hipmlir_ilogb(double x) { return ilogb(x); }
__device__ inline float __hipmlir_fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ inline double __hipmlir_fma(double a, double b, double c) { return fma(a, b, c); }
template <class T>
__device__ inline bool __hipmlir_is_inf(T x) {
  return x - x != x - x && x == x;
}
// `rounded` stepped toward the mode's direction when `error` (the sign of exact - rounded) says
// it lies on the wrong side.
template <class T>
__device__ inline T __hipmlir_directed(T rounded, T error, int mode) {
  if (error == (T)0 || rounded != rounded) return rounded;
  bool down = mode == 2 ? error < (T)0 : (mode == 1 && rounded > (T)0 && error < (T)0);
  bool up = mode == 3 ? error > (T)0 : (mode == 1 && rounded < (T)0 && error > (T)0);
  if (down) return __hipmlir_nextafter(rounded, -(T)HUGE_VAL);
  if (up) return __hipmlir_nextafter(rounded, (T)HUGE_VAL);
  return rounded;
}
// An exact zero result is -0 when rounding down and an operand (or the product) is negative.
template <class T>
__device__ inline T __hipmlir_signed_zero(T zero, bool negative_operand, int mode) {
  return mode == 2 && negative_operand ? -(T)0 : zero;
}
template <class T>
__device__ inline void __hipmlir_two_sum(T a, T b, T& s, T& e) {
  s = a + b;
  T bp = s - a;
  T ap = s - bp;
  e = (a - ap) + (b - bp);
}
template <class T>
__device__ inline T __hipmlir_add_dir(T a, T b, int mode) {
  T s = a + b;
  if (s != s || __hipmlir_is_inf(a) || __hipmlir_is_inf(b)) return s;
  if (__hipmlir_is_inf(s)) return __hipmlir_directed(s, -s, mode);  // overflow
  T sum, error;
  __hipmlir_two_sum(a, b, sum, error);
  if (s == (T)0) return __hipmlir_signed_zero(s, __builtin_signbit(a) || __builtin_signbit(b), mode);
  return __hipmlir_directed(s, error, mode);
}
template <class T>
__device__ inline T __hipmlir_mul_dir(T a, T b, int mode) {
  T p = a * b;
  if (p != p || __hipmlir_is_inf(a) || __hipmlir_is_inf(b) || a == (T)0 || b == (T)0) {
    return p == (T)0 ? __hipmlir_signed_zero(p, __builtin_signbit(a) != __builtin_signbit(b), mode) : p;
  }
  if (__hipmlir_is_inf(p)) return __hipmlir_directed(p, -p, mode);
  int ea = __hipmlir_ilogb(a), eb = __hipmlir_ilogb(b);
  T as = __hipmlir_scalbn(a, -ea), bs = __hipmlir_scalbn(b, -eb);
  T ps = __hipmlir_scalbn(p, -(ea + eb));
  return __hipmlir_directed(p, __hipmlir_fma(as, bs, -ps), mode);
}
template <class T>
__device__ inline T __hipmlir_div_dir(T a, T b, int mode) {
  T q = a / b;
  if (q != q || __hipmlir_is_inf(a) || __hipmlir_is_inf(b) || a == (T)0 || b == (T)0) {
    return q == (T)0 ? __hipmlir_signed_zero(q, __builtin_signbit(a) != __builtin_signbit(b), mode) : q;
  }
  if (__hipmlir_is_inf(q)) return __hipmlir_directed(q, -q, mode);
  int ea = __hipmlir_ilogb(a), eb = __hipmlir_ilogb(b);
  T as = __hipmlir_scalbn(a, -ea), bs = __hipmlir_scalbn(b, -eb);
  T qs = __hipmlir_scalbn(q, eb - ea);
  // as / bs - qs has the sign of (as - qs * bs) * bs.
  return __hipmlir_directed(q, __hipmlir_fma(-qs, bs, as) * bs, mode);
}
template <class T>
__device__ inline T __hipmlir_sqrt_dir(T x, T s, int mode) {
  if (s != s || x == (T)0 || __hipmlir_is_inf(x)) return s;
  int e = __hipmlir_ilogb(x);
  int k = (e - (e & 1)) / 2;  // x = xs * 2^(2k), xs in [1, 4)
  T xs = __hipmlir_scalbn(x, -2 * k), ss = __hipmlir_scalbn(s, -k);
  return __hipmlir_directed(s, __hipmlir_fma(-ss, ss, xs), mode);
}
template <class T>
__device__ inline T __hipmlir_fma_dir(T a, T b, T c, int mode) {
  T r = __hipmlir_fma(a, b, c);
  if (r != r || __hipmlir_is_inf(a) || __hipmlir_is_inf(b) || __hipmlir_is_inf(c)) return r;
  if (__hipmlir_is_inf(r)) return __hipmlir_directed(r, -r, mode);
  bool product_negative = __builtin_signbit(a) != __builtin_signbit(b);
  if (a == (T)0 || b == (T)0) {
    return r == (T)0 ? __hipmlir_signed_zero(r, product_negative || __builtin_signbit(c), mode) : r;
  }
  // a * b + c - r as four terms, in a range where the product's rounding error is exact: the
  // product scaled to [1, 4), c and r by the same power of two (when c or r would overflow
  // there, the product is far below half an ulp of c: r is c and the product's sign decides).
  int ea = __hipmlir_ilogb(a), eb = __hipmlir_ilogb(b);
  T as = __hipmlir_scalbn(a, -ea), bs = __hipmlir_scalbn(b, -eb);
  T cs = __hipmlir_scalbn(c, -(ea + eb)), rs = __hipmlir_scalbn(r, -(ea + eb));
  if (__hipmlir_is_inf(cs) || __hipmlir_is_inf(rs)) {
    return __hipmlir_directed(r, product_negative ? -(T)1 : (T)1, mode);
  }
  T x0 = as * bs;
  T x1 = __hipmlir_fma(as, bs, -x0);
  T x2 = cs, x3 = -rs;
  // Three passes of error-free summation leave the sum's sign in the accumulated total.
  for (int pass = 0; pass < 3; ++pass) {
    T s, e;
    __hipmlir_two_sum(x0, x1, s, e);
    x0 = e;
    x1 = s;
    __hipmlir_two_sum(x1, x2, s, e);
    x1 = e;
    x2 = s;
    __hipmlir_two_sum(x2, x3, s, e);
    x2 = e;
    x3 = s;
  }
  T error = x3 + (x2 + (x1 + x0));
  if (r == (T)0 && error == (T)0) {
    return __hipmlir_signed_zero(r, product_negative || __builtin_signbit(c), mode);
  }
  return __hipmlir_directed(r, error, mode);
}
#define HIPMLIR_DIRECTED(suffix, mode)                                                           \
  __device__ inline float __fadd_##suffix(float a, float b) {                                     \
    return __hipmlir_add_dir(a, b, mode);                                                        \
  }                                                                                              \
  __device__ inline float __fsub_##suffix(float a, float b) {                                     \
    return __hipmlir_add_dir(a, -b, mode);                                                       \
  }                                                                                              \
  __device__ inline float __fmul_##suffix(float a, float b) {                                     \
    return __hipmlir_mul_dir(a, b, mode);                                                        \
  }                                                                                              \
  __device__ inline float __fdiv_##suffix(float a, float b) {                                     \
    return __hipmlir_div_dir(a, b, mode);                                                        \
  }                                                                                              \
  __device__ inline float __frcp_##suffix(float x) { return __hipmlir_div_dir(1.0f, x, mode); }   \
  __device__ inline float __fsqrt_##suffix(float x) {                                             \
    return __hipmlir_sqrt_dir(x, __fsqrt_rn(x), mode);                                           \
  }                                                                                              \
  __device__ inline float __fmaf_##suffix(float a, float b, float c) {                            \
    return __hipmlir_fma_dir(a, b, c, mode);                                                     \
  }                                                                                              \
  __device__ inline double __dadd_##suffix(double a, double b) {                                  \
    return __hipmlir_add_dir(a, b, mode);                                                        \
  }                                                                                              \
  __device__ inline double __dsub_##suffix(double a, double b) {                                  \
    return __hipmlir_add_dir(a, -b, mode);                                                       \
  }                                                                                              \
  __device__ inline double __dmul_##suffix(double a, double b) {                                  \
    return __hipmlir_mul_dir(a, b, mode);                                                        \
  }                                                                                              \
  __device__ inline double __ddiv_##suffix(double a, double b) {                                  \
    return __hipmlir_div_dir(a, b, mode);                                                        \
  }                                                                                              \
  __device__ inline double __drcp_##suffix(double x) { return __hipmlir_div_dir(1.0, x, mode); }  \
  __device__ inline double __dsqrt_##suffix(double x) {                                           \
    return __hipmlir_sqrt_dir(x, sqrt(x), mode);                                                 \
  }                                                                                              \
  __device__ inline double __fma_##suffix(double a, double b, double c) {                         \
    return __hipmlir_fma_dir(a, b, c, mode);                                                     \
  }
HIPMLIR_DIRECTED(rz, 1)
HIPMLIR_DIRECTED(rd, 2)
HIPMLIR_DIRECTED(ru, 3)
#undef HIPMLIR_DIRECTED

// 1 / sqrt(x) to nearest: the double estimate rounded to float, then moved to the neighbour
// when the exact value lies beyond the midpoint between them. With m a midpoint (25 bits, so m^2
// is exact in double), 1/sqrt(x) > m exactly when m^2 * x < 1, which an fma decides exactly.
__device__ inline bool __hipmlir_rsqrt_beyond(double m, float x) {
  double m2 = m * m;
  double hi = m2 * (double)x;
  double lo = fma(m2, (double)x, -hi);
  return hi < 1.0 || (hi == 1.0 && lo < 0.0);
}
__device__ inline float __frsqrt_rn(float x) {
  float y = (float)(1.0 / sqrt((double)x));
  if (!(x > 0.0f) || __hipmlir_is_inf(x) || __hipmlir_is_inf(y)) return y;
  float up = nextafterf(y, HUGE_VALF), down = nextafterf(y, 0.0f);
  if (__hipmlir_rsqrt_beyond(((double)y + (double)up) * 0.5, x)) return up;
  if (!__hipmlir_rsqrt_beyond(((double)y + (double)down) * 0.5, x)) return down;
  return y;
}

// ---- atomics HIP spells over the builtins ----
// Compare-and-swap of floats by their bits; the add/max/min variants ROCm offers for its
// hardware's float atomics (unsafe: may skip denormals and not work on fine-grained memory;
// safe: always correct) are the same operation here; atomicAddNoRet discards the old value.
#define HIPMLIR_FLOAT_CAS(scope)                                                                  \
  __device__ inline float atomicCAS##scope(float* address, float compare, float value) {          \
    return __uint_as_float(atomicCAS##scope(reinterpret_cast<unsigned int*>(address),             \
                                            __float_as_uint(compare), __float_as_uint(value)));   \
  }                                                                                               \
  __device__ inline double atomicCAS##scope(double* address, double compare, double value) {      \
    return __longlong_as_double((long long)atomicCAS##scope(                                      \
        reinterpret_cast<unsigned long long*>(address),                                           \
        (unsigned long long)__double_as_longlong(compare),                                        \
        (unsigned long long)__double_as_longlong(value)));                                        \
  }
HIPMLIR_FLOAT_CAS()
HIPMLIR_FLOAT_CAS(_block)
HIPMLIR_FLOAT_CAS(_system)
#undef HIPMLIR_FLOAT_CAS
#define HIPMLIR_FLOAT_ATOMIC_ALIAS(name, base)                                                    \
  __device__ inline float name(float* address, float value) { return base(address, value); }      \
  __device__ inline double name(double* address, double value) { return base(address, value); }
HIPMLIR_FLOAT_ATOMIC_ALIAS(unsafeAtomicAdd, atomicAdd)
HIPMLIR_FLOAT_ATOMIC_ALIAS(safeAtomicAdd, atomicAdd)
HIPMLIR_FLOAT_ATOMIC_ALIAS(unsafeAtomicMax, atomicMax)
HIPMLIR_FLOAT_ATOMIC_ALIAS(safeAtomicMax, atomicMax)
HIPMLIR_FLOAT_ATOMIC_ALIAS(unsafeAtomicMin, atomicMin)
HIPMLIR_FLOAT_ATOMIC_ALIAS(safeAtomicMin, atomicMin)
#undef HIPMLIR_FLOAT_ATOMIC_ALIAS
__device__ inline void atomicAddNoRet(float* address, float value) { (void)atomicAdd(address, value); }

// Integer intrinsics.
// __byte_perm is the compiler's (hipmlir_math.h).
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
#endif  // __HIP_DEVICE_COMPILE__

#endif  // HIPMLIR_INTRINSICS_H
