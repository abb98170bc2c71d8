// printf's value in device code, as CUDA and chipStar give it: the number of arguments after
// the format, whatever they are (literal or computed strings, numbers).
#include "test_common.h"

__device__ const char* pick(int i) { return i % 2 ? "odd" : "even"; }

__global__ void printing(int* out) {
  int i = threadIdx.x;
  const char* name = pick(i);
  out[4 * i + 0] = printf("printf_return_value: no arguments\n");
  out[4 * i + 1] = printf("printf_return_value: %s\n", "literal");
  out[4 * i + 2] = printf("printf_return_value: %d is %s\n", i, name);
  out[4 * i + 3] = printf("printf_return_value: %d %u %f %s\n", i, 2u * i, 0.5 * i, name);
}

int main() {
  const int threads = 4;
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, 4 * threads * sizeof(int)));
  printing<<<1, threads>>>(d_out);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got = from_device(d_out, 4 * threads);
  std::vector<int> want(4 * threads);
  for (int i = 0; i < threads; ++i) {
    want[4 * i + 0] = 0;
    want[4 * i + 1] = 1;
    want[4 * i + 2] = 2;
    want[4 * i + 3] = 4;
  }
  int bad = count_mismatches("printf values", got, want);
  HIP_CHECK(hipFree(d_out));
  if (bad) {
    std::printf("FAILED: %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASSED\n");
  return 0;
}
