// HIP's arithmetic intrinsics in each rounding mode (__fadd_rd, __dmul_ru, __fmaf_rz, __dsqrt_rd,
// __drcp_ru, ...) and the correctly rounded `_rn` ones (__fdiv_rn, __fsqrt_rn, __frcp_rn,
// __frsqrt_rn, __dsqrt_rn, __drcp_rn), bit for bit against the host's own arithmetic run in the
// same rounding mode (fesetround), over tiny, huge, subnormal, exact and random operands.
// __frsqrt_rn is checked by exact integer arithmetic against the midpoints of its neighbours.
#include "test_common.h"

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>

enum Op { kAdd, kSub, kMul, kDiv, kFma, kSqrt, kRcp, kOps };
constexpr int kModes = 4;  // to nearest, toward zero, down, up
constexpr int kOutputs = kOps * kModes;

__global__ void float_ops(const float* a, const float* b, const float* c, float* out,
                          float* rsqrt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i], z = c[i];
  float* o = out + kOutputs * i;
  o[kAdd * kModes + 0] = __fadd_rn(x, y);
  o[kAdd * kModes + 1] = __fadd_rz(x, y);
  o[kAdd * kModes + 2] = __fadd_rd(x, y);
  o[kAdd * kModes + 3] = __fadd_ru(x, y);
  o[kSub * kModes + 0] = __fsub_rn(x, y);
  o[kSub * kModes + 1] = __fsub_rz(x, y);
  o[kSub * kModes + 2] = __fsub_rd(x, y);
  o[kSub * kModes + 3] = __fsub_ru(x, y);
  o[kMul * kModes + 0] = __fmul_rn(x, y);
  o[kMul * kModes + 1] = __fmul_rz(x, y);
  o[kMul * kModes + 2] = __fmul_rd(x, y);
  o[kMul * kModes + 3] = __fmul_ru(x, y);
  o[kDiv * kModes + 0] = __fdiv_rn(x, y);
  o[kDiv * kModes + 1] = __fdiv_rz(x, y);
  o[kDiv * kModes + 2] = __fdiv_rd(x, y);
  o[kDiv * kModes + 3] = __fdiv_ru(x, y);
  o[kFma * kModes + 0] = __fmaf_rn(x, y, z);
  o[kFma * kModes + 1] = __fmaf_rz(x, y, z);
  o[kFma * kModes + 2] = __fmaf_rd(x, y, z);
  o[kFma * kModes + 3] = __fmaf_ru(x, y, z);
  o[kSqrt * kModes + 0] = __fsqrt_rn(x);
  o[kSqrt * kModes + 1] = __fsqrt_rz(x);
  o[kSqrt * kModes + 2] = __fsqrt_rd(x);
  o[kSqrt * kModes + 3] = __fsqrt_ru(x);
  o[kRcp * kModes + 0] = __frcp_rn(x);
  o[kRcp * kModes + 1] = __frcp_rz(x);
  o[kRcp * kModes + 2] = __frcp_rd(x);
  o[kRcp * kModes + 3] = __frcp_ru(x);
  rsqrt[i] = __frsqrt_rn(x);
}

__global__ void double_ops(const double* a, const double* b, const double* c, double* out,
                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i], y = b[i], z = c[i];
  double* o = out + kOutputs * i;
  o[kAdd * kModes + 0] = __dadd_rn(x, y);
  o[kAdd * kModes + 1] = __dadd_rz(x, y);
  o[kAdd * kModes + 2] = __dadd_rd(x, y);
  o[kAdd * kModes + 3] = __dadd_ru(x, y);
  o[kSub * kModes + 0] = __dsub_rn(x, y);
  o[kSub * kModes + 1] = __dsub_rz(x, y);
  o[kSub * kModes + 2] = __dsub_rd(x, y);
  o[kSub * kModes + 3] = __dsub_ru(x, y);
  o[kMul * kModes + 0] = __dmul_rn(x, y);
  o[kMul * kModes + 1] = __dmul_rz(x, y);
  o[kMul * kModes + 2] = __dmul_rd(x, y);
  o[kMul * kModes + 3] = __dmul_ru(x, y);
  o[kDiv * kModes + 0] = __ddiv_rn(x, y);
  o[kDiv * kModes + 1] = __ddiv_rz(x, y);
  o[kDiv * kModes + 2] = __ddiv_rd(x, y);
  o[kDiv * kModes + 3] = __ddiv_ru(x, y);
  o[kFma * kModes + 0] = __fma_rn(x, y, z);
  o[kFma * kModes + 1] = __fma_rz(x, y, z);
  o[kFma * kModes + 2] = __fma_rd(x, y, z);
  o[kFma * kModes + 3] = __fma_ru(x, y, z);
  o[kSqrt * kModes + 0] = __dsqrt_rn(x);
  o[kSqrt * kModes + 1] = __dsqrt_rz(x);
  o[kSqrt * kModes + 2] = __dsqrt_rd(x);
  o[kSqrt * kModes + 3] = __dsqrt_ru(x);
  o[kRcp * kModes + 0] = __drcp_rn(x);
  o[kRcp * kModes + 1] = __drcp_rz(x);
  o[kRcp * kModes + 2] = __drcp_rd(x);
  o[kRcp * kModes + 3] = __drcp_ru(x);
}

