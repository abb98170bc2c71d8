// Kernels defined in another source, launched here by name (declared in a header), through a
// table of pointers made there, and handed back there as pointers made here.
#include <cstring>
#include <vector>

#include "launching.h"
#include "transforms.h"

static float host_transform(const char* name, float x) {
  if (std::strcmp(name, "negate") == 0) return -x;
  if (std::strcmp(name, "square") == 0) return x * x;
  return x + 1.0f;
}

int main() {
  const int n = 1024;
  std::vector<float> host(n), want(n);
  for (int i = 0; i < n; ++i) host[i] = want[i] = static_cast<float>(i % 13) - 6.0f;
  float* d;
  CHECK(hipMalloc(&d, n * sizeof(float)));
  CHECK(hipMemcpy(d, host.data(), n * sizeof(float), hipMemcpyHostToDevice));

  // By name, with <<<>>> and hipLaunchKernelGGL.
  negate<<<(n + 255) / 256, 256>>>(d, n);
  hipLaunchKernelGGL(add_one, dim3((n + 255) / 256), dim3(256), 0, 0, d, n);
  for (float& w : want) w = -w + 1.0f;
  // Through the other source's table, here.
  for (int t = 0; t < transform_count; ++t) {
    transforms[t].kernel<<<(n + 63) / 64, 64>>>(d, n);
    for (float& w : want) w = host_transform(transforms[t].name, w);
  }
  // Pointers made here, launched there; and the helper instantiated here.
  void (*mine)(float*, int) = &negate;
  launch_elsewhere(mine, d, n);
  launch_over(square, n, d, n);
  for (float& w : want) w = (-w) * (-w);

  std::vector<float> got(n);
  CHECK(hipMemcpy(got.data(), d, n * sizeof(float), hipMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      if (bad < 5) std::printf("mismatch at %d: got %g, want %g\n", i, got[i], want[i]);
      ++bad;
    }
  }
  CHECK(hipFree(d));
  std::printf("kernel pointers across sources %s\n", bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
