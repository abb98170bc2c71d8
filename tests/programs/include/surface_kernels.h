// Kernels that read and write images through surface objects, as image-processing code does.
#pragma once
#include <hip/hip_runtime.h>

// Writes f(x, y) into every texel of a 2-D float surface (x is a byte offset).
__global__ void fill_plane(hipSurfaceObject_t out, int width, int height, float scale) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) surf2Dwrite(scale * y + x, out, x * sizeof(float), y);
}

// A 3x3 box blur of `in` into `out`, the border clamped by the surface itself.
__global__ void blur(hipSurfaceObject_t in, hipSurfaceObject_t out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float sum = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      sum += surf2Dread<float>(in, (x + dx) * (int)sizeof(float), y + dy, hipBoundaryModeClamp);
  surf2Dwrite(sum / 9.0f, out, x * sizeof(float), y);
}

// Swaps the red and blue channels of an RGBA image in place; pixels outside the image read as
// zero (the default mode) and their writes are dropped.
__global__ void swap_red_blue(hipSurfaceObject_t image, int width, int height, int* outside_sum) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  uchar4 pixel;
  surf2Dread(&pixel, image, x * 4, y);
  if (x >= width || y >= height) {
    atomicAdd(outside_sum, pixel.x + pixel.y + pixel.z + pixel.w);
    surf2Dwrite(make_uchar4(9, 9, 9, 9), image, x * 4, y);
    return;
  }
  surf2Dwrite(make_uchar4(pixel.z, pixel.y, pixel.x, pixel.w), image, x * 4, y);
}

// Each slice z of a 3-D int2 volume gets (x + z, y - z) added; each layer of a layered surface
// gets its layer number times 100 added.
__global__ void shift_volume(hipSurfaceObject_t volume, int w, int h, int d) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x >= w || y >= h || z >= d) return;
  int2 v;
  surf3Dread(&v, volume, x * sizeof(int2), y, z);
  surf3Dwrite(make_int2(v.x + x + z, v.y + y - z), volume, x * sizeof(int2), y, z);
}

template <typename T>
__global__ void add_layer(hipSurfaceObject_t layers, int w, int h, int count) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, layer = blockIdx.z;
  if (x >= w || y >= h || layer >= count) return;
  T v = surf2DLayeredread<T>(layers, x * sizeof(T), y, layer);
  surf2DLayeredwrite<T>(v + T(100 * layer), layers, x * sizeof(T), y, layer);
}

// A 1-D surface of shorts, reversed by one kernel through the pointer forms.
__global__ void reverse_row(hipSurfaceObject_t in, hipSurfaceObject_t out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  short v;
  surf1Dread(&v, in, (n - 1 - i) * 2);
  surf1Dwrite(v, out, i * 2);
}
