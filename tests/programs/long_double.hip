// `long double` in device code is computed as `double` (as clang's GPU targets do): literals
// with the `l` suffix, locals, device-function parameters and a double2 scaled by one.
#include "test_common.h"

#include <cmath>

template <typename T>
__device__ long double weighted(T x, long double w) {
  long double acc = 0.25l;
  acc += static_cast<long double>(x) * w;
  return acc / 2.0L;
}

__global__ void compute(const double* in, double* out, double2* vec, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long double x = in[i];
  out[i] = static_cast<double>(weighted(x, -1.5l) + weighted(i, 0.125L));
  vec[i] = vec[i] * -0.5l;
}

int main() {
  const int n = 200;
  std::vector<double> in(n);
  std::vector<double2> vec(n);
  for (int i = 0; i < n; ++i) {
    in[i] = 0.37 * i - 11.0;
    vec[i] = make_double2(i * 2.0, -i * 4.0);
  }
  double* d_in = to_device(in);
  double2* d_vec = to_device(vec);
  double* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(double)));
  compute<<<(n + 63) / 64, 64>>>(d_in, d_out, d_vec, n);
  HIP_CHECK(hipGetLastError());
  std::vector<double> got = from_device(d_out, n);
  std::vector<double2> got_vec = from_device(d_vec, n);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    double want = (0.25 + in[i] * -1.5) / 2.0 + (0.25 + i * 0.125) / 2.0;
    bool ok = std::fabs(got[i] - want) <= 1e-12 * std::fmax(1.0, std::fabs(want)) &&
              got_vec[i].x == -i * 1.0 && got_vec[i].y == i * 2.0;
    if (!ok) {
      if (bad < 5) std::printf("mismatch at %d: got %g, want %g\n", i, got[i], want);
      ++bad;
    }
  }
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_vec));
  HIP_CHECK(hipFree(d_out));
  if (bad) {
    std::printf("FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASSED\n");
  return 0;
}
