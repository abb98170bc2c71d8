#include "particles.h"

static __device__ float scale(float x) { return 3.0f * x; }

__global__ void step_particles(Particle* particles, int n, int step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Particle p = particles[i];
    p.velocity = physics::clamp_speed(scale(p.velocity) + half_of(squared(1.0f)));
    p.position = advance(p.position, p.velocity, step + i);
    particles[i] = p;
  }
}

__global__ void count_steps(int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    // The device heap is one for the linked program, though both sources use it.
    int* one = static_cast<int*>(malloc(sizeof(int)));
    *one = 1;
    atomicAdd(&steps_taken, *one);
    free(one);
  }
}
