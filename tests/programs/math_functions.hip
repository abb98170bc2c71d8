// HIP's device math API against the host's libm, within stated ULP bounds: float and double
// functions, C++ overloads from <cmath>, fast intrinsics, integer min/max/abs and bit functions.
#include "test_common.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

// Distance in units in the last place between two floats of the same sign.
template <typename F, typename I>
I ulp_distance(F a, F b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (a == b) return 0;
  I ia, ib;
  std::memcpy(&ia, &a, sizeof a);
  std::memcpy(&ib, &b, sizeof b);
  if ((ia < 0) != (ib < 0)) return std::numeric_limits<I>::max();
  return ia > ib ? ia - ib : ib - ia;
}

constexpr int kFloatFns = 30;
constexpr int kDoubleFns = 12;
constexpr int kIntFns = 10;

// Each function is checked on the argument the host computes: no arithmetic around the calls is
// fused into FMAs (hipcc's default would fuse `x * 0.05f + 0.1f`, and a last-bit change of
// tgamma's argument moves its result by tens of ulp).
__device__ float float_fn(int f, float x, float y) {
#pragma clang fp contract(off)
  switch (f) {
    case 0: return sqrtf(x);
    case 1: return cbrtf(x);
    case 2: return expf(y);
    case 3: return exp2f(y);
    case 4: return exp10f(y);
    case 5: return expm1f(y * 0.01f);
    case 6: return logf(x);
    case 7: return log2f(x);
    case 8: return log10f(x);
    case 9: return log1pf(x * 1e-4f);
    case 10: return sinf(y);
    case 11: return cosf(y);
    case 12: return tanf(y * 0.1f);
    case 13: return asinf(y * 0.05f);
    case 14: return atan2f(y, x);
    case 15: return sinhf(y * 0.5f);
    case 16: return tanhf(y);
    case 17: return erff(y * 0.3f);
    case 18: return erfcf(y * 0.3f);
    case 19: return tgammaf(x * 0.05f + 0.1f);
    case 20: return lgammaf(x + 0.5f);
    case 21: return powf(x, 0.37f);
    case 22: return fmodf(y, 1.75f);
    case 23: return hypotf(x, y);
    case 24: return fminf(x, y) + fmaxf(x, y) * 2.0f;
    case 25: return floorf(y) + ceilf(y) * 3.0f + truncf(y) * 5.0f + roundf(y) * 7.0f;
    case 26: return fmaf(x, y, 1.0f);
    case 27: return std::sqrt(x) + std::fabs(y) + std::floor(y);  // <cmath> overloads
    case 28: return ldexpf(y, 3) + copysignf(x, y);
    default: return rsqrtf(x) * 0.5f;
  }
}

__device__ double double_fn(int f, double x, double y) {
#pragma clang fp contract(off)
  switch (f) {
    case 0: return sqrt(x);
    case 1: return exp(y);
    case 2: return log(x);
    case 3: return sin(y);
    case 4: return cos(y);
    case 5: return pow(x, 0.37);
    case 6: return atan2(y, x);
    case 7: return tanh(y);
    case 8: return log1p(x * 1e-4);
    case 9: return cbrt(x);
    case 10: return fma(x, y, 1.0);
    default: return std::exp(y * 0.5) + std::sqrt(x);
  }
}

__device__ long long int_fn(int f, int a, int b) {
  switch (f) {
    case 0: return min(a, b);
    case 1: return max(a, b);
    case 2: return min((unsigned)a, (unsigned)b);
    case 3: return abs(a);
    case 4: return __popc((unsigned)a);
    case 5: return __clz(a);
    case 6: return __ffs(a);
    case 7: return __brev((unsigned)a);
    case 8: return __popcll((unsigned long long)a << 20);
    default: return llabs((long long)a * b);
  }
}

__global__ void math_kernel(const float* xs, const float* ys, float* fout, double* dout,
                            long long* iout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = xs[i], y = ys[i];
  for (int f = 0; f < kFloatFns; ++f) fout[f * n + i] = float_fn(f, x, y);
  for (int f = 0; f < kDoubleFns; ++f) dout[f * n + i] = double_fn(f, x, y);
  int a = (int)(y * 1000.0f), b = (int)(x * 100.0f) - 500;
  for (int f = 0; f < kIntFns; ++f) iout[f * n + i] = int_fn(f, a, b);
}

// The host reference: the same functions from the host's libm.
float host_float(int f, float x, float y) {
  switch (f) {
    case 0: return std::sqrt(x);
    case 1: return std::cbrt(x);
    case 2: return std::exp(y);
    case 3: return std::exp2(y);
    case 4: return static_cast<float>(std::pow(10.0, static_cast<double>(y)));
    case 5: return std::expm1(y * 0.01f);
    case 6: return std::log(x);
    case 7: return std::log2(x);
    case 8: return std::log10(x);
    case 9: return std::log1p(x * 1e-4f);
    case 10: return std::sin(y);
    case 11: return std::cos(y);
    case 12: return std::tan(y * 0.1f);
    case 13: return std::asin(y * 0.05f);
    case 14: return std::atan2(y, x);
    case 15: return std::sinh(y * 0.5f);
    case 16: return std::tanh(y);
    case 17: return std::erf(y * 0.3f);
    case 18: return std::erfc(y * 0.3f);
    case 19: return std::tgamma(x * 0.05f + 0.1f);
    case 20: return std::lgamma(x + 0.5f);
    case 21: return std::pow(x, 0.37f);
    case 22: return std::fmod(y, 1.75f);
    case 23: return std::hypot(x, y);
    case 24: return std::fmin(x, y) + std::fmax(x, y) * 2.0f;
    case 25: return std::floor(y) + std::ceil(y) * 3.0f + std::trunc(y) * 5.0f + std::round(y) * 7.0f;
    case 26: return std::fma(x, y, 1.0f);
    case 27: return std::sqrt(x) + std::fabs(y) + std::floor(y);
    case 28: return std::ldexp(y, 3) + std::copysign(x, y);
    default: return 1.0f / std::sqrt(x) * 0.5f;
  }
}

