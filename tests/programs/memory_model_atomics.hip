// The compiler's memory-model atomics in device code, as CUDA-derived headers use them:
// __atomic_load_n/store_n/fetch_*/exchange_n/compare_exchange_n and HIP's __hip_atomic_* forms,
// relaxed and ordered, each checked against the value a host computes.
#include "test_common.h"

__global__ void memory_model(int* counters, unsigned* umax, float* fsum, int* flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __atomic_fetch_add(&counters[0], 2, __ATOMIC_RELAXED);
  __atomic_fetch_sub(&counters[1], 1, __ATOMIC_SEQ_CST);
  __atomic_fetch_or(&counters[2], 1 << (i % 31), __ATOMIC_RELAXED);
  __atomic_fetch_max(umax, static_cast<unsigned>(i * 7 % 101), __ATOMIC_ACQ_REL);
  __hip_atomic_fetch_add(fsum, 0.5f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_min(&counters[3], -i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  // A lock-free increment through compare-exchange.
  int seen = __atomic_load_n(&counters[4], __ATOMIC_ACQUIRE);
  while (!__atomic_compare_exchange_n(&counters[4], &seen, seen + 3, false, __ATOMIC_SEQ_CST,
                                      __ATOMIC_RELAXED)) {
  }
  int old = __hip_atomic_exchange(&flags[i], i + 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  if (old != 0) __atomic_store_n(&counters[5], 1, __ATOMIC_RELEASE);
}

int main() {
  const int n = 1000;
  std::vector<int> counters = {0, 0, 0, 0, 0, 0};
  int* dcounters = to_device(counters);
  unsigned* dumax;
  float* dfsum;
  int* dflags;
  HIP_CHECK(hipMalloc(&dumax, sizeof(unsigned)));
  HIP_CHECK(hipMalloc(&dfsum, sizeof(float)));
  HIP_CHECK(hipMalloc(&dflags, n * sizeof(int)));
  HIP_CHECK(hipMemset(dumax, 0, sizeof(unsigned)));
  HIP_CHECK(hipMemset(dfsum, 0, sizeof(float)));
  HIP_CHECK(hipMemset(dflags, 0, n * sizeof(int)));
  hipLaunchKernelGGL(memory_model, dim3((n + 127) / 128), dim3(128), 0, 0, dcounters, dumax,
                     dfsum, dflags, n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> got = from_device(dcounters, 6);
  std::vector<int> want = {2 * n, -n, 0, -(n - 1), 3 * n, 0};
  for (int i = 0; i < n; ++i) want[2] |= 1 << (i % 31);
  unsigned max_want = 0;
  for (int i = 0; i < n; ++i) max_want = std::max(max_want, static_cast<unsigned>(i * 7 % 101));
  int failures = report("memory-model atomics", count_mismatches("counters", got, want));
  std::vector<unsigned> umax = from_device(dumax, 1);
  std::vector<float> fsum = from_device(dfsum, 1);
  std::vector<int> flags = from_device(dflags, n);
  std::vector<int> flags_want(n);
  for (int i = 0; i < n; ++i) flags_want[i] = i + 1;
  failures += report("atomic max", count_mismatches("umax", umax, std::vector<unsigned>{max_want}));
  failures += report("HIP float atomic add",
                     count_mismatches("fsum", fsum, std::vector<float>{0.5f * n}));
  failures += report("HIP atomic exchange", count_mismatches("flags", flags, flags_want));
  HIP_CHECK(hipFree(dcounters));
  HIP_CHECK(hipFree(dumax));
  HIP_CHECK(hipFree(dfsum));
  HIP_CHECK(hipFree(dflags));
  if (failures) return 1;
  std::printf("memory_model_atomics PASSED\n");
  return 0;
}
