// Calls through device function pointers whose parameters are classes with a copy constructor
// and a destructor, taken by value: the caller copies each argument into a temporary it passes
// by address and destroys after the call (the Itanium ABI, as for direct calls). A table of
// handlers, a pointer chosen per thread, a temporary argument, and a count of copies and
// destructions checked against the host running the same code.
#include "test_common.h"

struct Ledger {
  int copies = 0;
  int drops = 0;
};

class Sample {
 public:
  __host__ __device__ Sample(int v, Ledger* l) : value_(v), ledger_(l) {}
  __host__ __device__ Sample(const Sample& o) : value_(o.value_ + 1000), ledger_(o.ledger_) {
    ledger_->copies += 1;
  }
  __host__ __device__ ~Sample() { ledger_->drops += 1; }
  __host__ __device__ int value() const { return value_; }

 private:
  int value_;
  Ledger* ledger_;
};

__host__ __device__ int scaled(Sample s, int k) { return s.value() * k; }
__host__ __device__ int shifted(Sample s, int k) { return s.value() + k; }
__host__ __device__ int mixed(Sample s, int k) { return (s.value() ^ k) - 3; }

using Handler = int (*)(Sample, int);

__host__ __device__ void run(int v, Handler const* table, int* out) {
  Ledger ledger;
  Sample kept(v, &ledger);
  Handler pick = table[v % 3];
  int a = pick(kept, v % 7);                            // a copy of a named object
  int b = table[(v + 1) % 3](Sample(v * 2, &ledger), 5);  // a temporary
  int after = ledger.drops;                             // both arguments destroyed by now
  out[0] = a;
  out[1] = b;
  out[2] = ledger.copies * 100 + after;
  out[3] = kept.value();
}

__device__ Handler device_table[3] = {scaled, shifted, mixed};

__global__ void through_pointers(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  run(in[i], device_table, out + 4 * i);
}

int main() {
  constexpr int n = 200;
  std::vector<int> in(n), want(4 * n), got(4 * n);
  for (int i = 0; i < n; ++i) in[i] = (i * 13) % 97;
  const Handler host_table[3] = {scaled, shifted, mixed};
  for (int i = 0; i < n; ++i) run(in[i], host_table, want.data() + 4 * i);
  int* d_in = to_device(in);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, got.size() * sizeof(int)));
  hipLaunchKernelGGL(through_pointers, dim3((n + 63) / 64), dim3(64), 0, 0, d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(got.data(), d_out, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  int failures = count_mismatches("by-value classes through pointers", got, want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("by_value_classes_through_pointers", failures);
}
