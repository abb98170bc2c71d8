// Kernels whose every access is an affine function of the work-item's ids (and of counted
// loops' counters): the memory checker checks their addresses at the corners of each
// work-group at its entry, and runs the kernel's unchecked copy where all pass.
#pragma once
#include <hip/hip_runtime.h>

#define TILE 16

template <typename T>
__global__ void scale_add(T a, const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}

// A tile loop to a bound given at run time, with barriers: C = A * B for n x n matrices.
__global__ void tiled_product(const float* A, const float* B, float* C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = (row < n && t + tx < n) ? A[row * n + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < n && col < n) ? B[(t + ty) * n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) {
      acc += As[ty][k] * Bs[k][tx];
    }
    __syncthreads();
  }
  if (row < n && col < n) {
    C[row * n + col] = acc;
  }
}

// Only the first `halo` threads of a block read the elements before the block's.
__global__ void left_halo(const float* in, float* out, int halo) {
  int start = blockIdx.x * blockDim.x;
  if (threadIdx.x < 3) {
    out[blockIdx.x * 3 + threadIdx.x] = in[start + (int)threadIdx.x - halo];
  }
}

// Unsigned 32-bit arithmetic that wraps below zero in block 0: `p` points 16 elements into its
// allocation, so that p[j] for j >= -16 is inside.
__global__ void shifted_read(const int* p, int* out, int n) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x - 16u;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = p[(int)j];
  }
}

// A functor applied to each element (a device lambda at the call site).
template <typename F>
__global__ void transform(const float* in, float* out, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = f(in[i]);
  }
}

// Off by one: the thread at n writes one element past the end.
__global__ void fill_through(float* out, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) {
    out[i] = v;
  }
}

// Block `bad` writes `n` elements further on, past the end of the allocation.
__global__ void fill_shifted(float* out, int n, int bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i + (blockIdx.x == (unsigned)bad) * n] = 1.0f;
}
