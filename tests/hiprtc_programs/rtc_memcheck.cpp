// A program compiled at run time with -fsanitize=address (hipcc's device AddressSanitizer flag):
// its kernel gives the right results in bounds, and a write past the end of its allocation is
// caught: the launch fails with hipErrorIllegalAddress and the memory after it keeps its values.
#include "rtc_common.h"

static const char* kSource = R"(
template <typename T>
__global__ void fill(T* out, int n, int extra, T value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n + extra) out[i] = value * T(i);
}
)";

int main() {
  const int n = 64;
  hiprtcProgram prog;
  HIPRTC_CHECK(hiprtcCreateProgram(&prog, kSource, "memcheck.cu", 0, nullptr, nullptr));
  HIPRTC_CHECK(hiprtcAddNameExpression(prog, "fill<int>"));
  compile(prog, {"-fsanitize=address"});
  std::vector<char> code = code_of(prog);
  hipModule_t module;
  HIP_CHECK(hipModuleLoadData(&module, code.data()));
  hipFunction_t fill = kernel_of(module, prog, "fill<int>");
  HIPRTC_CHECK(hiprtcDestroyProgram(&prog));

  // Two halves of one allocation: the kernel gets the first; the second must stay untouched.
  int* whole = to_device(std::vector<int>(2 * n, -1));
  int* d = whole;
  int count = n, extra = 0, value = 3;
  void* args[] = {&d, &count, &extra, &value};
  HIP_CHECK(hipModuleLaunchKernel(fill, 2, 1, 1, n / 2, 1, 1, 0, nullptr, args, nullptr));
  std::vector<int> want(2 * n, -1);
  for (int i = 0; i < n; ++i) want[i] = 3 * i;
  int mismatches = count_mismatches("in bounds", from_device(whole, 2 * n), want);

  // Past the end of a separate 64-int allocation.
  int* small = to_device(std::vector<int>(n, 0));
  d = small;
  extra = 1;
  HIP_CHECK(hipModuleLaunchKernel(fill, 3, 1, 1, n / 2, 1, 1, 0, nullptr, args, nullptr));
  hipError_t synced = hipDeviceSynchronize();
  if (synced != hipErrorIllegalAddress) {
    std::printf("a write past the end gave %s, not hipErrorIllegalAddress\n",
                hipGetErrorName(synced));
    return 1;
  }
  HIP_CHECK(hipDeviceReset());
  if (mismatches != 0) return 1;
  std::printf("rtc_memcheck PASSED\n");
  return 0;
}