// ---- the host's arithmetic in a rounding mode ----
// Operands and results pass through volatile variables, so that every operation happens between
// the two fesetround calls.
const int kRoundings[kModes] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

template <class T>
T host_op(int op, T a, T b, T c, int mode) {
  std::fesetround(kRoundings[mode]);
  volatile T x = a, y = b, z = c;
  volatile T r;
  switch (op) {
    case kAdd: r = x + y; break;
    case kSub: r = x - y; break;
    case kMul: r = x * y; break;
    case kDiv: r = x / y; break;
    case kFma: r = std::fma(static_cast<T>(x), static_cast<T>(y), static_cast<T>(z)); break;
    case kSqrt: r = std::sqrt(static_cast<T>(x)); break;
    default: r = T(1) / x; break;
  }
  T result = r;
  std::fesetround(FE_TONEAREST);
  return result;
}

template <class Bits, class T>
Bits bits_of(T v) {
  Bits b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

template <class T, class Bits>
int compare(const char* what, const std::vector<T>& got, const std::vector<T>& a,
            const std::vector<T>& b, const std::vector<T>& c) {
  const char* ops[kOps] = {"add", "sub", "mul", "div", "fma", "sqrt", "rcp"};
  const char* modes[kModes] = {"rn", "rz", "rd", "ru"};
  int bad = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    for (int op = 0; op < kOps; ++op) {
      for (int mode = 0; mode < kModes; ++mode) {
        T want = host_op(op, a[i], b[i], c[i], mode);
        T have = got[i * kOutputs + op * kModes + mode];
        bool same = (std::isnan(want) && std::isnan(have)) ||
                    bits_of<Bits>(want) == bits_of<Bits>(have);
        if (!same) {
          if (bad < 8) {
            std::printf("%s %s_%s(%a, %a, %a): got %a, want %a\n", what, ops[op], modes[mode],
                        (double)a[i], (double)b[i], (double)c[i], (double)have, (double)want);
          }
          ++bad;
        }
      }
    }
  }
  return bad;
}

// Whether 1/sqrt(x) lies above m, x and m positive floats-or-midpoints given as integer
// significand times a power of two: m^2 * x < 1, decided exactly in 128-bit integers.
static bool rsqrt_above(double m, float x) {
  int em, ex;
  double fm = std::frexp(m, &em);   // m = fm * 2^em, fm in [0.5, 1)
  double fx = std::frexp((double)x, &ex);
  unsigned __int128 mi = static_cast<unsigned __int128>(std::ldexp(fm, 26));  // 26 bits hold m's 25
  unsigned __int128 xi = static_cast<unsigned __int128>(std::ldexp(fx, 24));
  // m^2 x = mi^2 xi 2^(2 (em - 26) + ex - 24); compare with 1 = 2^0.
  int shift = 2 * (em - 26) + ex - 24;
  unsigned __int128 lhs = mi * mi * xi;
  if (shift >= 0) return false;  // lhs >= 1 already
  if (-shift >= 127) return true;
  return lhs < (static_cast<unsigned __int128>(1) << -shift);
}

static int check_rsqrt(const std::vector<float>& x, const std::vector<float>& got) {
  int bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    float v = x[i], y = got[i];
    bool ok;
    if (std::isnan(v) || v < 0.0f) {
      ok = std::isnan(y);
    } else if (v == 0.0f) {
      ok = std::isinf(y) && std::signbit(y) == std::signbit(v);  // 1/sqrt(-0) = -inf
    } else if (std::isinf(v)) {
      ok = y == 0.0f;
    } else {
      // y is the nearest float when 1/sqrt(v) lies between the midpoints around y.
      double up = std::nextafter(y, INFINITY), down = std::nextafter(y, 0.0f);
      ok = std::isfinite(y) && y > 0 && !rsqrt_above((y + up) * 0.5, v) &&
           rsqrt_above((y + down) * 0.5, v);
    }
    if (!ok) {
      if (bad < 5) std::printf("__frsqrt_rn(%a): got %a\n", (double)v, (double)y);
      ++bad;
    }
  }
  return bad;
}

