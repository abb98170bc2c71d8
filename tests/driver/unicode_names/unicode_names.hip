// Identifiers in non-ASCII letters, as C++ allows (a kernel, a device function, a device
// variable, locals): SPIR-V keeps the names; PTX cannot hold them, so a default build warns and
// runs on SPIR-V, and an explicit sm_XX build is a clean error naming the symbol.
#include "../../programs/test_common.h"

__device__ float größe = 2.5f;

__device__ float verdoppeln(float wert) { return 2.0f * wert + größe; }

__global__ void масштаб(float* данные, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) данные[i] = verdoppeln(данные[i]);
}

int main() {
  const int n = 1000;
  std::vector<float> host(n), want(n);
  for (int i = 0; i < n; ++i) {
    host[i] = 0.25f * i;
    want[i] = 2.0f * host[i] + 2.5f;
  }
  float* d = to_device(host);
  hipLaunchKernelGGL(масштаб, dim3((n + 127) / 128), dim3(128), 0, 0, d, n);
  HIP_CHECK(hipGetLastError());
  int bad = count_mismatches("unicode_names", from_device(d, n), want);
  HIP_CHECK(hipFree(d));
  std::printf(bad ? "unicode_names FAILED\n" : "unicode_names PASSED\n");
  return bad ? 1 : 0;
}
