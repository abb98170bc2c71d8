// Kernels over pitched rectangles of the pitched-copy test: each work-item one element of one
// row, rows `pitch` bytes apart, so the bytes between rows are never touched.
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>
#include <cstdint>

// The value a stamped element holds: distinct per row and column, never the sentinel's.
template <typename T>
__host__ __device__ inline T stamp_value(size_t x, size_t y, unsigned seed) {
  return static_cast<T>((x * 7u + y * 131u + seed * 29u) % 251u);
}

// Writes stamp_value into every element of a `width` x `height` rectangle at `base`.
template <typename T>
__global__ void stamp(char* base, size_t pitch, size_t width, size_t height, unsigned seed) {
  size_t x = blockIdx.x * blockDim.x + threadIdx.x;
  size_t y = blockIdx.y;
  if (x < width && y < height) {
    reinterpret_cast<T*>(base + y * pitch)[x] = stamp_value<T>(x, y, seed);
  }
}

// Adds `delta` to every element of the rectangle.
template <typename T>
__global__ void add_to(char* base, size_t pitch, size_t width, size_t height, T delta) {
  size_t x = blockIdx.x * blockDim.x + threadIdx.x;
  size_t y = blockIdx.y;
  if (x < width && y < height) {
    T* row = reinterpret_cast<T*>(base + y * pitch);
    row[x] = static_cast<T>(row[x] + delta);
  }
}

// Launches `kernel` over a rectangle of `width` elements by `height` rows on `stream`.
template <typename Kernel, typename... Args>
void launch_rows(Kernel kernel, size_t width, size_t height, hipStream_t stream, Args... args) {
  dim3 block(64);
  dim3 grid(static_cast<unsigned>((width + 63) / 64), static_cast<unsigned>(height));
  kernel<<<grid, block, 0, stream>>>(args...);
}