template <class T, class Bits>
T from_bits(Bits b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// Operands: special values, exact cases, neighbours of powers of two, subnormals, values whose
// sums and products overflow, and random bit patterns over the whole exponent range.
template <class T, class Bits>
void make_inputs(std::vector<T>& a, std::vector<T>& b, std::vector<T>& c, int n) {
  const T specials[] = {T(0),
                        -T(0),
                        T(1),
                        -T(1),
                        T(3),
                        T(0.1),
                        std::numeric_limits<T>::min(),
                        std::numeric_limits<T>::denorm_min(),
                        -std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::max(),
                        -std::numeric_limits<T>::max(),
                        std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::quiet_NaN(),
                        std::nextafter(T(1), T(2)),
                        std::nextafter(T(1), T(0)),
                        T(2) / T(3),
                        std::ldexp(T(1), std::numeric_limits<T>::max_exponent - 2) * T(1.5)};
  const int ns = sizeof specials / sizeof specials[0];
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  a.resize(n);
  b.resize(n);
  c.resize(n);
  for (int i = 0; i < n; ++i) {
    if (i < ns * ns) {
      a[i] = specials[i / ns];
      b[i] = specials[i % ns];
      c[i] = specials[(i * 7) % ns];
      continue;
    }
    Bits ra = static_cast<Bits>(next()), rb = static_cast<Bits>(next()),
         rc = static_cast<Bits>(next());
    a[i] = from_bits<T>(ra);
    b[i] = from_bits<T>(rb);
    c[i] = from_bits<T>(rc);
    switch (i % 5) {
      case 0:  // operands of similar size: cancellation, exact and inexact sums
        b[i] = -a[i] * (T(1) + std::ldexp(T(next() % 1000), -std::numeric_limits<T>::digits / 2));
        break;
      case 1:  // small integers: exact products and quotients, and ties
        a[i] = T(static_cast<int>(next() % 2001) - 1000);
        b[i] = T(static_cast<int>(next() % 61) - 30) / T(4);
        c[i] = T(static_cast<int>(next() % 2001) - 1000) / T(1024);
        break;
      case 2:  // products near the bottom of the range (subnormal results)
        a[i] = std::ldexp(T(1) + T(next() % 1024) / T(1024), std::numeric_limits<T>::min_exponent - 20 + static_cast<int>(next() % 30));
        b[i] = std::ldexp(T(1) + T(next() % 1024) / T(1024), -static_cast<int>(next() % 8));
        c[i] = -a[i] * b[i];
        break;
      default:
        break;
    }
    if (std::isnan(a[i]) && i % 3) a[i] = T(i);
  }
}

int main() {
  const int n = 4096;
  int bad = 0;
  {
    std::vector<float> a, b, c;
    make_inputs<float, uint32_t>(a, b, c, n);
    float *da = to_device(a), *db = to_device(b), *dc = to_device(c), *dout, *drsqrt;
    HIP_CHECK(hipMalloc(&dout, sizeof(float) * kOutputs * n));
    HIP_CHECK(hipMalloc(&drsqrt, sizeof(float) * n));
    float_ops<<<(n + 127) / 128, 128>>>(da, db, dc, dout, drsqrt, n);
    HIP_CHECK(hipGetLastError());
    std::vector<float> got = from_device(dout, static_cast<size_t>(kOutputs) * n);
    std::vector<float> rsqrt = from_device(drsqrt, n);
    bad += compare<float, uint32_t>("float", got, a, b, c);
    bad += check_rsqrt(a, rsqrt);
    HIP_CHECK(hipFree(da));
    HIP_CHECK(hipFree(db));
    HIP_CHECK(hipFree(dc));
    HIP_CHECK(hipFree(dout));
    HIP_CHECK(hipFree(drsqrt));
  }
  {
    std::vector<double> a, b, c;
    make_inputs<double, uint64_t>(a, b, c, n);
    double *da = to_device(a), *db = to_device(b), *dc = to_device(c), *dout;
    HIP_CHECK(hipMalloc(&dout, sizeof(double) * kOutputs * n));
    double_ops<<<(n + 127) / 128, 128>>>(da, db, dc, dout, n);
    HIP_CHECK(hipGetLastError());
    std::vector<double> got = from_device(dout, static_cast<size_t>(kOutputs) * n);
    bad += compare<double, uint64_t>("double", got, a, b, c);
    HIP_CHECK(hipFree(da));
    HIP_CHECK(hipFree(db));
    HIP_CHECK(hipFree(dc));
    HIP_CHECK(hipFree(dout));
  }
  return report("rounding_modes", bad);
}
