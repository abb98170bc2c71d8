// The device code of the Jacobi programs: a sweep over one block (see problem.h for the layout)
// and the packing of its columns, which are not contiguous, for the halo exchange.
#pragma once

#include <hip/hip_runtime.h>

namespace jacobi {

// Threads of a sweep's thread block: 32 × 8.
constexpr int sweep_x = 32;
constexpr int sweep_y = 8;

// One sweep: every point of the block that is not on the grid's edge becomes the mean of its
// four neighbours in `a` (the halo holds the neighbours' points); edge points stay as they are
// (both arrays start with them). Each thread block writes the sum of its points' squared changes
// to block_sums[its index], which the host adds up in a fixed order: no atomics, so a run
// gives the same residual every time.
template <typename real>
__global__ void sweep(const real* __restrict__ a, real* __restrict__ a_new, int pitch, int w,
                      int h, int x0, int y0, int nx, int ny, real* __restrict__ block_sums) {
  __shared__ real partial[sweep_x * sweep_y];
  const int li = blockIdx.x * sweep_x + threadIdx.x;
  const int lj = blockIdx.y * sweep_y + threadIdx.y;
  const int t = threadIdx.y * sweep_x + threadIdx.x;
  real change = 0;
  if (li < w && lj < h) {
    const int i = x0 + li, j = y0 + lj;
    if (i > 0 && j > 0 && i < nx - 1 && j < ny - 1) {
      const size_t at = static_cast<size_t>(lj + 1) * pitch + (li + 1);
      const real v = real(0.25) * (a[at - 1] + a[at + 1] + a[at - pitch] + a[at + pitch]);
      const real d = v - a[at];
      change = d * d;
      a_new[at] = v;
    }
  }
  partial[t] = change;
  __syncthreads();
  for (int half = sweep_x * sweep_y / 2; half > 0; half /= 2) {
    if (t < half) partial[t] += partial[t + half];
    __syncthreads();
  }
  if (t == 0) block_sums[blockIdx.y * gridDim.x + blockIdx.x] = partial[0];
}

// Column `col` of the block's array (rows 1..h, the block's own) to a contiguous buffer, and back.
template <typename real>
__global__ void pack_column(const real* __restrict__ a, int pitch, int h, int col,
                            real* __restrict__ out) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < h) out[j] = a[static_cast<size_t>(j + 1) * pitch + col];
}

template <typename real>
__global__ void unpack_column(real* __restrict__ a, int pitch, int h, int col,
                              const real* __restrict__ in) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < h) a[static_cast<size_t>(j + 1) * pitch + col] = in[j];
}

}  // namespace jacobi
