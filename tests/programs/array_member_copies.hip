// Copying and moving objects of classes with virtual functions or virtual bases that hold
// arrays: of scalars, of arrays, of a class with copy and move constructors of its own, of a
// class with virtual functions; through a base; a virtual base's array. Lambdas capture arrays
// by copy (clang's array-init loop again). Each result is read back through the virtual
// functions; the host build of the same code is the reference.
#include "test_common.h"
#include "include/array_members.h"

constexpr int kOut = 14;

template <typename T>
__host__ __device__ int measure(const T& shape) {
  return shape.area();
}

__host__ __device__ void copies(int v, int* out) {
  Polygon p(v);
  Polygon copied = p;
  out[0] = measure(copied);
  out[1] = measure(p);
  Polygon moved = std::move(p);
  out[2] = measure(moved);
  out[3] = measure(p);  // the moved-from marks
  Star s(v);
  Star t = s;
  const Polygon& through = t;
  out[4] = through.area();
  Star u = std::move(t);
  out[5] = measure(u) - measure(t);
  // A copy of an element with virtual functions keeps its class.
  out[6] = copied.pieces[0].score() * 10 + moved.pieces[1].score();
  Canvas c(v);
  Canvas d = c;
  const Palette& shown = d;
  out[7] = shown.hue();
  Canvas e = std::move(c);
  out[8] = e.hue();
  out[9] = c.hue();
  // Lambdas capturing arrays by copy: each element copied as its class says.
  int numbers[4] = {v, v * 2, v * 3, v * 4};
  auto sum = [numbers]() { return numbers[0] + numbers[1] * 2 + numbers[2] * 3 + numbers[3] * 4; };
  numbers[0] = 0;
  out[10] = sum();
  Mark marks[2] = {Mark(v), Mark(v + 1)};
  auto read = [marks]() { return marks[0].v * 100 + marks[1].v; };
  out[11] = read();
  float grid[2][2] = {{0.5f * v, 1.0f}, {2.0f, -0.25f * v}};
  auto corner = [grid](int r, int col) { return static_cast<int>(grid[r][col] * 4); };
  out[12] = corner(0, 0) * 1000 + corner(1, 1);
  out[13] = marks[0].v + marks[1].v;
}

__global__ void copies_kernel(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) copies(in[i], out + i * kOut);
}

int main() {
  constexpr int n = 192;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 13) % 41 - 9;
  std::vector<int> want(n * kOut), got(n * kOut, -7);
  for (int i = 0; i < n; ++i) copies(in[i], want.data() + i * kOut);
  int* d_in = to_device(in);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, got.size() * sizeof(int)));
  copies_kernel<<<(n + 63) / 64, 64>>>(d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(got.data(), d_out, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  int failures = count_mismatches("array member copies", got, want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("array_member_copies", failures);
}
