// Included by stencil_kernels.h relative to its own folder: host-device code both sides use.
#pragma once

__host__ __device__ inline float weighted(float left, float centre, float right) {
  return 0.25f * left + 0.5f * centre + 0.25f * right;
}
