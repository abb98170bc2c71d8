// Kernel templates that take a function object, and the host templates that launch them.
#pragma once

#include <hip/hip_runtime.h>

template <int Threads, typename F>
__global__ void for_each_index_kernel(int n, F f) {
  int i = blockIdx.x * Threads + threadIdx.x;
  if (i < n) f(i);
}

template <int Threads, typename F>
void for_each_index(int n, F f) {
  for_each_index_kernel<Threads><<<(n + Threads - 1) / Threads, Threads>>>(n, f);
}

// The kernel hands its function object on to a device function.
template <typename F, typename T>
__device__ T apply(F f, T value) {
  return f(value);
}

template <typename F, typename T>
__global__ void transform_kernel(const F f, const T* in, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = apply(f, in[i]);
}

template <typename F, typename T>
void transform_with(F f, const T* in, T* out, int n) {
  hipLaunchKernelGGL(transform_kernel, dim3((n + 255) / 256), dim3(256), 0, 0, f, in, out, n);
  if (hipGetLastError() != hipSuccess) std::abort();
}
