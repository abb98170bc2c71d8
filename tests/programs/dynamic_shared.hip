// Dynamic shared memory: `extern __shared__` arrays of different types aliasing the same memory,
// HIP_DYNAMIC_SHARED, a raw byte buffer reinterpreted, use from a device function, and the size
// chosen at launch.
#include "test_common.h"

#include <cmath>

extern __shared__ float shared_floats[];

template <typename T>
__device__ T block_sum(T v) {
  extern __shared__ unsigned char raw[];
  T* partial = reinterpret_cast<T*>(raw);
  partial[threadIdx.x] = v;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  T total = partial[0];
  __syncthreads();
  return total;
}

__global__ void sums(const int* in, long long* out_sum, double* out_mean, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  long long s = block_sum<long long>(v);
  double m = block_sum<double>(v * 0.5);
  if (threadIdx.x == 0) {
    out_sum[blockIdx.x] = s;
    out_mean[blockIdx.x] = m / blockDim.x;
  }
}

__global__ void reverse_block(float* data) {
  HIP_DYNAMIC_SHARED(float, tile)
  unsigned t = threadIdx.x;
  unsigned base = blockIdx.x * blockDim.x;
  tile[t] = data[base + t];
  __syncthreads();
  // The same memory through the file-scope declaration.
  data[base + t] = shared_floats[blockDim.x - 1 - t];
}

int main() {
  int bad = 0;
  const int n = 4096;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 13) % 97 - 40;
  for (int block : {64, 256}) {
    const int blocks = n / block;
    std::vector<long long> want_sum(blocks, 0);
    std::vector<double> want_mean(blocks, 0.0);
    for (int i = 0; i < n; ++i) {
      want_sum[i / block] += in[i];
      want_mean[i / block] += in[i] * 0.5;
    }
    for (double& m : want_mean) m /= block;
    int* d_in = to_device(in);
    long long* d_sum = nullptr;
    double* d_mean = nullptr;
    HIP_CHECK(hipMalloc(&d_sum, blocks * sizeof(long long)));
    HIP_CHECK(hipMalloc(&d_mean, blocks * sizeof(double)));
    // The dynamic size covers the widest use (8-byte elements).
    hipLaunchKernelGGL(sums, dim3(blocks), dim3(block), block * sizeof(double), 0, d_in, d_sum,
                       d_mean, n);
    HIP_CHECK(hipGetLastError());
    bad += count_mismatches("block sums", from_device(d_sum, blocks), want_sum);
    std::vector<double> got_mean = from_device(d_mean, blocks);
    for (int b = 0; b < blocks; ++b)
      if (std::fabs(got_mean[b] - want_mean[b]) > 1e-12) ++bad;
    HIP_CHECK(hipFree(d_in));
    HIP_CHECK(hipFree(d_sum));
    HIP_CHECK(hipFree(d_mean));
  }

  std::vector<float> data(n), want(n);
  for (int i = 0; i < n; ++i) data[i] = i * 0.5f;
  const int block = 128;
  for (int i = 0; i < n; ++i) want[i] = data[(i / block) * block + block - 1 - i % block];
  float* d_data = to_device(data);
  reverse_block<<<n / block, block, block * sizeof(float)>>>(d_data);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("reverse", from_device(d_data, n), want);
  HIP_CHECK(hipFree(d_data));
  return report("dynamic_shared", bad);
}
