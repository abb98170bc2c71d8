// The multi-file driver test: a kernel defined here, kernels launched through host functions of
// kernels.hip and square.cu (a template kernel), host code from util.cpp.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "driver_config.h"

#define HIP_CHECK(call)                                                              \
  do {                                                                               \
    hipError_t err_ = (call);                                                        \
    if (err_ != hipSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, \
                   hipGetErrorString(err_), hipGetErrorName(err_));                  \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

void launch_saxpy(const float* x, float* y, int n);  // kernels.hip
void launch_square(float* data, int n);             // square.cu
std::vector<float> ramp(int n, float step);         // util.cpp

__global__ void fill(float* y, float value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = value + (i % 7);
}

int count_mismatches(const char* what, const std::vector<float>& got,
                     const std::vector<float>& want) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (got[i] != want[i]) {
      if (bad < 5) std::printf("%s: mismatch at %zu: got %f, want %f\n", what, i, got[i], want[i]);
      ++bad;
    }
  }
  return bad;
}

int main() {
  const int n = 5000;
  std::vector<float> x = ramp(n, 0.25f);
  float* d_x = nullptr;
  float* d_y = nullptr;
  HIP_CHECK(hipMalloc(&d_x, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&d_y, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(d_x, x.data(), n * sizeof(float), hipMemcpyHostToDevice));

  fill<<<(n + 255) / 256, 256>>>(d_y, 2.0f, n);
  HIP_CHECK(hipGetLastError());
  launch_saxpy(d_x, d_y, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> y(n);
  HIP_CHECK(hipMemcpy(y.data(), d_y, n * sizeof(float), hipMemcpyDeviceToHost));
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = saxpy_reference(x[i], 2.0f + (i % 7));
  int bad = count_mismatches("fill+saxpy", y, want);

  launch_square(d_y, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(y.data(), d_y, n * sizeof(float), hipMemcpyDeviceToHost));
  for (float& w : want) w = w * w;
  bad += count_mismatches("square<float>", y, want);

  HIP_CHECK(hipFree(d_x));
  HIP_CHECK(hipFree(d_y));
  if (bad) {
    std::printf("multi-file FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("multi-file PASSED\n");
  return 0;
}
