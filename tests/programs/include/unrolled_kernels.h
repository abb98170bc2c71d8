// Kernels whose loops carry unroll hints, the way tuned HIP code writes them: per-thread arrays
// indexed by the loop counter (registers only once the loop is unrolled), counts from template
// parameters, and loops that leave early.
#pragma once
#include <hip/hip_runtime.h>

// Each thread owns ITEMS consecutive elements: loads them into an array, transforms them, and
// stores them back, each loop unrolled as hipcc and nvcc unroll it.
template <int ITEMS>
__global__ void blocked_transform(const float* __restrict__ in, float* __restrict__ out, int n) {
  float items[ITEMS];
  const int base = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    items[j] = base + j < n ? in[base + j] : 0.0f;
  }
#pragma unroll ITEMS
  for (int j = 0; j < ITEMS; ++j) {
    items[j] = items[j] * 2.0f + static_cast<float>(j);
  }
#pragma clang loop unroll(full)
  for (int j = 0; j < ITEMS; ++j) {
    if (base + j < n) out[base + j] = items[j];
  }
}

// A binary search over a table in shared memory, done for several values a thread: the
// searches' loop unrolled by a count, the outer one not at all.
__global__ void bucket_of(const float* __restrict__ edges, const float* __restrict__ values,
                          unsigned char* __restrict__ buckets, int n) {
  __shared__ float table[64];
  for (int i = threadIdx.x; i < 64; i += blockDim.x) table[i] = edges[i];
  __syncthreads();
  const int first = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
#pragma nounroll
  for (int k = 0; k < 2; ++k) {
    const int i = first + k;
    if (i >= n) break;
    const float x = values[i];
    int lo = 0;
#pragma unroll 2
    for (int step = 32; step > 0; step >>= 1) {
      if (x >= table[lo + step - 1]) lo += step;
    }
    buckets[i] = static_cast<unsigned char>(lo);
  }
}

// Loops that stop early, under hints: a while with a break, a do-while, and continue.
__global__ void first_above(const int* __restrict__ rows, int width, int limit,
                            int* __restrict__ found, int* __restrict__ sums) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int* r = rows + row * width;
  int at = -1;
  int j = 0;
#pragma GCC unroll 4
  while (j < width) {
    if (r[j] > limit) {
      at = j;
      break;
    }
    ++j;
  }
  found[row] = at;
  int sum = 0;
  int k = 0;
#pragma unroll
  do {
    if (r[k] % 3 == 0) {
      ++k;
      continue;
    }
    sum += r[k];
    ++k;
  } while (k < width);
  sums[row] = sum;
}
