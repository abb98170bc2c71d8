// GNU statement expressions `({ ... })` in device code, as macros write them: type-generic
// min/max and clamp macros that evaluate their arguments once, one used in a for condition and
// one in a while condition, a statement expression holding a loop, one with a class object
// whose destructor runs at its end, and one used as a statement. Every element is compared
// with a host reference (the host computes the same macros).
#include "test_common.h"

#define MIN_ONCE(a, b)      \
  ({                        \
    __typeof__(a) a_ = (a); \
    __typeof__(b) b_ = (b); \
    a_ < b_ ? a_ : b_;      \
  })
#define CLAMP(x, lo, hi) MIN_ONCE(hi, ({ __typeof__(x) x_ = (x); x_ > (lo) ? x_ : (lo); }))
// The sum of 0..n-1 squared, with a loop inside the expression.
#define SQUARES_BELOW(n)                                \
  ({                                                    \
    long s_ = 0;                                        \
    for (int k_ = 0; k_ < (n); ++k_) s_ += long(k_) * k_; \
    s_;                                                 \
  })

// Counts its destructions into the slot it was given.
struct Tally {
  int* slot;
  __host__ __device__ explicit Tally(int* s) : slot(s) {}
  __host__ __device__ ~Tally() { *slot += 1; }
  __host__ __device__ int value() const { return *slot; }
};

__host__ __device__ long work(int i, int n, int* calls, int* destroyed) {
  long acc = 0;
  // The bound is evaluated at every test; its argument once per evaluation.
  for (int j = 0; j < MIN_ONCE(i % 9, (++*calls, n)); ++j) acc += j;
  int k = 0;
  while (k < CLAMP(i - 5, 0, 6)) ++k;
  acc += 100 * k + SQUARES_BELOW(i % 5);
  acc += ({
    Tally t(destroyed);
    t.value() * 1000;
  });
  ({ acc += 7; });
  return acc;
}

__global__ void run(long* out, int* calls, int* destroyed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = work(i, n, &calls[i], &destroyed[i]);
}

int main() {
  const int n = 300;
  long* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(long)));
  std::vector<int> zeros(n, 0);
  int* d_calls = to_device(zeros);
  int* d_destroyed = to_device(zeros);
  run<<<(n + 127) / 128, 128>>>(d_out, d_calls, d_destroyed, n);
  HIP_CHECK(hipGetLastError());

  std::vector<long> want(n);
  std::vector<int> want_calls(n, 0), want_destroyed(n, 0);
  for (int i = 0; i < n; ++i) want[i] = work(i, n, &want_calls[i], &want_destroyed[i]);
  int failures = 0;
  failures += report("statement expressions' values",
                     count_mismatches("values", from_device(d_out, n), want));
  failures += report("arguments evaluated once per test",
                     count_mismatches("calls", from_device(d_calls, n), want_calls));
  failures += report("objects destroyed at the end of the expression",
                     count_mismatches("destroyed", from_device(d_destroyed, n), want_destroyed));
  HIP_CHECK(hipFree(d_out));
  HIP_CHECK(hipFree(d_calls));
  HIP_CHECK(hipFree(d_destroyed));
  return failures;
}
