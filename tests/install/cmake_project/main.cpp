// Host-only: the kernel is in the library; every element is compared with a host reference.
#include <cstdio>
#include <vector>

#include "saxpy_kernels.h"

#define HIP_CHECK(call)                                                        \
  do {                                                                         \
    hipError_t e_ = (call);                                                    \
    if (e_ != hipSuccess) {                                                    \
      std::printf("%s failed: %s\n", #call, hipGetErrorString(e_));            \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main() {
  const int n = 10000;
  std::vector<float> x(n), y(n), want(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 100);
    y[i] = float(i % 7);
    want[i] = 2.0f * x[i] + y[i];
  }
  float *dx, *dy;
  HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dy, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(launch_saxpy(2.0f, dx, dy, n));
  HIP_CHECK(hipMemcpy(y.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += y[i] != want[i];
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  if (bad) {
    std::printf("cmake saxpy FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("cmake saxpy PASSED: %d elements\n", n);
  return 0;
}
