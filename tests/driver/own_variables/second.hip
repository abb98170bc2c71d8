// The second source: a `devSymbol` of its own, of another size and type, and its own copy of
// the header's variable.
#include "own_variables.h"

__device__ long long devSymbol[2 * kSymbols];
static __device__ int launches = 0;
__managed__ int tally = 50;
// The first source's names, of another type and scale.
DEFINE_SCALED_TABLE(scaled, long long, 1000000000000LL)

__global__ void second_update(long long factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 2 * kSymbols) devSymbol[i] = devSymbol[i] * factor - header_offsets[i % 4];
  if (i == 0) {
    launches += 5;
    tally += 10;
  }
  if (i < 8) scaled[i] += scaled_step * i;
}

int run_second() {
  std::vector<long long> start(2 * kSymbols);
  for (int i = 0; i < 2 * kSymbols; ++i) start[i] = 1000000000LL * (i % 3) + i;
  const std::vector<int> offsets = {-4, -3, -2, -1};
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(devSymbol), start.data(), start.size() * sizeof(long long)));
  HIP_CHECK(hipMemcpyToSymbol(header_offsets, offsets.data(), 4 * sizeof(int)));
  second_update<<<(2 * kSymbols + 63) / 64, 64>>>(3);
  second_update<<<(2 * kSymbols + 63) / 64, 64>>>(2);
  HIP_CHECK(hipGetLastError());
  std::vector<long long> want(2 * kSymbols);
  for (int i = 0; i < 2 * kSymbols; ++i) {
    want[i] = (start[i] * 3 - offsets[i % 4]) * 2 - offsets[i % 4];
  }
  std::vector<long long> got(2 * kSymbols);
  HIP_CHECK(hipMemcpyFromSymbol(got.data(), devSymbol, got.size() * sizeof(long long)));
  int bad = count_mismatches("second devSymbol", got, want);
  size_t size = 0;
  HIP_CHECK(hipGetSymbolSize(&size, devSymbol));
  bad += count_mismatches("second size", std::vector<size_t>{size},
                          std::vector<size_t>{2 * kSymbols * sizeof(long long)});
  int count = 0;
  HIP_CHECK(hipMemcpyFromSymbol(&count, HIP_SYMBOL(launches), sizeof count));
  bad += count_mismatches("second launches", std::vector<int>{count}, std::vector<int>{10});
  bad += count_mismatches("second tally", std::vector<int>{tally}, std::vector<int>{70});
  std::vector<long long> table(8);
  HIP_CHECK(hipMemcpyFromSymbol(table.data(), scaled, 8 * sizeof(long long)));
  bad += count_mismatches("second scaled", table, scaled_table(1000000000000LL, 2));
  return bad;
}

// This source's own kernels, named as the first source's own.
static __global__ void own_fill(int* out) { out[threadIdx.x] = 200 - (int)threadIdx.x; }
namespace {
__global__ void hidden_fill(int* out, int scale) {
  out[threadIdx.x] = scale * (int)(threadIdx.x * threadIdx.x);
}
}  // namespace

int run_second_kernels() {
  int* d = nullptr;
  HIP_CHECK(hipMalloc(&d, 64 * sizeof(int)));
  hipLaunchKernelGGL(own_fill, dim3(1), dim3(32), 0, 0, d);
  hidden_fill<<<1, 32>>>(d + 32, 5);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got(64);
  HIP_CHECK(hipMemcpy(got.data(), d, 64 * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d));
  return count_mismatches("second own kernels", got,
                          own_kernels_result([](int i) { return 200 - i; },
                                             [](int i) { return 5 * i * i; }));
}
