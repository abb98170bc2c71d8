// Launches the scene and checks every element and the destructor count against the host.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "shapes.h"

int main() {
  const int n = 300;
  float* out = nullptr;
  HIP_CHECK(hipMalloc(&out, n * sizeof(float)));
  measure<<<(n + 63) / 64, 64>>>(out, n);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got(n);
  HIP_CHECK(hipMemcpy(got.data(), out, n * sizeof(float), hipMemcpyDeviceToHost));
  int count = 0;
  HIP_CHECK(hipMemcpyFromSymbol(&count, HIP_SYMBOL(destroyed), sizeof count));
  int bad = count != n;
  if (bad) std::printf("%d shapes destroyed, want %d\n", count, n);
  for (int i = 0; i < n; ++i)
    if (got[i] != expected_measure(i)) {
      if (bad++ < 5) std::printf("element %d: %f, want %f\n", i, got[i], expected_measure(i));
    }
  HIP_CHECK(hipFree(out));
  std::printf("virtual calls across sources %s\n", bad ? "FAILED" : "PASSED");
  return bad ? 1 : 0;
}
