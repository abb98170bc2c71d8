// Element-wise kernels kept in a header, as real programs keep them: plain kernels, kernel
// templates and a kernel template taking a functor (a device lambda).
#pragma once

#include <hip/hip_runtime.h>

__global__ void scale_by(float* data, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

__global__ void add_index(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += i;
}

__global__ void negate(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = -data[i];
}

template <typename T>
__global__ void fill_with(T* out, T value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

template <typename T, typename F>
__global__ void apply_each(T* data, F f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = f(data[i]);
}
