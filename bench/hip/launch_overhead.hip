// Launch overhead and time to first launch through hipmlir's runtime.
//
//   launch_overhead ITERS REPS
//
// Prints `first_launch_s T` (the first hipLaunchKernelGGL of the program, JIT included, through
// hipDeviceSynchronize; the device is initialized before by hipMalloc), then REPS rounds of ITERS
// launches of a trivial kernel each followed by one hipDeviceSynchronize, and
// `launch_s_median T` (seconds per launch, median over the rounds). Every launch adds 1 to a
// counter that is checked at the end (`check ok`). bench/hip/launch_raw.cpp is the same program on
// raw OpenCL.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                 \
  do {                                                                              \
    hipError_t err_ = (call);                                                       \
    if (err_ != hipSuccess) {                                                       \
      std::printf("error %s failed: %s\n", #call, hipGetErrorString(err_));         \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

__global__ void tiny_kernel(int* counter, int n) {
  if (blockIdx.x * blockDim.x + threadIdx.x == (unsigned int)n) {
    counter[0] += 1;
  }
}

static double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
  const long iters = argc > 1 ? std::atol(argv[1]) : 10000;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  int* counter = nullptr;
  CHECK(hipMalloc(&counter, sizeof(int)));
  CHECK(hipMemset(counter, 0, sizeof(int)));
  CHECK(hipDeviceSynchronize());

  auto t0 = std::chrono::steady_clock::now();
  hipLaunchKernelGGL(tiny_kernel, dim3(1), dim3(64), 0, 0, counter, 0);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  std::printf("first_launch_s %.9f\n", seconds_since(t0));
  long launched = 1;

  for (long i = 0; i < iters / 10 + 1; ++i) {
    hipLaunchKernelGGL(tiny_kernel, dim3(1), dim3(64), 0, 0, counter, 0);
  }
  launched += iters / 10 + 1;
  CHECK(hipDeviceSynchronize());

  std::vector<double> per_launch;
  for (int r = 0; r < reps; ++r) {
    t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) {
      hipLaunchKernelGGL(tiny_kernel, dim3(1), dim3(64), 0, 0, counter, 0);
    }
    CHECK(hipDeviceSynchronize());
    per_launch.push_back(seconds_since(t0) / static_cast<double>(iters));
    launched += iters;
  }
  CHECK(hipGetLastError());

  int count = 0;
  CHECK(hipMemcpy(&count, counter, sizeof(int), hipMemcpyDeviceToHost));
  CHECK(hipFree(counter));
  if (count != launched) {
    std::printf("error counter is %d after %ld launches\n", count, launched);
    return 1;
  }
  if (!per_launch.empty()) {
    std::sort(per_launch.begin(), per_launch.end());
    std::printf("launch_s_median %.9e\n", per_launch[per_launch.size() / 2]);
  }
  std::printf("check ok\n");
  return 0;
}
