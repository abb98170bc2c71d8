// Begins with a header of the user's that holds only host code (host_utilities.h), as
// rocm-examples' programs begin with "example_utils.hpp": the precompiled preambles of the
// device parse and the host compile take it with the headers after it (the driver test
// `user_headers_in_preambles_never_change_a_build` builds it again and again, and edits the
// header). Device code comes from a header of host-device functions and from this file.
#include "host_utilities.h"

#include <hip/hip_runtime.h>

#include "include/stencil_math.h"
#include "test_common.h"

#include <cstdio>

__global__ void scale_and_smooth(const float* in, float* out, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // The weights are powers of two: the same result whether or not a multiply-add is fused.
  if (i > 0 && i < n - 1) {
    out[i] = scale * weighted(in[i - 1], in[i], in[i + 1]);
  } else if (i < n) {
    out[i] = scale * in[i];
  }
}

int main() {
  const int n = 1 << 12;
  std::vector<float> in = host_utilities::random_floats(n, 2026);
  float* d_in = to_device(in);
  float* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
  scale_and_smooth<<<(n + 255) / 256, 256>>>(d_in, d_out, n, host_utilities::kScale);
  HIP_CHECK(hipGetLastError());
  std::vector<float> got = from_device(d_out, n);
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) {
    bool inner = i > 0 && i < n - 1;
    want[i] = host_utilities::kScale * (inner ? weighted(in[i - 1], in[i], in[i + 1]) : in[i]);
  }
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      if (bad < 5) std::printf("mismatch at %d: got %g, want %g\n", i, got[i], want[i]);
      ++bad;
    }
  }
  std::printf("%s\n", host_utilities::describe("scaled", n).c_str());
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("user_header_preamble", bad);
}
