// By-value structs of several KiB as kernel arguments (beyond a device's parameter limit, they
// travel in a buffer): they arrive intact, and each thread's copy is its own to change.
#include "test_common.h"

struct Table {
  int values[1024];  // 4 KiB
};

struct Pair {
  float a[512];
  double scale;
  int offset;
};

__global__ void private_copies(Table t, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int slot = i % 1024;
  t.values[slot] += i;  // this thread's copy only
  int sum = 0;
  for (int k = 0; k < 4; ++k) sum += t.values[(slot + k) % 1024];
  out[i] = sum;
}

__global__ void two_structs(Pair p, Pair q, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<float>(p.a[i % 512] * p.scale + q.a[(i + q.offset) % 512]);
}

int main() {
  const int n = 3000;
  Table t;
  for (int k = 0; k < 1024; ++k) t.values[k] = 3 * k - 100;
  Pair p, q;
  for (int k = 0; k < 512; ++k) {
    p.a[k] = 0.25f * k;
    q.a[k] = -0.5f * k;
  }
  p.scale = 2.0;
  p.offset = 0;
  q.scale = 0;
  q.offset = 7;
  int* dout;
  float* dfout;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dfout, n * sizeof(float)));
  hipLaunchKernelGGL(private_copies, dim3((n + 255) / 256), dim3(256), 0, 0, t, dout, n);
  hipLaunchKernelGGL(two_structs, dim3((n + 255) / 256), dim3(256), 0, 0, p, q, dfout, n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got = from_device(dout, n);
  std::vector<float> fgot = from_device(dfout, n);
  std::vector<int> want(n);
  std::vector<float> fwant(n);
  for (int i = 0; i < n; ++i) {
    int slot = i % 1024;
    int sum = i;
    for (int k = 0; k < 4; ++k) sum += t.values[(slot + k) % 1024];
    want[i] = sum;
    fwant[i] = static_cast<float>(p.a[i % 512] * p.scale + q.a[(i + q.offset) % 512]);
  }
  int failures = report("4 KiB struct argument", count_mismatches("private_copies", got, want));
  failures += report("two 2 KiB struct arguments", count_mismatches("two_structs", fgot, fwant));
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dfout));
  if (failures) return 1;
  std::printf("large_struct_arguments PASSED\n");
  return 0;
}
