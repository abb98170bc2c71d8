// The constants <math.h> spells with compiler builtins (INFINITY, NAN, HUGE_VAL, HUGE_VALF) in
// device code, and the comparisons real programs make with them.
#include <cmath>

#include "test_common.h"

__global__ void constants(int* out, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float lowest = INFINITY;
  double highest = -HUGE_VAL;
  for (int k = 0; k <= i; ++k) {
    lowest = fminf(lowest, x[k]);
    highest = fmax(highest, static_cast<double>(x[k]));
  }
  float quiet = NAN;
  out[4 * i + 0] = static_cast<int>(lowest * 4.0f);
  out[4 * i + 1] = static_cast<int>(highest * 4.0);
  out[4 * i + 2] = isnan(quiet) && !isnan(lowest) ? 1 : 0;
  out[4 * i + 3] = isinf(HUGE_VALF) && x[i] < INFINITY ? 1 : 0;
}

int main() {
  const int n = 100;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = 0.25f * ((i * 29) % 61) - 7.0f;
  float* dx = to_device(x);
  int* dout;
  HIP_CHECK(hipMalloc(&dout, 4 * n * sizeof(int)));
  hipLaunchKernelGGL(constants, dim3(1), dim3(128), 0, 0, dout, dx, n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got = from_device(dout, 4 * n);
  std::vector<int> want(4 * n);
  float lowest = INFINITY, highest = -INFINITY;
  for (int i = 0; i < n; ++i) {
    lowest = std::min(lowest, x[i]);
    highest = std::max(highest, x[i]);
    want[4 * i + 0] = static_cast<int>(lowest * 4.0f);
    want[4 * i + 1] = static_cast<int>(highest * 4.0f);
    want[4 * i + 2] = 1;
    want[4 * i + 3] = 1;
  }
  int failures = report("math constants", count_mismatches("constants", got, want));
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dout));
  if (failures) return 1;
  std::printf("math_constants PASSED\n");
  return 0;
}
