// A kernel large enough that hipmlir hints it to compute on scalars (2000 or more branches once
// its calls are inlined: here rounds of virtual calls), built with -fsanitize=address. Intel's
// CPU compiler then emulates the kernel's subgroups, and got the checker's subgroup votes under
// conditions that differ between work-items wrong: stores through pointers read from memory
// were skipped unreported. Each work-item builds counters on the device heap that point at each
// other, steps them through the rounds and writes what they hold; every element is compared
// with the host's run of the same code.
#include "../programs/test_common.h"
#include "include/counters.h"

constexpr int kRounds = 48;

__host__ __device__ void run_counters(int i, int* out) {
  Counter* counters[kCounters] = {new Counter(i), new Doubler(i + 1), new Toggler(i + 2),
                                  new Clamp(i + 3, 300 + i % 50)};
  for (int k = 0; k < kCounters; ++k) counters[k]->next = counters[(k + 1) % kCounters];
  rounds<kRounds>(counters, static_cast<unsigned>(i));
  for (int k = 0; k < kCounters; ++k) {
    out[k] = counters[k]->value;
    delete counters[k];
  }
}

__global__ void step_counters(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  run_counters(i, out + i * kCounters);
}

int main() {
  constexpr int n = 200;
  std::vector<int> want(n * kCounters), got(n * kCounters, -1);
  for (int i = 0; i < n; ++i) run_counters(i, &want[i * kCounters]);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, got.size() * sizeof(int)));
  step_counters<<<(n + 63) / 64, 64>>>(d_out, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(got.data(), d_out, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d_out));
  return report("scalar_kernels", count_mismatches("counters", got, want));
}
