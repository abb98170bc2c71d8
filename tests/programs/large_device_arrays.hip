// `__device__` arrays of several MiB (zero-initialized, as C requires), written by one kernel,
// read by another and through the symbol API.
#include "test_common.h"

constexpr int kCount = 3 * 1024 * 1024;  // 12 MiB of int
__device__ int big_table[kCount];
__device__ float big_floats[1 << 20];

__global__ void fill(int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    if (i % 3 == 0) big_table[i] = i / 3;
  }
}

__global__ void gather(int* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = big_table[i] + static_cast<int>(big_floats[i % (1 << 20)]);
  }
}

int main() {
  int* out;
  HIP_CHECK(hipMalloc(&out, kCount * sizeof(int)));
  hipLaunchKernelGGL(fill, dim3(64), dim3(256), 0, 0, kCount);
  hipLaunchKernelGGL(gather, dim3(64), dim3(256), 0, 0, out, kCount);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got = from_device(out, kCount);
  std::vector<int> want(kCount, 0);
  for (int i = 0; i < kCount; i += 3) want[i] = i / 3;
  int failures = report("large device array", count_mismatches("big_table", got, want));

  std::vector<int> via_symbol(kCount);
  HIP_CHECK(hipMemcpyFromSymbol(via_symbol.data(), HIP_SYMBOL(big_table), kCount * sizeof(int)));
  failures += report("large device array by symbol", count_mismatches("symbol", via_symbol, want));
  HIP_CHECK(hipFree(out));
  if (failures) return 1;
  std::printf("large_device_arrays PASSED\n");
  return 0;
}
