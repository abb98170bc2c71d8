// Device code in a header that begins with a UTF-8 byte-order mark, as editors on some systems
// save files.
#pragma once

#include <hip/hip_runtime.h>

template <typename T>
__global__ void scale_and_shift(const T* in, T* out, T scale, T shift, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * scale + shift;
}
