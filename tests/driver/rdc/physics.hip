#include "particles.h"

__device__ float gravity = 1.0f;  // main.hip sets it through hipMemcpyToSymbol
__constant__ float drag_table[4] = {1.0f, 0.5f, 0.25f, 0.125f};
__device__ int steps_taken = 0;

// kernels.hip has a static function of the same name: each source keeps its own.
static __device__ float scale(float x) { return 2.0f * x; }

// A pointer to this source's static `scale`, which the device link renames apart from
// kernels.hip's: the call must still reach this one.
typedef float (*unary_op)(float);

__device__ float advance(float position, float velocity, int step) {
  unary_op extra = (step % 2) ? scale : half_of;
  return position + scale(velocity - gravity * drag_table[step % 4]) + half_of(squared(0.5f)) +
         extra(0.25f);
}

namespace physics {
__device__ float clamp_speed(float v) {
  float* limit = new float(20.0f);
  float clamped = v > *limit ? *limit : (v < -*limit ? -*limit : v);
  delete limit;
  return clamped;
}
}  // namespace physics
