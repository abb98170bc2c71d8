// __launch_bounds__: a kernel compiled for at most N threads a block runs with blocks of up to
// N threads (output checked against the host on every element), a larger block is refused with
// hipErrorLaunchFailure and writes nothing, and hipFuncGetAttributes reports the bound as the
// kernel's maxThreadsPerBlock. The bound is a plain number, a constexpr expression and a template
// parameter; a kernel without bounds takes the device's largest block.
#include "test_common.h"

constexpr int kWarpsPerBlock = 2;
constexpr int kUntouched = -1;

__global__ void __launch_bounds__(64) scale_by_two(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32, 4) add_one(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1;
}

template <int Threads>
__global__ void __launch_bounds__(Threads) square(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}

__global__ void unbounded(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] - 3;
}

// Runs `kernel` in blocks of `threads` over `n` elements; the launch's error code.
template <typename Kernel>
hipError_t launch(Kernel kernel, int threads, const int* in, int* out, int n) {
  hipLaunchKernelGGL(kernel, dim3((n + threads - 1) / threads), dim3(threads), 0, 0, in, out, n);
  hipError_t err = hipGetLastError();
  HIP_CHECK(hipDeviceSynchronize());
  return err;
}

template <typename Kernel>
int check(const char* name, Kernel kernel, int bound, int (*reference)(int)) {
  const int n = 1000;
  std::vector<int> host(n), want(n), untouched(n, kUntouched);
  for (int i = 0; i < n; ++i) {
    host[i] = i * 7 - 500;
    want[i] = reference(host[i]);
  }
  int* in = to_device(host);
  int* out = to_device(untouched);
  int failures = 0;

  hipFuncAttributes attr{};
  HIP_CHECK(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)));
  int device_most = 0;
  HIP_CHECK(hipDeviceGetAttribute(&device_most, hipDeviceAttributeMaxThreadsPerBlock, 0));
  int most = bound ? bound : device_most;
  if (attr.maxThreadsPerBlock != most) {
    std::printf("%s: maxThreadsPerBlock %d, want %d\n", name, attr.maxThreadsPerBlock, most);
    ++failures;
  }

  // Blocks of the bound and of half of it run and compute every element.
  for (int threads : {most, most / 2}) {
    HIP_CHECK(hipMemcpy(out, untouched.data(), n * sizeof(int), hipMemcpyHostToDevice));
    hipError_t err = launch(kernel, threads, in, out, n);
    if (err != hipSuccess) {
      std::printf("%s: blocks of %d: %s\n", name, threads, hipGetErrorName(err));
      ++failures;
    }
    failures += count_mismatches(name, from_device(out, n), want);
  }

  // A block larger than the bound is refused and runs nothing.
  if (bound) {
    HIP_CHECK(hipMemcpy(out, untouched.data(), n * sizeof(int), hipMemcpyHostToDevice));
    hipError_t err = launch(kernel, bound * 2, in, out, n);
    if (err != hipErrorLaunchFailure) {
      std::printf("%s: blocks of %d: %s, want hipErrorLaunchFailure\n", name, bound * 2,
                  hipGetErrorName(err));
      ++failures;
    }
    failures += count_mismatches(name, from_device(out, n), untouched);
  }
  HIP_CHECK(hipFree(in));
  HIP_CHECK(hipFree(out));
  return report(name, failures);
}

int main() {
  int failures = 0;
  failures += check("__launch_bounds__(64)", scale_by_two, 64, [](int x) { return 2 * x; });
  failures += check("__launch_bounds__(constexpr, min blocks)", add_one, kWarpsPerBlock * 32,
                    [](int x) { return x + 1; });
  failures += check("__launch_bounds__(template parameter)", square<128>, 128,
                    [](int x) { return x * x; });
  failures += check("__launch_bounds__(template parameter, 32)", square<32>, 32,
                    [](int x) { return x * x; });
  failures += check("no bounds", unbounded, 0, [](int x) { return x - 3; });
  return failures;
}
