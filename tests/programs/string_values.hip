// String literals as `const char*` values in device code: stored, reassigned, chosen by ?:,
// kept in arrays and structs, passed to device functions, read character by character and
// printed with %s from a device function; assert in a device function. Every result is
// compared with the same computation on the host.
#include <hip/hip_runtime.h>

#include <cassert>

#include "test_common.h"

struct Label {
  const char* name;
  int weight;
};

__host__ __device__ int length_of(const char* s) {
  int n = 0;
  while (s[n] != '\0') ++n;
  return n;
}

__host__ __device__ int checksum(const char* s) {
  int sum = 0;
  for (int i = 0; s[i]; ++i) sum = sum * 31 + static_cast<unsigned char>(s[i]);
  return sum;
}

__host__ __device__ const char* parity_name(int i) { return i % 2 ? "odd" : "even"; }

__host__ __device__ int score(int i) {
  const char* word = "alpha";
  if (i % 3 == 0) word = "beta\tgamma";  // reassigned; escapes kept
  const char* names[3] = {"x", "yy", "zzz"};
  Label label = {parity_name(i), i % 5};
  return checksum(word) + length_of(names[i % 3]) * 100 + checksum(label.name) * label.weight;
}

__device__ void report(int i, const char* what) {
  assert(what != nullptr);
  if (i < 2) printf("string_values: thread %d is %s\n", i, what);
}

__global__ void scores(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    report(i, parity_name(i));
    out[i] = score(i);
  }
}

int main() {
  const int n = 1000;
  int* d = nullptr;
  HIP_CHECK(hipMalloc(&d, n * sizeof(int)));
  scores<<<(n + 127) / 128, 128>>>(d, n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got(n), want(n);
  HIP_CHECK(hipMemcpy(got.data(), d, n * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d));
  for (int i = 0; i < n; ++i) want[i] = score(i);
  if (count_mismatches("string values", got, want)) {
    std::printf("string values FAILED\n");
    return 1;
  }
  std::printf("string values PASSED: %d elements\n", n);
  return 0;
}
