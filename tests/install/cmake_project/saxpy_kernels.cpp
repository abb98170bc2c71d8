#include "saxpy_kernels.h"

__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

hipError_t launch_saxpy(float a, const float* x, float* y, int n) {
  saxpy<<<(n + 255) / 256, 256>>>(a, x, y, n);
  return hipGetLastError();
}
