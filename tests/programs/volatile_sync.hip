// `volatile` as real reductions use it: each warp sums its part of shared memory without
// barriers through a `volatile` pointer (the warp-synchronous idiom), and the last block to
// arrive waits on the other blocks' `volatile` ready flags, then reads their partial sums
// through a `volatile` pointer (the threadfence-reduction handshake). Every warp sum, block
// sum and the total are checked against a host reference.
#include "test_common.h"

template <typename T>
__device__ void warp_reduce(volatile T* s, unsigned lane, unsigned width) {
  for (unsigned offset = width / 2; offset > 0; offset /= 2) {
    if (lane < offset) s[lane] += s[lane + offset];
  }
}

template <typename T, unsigned kBlock>
__global__ void reduce(const T* in, int n, T* warp_sums, T* partial, volatile int* ready,
                       unsigned* arrived, T* total) {
  __shared__ T sdata[kBlock];
  __shared__ bool last;
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * kBlock + tid;
  sdata[tid] = i < static_cast<unsigned>(n) ? in[i] : T(0);
  __syncthreads();

  unsigned width = warpSize;
  unsigned base = tid / width * width;
  warp_reduce(sdata + base, tid - base, width);
  __syncthreads();

  unsigned warps = kBlock / width;
  if (tid - base == 0) warp_sums[blockIdx.x * warps + tid / width] = sdata[tid];
  if (tid == 0) {
    T sum = 0;
    for (unsigned w = 0; w < warps; ++w) sum += sdata[w * width];
    partial[blockIdx.x] = sum;
    __threadfence();
    ready[blockIdx.x] = 1;
    last = atomicAdd(arrived, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && tid == 0) {
    volatile T* published = partial;
    T sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) {
      while (ready[b] == 0) {
      }
      sum += published[b];
    }
    *total = sum;
  }
}

template <typename T, unsigned kBlock>
int run(const char* name, int n, int warp) {
  const int blocks = (n + kBlock - 1) / kBlock;
  const int warps = kBlock / warp;
  std::vector<T> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<T>((i * 7) % 13 - 6);
  T* din = to_device(in);
  T *warp_sums, *partial, *total;
  int* ready;
  unsigned* arrived;
  HIP_CHECK(hipMalloc(&warp_sums, blocks * warps * sizeof(T)));
  HIP_CHECK(hipMalloc(&partial, blocks * sizeof(T)));
  HIP_CHECK(hipMalloc(&total, sizeof(T)));
  HIP_CHECK(hipMalloc(&ready, blocks * sizeof(int)));
  HIP_CHECK(hipMalloc(&arrived, sizeof(unsigned)));
  HIP_CHECK(hipMemset(ready, 0, blocks * sizeof(int)));
  HIP_CHECK(hipMemset(arrived, 0, sizeof(unsigned)));
  HIP_CHECK(hipMemset(total, 0, sizeof(T)));
  hipLaunchKernelGGL((reduce<T, kBlock>), dim3(blocks), dim3(kBlock), 0, 0, din, n, warp_sums,
                     partial, ready, arrived, total);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());

  std::vector<T> want_warps(blocks * warps, T(0)), want_blocks(blocks, T(0)), want_total(1, T(0));
  for (int i = 0; i < n; ++i) {
    want_warps[i / warp] += in[i];
    want_blocks[i / kBlock] += in[i];
    want_total[0] += in[i];
  }
  int bad = count_mismatches("warp sums", from_device(warp_sums, blocks * warps), want_warps);
  bad += count_mismatches("block sums", from_device(partial, blocks), want_blocks);
  bad += count_mismatches("total", from_device(total, 1), want_total);
  bad += count_mismatches("ready flags", from_device(ready, blocks), std::vector<int>(blocks, 1));
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(warp_sums));
  HIP_CHECK(hipFree(partial));
  HIP_CHECK(hipFree(total));
  HIP_CHECK(hipFree(ready));
  HIP_CHECK(hipFree(arrived));
  return report(name, bad);
}

int main() {
  hipDeviceProp_t props;
  HIP_CHECK(hipGetDeviceProperties(&props, 0));
  int warp = props.warpSize;
  int failures = run<int, 256>("int volatile reduction", 10000, warp);
  failures += run<float, 128>("float volatile reduction", 3001, warp);
  failures += run<long long, 64>("long long volatile reduction", 64 * 9, warp);
  if (failures) return 1;
  std::printf("volatile_sync PASSED\n");
  return 0;
}
