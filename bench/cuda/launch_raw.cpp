// Raw CUDA driver API peer of bench/hip/launch_overhead.hip: the same kernel (hipmlir's PTX of
// that file, the image its executable runs), the same launch shape and the same timing, with no
// HIP runtime in between. Built on the GPU machine: nvcc -O2 launch_raw.cpp -lcuda.
//
//   launch_raw KERNEL.ptx ENTRY_POINT ITERS REPS
//
// Prints `first_launch_s T` (cuModuleLoadData + cuModuleGetFunction + the first launch +
// cuCtxSynchronize; the context is made current before), then for REPS rounds of ITERS
// cuLaunchKernel on the default stream each followed by one cuCtxSynchronize: `launch_s_median T`
// (seconds per launch). Every launch adds 1 to a counter checked at the end (`check ok`).
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define CHECK(call)                                                   \
  do {                                                                \
    CUresult err_ = (call);                                           \
    if (err_ != CUDA_SUCCESS) {                                       \
      const char* name_ = nullptr;                                    \
      cuGetErrorName(err_, &name_);                                   \
      std::printf("error %s failed: %s\n", #call, name_ ? name_ : "?"); \
      return 1;                                                       \
    }                                                                 \
  } while (0)

static double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::printf("error usage: launch_raw KERNEL.ptx ENTRY_POINT [ITERS [REPS]]\n");
    return 2;
  }
  const char* entry = argv[2];
  const long iters = argc > 3 ? std::atol(argv[3]) : 10000;
  const int reps = argc > 4 ? std::atoi(argv[4]) : 5;
  std::ifstream file(argv[1], std::ios::binary);
  std::string ptx((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (ptx.empty()) {
    std::printf("error cannot read %s\n", argv[1]);
    return 1;
  }

  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, device));
  CHECK(cuCtxSetCurrent(ctx));
  CUdeviceptr counter;
  CHECK(cuMemAlloc(&counter, sizeof(int)));
  CHECK(cuMemsetD32(counter, 0, 1));
  CHECK(cuCtxSynchronize());

  int n = 0;
  void* params[] = {&counter, &n};
  auto t0 = std::chrono::steady_clock::now();
  CUmodule module;
  CHECK(cuModuleLoadData(&module, ptx.c_str()));
  CUfunction kernel;
  CHECK(cuModuleGetFunction(&kernel, module, entry));
  CHECK(cuLaunchKernel(kernel, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr));
  CHECK(cuCtxSynchronize());
  std::printf("first_launch_s %.9f\n", seconds_since(t0));
  long launched = 1;

  for (long i = 0; i < iters / 10 + 1; ++i) {
    CHECK(cuLaunchKernel(kernel, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr));
  }
  launched += iters / 10 + 1;
  CHECK(cuCtxSynchronize());

  std::vector<double> per_launch;
  for (int r = 0; r < reps; ++r) {
    t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) {
      CHECK(cuLaunchKernel(kernel, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr));
    }
    CHECK(cuCtxSynchronize());
    per_launch.push_back(seconds_since(t0) / static_cast<double>(iters));
    launched += iters;
  }

  int count = 0;
  CHECK(cuMemcpyDtoH(&count, counter, sizeof(int)));
  CHECK(cuMemFree(counter));
  CHECK(cuModuleUnload(module));
  CHECK(cuDevicePrimaryCtxRelease(device));
  if (count != launched) {
    std::printf("error counter is %d after %ld launches\n", count, launched);
    return 1;
  }
  std::sort(per_launch.begin(), per_launch.end());
  if (!per_launch.empty()) {
    std::printf("launch_s_median %.9e\n", per_launch[per_launch.size() / 2]);
  }
  std::printf("check ok\n");
  return 0;
}
