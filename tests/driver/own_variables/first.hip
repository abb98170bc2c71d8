// The first source: `devSymbol` of kSymbols ints, set and read by symbol, updated by its kernel.
#include "own_variables.h"

__device__ int devSymbol[kSymbols];
static __device__ int launches = 0;
// Managed memory of this source's own.
__managed__ int tally = 5;
DEFINE_SCALED_TABLE(scaled, int, 2)

__global__ void first_update(int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kSymbols) devSymbol[i] = 2 * devSymbol[i] + base + header_offsets[i % 4];
  if (i == 0) {
    ++launches;
    tally += 1;
  }
  if (i < 8) scaled[i] += scaled_step * i;
}

namespace {
std::vector<int> expected(kSymbols);
}

int run_first() {
  std::vector<int> start(kSymbols);
  for (int i = 0; i < kSymbols; ++i) start[i] = 3 * i;
  const std::vector<int> offsets = {1, 10, 100, 1000};
  HIP_CHECK(hipMemcpyToSymbol(devSymbol, start.data(), kSymbols * sizeof(int)));
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(header_offsets), offsets.data(), 4 * sizeof(int)));
  first_update<<<(kSymbols + 31) / 32, 32>>>(7);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < kSymbols; ++i) expected[i] = 2 * start[i] + 7 + offsets[i % 4];
  std::vector<int> got(kSymbols);
  HIP_CHECK(hipMemcpyFromSymbol(got.data(), HIP_SYMBOL(devSymbol), kSymbols * sizeof(int)));
  int bad = count_mismatches("first devSymbol", got, expected);
  size_t size = 0;
  HIP_CHECK(hipGetSymbolSize(&size, HIP_SYMBOL(devSymbol)));
  bad += count_mismatches("first size", std::vector<size_t>{size},
                          std::vector<size_t>{kSymbols * sizeof(int)});
  bad += count_mismatches("first tally", std::vector<int>{tally}, std::vector<int>{6});
  return bad;
}

int check_first_again() {
  // The address of this source's variable, read with hipMemcpy.
  void* address = nullptr;
  HIP_CHECK(hipGetSymbolAddress(&address, HIP_SYMBOL(devSymbol)));
  std::vector<int> got(kSymbols);
  HIP_CHECK(hipMemcpy(got.data(), address, kSymbols * sizeof(int), hipMemcpyDeviceToHost));
  int bad = count_mismatches("first devSymbol again", got, expected);
  std::vector<int> offsets(4);
  HIP_CHECK(hipMemcpyFromSymbol(offsets.data(), header_offsets, 4 * sizeof(int)));
  bad += count_mismatches("first header_offsets", offsets, std::vector<int>{1, 10, 100, 1000});
  int count = 0;
  HIP_CHECK(hipMemcpyFromSymbol(&count, HIP_SYMBOL(launches), sizeof count));
  bad += count_mismatches("first launches", std::vector<int>{count}, std::vector<int>{1});
  bad += count_mismatches("first tally again", std::vector<int>{tally}, std::vector<int>{6});
  std::vector<int> table(8);
  HIP_CHECK(hipMemcpyFromSymbol(table.data(), HIP_SYMBOL(scaled), 8 * sizeof(int)));
  bad += count_mismatches("first scaled", table, scaled_table(2, 1));
  int step = 0;
  HIP_CHECK(hipMemcpyFromSymbol(&step, scaled_step, sizeof step));
  bad += count_mismatches("first scaled_step", std::vector<int>{step}, std::vector<int>{2});
  return bad;
}

// This source's own kernels; the second source has kernels of these names too.
static __global__ void own_fill(int* out) { out[threadIdx.x] = 100 + (int)threadIdx.x; }
namespace {
__global__ void hidden_fill(int* out, int scale) {
  out[threadIdx.x] = scale * (int)threadIdx.x + 1;
}
}  // namespace

std::vector<int> own_kernels_result(int (*own)(int), int (*hidden)(int)) {
  std::vector<int> want(64);
  for (int i = 0; i < 32; ++i) {
    want[i] = own(i);
    want[32 + i] = hidden(i);
  }
  return want;
}

int run_first_kernels() {
  int* d = nullptr;
  HIP_CHECK(hipMalloc(&d, 64 * sizeof(int)));
  own_fill<<<1, 32>>>(d);
  hipLaunchKernelGGL(hidden_fill, dim3(1), dim3(32), 0, 0, d + 32, 3);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got(64);
  HIP_CHECK(hipMemcpy(got.data(), d, 64 * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d));
  return count_mismatches("first own kernels", got,
                          own_kernels_result([](int i) { return 100 + i; },
                                             [](int i) { return 3 * i + 1; }));
}

int main() {
  int bad = run_first();
  bad += run_second();
  bad += check_first_again();
  bad += run_second_kernels();
  bad += run_first_kernels();
  bad += run_second_kernels();
  if (bad) {
    std::printf("own variables FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("own variables PASSED\n");
  return 0;
}
