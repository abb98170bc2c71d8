// The CUDA twin of launch_overhead.hip (generated from it by sed), built by nvcc on the GPU machine.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                       \
  do {                                                                                        \
    cudaError_t err_ = (call);                                                                 \
    if (err_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,               \
                   cudaGetErrorString(err_));                                                  \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

__global__ void tick(int* counter, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0 && n > 0) atomicAdd(counter, 1);
}

int main() {
  int* counter = nullptr;
  CUDA_CHECK(cudaMalloc(&counter, sizeof(int)));
  CUDA_CHECK(cudaMemset(counter, 0, sizeof(int)));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  const int warmup = 1000, launches = 50000;
  for (int i = 0; i < warmup; ++i) tick<<<1, 32, 0, stream>>>(counter, 1);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i) tick<<<1, 32, 0, stream>>>(counter, 1);
  auto t1 = std::chrono::steady_clock::now();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  auto t2 = std::chrono::steady_clock::now();
  int got = 0;
  CUDA_CHECK(cudaMemcpy(&got, counter, sizeof(int), cudaMemcpyDeviceToHost));
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
