// Compiler-written assignment of classes whose parts have assignment operators of their own:
// C++'s implicitly-defined (or `= default`) operator calls each base's and member's operator
// (user-written ones included), copy or move as the whole is, arrays of members element by
// element, members of members at any depth; classes with virtual bases assign their virtual
// bases where each object's class puts them, through their own operators too. Polymorphic
// targets keep their dynamic class.
// The functions are __host__ __device__: the host runs the same code as the reference, and
// every element is compared.
#include <utility>

#include "test_common.h"

constexpr int kOut = 11;

// Counts its copies and moves, and transforms what it copies: a byte copy would show.
struct Tracked {
  int v = 0;
  int copies = 0;
  int moves = 0;
  __host__ __device__ Tracked() {}
  __host__ __device__ explicit Tracked(int x) : v(x) {}
  __host__ __device__ Tracked& operator=(const Tracked& o) {
    v = o.v * 2 + 1;
    copies += 1;
    return *this;
  }
  __host__ __device__ Tracked& operator=(Tracked&& o) {
    v = o.v + 1000;
    o.v = -1;  // a move leaves its source changed
    moves += 1;
    return *this;
  }
  __host__ __device__ long code() const { return v * 100L + copies * 10 + moves; }
};

// Copy only: a move assignment of a class holding it copies it.
struct CopyOnly {
  int w = 0;
  int copies = 0;
  __host__ __device__ CopyOnly& operator=(const CopyOnly& o) {
    w = o.w + 7;
    copies += 1;
    return *this;
  }
};

// A member with an operator, plain members around it, a bit-field and an array of them.
struct Holder {
  int a = 0;
  Tracked t;
  unsigned flag : 3;
  unsigned more : 5;
  Tracked row[3];
  CopyOnly c;
  double d = 0;
  __host__ __device__ Holder() : flag(0), more(0) {}
};

// Built by compiler-written default constructors, which build each base and member: a written
// default constructor called, default member initializers at any depth.
struct Built {
  int k;
  __host__ __device__ Built() : k(42) {}
};
struct Nested {
  Tracked t;  // its default member initializers
  Built b[2];
  int plain = 3;
};
struct FromBase : Built, Tracked {
  Nested n;
};

// A member of a member: the middle class's operator is the compiler's.
struct Outer {
  Holder h;
  short s = 0;
};

// A base with an operator of its own, a member whose class is a plain aggregate.
struct Plain {
  int p[2];
};
struct Derived : Tracked {
  Plain plain{};
  int own = 0;
  Derived& operator=(const Derived&) = default;
  Derived& operator=(Derived&&) = default;
};

// Virtual bases: one with an operator that counts (a single path to it: once), one whose
// operator is idempotent (reached on two paths: g++ may call it once per path).
struct Base {
  int b = 0;
  int calls = 0;
  __host__ __device__ Base& operator=(const Base& o) {
    b = o.b * 3;
    calls += 1;
    return *this;
  }
};
struct Shared {
  int s = 0;
  __host__ __device__ Shared& operator=(const Shared& o) {
    s = o.s + 11;
    return *this;
  }
};
struct Left : virtual Shared {
  int left = 0;
};
struct Right : virtual Shared {
  Tracked r;
};
struct Both : Left, Right, virtual Base {
  CopyOnly c;
  int own = 0;
  __host__ __device__ virtual int kind() const { return 1; }
};
struct MoreBoth : Both {
  __host__ __device__ int kind() const override { return 2; }
};

__device__ __host__ long both_code(const Both& x) {
  return x.s * 100000L + x.b * 1000L + x.calls * 100 + x.left * 10 + x.own + x.c.w * 7 +
         x.c.copies + x.r.code() * 3;
}

// Assigns through a reference to a side: the objects behind it may be of other classes.
__device__ __host__ void assign_side(Left& to, const Left& from) { to = from; }

__device__ __host__ void compute(int v, long* out) {
  Holder x, y;
  y.a = v;
  y.t.v = v + 1;
  y.flag = v & 7;
  y.more = v & 31;
  for (int k = 0; k < 3; ++k) y.row[k].v = v * k;
  y.c.w = v - 2;
  y.d = v * 0.5;
  x = y;
  out[0] = x.a * 1000L + x.t.code() + x.flag * 10 + x.more + static_cast<long>(x.d * 4) +
           x.c.w * 3 + x.c.copies;
  out[1] = x.row[0].code() + x.row[1].code() * 3 + x.row[2].code() * 7;
  x = std::move(y);  // moves Tracked, copies CopyOnly
  out[2] = x.t.code() * 100 + y.t.v + x.row[2].code() + y.row[1].v + x.c.copies * 10 + x.c.w;
  Outer o, p;
  p.h.t.v = v * 5;
  p.s = static_cast<short>(v);
  o = p;
  o = p;
  out[3] = o.h.t.code() + o.s * 100000L;
  Derived d, e;
  e.v = v + 3;
  e.plain.p[0] = v;
  e.plain.p[1] = -v;
  e.own = v * 9;
  d = e;
  out[4] = d.code() + d.plain.p[0] * 10000L + d.plain.p[1] * 100 + d.own;
  d = std::move(e);
  out[5] = d.code() + e.v * 1000L;
  MoreBoth m;
  Both w;
  w.s = v;
  w.b = v + 2;
  w.left = v % 10;
  w.r.v = v + 4;
  w.c.w = v;
  w.own = v % 7;
  static_cast<Both&>(m) = w;  // the target keeps its dynamic class
  out[6] = both_code(m) * 10 + m.kind();
  Both z;
  z = m;  // the source's virtual bases where its class puts them
  out[7] = both_code(z) * 10 + z.kind();
  Left l;
  l.s = v * 2;
  l.left = 3;
  assign_side(m, l);
  assign_side(l, z);
  out[8] = both_code(m) + l.s * 10 + l.left;
  Both arr[2];
  arr[1] = z;
  arr[0] = arr[1];
  out[9] = both_code(arr[0]) + both_code(arr[1]) * 3;
  FromBase f;
  f.n.t.v += v;
  out[10] = f.k * 1000000L + f.code() * 1000 + f.n.t.code() + f.n.b[1].k * 10 + f.n.plain;
}

__global__ void assignment_kernel(const int* in, long* out, int n) {
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
  assignment_kernel<<<(n + 63) / 64, 64>>>(d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  int failures = count_mismatches("assignment operators", from_device(d_out, want.size()), want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("assignment_operators", failures);
}
