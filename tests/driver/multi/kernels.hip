// A kernel and the host function main.hip calls to launch it.
#include <hip/hip_runtime.h>

#include "driver_config.h"

__global__ void saxpy(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = FACTOR * x[i] + y[i] + OFFSET;
}

void launch_saxpy(const float* x, float* y, int n) {
  saxpy<<<(n + 255) / 256, 256>>>(x, y, n);
}
