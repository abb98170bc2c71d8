// Pointers to members in device code: pointers to member functions in locals and tables, in
// struct members, returned from functions, passed to function templates (as values and as
// non-type template arguments), called with `.*` and `->*`, converted from a base's to a derived
// class's (adjusting `this` for a base at a non-zero offset), compared and tested for null,
// pointers to virtual functions (the object's overrider is called), and pointers to data members.
#include "test_common.h"
#include "include/member_pointer_shapes.h"

using CounterOp = int (Counter::*)(int) const;
using ShapeOp = int (Shape::*)(int) const;

struct Step {
  CounterOp op;
  int arg;
};

__device__ CounterOp pick(int k) {
  switch (k % 3) {
    case 0: return &Counter::plus;
    case 1: return &Counter::times;
    default: return &Counter::minus;
  }
}

template <typename Object, typename Method>
__device__ int call_member(const Object& object, Method method, int x) {
  return (object.*method)(x);
}

template <CounterOp Op>
__device__ int call_fixed(const Counter* c, int x) {
  return (c->*Op)(x);
}

__global__ void counters(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Counter c{in[i]};
  CounterOp table[3] = {&Counter::plus, &Counter::times, &Counter::minus};
  int r = (c.*table[i % 3])(i);
  const Counter* p = &c;
  r += (p->*pick(i + 1))(3);
  Step steps[2] = {{&Counter::times, 2}, {&Counter::minus, i}};
  for (const Step& s : steps) r += (c.*s.op)(s.arg);
  r += call_member(c, pick(i + 2), 5);
  r += call_fixed<&Counter::plus>(p, 7);
  // A non-const member function through a pointer: it changes the object.
  void (Counter::*bump)(int) = &Counter::bump;
  (c.*bump)(10);
  r += c.start;
  // Comparisons and null.
  CounterOp none = nullptr;
  if (none) r += 1000;
  if (!none) r += 1;
  if (table[i % 3] == &Counter::times) r += 100;
  if (pick(i) != table[i % 3]) r += 10000;
  out[i] = r;
}

__global__ void derived_objects(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Scaled s;
  s.tag = -1;
  s.start = in[i];
  s.factor = i % 5 + 1;
  // Counter's members used on a Scaled: `this` is adjusted to its Counter part.
  int (Scaled::*ops[3])(int) const = {&Counter::plus, &Scaled::scaled, &Counter::minus};
  int r = 0;
  for (int k = 0; k < 3; ++k) r += (s.*ops[k])(i + k);
  Scaled* p = &s;
  int (Scaled::*converted)(int) const = pick(i);
  r += (p->*converted)(2);
  // Converted back to Counter's, it is the function it was.
  CounterOp back = static_cast<CounterOp>(converted);
  if (back == pick(i)) r += 7;
  r += call_member(s, &Counter::times, 3);
  // Pointers to data members, through the base too.
  int Counter::*field = &Counter::start;
  int Scaled::*factor = &Scaled::factor;
  int Scaled::*inherited = field;
  r += s.*factor * 1000 + p->*inherited;
  s.*inherited += 1;
  r += s.start;
  int Scaled::*no_field = nullptr;
  if (no_field == nullptr && inherited != nullptr) r += 3;
  out[i] = r;
}

__global__ void virtual_members(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Square square;
  Triangle triangle;
  Shape plain;
  square.size = in[i] % 7;
  triangle.size = in[i] % 9;
  plain.size = in[i] % 4;
  Shape* shapes[3] = {&square, &triangle, &plain};
  ShapeOp ops[2] = {&Shape::area, &Shape::edges};
  int r = 0;
  for (int s = 0; s < 3; ++s)
    for (int k = 0; k < 2; ++k) r = r * 3 + (shapes[s]->*ops[k])(i % 11);
  // The derived class's own pointer to its overrider calls that overrider directly.
  int (Square::*own)(int) const = &Square::area;
  r += (square.*own)(1);
  r += call_member(*shapes[i % 3], &Shape::area, 2);
  out[i] = r;
}

// Host references: the same classes, called directly.
static int want_counters(int v, int i) {
  Counter c{v};
  auto op = [&](int k, int x) { return k == 0 ? c.plus(x) : k == 1 ? c.times(x) : c.minus(x); };
  int r = op(i % 3, i);
  r += op((i + 1) % 3, 3);
  r += c.times(2) + c.minus(i);
  r += op((i + 2) % 3, 5);
  r += c.plus(7);
  c.bump(10);
  r += c.start;
  r += 1;
  if (i % 3 == 1) r += 100;
  return r;
}

static int want_derived(int v, int i) {
  Scaled s;
  s.tag = -1;
  s.start = v;
  s.factor = i % 5 + 1;
  int r = s.plus(i) + s.scaled(i + 1) + s.minus(i + 2);
  int k = i % 3;
  r += k == 0 ? s.plus(2) : k == 1 ? s.times(2) : s.minus(2);
  r += 7;
  r += s.times(3);
  r += s.factor * 1000 + s.start;
  s.start += 1;
  r += s.start;
  r += 3;
  return r;
}

static int want_virtual(int v, int i) {
  Square square;
  Triangle triangle;
  Shape plain;
  square.size = v % 7;
  triangle.size = v % 9;
  plain.size = v % 4;
  Shape* shapes[3] = {&square, &triangle, &plain};
  int r = 0;
  for (int s = 0; s < 3; ++s) {
    r = r * 3 + shapes[s]->area(i % 11);
    r = r * 3 + shapes[s]->edges(i % 11);
  }
  r += square.area(1);
  r += shapes[i % 3]->area(2);
  return r;
}

int main() {
  const int n = 777;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 131) % 97 - 40;
  int* din = to_device(in);
  int* dout;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
  const int blocks = (n + 63) / 64;
  int failures = 0;
  std::vector<int> want(n);

  counters<<<blocks, 64>>>(din, dout, n);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) want[i] = want_counters(in[i], i);
  failures += report("member function pointers: tables, members, templates, null",
                     count_mismatches("counters", from_device(dout, n), want));

  derived_objects<<<blocks, 64>>>(din, dout, n);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) want[i] = want_derived(in[i], i);
  failures += report("member pointers converted to a derived class's, data members",
                     count_mismatches("derived", from_device(dout, n), want));

  virtual_members<<<blocks, 64>>>(din, dout, n);
  HIP_CHECK(hipGetLastError());
  for (int i = 0; i < n; ++i) want[i] = want_virtual(in[i], i);
  failures += report("pointers to virtual member functions",
                     count_mismatches("virtual", from_device(dout, n), want));

  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  return failures;
}
