// Lambdas captured by copy by other lambdas, holding objects whose copy constructor and destructor
// run code: the outer closure's copy of the inner lambda is made once, when the outer lambda is
// made (the inner closure's copy constructor copying each capture as overload resolution
// chose), and destroyed with the outer closure; the outer lambda called several times, passed
// by reference, passed by value (its closure copied by its copy constructor, the inner one's
// with it), copied into a local, written where it is passed; a mutable inner lambda whose state
// the outer closure's copy keeps across calls. The host build of the same code is the reference.
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

__host__ __device__ void nested(int v, int* out) {
  Ledger ledger;
  {
    Tally t(v, &ledger);
    auto get = [t]() { return t.value; };
    auto outer = [get](int k) { return get() * k; };
    out[0] = outer(2);
    out[1] = outer(3) + call_ref(get);
    out[2] = ledger.copies;
    // Written where it is passed; holding a value beside the lambda.
    out[3] = call_copy([get] { return get() + 7; });
    auto shifted = [get, v] { return get() - v; };
    out[4] = call_ref(shifted);
    out[5] = call_copy(shifted);
    auto again = shifted;
    out[6] = again() * 2 + ledger.copies;
    // Holding an object of its own beside the lambda.
    Tally u(v * 3, &ledger);
    auto both = [get, u] { return get() * 1000 + u.value; };
    out[7] = call_copy(both) - both();
  }
  out[8] = ledger.copies;
  out[9] = ledger.destroyed;
  out[10] = ledger.sum;
  {
    // A mutable inner lambda: the outer closure's copy has state of its own, kept across calls
    // of a mutable outer lambda.
    int n = v;
    auto counter = [n]() mutable { return ++n; };
    auto twice = [counter]() mutable {
      counter();
      return counter();
    };
    out[11] = twice() * 100 + twice();
    out[12] = counter();
    out[13] = call_copy(twice) * 10 + twice();
  }
  {
    Tally w(v + 5, &ledger);
    auto inner = [w]() { return w.value % 1000; };
    auto outer = [inner] { return inner() + 1; };
    out[14] = call_copy(outer) + call_ref(outer);
  }
  out[15] = ledger.copies * 1000 + ledger.destroyed + ledger.sum % 1000;
}

__global__ void nested_kernel(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) nested(in[i], out + i * kOut);
}

int main() {
  constexpr int n = 160;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 29) % 61 - 17;
  std::vector<int> want(n * kOut, -3), got(n * kOut, -7);
  for (int i = 0; i < n; ++i) nested(in[i], want.data() + i * kOut);
  int* d_in = to_device(in);
  int* d_out = to_device(std::vector<int>(n * kOut, -3));
  nested_kernel<<<(n + 63) / 64, 64>>>(d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(got.data(), d_out, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  int failures = count_mismatches("nested closure copies", got, want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("nested_closure_copies", failures);
}
