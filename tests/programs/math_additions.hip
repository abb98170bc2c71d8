// HIP device math functions beyond the C library's, each against a host reference: __sincosf
// (within the weakest documented bound of the instructions it becomes: PTX's sin.approx and
// cos.approx, 2^-20.5 absolute; CUDA's __sinf states 2^-21.41 on [-pi, pi]), powi and
// powif, nan and nanf, and HIP's math constants (hip/hip_math_constants.h) used in device code,
// against values computed on the host in long double.
#include "test_common.h"

#include <hip/hip_math_constants.h>

#include <cmath>

constexpr int kOutputs = 8;

__global__ void additions(const float* x, const int* k, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s, c;
  __sincosf(x[i], &s, &c);
  double* o = out + kOutputs * i;
  o[0] = s;
  o[1] = c;
  o[2] = powi(1.0 + x[i] * 0.125, k[i]);
  o[3] = powif(1.0f + x[i] * 0.125f, k[i]);
  o[4] = (isnan(nan("")) && isnan(nanf("")) && !isnan(x[i])) ? 1.0 : 0.0;
  // Constants: a few of each kind, in arithmetic with the input.
  o[5] = x[i] * HIP_PI + HIP_SQRT_TWO - HIP_LN2;
  o[6] = static_cast<double>(x[i] * HIP_PI_F + HIP_L2E_F);
  o[7] = (HIP_PI_HI + HIP_PI_LO) - HIP_PI + (HIP_INF > 1e308 ? 1.0 : 0.0) +
         (isnan(HIP_NAN_F) ? 2.0 : 0.0) + HIP_TWO_TO_M1022 * 0.0 + HIP_MIN_DENORM_F * 0.0f;
}

int main() {
  const int n = 2048;
  std::vector<float> x(n);
  std::vector<int> k(n);
  for (int i = 0; i < n; ++i) {
    x[i] = -3.14159265f + 6.2831853f * static_cast<float>(i) / n;
    k[i] = i % 41 - 20;
  }
  float* dx = to_device(x);
  int* dk = to_device(k);
  double* dout;
  HIP_CHECK(hipMalloc(&dout, sizeof(double) * kOutputs * n));
  additions<<<n / 128, 128>>>(dx, dk, dout, n);
  HIP_CHECK(hipGetLastError());
  std::vector<double> got = from_device(dout, static_cast<size_t>(kOutputs) * n);
  const long double pi = 3.141592653589793238462643383279502884L;
  const long double pi_lo = pi - static_cast<long double>(static_cast<double>(pi));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const double* o = &got[static_cast<size_t>(kOutputs) * i];
    const double bound = std::ldexp(1.0, -20) / std::pow(2.0, 0.5);
    double p = std::pow(1.0 + x[i] * 0.125, k[i]);
    float pf = std::pow(1.0f + x[i] * 0.125f, static_cast<float>(k[i]));
    struct {
      const char* what;
      bool ok;
    } checks[] = {
        {"__sincosf sine", std::fabs(o[0] - std::sin(static_cast<double>(x[i]))) <= bound},
        {"__sincosf cosine", std::fabs(o[1] - std::cos(static_cast<double>(x[i]))) <= bound},
        {"powi", std::fabs(o[2] - p) <= 4 * std::fabs(p) * 2.3e-16},
        {"powif", std::fabs(o[3] - pf) <= 16 * std::fabs(pf) * 1.2e-7},
        {"nan", o[4] == 1.0},
        // (Within a few ulps: a target may fuse the multiply and the add.)
        {"double constants",
         std::fabs(o[5] - (x[i] * static_cast<double>(pi) + std::sqrt(2.0) - std::log(2.0))) <=
             1e-15 * (std::fabs(x[i] * 3.2) + 1.0)},
        {"float constants",
         std::fabs(o[6] - static_cast<double>(x[i] * static_cast<float>(pi) +
                                              static_cast<float>(1.0L / std::log(2.0L)))) <=
             4e-7 * (std::fabs(x[i] * 3.2) + 1.5)},
        {"split constants and special values",
         std::fabs(o[7] - 3.0) <= 1e-15 && pi_lo != 0.0L}};
    for (const auto& c : checks) {
      if (!c.ok) {
        if (bad < 8) std::printf("%s at %d (x %g, k %d): got %.17g\n", c.what, i, x[i], k[i],
                                 o[&c - checks]);
        ++bad;
      }
    }
  }
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dk));
  HIP_CHECK(hipFree(dout));
  return report("math_additions", bad);
}
