// Compiler-written copy and move constructors of classes whose parts have constructors of
// their own: C++'s implicitly-defined (or `= default`) constructor constructs each base and
// member from the source's (user-written constructors called, copy or move as the whole is, a
// move falling back on a copy constructor, arrays element by element, members of members at
// any depth, virtual bases once by the most derived class), where a copy of the bytes would
// show. Device-side constructions only: `T x = y;`, `T x(std::move(y));`, by-value parameters
// and results of device functions, array elements, `new`, lambda captures.
// The functions are __host__ __device__: the host runs the same code as the reference, and
// every element is compared.
#include <utility>

#include "test_common.h"

constexpr int kOut = 16;

// A copy adds 1; a move adds 1000 and leaves its source at -1: a byte copy would show.
struct Count {
  int v = 0;
  __host__ __device__ Count() {}
  __host__ __device__ explicit Count(int x) : v(x) {}
  __host__ __device__ Count(const Count& o) : v(o.v + 1) {}
  __host__ __device__ Count(Count&& o) : v(o.v + 1000) { o.v = -1; }
  __host__ __device__ Count& operator=(const Count&) = default;
};

// Copy only: moving a class holding it copies it.
struct CopyOnly {
  int w = 0;
  __host__ __device__ CopyOnly() {}
  __host__ __device__ CopyOnly(const CopyOnly& o) : w(o.w * 2 + 1) {}
  __host__ __device__ CopyOnly& operator=(const CopyOnly&) = default;
};

// Plain members and bit-fields around them.
struct Outer {
  int a = 0;
  Count c;
  unsigned f : 3;
  unsigned g : 5;
  CopyOnly k;
  double d = 0;
  __host__ __device__ Outer() : f(0), g(0) {}
};

__host__ __device__ long code(const Outer& o) {
  return o.a * 1000000L + o.c.v * 1000L + o.k.w * 10 + o.f + o.g * 7 + (long)o.d;
}

// Members of members, and arrays of them.
struct Mid {
  Outer o;
  Count row[3];
  int plain[2] = {0, 0};
};

struct Deep {
  long z = 0;
  Mid m[2];
};

__host__ __device__ long code(const Mid& m) {
  return code(m.o) + m.row[0].v * 3 + m.row[1].v * 5 + m.row[2].v * 7 + m.plain[0] + m.plain[1];
}

// Bases with constructors of their own, and `= default`.
struct Derived : Count, Outer {
  int own = 0;
};

struct Defaulted {
  Count c;
  CopyOnly k;
  __host__ __device__ Defaulted() {}
  __host__ __device__ Defaulted(const Defaulted&) = default;
  __host__ __device__ Defaulted(Defaulted&&) = default;
};

// Classes whose constructors are functions: virtual functions, virtual bases.
struct Poly {
  Count c;
  __host__ __device__ virtual long kind() const { return 1; }
};

struct HoldsPoly {
  Poly p;
  Count c;
};

struct Shared {
  Count s;
};
struct Left : virtual Shared {
  Count l;
};
struct Right : virtual Shared {
  int r = 0;
};
struct Both : Left, Right {
  Outer o;
};

__host__ __device__ long code(const Both& b) {
  return b.s.v * 100000L + b.l.v * 100 + b.r + code(b.o);
}

// By-value parameters and results.
__host__ __device__ Outer bump(Outer p) {
  p.a += 1;
  return p;  // a move from the parameter
}

__host__ __device__ Mid second(const Deep& d) { return d.m[1]; }

__host__ __device__ long take(Mid m) { return code(m); }

__host__ __device__ void compute(int v, long* out) {
  Outer y;
  y.a = v;
  y.c.v = v * 2;
  y.f = v % 8;
  y.g = v % 32;
  y.k.w = v + 3;
  y.d = v * 0.5;
  Outer x = y;
  out[0] = code(x);
  Outer moved(std::move(x));
  out[1] = code(moved) * 10 + x.c.v;

  Deep d;
  d.z = v;
  d.m[1].o = y;
  d.m[1].row[0].v = v;
  d.m[1].row[2].v = v * 3;
  d.m[1].plain[1] = v * 4;
  Deep e = d;
  out[2] = code(e.m[0]) + code(e.m[1]) * 3 + e.z;
  Deep f(std::move(e));
  out[3] = code(f.m[1]) + code(e.m[1]);

  Derived g;
  g.Count::v = v;
  g.a = v + 1;
  g.own = v * 5;
  Derived h = g;
  out[4] = h.Count::v * 1000L + code(static_cast<const Outer&>(h)) + h.own;

  Defaulted p;
  p.c.v = v;
  p.k.w = v * 2;
  Defaulted q = p;
  Defaulted r = std::move(q);
  out[5] = q.c.v * 10000L + r.c.v * 100 + r.k.w;

  HoldsPoly hp;
  hp.p.c.v = v;
  hp.c.v = v + 9;
  HoldsPoly hq = hp;
  out[6] = hq.p.c.v * 1000L + hq.c.v + hq.p.kind();

  Both b;
  b.s.v = v;
  b.l.v = v + 1;
  b.r = v + 2;
  b.o = y;
  Both c = b;
  Left& cl = c;
  out[7] = code(c) + cl.s.v;
  Both m = c;
  out[8] = code(m) + code(c);

  Outer passed = bump(y);
  out[9] = code(passed);
  out[10] = take(d.m[1]) + code(second(d));

  Outer arr[2] = {y, passed};
  out[11] = code(arr[0]) + code(arr[1]) * 2;

  Outer* heap = new Outer(y);
  out[12] = code(*heap);
  delete heap;

  auto get = [y]() { return code(y); };
  out[13] = get();
  auto get_deep = [d]() { return code(d.m[1]); };
  out[14] = get_deep();

  Count row[2] = {Count(v), y.c};
  Count copied_row[2] = {row[0], row[1]};
  out[15] = copied_row[0].v * 1000L + copied_row[1].v;
}

__global__ void copy_constructors_kernel(const int* in, long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  compute(in[i], out + i * kOut);
}

int main() {
  constexpr int n = 256;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 + 1;
  std::vector<long> want(n * kOut, 0);
  for (int i = 0; i < n; ++i) compute(in[i], want.data() + i * kOut);
  int* d_in = to_device(in);
  long* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, want.size() * sizeof(long)));
  HIP_CHECK(hipMemset(d_out, 0, want.size() * sizeof(long)));
  copy_constructors_kernel<<<(n + 63) / 64, 64>>>(d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  int failures = count_mismatches("copy constructors", from_device(d_out, want.size()), want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("copy_constructors", failures);
}
