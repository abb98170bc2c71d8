// assert, abort(), __builtin_trap() and __trap() in device code whose conditions hold: the kernels
// run to the end and their results are exact. (A failing one stops the program:
// tests/end_to_end.rs checks that.)
#include "test_common.h"
#include "include/checked_math.h"

#include <cassert>
#include <cstdlib>

template <typename T>
__global__ void gather_roots(const T* in, T* out, const int* index, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int j = index[i];
  if (j < 0) __builtin_trap();  // never: index holds positions
  T v = checked_at(in, j, n);
  assert(v >= 0);
  if (v > 5000) __trap();  // never: in holds values below 5000
  out[i] = checked_isqrt(v);
  if (out[i] * out[i] > v) abort();  // never: isqrt rounds down
}

int main() {
  const int n = 1000;
  std::vector<int> in(n), index(n), want(n), got(n, -1);
  for (int i = 0; i < n; ++i) {
    in[i] = (i * 37) % 5000;
    index[i] = (i * 7 + 3) % n;
  }
  for (int i = 0; i < n; ++i) {
    int v = in[index[i]], r = 0;
    while ((r + 1) * (r + 1) <= v) ++r;
    want[i] = r;
  }
  int *d_in, *d_out, *d_index;
  HIP_CHECK(hipMalloc(&d_in, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&d_index, n * sizeof(int)));
  HIP_CHECK(hipMemcpy(d_in, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_index, index.data(), n * sizeof(int), hipMemcpyHostToDevice));
  gather_roots<int><<<(n + 127) / 128, 128>>>(d_in, d_out, d_index, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(got.data(), d_out, n * sizeof(int), hipMemcpyDeviceToHost));
  int bad = count_mismatches("gather_roots", got, want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_index));
  std::printf(bad == 0 ? "device_assert PASSED\n" : "device_assert FAILED\n");
  return bad == 0 ? 0 : 1;
}
