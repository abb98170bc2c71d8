// Lambdas captured by reference by lambdas whose closures live in memory: stored in a struct
// member and called later, copied into wrappers by function templates (by value and by
// reference), returned from function templates ("compose", "bind") that capture the callables
// they are given by reference, kept in an array of functors, copied; mutable inner lambdas whose
// state changes, made through the reference, the original sees (one object); `[&]` defaults;
// chains three deep; a lambda returned by another lambda. The outer closure holds the inner
// lambda's address. The functions are __host__ __device__: the host runs the same lambdas as
// the reference, and every element is compared.
#include "test_common.h"
#include "include/callable_wrappers.h"

constexpr int kOut = 29;

__host__ __device__ void references(int v, int* out) {
  int c = v % 9 - 4;
  // Stored in a struct member, called after the captured variable changes.
  auto inner = [&c](int x) { return x * c + 1; };
  auto outer = [&inner](int x) { return inner(x) - 3; };
  Stored<decltype(outer)> s{outer};
  c += 2;
  out[0] = s.run(v);
  // Copied into wrappers by function templates; the copies still refer to `inner`.
  out[1] = store(outer).run(5) + store_ref(outer).run(-2);
  auto w = store(outer);
  auto w2 = w;
  c = v % 5;
  out[2] = w.run(3) * 100 + w2.run(4);

  // A mutable inner lambda: its state is the one object every reference reaches.
  int total = v;
  auto counter = [n = v % 4](int by) mutable {
    n += by;
    return n;
  };
  auto twice = [&](int x) { return counter(x) + counter(x) + total; };
  Scaled<decltype(twice)> table[3] = {{twice, 1}, {twice, 10}, {twice, -1}};
  int acc = 0;
  for (int i = 0; i < 3; ++i) {
    total += i;
    acc = acc * 7 + table[i](i + 1);
  }
  out[3] = acc;
  out[4] = counter(0);  // what the calls through the table left
  auto copied = table[1];
  out[5] = copied(2) + counter(0);

  // Returned from function templates capturing the given lambdas by reference.
  auto add = [c](int x) { return x + c; };
  auto fg = compose(add, counter);
  out[6] = fg(5);
  out[7] = fg(-1) * 10 + counter(0);
  auto mul = [v](int a, int b) { return a * b + v; };
  auto times3 = bind_first(mul, 3);
  auto h = compose(times3, fg);  // a returned lambda referred to by another
  out[8] = h(2);
  out[9] = counter(0);
  Stored<decltype(h)> sh{h};
  out[10] = sh.run(1) + sum_calls(h, 3);

  // Three deep: a mutable lambda, referred to by one, referred to by one that is stored.
  auto a = [k = v % 3](int x) mutable {
    k += 1;
    return x + k;
  };
  auto b = [&a](int x) { return a(x) * 2; };
  auto d = [&b, v](int x) { return b(x) + v; };
  auto pd = pair_of(d, add);
  out[11] = pd(1);
  out[12] = pd(2) * 10 + a(0);
  Stored<decltype(d)> sd = store(d);
  out[13] = sd.run(0) + d(0) + a(0);

  // Only called where it is: kept as its captures.
  auto plain = [&a](int x) { return a(x) - 1; };
  out[14] = plain(4) + plain(5);
  out[15] = a(0);

  // A lambda returned by a lambda, referring to a lambda of the enclosing function.
  auto make = [&](int bias) {
    return [&counter, bias](int x) { return counter(x) + bias; };
  };
  auto made = make(100);
  out[16] = made(1);
  out[17] = store(made).run(2) + counter(0);

  // Captured by reference under a `[&]` default, the outer one kept in an array of its type.
  int base = v / 7;
  auto step = [&base](int x) { return x + base; };
  auto chain = [&](int x) { return step(step(x)); };
  decltype(chain) chains[2] = {chain, chain};
  base += 1;
  out[18] = chains[0](1) + chains[1](2);

  // Called through a reference to the stored closure, the state changing on each call.
  auto tick = [t = 0]() mutable { return ++t; };
  auto ticks = [&tick](int x) { return tick() * x; };
  Stored<decltype(ticks)> st{ticks};
  const Stored<decltype(ticks)>& rst = st;
  out[19] = rst.run(2) + rst.run(3) * 10;
  out[20] = tick();
  out[21] = sum_calls(st.f, 4) + tick();
  out[22] = s.run(1) + w2.run(2);
  out[23] = total;

  // Given to lambdas: a generic one storing a lambda that refers to its reference parameter,
  // one taking it by value.
  auto via = [](const auto& f, int x) {
    auto r = [&f](int y) { return f(y) * 2; };
    return store(r).run(x) + sum_calls(r, 2);
  };
  out[24] = via(add, 3) + via(ticks, 1);
  auto by_value = [&](auto f) { return f(4) + c; };
  out[25] = by_value(fg) + by_value(twice) + counter(0);
  out[26] = tick();

  // Three deep and only called or passed to be called: kept as captures throughout.
  auto m1 = [k = v % 5](int x) mutable {
    k += x;
    return k;
  };
  auto m2 = [&m1](int x) { return m1(x) * 3; };
  auto m3 = [&m2](int x) { return m2(x) - 1; };
  auto m4 = [m2](int x) { return m2(x) + 1; };  // a copy of m2, still referring to m1
  out[27] = m3(1) + m4(2) * 10 + m1(0) * 100;
  out[28] = sum_calls(m3, 3) + sum_calls(m4, 2) + m1(0);
}

// A lambda given to the kernel, referred to by a stored lambda.
template <typename F>
__global__ void kernel_closure(F f, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  auto g = [&f](int x) { return f(x) + 1; };
  Stored<decltype(g)> s{g};
  out[i] = s.run(i) * 3 + store(g).run(-i);
}

__global__ void references_kernel(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) references(i * 13 - 40, out + i * kOut);
}

int main() {
  const int n = 200;
  int* dout;
  HIP_CHECK(hipMalloc(&dout, n * kOut * sizeof(int)));
  references_kernel<<<(n + 63) / 64, 64>>>(dout, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<int> want(n * kOut);
  for (int i = 0; i < n; ++i) references(i * 13 - 40, want.data() + i * kOut);
  int failures = report("lambdas captured by reference, stored, returned and copied",
                        count_mismatches("references", from_device(dout, n * kOut), want));

  int z = 7;
  auto scale = [z] __host__ __device__(int x) { return x * z - 2; };
  kernel_closure<<<(n + 63) / 64, 64>>>(scale, dout, n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> want_closure(n);
  for (int i = 0; i < n; ++i) {
    auto g = [&scale](int x) { return scale(x) + 1; };
    want_closure[i] = g(i) * 3 + g(-i);
  }
  failures += report("a kernel's lambda referred to by a stored lambda",
                     count_mismatches("kernel lambda", from_device(dout, n), want_closure));
  HIP_CHECK(hipFree(dout));
  if (failures == 0) std::printf("PASSED\n");
  return failures;
}
