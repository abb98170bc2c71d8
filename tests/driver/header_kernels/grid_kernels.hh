// Kernels that live in a header, as real projects keep them: the sources that include this file
// hold no device keyword of their own, and hipcc compiles them as HIP all the same.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

#define HIP_CHECK(call)                                                                   \
  do {                                                                                    \
    hipError_t status_ = (call);                                                          \
    if (status_ != hipSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                   hipGetErrorString(status_));                                           \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

template <typename T>
__device__ T weighted(T a, T b, T w) {
  return a * w + b * (T(1) - w);
}

// A template kernel: every source that launches an instance gets its own.
template <typename T>
__global__ void blend(T* out, const T* a, const T* b, T w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = weighted(a[i], b[i], w);
}

// Internal linkage: each including source has its own copy.
static __global__ void count_odd(const int* in, int* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (in[i] & 1)) atomicAdd(total, 1);
}

#define BLOCK 128
#define GRID_FOR(n) dim3(((n) + BLOCK - 1) / BLOCK)

// The launch a header's inline host helper writes for its callers.
inline void launch_count_odd(const int* in, int* total, int n, hipStream_t stream) {
  count_odd<<<GRID_FOR(n), BLOCK, 0, stream>>>(in, total, n);
}
