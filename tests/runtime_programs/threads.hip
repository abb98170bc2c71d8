// Eight host threads, each on its own stream, each with its own data: every result is checked.
#include "test_common.h"

#include <thread>

__global__ void affine(const int* in, int* out, int a, int b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * a + b;
}

int worker(int t) {
  hipStream_t stream;
  HIP_CHECK(hipStreamCreateWithFlags(&stream, t % 2 ? hipStreamNonBlocking : hipStreamDefault));
  int bad = 0;
  for (int round = 0; round < 20; ++round) {
    const int n = 5000 + t * 101 + round * 7;
    std::vector<int> in(n), out(n), want(n);
    for (int i = 0; i < n; ++i) {
      in[i] = i * (t + 1) - round;
      want[i] = in[i] * (t + 2) + round;
    }
    int *din = nullptr, *dout = nullptr;
    HIP_CHECK(hipMalloc(&din, n * sizeof(int)));
    HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
    HIP_CHECK(hipMemcpyAsync(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice, stream));
    hipLaunchKernelGGL(affine, dim3((n + 127) / 128), dim3(128), 0, stream, din, dout, t + 2, round, n);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpyAsync(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost, stream));
    HIP_CHECK(hipStreamSynchronize(stream));
    bad += count_mismatches("thread", out, want);
    HIP_CHECK(hipFree(din));
    HIP_CHECK(hipFree(dout));
  }
  HIP_CHECK(hipStreamDestroy(stream));
  return bad;
}

int main() {
  std::vector<std::thread> threads;
  std::vector<int> bad(8, 0);
  for (int t = 0; t < 8; ++t) threads.emplace_back([t, &bad] { bad[t] = worker(t); });
  for (auto& th : threads) th.join();
  int total = 0;
  for (int b : bad) total += b;
  return report("threads", total);
}
