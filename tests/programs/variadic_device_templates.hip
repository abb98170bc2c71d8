// Variadic templates in device code: sizeof...(Ts) and a recursive sum over a pack, called from
// a kernel with arguments of several types.
#include "test_common.h"

template <typename T>
__host__ __device__ double sum_all(T last) {
  return static_cast<double>(last);
}
template <typename T, typename... Rest>
__host__ __device__ double sum_all(T first, Rest... rest) {
  return static_cast<double>(first) + sum_all(rest...);
}
template <typename... Ts>
__host__ __device__ double mean(Ts... values) {
  return sum_all(values...) / sizeof...(Ts);
}

__global__ void variadic(const int* in, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  out[i] = mean(v, 0.5f * v, 2.0, static_cast<short>(i));
}

int main() {
  const int n = 200;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 13) % 41 - 20;
  int* d_in = to_device(in);
  double* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(double)));
  variadic<<<(n + 63) / 64, 64>>>(d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  std::vector<double> got = from_device(d_out, n);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    int v = in[i];
    double want = mean(v, 0.5f * v, 2.0, static_cast<short>(i));
    if (std::fabs(got[i] - want) > 1e-12 * std::fmax(1.0, std::fabs(want))) {
      if (bad < 5) std::printf("mismatch at %d: got %g, want %g\n", i, got[i], want);
      ++bad;
    }
  }
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  if (bad) {
    std::printf("FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASSED\n");
  return 0;
}
