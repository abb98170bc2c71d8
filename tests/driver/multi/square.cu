// A .cu source: its kernel is launched by a host function main.hip calls. It does not include
// hip_runtime.h (hipmlir pre-includes it, as clang does for HIP).
#include "driver_config.h"

template <typename T>
__global__ void square(T* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * data[i];
}

void launch_square(float* data, int n) {
  square<float><<<(n + 127) / 128, 128>>>(data, n);
}
