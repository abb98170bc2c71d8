// The kernels of the plain-build test: compiled with `hipmlir kernels.hip --emit-spirv -o
// kernels.spv` and found by name at run time by main.cpp, a host program built by g++ alone.
#include <hip/hip_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}

namespace ops {
// Mixed parameter sizes and alignments: the host packs them as a C struct.
__global__ void saxpy(float a, const float* x, float* y, size_t n, char tag, double bias) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i] + (float)(tag - 'a') + (float)bias;
  }
}
}  // namespace ops

__global__ void scale(float* p, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i] *= factor;
  }
}

// Overloads: "twice" names both, so only the mangled names launch them.
__global__ void twice(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 2.0f;
}

__global__ void twice(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 2;
}
