// -fsanitize=address also gives the host code the host compiler's AddressSanitizer: a program
// whose host side overruns or reuses its own buffers around correct kernels. `clean` runs the
// kernels and checks every element (and must exit 0 with nothing reported: no leak of the
// device drivers either); the other cases make one host-side mistake each.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../programs/test_common.h"

template <typename T>
__global__ void scale_and_offset(T* data, T scale, T offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * scale + offset;
}

// Runs the kernel over `host` (n elements) and checks each against the host reference.
static int run_and_check(float* host, int n) {
  std::vector<float> expected(host, host + n);
  for (float& e : expected) e = e * 3.0f + 0.5f;
  float* d = nullptr;
  HIP_CHECK(hipMalloc(&d, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(d, host, n * sizeof(float), hipMemcpyHostToDevice));
  scale_and_offset<float><<<(n + 127) / 128, 128>>>(d, 3.0f, 0.5f, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(host, d, n * sizeof(float), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d));
  for (int i = 0; i < n; ++i)
    if (host[i] != expected[i]) {
      std::printf("element %d: %f, expected %f\n", i, host[i], expected[i]);
      return 1;
    }
  return 0;
}

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "clean";
  const int n = 1000;
  float* host = static_cast<float*>(std::malloc(n * sizeof(float)));
  for (int i = 0; i < n; ++i) host[i] = 0.25f * i;
  if (run_and_check(host, n)) return 1;
  if (!std::strcmp(what, "heap_overflow")) {
    // One element past the end, as an off-by-one loop bound writes it.
    for (int i = 0; i <= n; ++i) host[i] = 0.0f;
  } else if (!std::strcmp(what, "use_after_free")) {
    std::free(host);
    std::printf("%f\n", host[7]);
    return 0;
  } else if (std::strcmp(what, "clean") != 0) {
    std::printf("usage: host_bugs clean|heap_overflow|use_after_free\n");
    return 2;
  }
  std::free(host);
  std::printf("PASSED\n");
  return 0;
}