double host_double(int f, double x, double y) {
  switch (f) {
    case 0: return std::sqrt(x);
    case 1: return std::exp(y);
    case 2: return std::log(x);
    case 3: return std::sin(y);
    case 4: return std::cos(y);
    case 5: return std::pow(x, 0.37);
    case 6: return std::atan2(y, x);
    case 7: return std::tanh(y);
    case 8: return std::log1p(x * 1e-4);
    case 9: return std::cbrt(x);
    case 10: return std::fma(x, y, 1.0);
    default: return std::exp(y * 0.5) + std::sqrt(x);
  }
}

long long host_int(int f, int a, int b) {
  switch (f) {
    case 0: return std::min(a, b);
    case 1: return std::max(a, b);
    case 2: return std::min((unsigned)a, (unsigned)b);
    case 3: return std::abs(a);
    case 4: return __builtin_popcount((unsigned)a);
    case 5: return a == 0 ? 32 : __builtin_clz((unsigned)a);
    case 6: return __builtin_ffs(a);
    case 7: {
      unsigned v = (unsigned)a, r = 0;
      for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
      return r;
    }
    case 8: return __builtin_popcountll((unsigned long long)a << 20);
    default: return std::llabs((long long)a * b);
  }
}

// OpenCL's full-profile bounds (in ULP) where they are looser than correct rounding; composite
// expressions get a few ULP of slack for the intermediate roundings.
int float_bound(int f) {
  switch (f) {
    case 0: case 24: case 25: case 26: return 0;
    case 19: case 20: return 16;
    case 13: case 14: case 15: case 17: case 18: case 21: return 6;
    default: return 4;
  }
}

int main() {
  const int n = 2048;
  std::vector<float> xs(n), ys(n);
  for (int i = 0; i < n; ++i) {
    xs[i] = 0.01f + i * 0.37f;             // positive: sqrt, log, pow
    ys[i] = (i - n / 2) * 0.0123f;         // both signs
  }
  float* d_x = to_device(xs);
  float* d_y = to_device(ys);
  float* d_f = nullptr;
  double* d_d = nullptr;
  long long* d_i = nullptr;
  HIP_CHECK(hipMalloc(&d_f, kFloatFns * n * sizeof(float)));
  HIP_CHECK(hipMalloc(&d_d, kDoubleFns * n * sizeof(double)));
  HIP_CHECK(hipMalloc(&d_i, kIntFns * n * sizeof(long long)));
  hipLaunchKernelGGL(math_kernel, dim3(n / 128), dim3(128), 0, 0, d_x, d_y, d_f, d_d, d_i, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got_f = from_device(d_f, kFloatFns * n);
  std::vector<double> got_d = from_device(d_d, kDoubleFns * n);
  std::vector<long long> got_i = from_device(d_i, kIntFns * n);

  int bad = 0;
  for (int f = 0; f < kFloatFns; ++f) {
    int worst = 0;
    for (int i = 0; i < n; ++i) {
      float want = host_float(f, xs[i], ys[i]);
      int d = ulp_distance<float, int32_t>(got_f[f * n + i], want);
      // Results near zero from cancellation are compared absolutely.
      if (std::fabs(want) < 1e-6f && std::fabs(got_f[f * n + i] - want) < 1e-6f) d = 0;
      if (d > worst) worst = d;
      if (d > float_bound(f)) {
        if (bad < 10)
          std::printf("float fn %d at %d (x=%g y=%g): got %.9g want %.9g (%d ulp)\n", f, i,
                      xs[i], ys[i], got_f[f * n + i], want, d);
        ++bad;
      }
    }
  }
  for (int f = 0; f < kDoubleFns; ++f) {
    for (int i = 0; i < n; ++i) {
      double want = host_double(f, xs[i], ys[i]);
      int64_t d = ulp_distance<double, int64_t>(got_d[f * n + i], want);
      if (d > 4) {
        if (bad < 10)
          std::printf("double fn %d at %d: got %.17g want %.17g\n", f, i, got_d[f * n + i], want);
        ++bad;
      }
    }
  }
  std::vector<long long> want_i(kIntFns * n);
  for (int f = 0; f < kIntFns; ++f)
    for (int i = 0; i < n; ++i) {
      int a = (int)(ys[i] * 1000.0f), b = (int)(xs[i] * 100.0f) - 500;
      want_i[f * n + i] = host_int(f, a, b);
    }
  bad += count_mismatches("integer functions", got_i, want_i);
  HIP_CHECK(hipFree(d_x));
  HIP_CHECK(hipFree(d_y));
  HIP_CHECK(hipFree(d_f));
  HIP_CHECK(hipFree(d_d));
  HIP_CHECK(hipFree(d_i));
  return report("math_functions", bad);
}
