// Host-side cost of a launch: many launches of a kernel that does almost nothing, on one stream,
// timed from the first launch to the end of the synchronization. Also built by nvcc as CUDA
// (launch_overhead.cu) to compare on an NVIDIA GPU.
#include <hip/hip_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#define HIP_CHECK(call)                                                                       \
  do {                                                                                        \
    hipError_t err_ = (call);                                                                 \
    if (err_ != hipSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,               \
                   hipGetErrorString(err_));                                                  \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

__global__ void tick(int* counter, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0 && n > 0) atomicAdd(counter, 1);
}

int main() {
  int* counter = nullptr;
  HIP_CHECK(hipMalloc(&counter, sizeof(int)));
  HIP_CHECK(hipMemset(counter, 0, sizeof(int)));
  hipStream_t stream;
  HIP_CHECK(hipStreamCreate(&stream));
  const int warmup = 1000, launches = 50000;
  for (int i = 0; i < warmup; ++i) hipLaunchKernelGGL(tick, dim3(1), dim3(32), 0, stream, counter, 1);
  HIP_CHECK(hipStreamSynchronize(stream));
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i) hipLaunchKernelGGL(tick, dim3(1), dim3(32), 0, stream, counter, 1);
  auto t1 = std::chrono::steady_clock::now();
  HIP_CHECK(hipStreamSynchronize(stream));
  auto t2 = std::chrono::steady_clock::now();
  int got = 0;
  HIP_CHECK(hipMemcpy(&got, counter, sizeof(int), hipMemcpyDeviceToHost));
  double enqueue = std::chrono::duration<double, std::micro>(t1 - t0).count() / launches;
  double total = std::chrono::duration<double, std::micro>(t2 - t0).count() / launches;
  std::printf("launch: %.3f us to enqueue, %.3f us per launch to completion (%d launches)\n",
              enqueue, total, launches);
  if (got != warmup + launches) {
    std::printf("launch_overhead FAILED: counter %d, want %d\n", got, warmup + launches);
    return 1;
  }
  std::printf("launch_overhead PASSED\n");
  return 0;
}
