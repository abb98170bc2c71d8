// Kernels used as values in host code: a kernel template instance named only as a value
// (`(const void*)k<T>` passed to hipLaunchKernel or kept in a variable) is compiled and found by
// its address; hipFuncGetAttributes takes the same value.
#include "test_common.h"

template <typename T, int Scale>
__global__ void scaled(const T* in, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * static_cast<T>(Scale);
}

int main() {
  const int n = 300;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = i - 150;
  int* din = to_device(in);
  int* dout;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));

  // Through hipLaunchKernel and an argument array, as the HIP API takes kernels.
  const int* in_arg = din;
  int* out_arg = dout;
  int count = n;
  void* args[] = {&in_arg, &out_arg, &count};
  HIP_CHECK(hipLaunchKernel(reinterpret_cast<const void*>(&scaled<int, 3>), dim3((n + 63) / 64),
                            dim3(64), args, 0, nullptr));
  std::vector<int> got = from_device(dout, n);
  std::vector<int> want(n);
  for (int i = 0; i < n; ++i) want[i] = 3 * in[i];
  int failures = report("hipLaunchKernel of a template instance", count_mismatches("x3", got, want));

  // A second instance, as a `const void*` kept in a variable.
  const void* kernel = reinterpret_cast<const void*>(&scaled<int, -2>);
  HIP_CHECK(hipLaunchKernel(kernel, dim3((n + 63) / 64), dim3(64), args, 0, nullptr));
  got = from_device(dout, n);
  for (int i = 0; i < n; ++i) want[i] = -2 * in[i];
  failures += report("instance kept as a const void*", count_mismatches("x-2", got, want));

  hipFuncAttributes attributes;
  HIP_CHECK(hipFuncGetAttributes(&attributes, reinterpret_cast<const void*>(&scaled<int, 3>)));
  failures += report("hipFuncGetAttributes", attributes.maxThreadsPerBlock > 0 ? 0 : 1);

  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  if (failures) return 1;
  std::printf("kernels_as_values PASSED\n");
  return 0;
}
