// Closures holding objects whose copy constructor is the user's: a named device lambda passed by
// value to a function template (the closure copied by its copy constructor, each capture by the
// constructor overload resolution chooses there), copied into a local, a mutable one whose copy
// has state of its own, one holding an array of such objects, an init-capture, one whose capture
// is copied through a constructor template, and `[*this]` of a class holding one (a copy taken
// when the lambda is made, which later changes to the object do not reach). Every copy is
// destroyed with its closure. The host build of the same code is the reference.
#include "test_common.h"
#include "include/counted_copies.h"

constexpr int kOut = 16;

template <typename F>
__host__ __device__ int call_copy(F f) {
  return f();
}

template <typename F>
__host__ __device__ int call_ref(const F& f) {
  return f() + 1;
}

// `[*this]` of a Sampler, made in a member function of a class that holds one.
struct Station {
  Sampler sampler;
  __host__ __device__ Station(int v, Ledger* l) : sampler(v, l) {}
  __host__ __device__ int record(int* out) {
    auto read = [*this]() { return sampler.sample(); };
    sampler.rate += 50;  // not seen by the copy
    out[0] = call_copy(read);
    out[1] = call_ref(read);
    out[2] = read() * 2 + sampler.sample();
    return call_copy([*this] { return sampler.tally.value; });
  }
};

__host__ __device__ void closures(int v, int* out) {
  Ledger ledger;
  {
    Tally t(v, &ledger);
    auto get = [t]() { return t.value; };
    out[0] = call_copy(get);
    out[1] = call_ref(get) + get();
    auto again = get;
    out[2] = again();
    // A mutable closure: its copy counts on its own.
    int calls = 0;
    auto step = [t, calls]() mutable { calls += t.value % 5 + 1; return calls; };
    int first = call_copy(step);
    int second = step();
    out[3] = first * 1000 + second * 10 + step();
    // An array of them, copied element by element.
    Tally row[3] = {Tally(v, &ledger), Tally(v + 1, &ledger), Tally(v * 2, &ledger)};
    auto sum_row = [row]() { return row[0].value + row[1].value * 3 + row[2].value * 5; };
    out[4] = call_copy(sum_row);
    out[5] = sum_row();
    // An init-capture, and a capture copied through a constructor template.
    auto held = [u = t]() { return u.value; };
    out[6] = call_copy(held);
    Scaled s(v + 2);
    auto scaled = [s]() { return s.w; };
    out[7] = call_copy(scaled) * 100 + scaled();
  }
  out[8] = ledger.copies;
  out[9] = ledger.destroyed;
  out[10] = ledger.sum;
  {
    Station station(v + 3, &ledger);
    out[11] = station.record(out + 12);
  }
  out[15] = ledger.copies * 1000 + ledger.destroyed + ledger.sum % 1000;
}

__global__ void closures_kernel(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) closures(in[i], out + i * kOut);
}

int main() {
  constexpr int n = 160;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 23) % 53 - 11;
  std::vector<int> want(n * kOut), got(n * kOut, -7);
  for (int i = 0; i < n; ++i) closures(in[i], want.data() + i * kOut);
  int* d_in = to_device(in);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, got.size() * sizeof(int)));
  closures_kernel<<<(n + 63) / 64, 64>>>(d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(got.data(), d_out, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  int failures = count_mismatches("closure copies", got, want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("closure_copies", failures);
}
