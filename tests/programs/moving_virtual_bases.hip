// Moving objects of classes with virtual bases: `T m = std::move(t)`, xvalues passed to a
// parameter taking `T&&` and to one taking `T` by value, `static_cast<Base&&>(t)` to a virtual
// base (bound to a reference and moved into a Base), a member of an xvalue, and a function
// template forwarding its argument. An xvalue is an object: its conversion to a virtual base
// finds the base through the object's class, and the moved-from object is left as the move
// constructors leave it. The host build of the same code is the reference.
#include "test_common.h"
#include "include/moved_resources.h"

constexpr int kOut = 12;

// Takes the object by rvalue reference and moves it into a local.
__host__ __device__ int consume(Channel&& c) {
  Channel mine = std::move(c);
  return contents(mine);
}

// Takes the object by value (the caller moves into the parameter).
__host__ __device__ int keep(Channel c) { return contents(c) + c.buffered; }

// Forwards whatever it is given into a new object of its type.
template <typename T>
__host__ __device__ int rebuild(T&& t) {
  using Plain = typename std::remove_reference<T>::type;
  Plain built(std::forward<T>(t));
  return built.weight();
}

__host__ __device__ void moves(int v, int* out) {
  Channel a(v, v % 5);
  Channel b = std::move(a);
  out[0] = contents(b);
  out[1] = contents(a);  // what the moves left behind
  out[2] = consume(std::move(b));
  out[3] = contents(b);
  Channel c(v + 1, 3);
  out[4] = keep(std::move(c));
  out[5] = c.handle.state() * 100 + c.log.state();
  // To the virtual base: the Resource part of the Channel, moved.
  Channel d(v + 2, 4);
  Resource&& rd = static_cast<Resource&&>(d);
  out[6] = rd.weight();
  Resource taken = static_cast<Resource&&>(d);
  out[7] = taken.weight() * 1000 + d.id;
  Handle h = std::move(d).log;
  out[8] = h.state() * 100 + d.log.state();
  // Through a forwarding template: an lvalue copies, an xvalue moves.
  Channel e(v + 3, 2);
  out[9] = rebuild(e);
  out[10] = rebuild(std::move(e));
  Reader&& side = std::move(e);
  out[11] = side.weight() + contents(e);
}

__global__ void moving_kernel(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) moves(in[i], out + i * kOut);
}

int main() {
  constexpr int n = 256;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 - 20;
  std::vector<int> want(n * kOut), got(n * kOut, -7);
  for (int i = 0; i < n; ++i) moves(in[i], want.data() + i * kOut);
  int* d_in = to_device(in);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, got.size() * sizeof(int)));
  moving_kernel<<<(n + 63) / 64, 64>>>(d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(got.data(), d_out, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  int failures = count_mismatches("moving virtual bases", got, want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("moving_virtual_bases", failures);
}
