// C's memory model in device code: local arrays (multi-dimensional, initialized), structs
// (nested, arrays of structs, . and ->), the address of a local passed to a device function,
// references, pointer to pointer, pointer casts and comparisons, enums and typedefs.
#include "test_common.h"

#include <cmath>

enum Mode { kSum = 1, kMax = 2 };

struct Vec3 {
  float x, y, z;
};

typedef struct {
  char tag;      // padding follows
  double weight;
  Vec3 dir;
  int counts[3];
} Particle;

using Index = unsigned int;

__host__ __device__ void swap_ints(int* a, int* b) {
  int t = *a;
  *a = *b;
  *b = t;
}

__host__ __device__ void accumulate(int& total, const int& value) { total += value; }

__host__ __device__ float length2(const Vec3& v) { return v.x * v.x + v.y * v.y + v.z * v.z; }

__host__ __device__ float particle_score(const Particle* p, Mode mode) {
  float s = p->weight * length2(p->dir) + p->tag;
  for (int i = 0; i < 3; ++i) {
    if (mode == kSum) {
      s += p->counts[i];
    } else if (p->counts[i] > s) {
      s = p->counts[i];
    }
  }
  return s;
}

__host__ __device__ int local_arrays(int seed) {
  int grid[3][4];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) grid[r][c] = seed * (r + 1) - c;
  int weights[5] = {5, -4, 3};  // the rest are zero
  int total = 0;
  for (int r = 0; r < 3; ++r) {
    int* row = grid[r];
    for (int c = 0; c < 4; ++c) total += row[c] * weights[(r + c) % 5];
  }
  int a = seed, b = total;
  swap_ints(&a, &b);
  accumulate(total, a);
  int* pa = &a;
  int** ppa = &pa;
  **ppa += 1;
  return total * 3 + a - b;
}

__global__ void memory_kernel(const Particle* particles, const int* seeds, float* scores,
                              int* ints, Index n) {
  Index i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Particle local = particles[i];  // a struct copy
    local.dir.z += 1.0f;
    const Particle* p = &local;
    scores[2 * i] = particle_score(p, kSum);
    scores[2 * i + 1] = particle_score(particles + i, kMax);
    ints[i] = local_arrays(seeds[i]);
    const char* bytes = reinterpret_cast<const char*>(particles + i);
    const char* end = reinterpret_cast<const char*>(particles + i + 1);
    ints[n + i] = (int)(end - bytes) + (p != nullptr) + (bytes < end);
  }
}

int main() {
  const Index n = 1000;
  std::vector<Particle> particles(n);
  std::vector<int> seeds(n);
  for (Index i = 0; i < n; ++i) {
    Particle& p = particles[i];
    p.tag = static_cast<char>(i % 100);
    p.weight = 0.5 + i % 7;
    p.dir = Vec3{i * 0.25f, 1.0f - i % 3, 0.125f * (i % 5)};
    p.counts[0] = static_cast<int>(i % 11);
    p.counts[1] = static_cast<int>(i % 13) - 6;
    p.counts[2] = static_cast<int>(i * 3 % 17);
    seeds[i] = static_cast<int>(i) - 500;
  }

  std::vector<float> want_scores(2 * n);
  std::vector<int> want_ints(2 * n);
  for (Index i = 0; i < n; ++i) {
    Particle local = particles[i];
    local.dir.z += 1.0f;
    want_scores[2 * i] = particle_score(&local, kSum);
    want_scores[2 * i + 1] = particle_score(&particles[i], kMax);
    want_ints[i] = local_arrays(seeds[i]);
    want_ints[n + i] = static_cast<int>(sizeof(Particle)) + 2;
  }

  Particle* d_particles = to_device(particles);
  int* d_seeds = to_device(seeds);
  float* d_scores = nullptr;
  int* d_ints = nullptr;
  HIP_CHECK(hipMalloc(&d_scores, 2 * n * sizeof(float)));
  HIP_CHECK(hipMalloc(&d_ints, 2 * n * sizeof(int)));
  hipLaunchKernelGGL(memory_kernel, dim3((n + 127) / 128), dim3(128), 0, 0, d_particles, d_seeds,
                     d_scores, d_ints, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got_scores = from_device(d_scores, 2 * n);
  int bad = count_mismatches("ints", from_device(d_ints, 2 * n), want_ints);
  for (Index i = 0; i < 2 * n; ++i) {
    // Same operations in the same order; contraction into fma may move the last bit.
    float w = want_scores[i], g = got_scores[i];
    if (std::fabs(g - w) > 1e-5f * std::fabs(w) + 1e-5f) {
      if (bad < 5) std::printf("score %u: got %g want %g\n", i, g, w);
      ++bad;
    }
  }
  HIP_CHECK(hipFree(d_particles));
  HIP_CHECK(hipFree(d_seeds));
  HIP_CHECK(hipFree(d_scores));
  HIP_CHECK(hipFree(d_ints));
  return report("memory_model", bad);
}
