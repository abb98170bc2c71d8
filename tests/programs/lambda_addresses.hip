// Lambdas held by locals whose addresses are taken: called through a pointer (`(*p)(x)`,
// `p->operator()(x)`) and as `f.operator()(x)`, reached by `std::addressof` and `std::move`,
// bound to a reference, passed by pointer and by reference to device function templates, kept
// in a struct and an array as pointers, compared; a mutable lambda whose state every pointer
// and reference to it shares; a lambda capturing by reference, called through its address;
// copies of an addressed lambda, which have objects of their own. The functions are
// __host__ __device__: the host runs the same code as the reference, and every element is
// compared.
#include "test_common.h"

#include <memory>
#include <utility>

template <class F>
__host__ __device__ int apply_pointer(F* f, int x) {
  return (*f)(x) + (*f)(x + 1);
}

template <class F>
__host__ __device__ int call_twice(F* f) {
  int first = (*f)();
  return first * 10 + (*f)();
}

template <class F>
__host__ __device__ int apply_reference(const F& f, int x) {
  return f(x) * 2;
}

// A struct holding a pointer to a closure object, as a callback table does.
template <class F>
struct Callback {
  F* fn;
  int bias;
  __host__ __device__ int operator()(int x) const { return (*fn)(x) + bias; }
};

__host__ __device__ int through_pointers(int v) {
  int k = v % 7 + 1;
  int b = v / 3;
  auto f = [=](int i) { return i * k + b; };
  auto* p = &f;
  int r = (*p)(3) + p->operator()(4);
  auto& ref = f;
  r += ref(5);
  r += apply_pointer(&f, v % 11);
  r += apply_reference(*p, v % 5);
  Callback<decltype(f)> cb{&f, 7};
  r += cb(v % 13);
  auto g = f;  // a copy: an object of its own, the same values
  decltype(f)* table[2] = {&f, &g};
  for (int i = 0; i < 2; ++i) r += (*table[i])(i + v % 3);
  r += (table[0] == p) + 2 * (table[1] == p);
  auto h = [k](int i) { return i - k; };  // no address taken: kept as its captures
  r += h.operator()(9) + f.operator()(2);
  auto m = [b, k](int i) { return i * b - k; };
  auto* q = std::addressof(m);
  auto moved = std::move(m);
  r += (*q)(6) + moved(7);
  return r;
}

// A mutable lambda's state lives in its object: calls through any pointer or reference to it
// share it, a copy has its own.
__host__ __device__ int shared_state(int v) {
  auto counter = [n = v % 10, step = v % 4 + 1]() mutable {
    n += step;
    return n;
  };
  auto* pc = &counter;
  int a = (*pc)();
  int b = counter();
  auto copy = counter;
  int c = copy();
  int d = (*pc)();
  int e = call_twice(pc);
  auto& rc = counter;
  int f = rc() + counter();
  return a + 3 * b + 5 * c + 7 * d + 11 * e + 13 * f;
}

// A lambda capturing by reference, called through its address: it changes the caller's
// variables.
__host__ __device__ int by_reference(int v) {
  int acc = v % 9;
  int calls = 0;
  auto add = [&](int x) {
    acc += x;
    ++calls;
    return acc;
  };
  auto* pa = &add;
  for (int i = 0; i < v % 6; ++i) (*pa)(i * 2 + 1);
  apply_pointer(pa, v % 4);
  return acc * 16 + calls;
}

__global__ void run(const int* in, int n, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[3 * i] = through_pointers(in[i]);
    out[3 * i + 1] = shared_state(in[i]);
    out[3 * i + 2] = by_reference(in[i]);
  }
}

int main() {
  constexpr int kN = 500;
  std::vector<int> in(kN);
  for (int i = 0; i < kN; ++i) in[i] = (i * 29 + 5) % 181;
  std::vector<int> want(3 * kN);
  for (int i = 0; i < kN; ++i) {
    want[3 * i] = through_pointers(in[i]);
    want[3 * i + 1] = shared_state(in[i]);
    want[3 * i + 2] = by_reference(in[i]);
  }
  int* d_in = to_device(in);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, want.size() * sizeof(int)));
  run<<<(kN + 127) / 128, 128>>>(d_in, kN, d_out);
  HIP_CHECK(hipGetLastError());
  int bad = count_mismatches("lambda addresses", from_device(d_out, want.size()), want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("lambda_addresses", bad);
}
