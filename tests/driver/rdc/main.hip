// Separate device compilation: kernels in kernels.hip call device functions and use device
// variables that physics.hip defines; main.hip launches them and reaches the variables through
// the symbol API. Every element is compared with a host reference.
#include <vector>

#include "particles.h"

#define LAUNCH_STEP(grid, block, ...) step_particles<<<grid, block>>>(__VA_ARGS__)

static float clamp_speed_reference(float v) { return v > 20.0f ? 20.0f : (v < -20.0f ? -20.0f : v); }

int main() {
  const int n = 1000, steps = 3;
  const float g = 9.5f;
  const float drag[4] = {1.0f, 0.5f, 0.25f, 0.125f};
  std::vector<Particle> host(n), want(n);
  for (int i = 0; i < n; ++i) host[i] = want[i] = {float(i % 50), float(i % 17) - 8.0f};
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < n; ++i) {
      Particle& p = want[i];
      p.velocity = clamp_speed_reference(3.0f * p.velocity + 0.5f);
      p.position = p.position + 2.0f * (p.velocity - g * drag[(s + i) % 4]) + 0.125f +
                   ((s + i) % 2 ? 0.5f : 0.125f);
    }
  }

  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(gravity), &g, sizeof g));
  Particle* device = nullptr;
  HIP_CHECK(hipMalloc(&device, n * sizeof(Particle)));
  HIP_CHECK(hipMemcpy(device, host.data(), n * sizeof(Particle), hipMemcpyHostToDevice));
  for (int s = 0; s < steps; ++s) {
    LAUNCH_STEP(dim3((n + 127) / 128), dim3(128), device, n, s);
    HIP_CHECK(hipGetLastError());
    hipLaunchKernelGGL(count_steps, dim3((n + 255) / 256), dim3(256), 0, 0, n);
  }
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(host.data(), device, n * sizeof(Particle), hipMemcpyDeviceToHost));
  int counted = 0;
  HIP_CHECK(hipMemcpyFromSymbol(&counted, HIP_SYMBOL(steps_taken), sizeof counted));
  float table[4] = {};
  HIP_CHECK(hipMemcpyFromSymbol(table, HIP_SYMBOL(drag_table), sizeof table));

  int bad = 0;
  for (int i = 0; i < n; ++i) {
    if (host[i].position != want[i].position || host[i].velocity != want[i].velocity) {
      if (bad++ < 5)
        std::printf("particle %d: got (%g, %g), want (%g, %g)\n", i, host[i].position,
                    host[i].velocity, want[i].position, want[i].velocity);
    }
  }
  if (counted != n * steps) {
    std::printf("steps_taken: got %d, want %d\n", counted, n * steps);
    ++bad;
  }
  for (int k = 0; k < 4; ++k) bad += table[k] != drag[k];
  HIP_CHECK(hipFree(device));
  if (bad) {
    std::printf("separate compilation FAILED (%d)\n", bad);
    return 1;
  }
  std::printf("separate compilation PASSED: %d particles, %d steps\n", n, steps);
  return 0;
}
