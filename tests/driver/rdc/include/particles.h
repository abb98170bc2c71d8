// Device code shared by the sources of the separate-compilation test: what physics.hip defines
// and the other sources use (linked by the device link), plus header-only device code.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

#define HIP_CHECK(call)                                                                 \
  do {                                                                                  \
    hipError_t err_ = (call);                                                           \
    if (err_ != hipSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,         \
                   hipGetErrorString(err_));                                            \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

struct Particle {
  float position;
  float velocity;
};

// Defined in physics.hip.
extern __device__ float gravity;
extern __constant__ float drag_table[4];
extern __device__ int steps_taken;
__device__ float advance(float position, float velocity, int step);
namespace physics {
__device__ float clamp_speed(float v);
}

// Defined in kernels.hip, launched from main.hip.
__global__ void step_particles(Particle* particles, int n, int step);
__global__ void count_steps(int n);

// Header-only device code: compiled into every source that uses it, kept once by the link.
inline __device__ float half_of(float x) { return 0.5f * x; }
template <typename T>
__device__ T squared(T x) {
  return x * x;
}
