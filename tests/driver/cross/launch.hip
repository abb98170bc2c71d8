// Launches a kernel this file only declares: its device code comes from kernel.hip's image, found
// by name at run time across the registered images.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define HIP_CHECK(call)                                                              \
  do {                                                                               \
    hipError_t err_ = (call);                                                        \
    if (err_ != hipSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, \
                   hipGetErrorString(err_), hipGetErrorName(err_));                  \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

__global__ void axpb(float* y, float a, float b, int n);

int main() {
  const int n = 3000;
  std::vector<float> y(n);
  for (int i = 0; i < n; ++i) y[i] = static_cast<float>(i % 101);
  float* d_y = nullptr;
  HIP_CHECK(hipMalloc(&d_y, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(d_y, y.data(), n * sizeof(float), hipMemcpyHostToDevice));
  axpb<<<(n + 127) / 128, 128>>>(d_y, 2.0f, 1.0f, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got(n);
  HIP_CHECK(hipMemcpy(got.data(), d_y, n * sizeof(float), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d_y));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    float want = 2.0f * y[i] + 1.0f;
    if (got[i] != want) {
      if (bad < 5) std::printf("mismatch at %d: got %f, want %f\n", i, got[i], want);
      ++bad;
    }
  }
  if (bad) {
    std::printf("cross-file launch FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("cross-file launch PASSED\n");
  return 0;
}
