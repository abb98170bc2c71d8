// Lambdas as objects: returned from device functions, stored in struct members and arrays,
// called through members, pointers and copies, mutable ones keeping their state in the object
// that holds them, `[*this]` copies; and lambdas passed from host code with init-captures, with
// `[*this]`, and inside a struct given to a kernel.
#include "test_common.h"
#include "include/closure_holders.h"

__device__ auto make_scale(int s) {
  return [s](int x) { return s * x; };
}

__device__ auto make_counter(int start) {
  return [n = start](int by) mutable {
    n += by;
    return n;
  };
}

struct Poly {
  int c[3];
  __device__ auto evaluator() const {
    return [*this](int x) { return c[0] + c[1] * x + c[2] * x * x; };
  }
};

__global__ void device_lambdas(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  // Returned from a function and called.
  auto scale = make_scale(v % 5 + 2);
  int r = scale(3);
  // A mutable lambda's state lives in its object; a copy has its own.
  auto counter = make_counter(v);
  counter(1);
  auto copy = counter;
  r += counter(2) * 10 + copy(100);
  // Stored in a struct member, called through the member, a pointer and a member function.
  int offset = i % 7;
  auto h = hold([offset, v](int x) { return x * offset - v; }, 5);
  const Holder<decltype(h.f)>* ph = &h;
  r += h.f(2) + ph->f(3) + h.apply(4) + call_with(h.f, 6);
  // Arrays of holders of one closure type, each with captures of its own.
  Holder<decltype(make_scale(0))> scales[3] = {hold(make_scale(2), 1), hold(make_scale(v), 2),
                                               hold(make_scale(-1), 3)};
  for (int k = 0; k < 3; ++k) r += scales[k].apply(k + i % 3);
  // A capture by reference kept in a struct: calls change the variable.
  int total = 0;
  auto add = [&total](int x) {
    total += x;
    return total;
  };
  Holder<decltype(add)> adder{add, 0};
  adder.f(v);
  adder.f(3);
  r += total;
  // Two stored lambdas composed, an array captured by copy.
  int table[4] = {v, v + 1, v * 2, 7};
  auto pipe = then([table](int x) { return table[x & 3]; }, make_scale(3));
  r += pipe(i);
  // `[*this]`: the lambda keeps the object as it was.
  Poly p{{v, 2, 1}};
  auto at = p.evaluator();
  p.c[0] = 1000;
  r += at(i % 4);
  // A mutable lambda in a struct member: its state is the member's.
  auto counted = hold(make_counter(0), 0);
  counted.f(v);
  r += counted.f(1) * 3;
  out[i] = r;
}

template <typename F>
__global__ void host_lambda(F f, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(i);
}

template <typename B>
__global__ void host_boxed(B box, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = box.apply(i) + box.f(2 * i);
}

struct Affine {
  int base;
  int scale;
  double weight;
  // A copy of the object travels with the lambda to the device.
  void run(int* out, int n) const {
    host_lambda<<<(n + 63) / 64, 64>>>(
        [*this] __device__(int i) { return base + scale * i + static_cast<int>(weight * i); },
        out, n);
  }
};

static int want_device(int v, int i) {
  int r = (v % 5 + 2) * 3;
  // counter: v+1, then +2 -> v+3; copy: v+1+100.
  r += (v + 3) * 10 + (v + 101);
  int offset = i % 7;
  auto f = [&](int x) { return x * offset - v; };
  r += f(2) + f(3) + (f(4) + 5) + f(6);
  int s[3] = {2, v, -1};
  for (int k = 0; k < 3; ++k) r += s[k] * (k + i % 3) + (k + 1);
  r += v + 3;
  int table[4] = {v, v + 1, v * 2, 7};
  r += 3 * table[i & 3];
  int x = i % 4;
  r += v + 2 * x + x * x;
  r += (v + 1) * 3;
  return r;
}

int main() {
  const int n = 500;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 53) % 41 - 20;
  int* din = to_device(in);
  int* dout;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
  const int blocks = (n + 63) / 64;
  int failures = 0;
  std::vector<int> want(n);

  device_lambdas<<<blocks, 64>>>(din, dout, n);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) want[i] = want_device(in[i], i);
  failures += report("lambdas returned, stored in members and arrays",
                     count_mismatches("device", from_device(dout, n), want));

  // Init-captures computed on the host.
  int size = 11;
  float f = 0.75f;
  host_lambda<<<blocks, 64>>>([m = size * 2, g = f * 4] __device__(int i) {
    return m * i + static_cast<int>(g);
  }, dout, n);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) want[i] = size * 2 * i + 3;
  failures += report("host lambda with init-captures",
                     count_mismatches("init-captures", from_device(dout, n), want));

  Affine affine{-4, 3, 0.5};
  affine.run(dout, n);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) want[i] = -4 + 3 * i + static_cast<int>(0.5 * i);
  failures += report("host lambda capturing *this",
                     count_mismatches("*this", from_device(dout, n), want));

  auto shift = [size] __device__(int i) { return size - i; };
  host_boxed<<<blocks, 64>>>(Holder<decltype(shift)>{shift, 100}, dout, n);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) want[i] = (size - i + 100) + (size - 2 * i);
  failures += report("host lambda stored in a struct argument",
                     count_mismatches("boxed", from_device(dout, n), want));

  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  return failures;
}
