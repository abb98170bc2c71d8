// Recursive device functions that read the work-item's coordinates the kernel itself never
// reads: a walk down to the block's index, and a mutual recursion that ends in the thread's y
// within a 2-D block. On SPIR-V a recursive call stays a call, and the kernel's entry point must
// still list the built-in variables the functions it reaches read (work-group id, local id).
// Every element is compared with a host reference.
#include "test_common.h"

// blockIdx.x, found at the bottom of `depth` calls.
__device__ unsigned block_at_depth(int depth) {
  if (depth == 0) return blockIdx.x;
  return block_at_depth(depth - 1);
}

// Mutual recursion down to threadIdx.y (even and odd depths alternate), plus the depth.
__device__ unsigned row_odd(int depth);
__device__ unsigned row_even(int depth) {
  return depth <= 0 ? threadIdx.y : 1 + row_odd(depth - 1);
}
__device__ unsigned row_odd(int depth) {
  return depth <= 0 ? threadIdx.y : 1 + row_even(depth - 1);
}

// Blocks of 64 threads in x; the kernel reads threadIdx.x and blockDim.x, never blockIdx.
__global__ void place_by_block(unsigned* out, int depth) {
  unsigned block = block_at_depth(depth);
  out[block * blockDim.x + threadIdx.x] = block * 1000u + threadIdx.x + depth;
}

// Blocks of 8 x 4 threads; the kernel reads threadIdx.x and blockIdx.x, never threadIdx.y.
__global__ void place_by_row(unsigned* out, int depth) {
  unsigned row = row_even(depth) - depth;
  unsigned at = (blockIdx.x * 4 + row) * 8 + threadIdx.x;
  out[at] = row_even(depth) * 100u + threadIdx.x;
}

int main() {
  const int blocks = 5, threads = 64, depth = 6;
  const int n = blocks * threads;
  unsigned* d_blocks = nullptr;
  unsigned* d_rows = nullptr;
  HIP_CHECK(hipMalloc(&d_blocks, n * sizeof(unsigned)));
  HIP_CHECK(hipMalloc(&d_rows, n * sizeof(unsigned)));
  HIP_CHECK(hipMemset(d_blocks, 0xff, n * sizeof(unsigned)));
  HIP_CHECK(hipMemset(d_rows, 0xff, n * sizeof(unsigned)));
  place_by_block<<<blocks, threads>>>(d_blocks, depth);
  HIP_CHECK(hipGetLastError());
  // blocks * 64 threads as blocks of 8 x 4: 2 * blocks blocks.
  hipLaunchKernelGGL(place_by_row, dim3(2 * blocks), dim3(8, 4), 0, 0, d_rows, depth - 1);
  HIP_CHECK(hipGetLastError());

  std::vector<unsigned> want_blocks(n), want_rows(n);
  for (int i = 0; i < n; ++i) {
    want_blocks[i] = (i / threads) * 1000u + i % threads + depth;
    unsigned row = (i / 8) % 4, x = i % 8;
    want_rows[i] = (row + depth - 1) * 100u + x;
  }
  int failures = 0;
  failures += report("recursion reading blockIdx",
                     count_mismatches("blocks", from_device(d_blocks, n), want_blocks));
  failures += report("mutual recursion reading threadIdx.y",
                     count_mismatches("rows", from_device(d_rows, n), want_rows));
  HIP_CHECK(hipFree(d_blocks));
  HIP_CHECK(hipFree(d_rows));
  return failures;
}
