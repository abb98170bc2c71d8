// Kernels and device variables written by a macro, one set per element type, their names pasted
// from the macro's argument (as test suites and libraries stamp out typed kernels).
#pragma once

#include <hip/hip_runtime.h>

#define DEFINE_TYPED_KERNELS(T)                                                  \
  __device__ T T##_bias = 0;                                                     \
  __global__ void T##_axpb(T* out, const T* in, T a, int n) {                   \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                               \
    if (i < n) out[i] = a * in[i] + T##_bias;                                    \
  }                                                                              \
  __global__ void set_##T##_bias(T b) { T##_bias = b; }
