// Device code in a header, as real programs keep it: kernels (plain and templates), device-only
// helpers using the HIP builtins, and host-device functions the host code calls too.
#pragma once

#include <hip/hip_runtime.h>

#include "stencil_math.h"

__device__ inline int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

__global__ void blur3(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = weighted(in[clamp_index(i - 1, n)], in[i], in[clamp_index(i + 1, n)]);
  }
}

template <typename T, int Radius>
__global__ void window_sum(const T* in, T* out, int n) {
  __shared__ T tile[256 + 2 * Radius];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int local = threadIdx.x + Radius;
  tile[local] = in[clamp_index(i, n)];
  if (threadIdx.x < Radius) {
    tile[local - Radius] = in[clamp_index(i - Radius, n)];
    tile[local + blockDim.x] = in[clamp_index(i + blockDim.x, n)];
  }
  __syncthreads();
  if (i < n) {
    T sum = 0;
    for (int k = -Radius; k <= Radius; ++k) sum += tile[local + k];
    out[i] = sum;
  }
}

// A host function in the header that launches a kernel of the header.
template <typename T, int Radius>
void launch_window_sum(const T* in, T* out, int n) {
  hipLaunchKernelGGL(HIP_KERNEL_NAME(window_sum<T, Radius>), dim3((n + 255) / 256), dim3(256), 0,
                     0, in, out, n);
}
