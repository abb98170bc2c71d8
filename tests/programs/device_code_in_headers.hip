// Kernels, device functions and host-device functions defined in user headers (one including
// another by a path relative to itself); the host compile must not see the device bodies.
#include "include/stencil_kernels.h"
#include "test_common.h"

int main() {
  const int n = 1000;
  std::vector<float> x(n);
  std::vector<int> xi(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>((i * 37) % 101) * 0.5f;
    xi[i] = (i * 13) % 17 - 8;
  }
  float* dx = to_device(x);
  int* dxi = to_device(xi);
  float* dy;
  int* dyi;
  HIP_CHECK(hipMalloc(&dy, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dyi, n * sizeof(int)));

  int failures = 0;
  hipLaunchKernelGGL(blur3, dim3((n + 127) / 128), dim3(128), 0, 0, dx, dy, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got = from_device(dy, n);
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) {
    want[i] = weighted(x[i > 0 ? i - 1 : 0], x[i], x[i < n - 1 ? i + 1 : n - 1]);
  }
  failures += report("kernel in a header", count_mismatches("blur3", got, want));

  launch_window_sum<int, 3>(dxi, dyi, n);
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<int> goti = from_device(dyi, n);
  std::vector<int> wanti(n);
  for (int i = 0; i < n; ++i) {
    int sum = 0;
    for (int k = -3; k <= 3; ++k) sum += xi[std::min(std::max(i + k, 0), n - 1)];
    wanti[i] = sum;
  }
  failures += report("kernel template launched by a header's host template",
                     count_mismatches("window_sum", goti, wanti));

  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  HIP_CHECK(hipFree(dxi));
  HIP_CHECK(hipFree(dyi));
  if (failures) return 1;
  std::printf("device_code_in_headers PASSED\n");
  return 0;
}
