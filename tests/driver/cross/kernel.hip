// Defines the kernel that launch.hip declares and launches by name.
#include <hip/hip_runtime.h>

__global__ void axpb(float* y, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * y[i] + b;
}
