// Classes with virtual bases (include/virtual_base_shapes.h) assigned and allocated as arrays:
// assignment of whole objects and of sides (the virtual base found in the target and in the
// source where each one's class puts it, the target's dynamic class kept), through references
// to a side of objects of other classes; `new[]` and `delete[]` of arrays (every element
// built, then destroyed last first, its virtual bases after it).
// The functions are __host__ __device__: the host runs the same code as the reference, and
// every element is compared.
#include "test_common.h"
#include "include/virtual_base_shapes.h"

constexpr int kOut = 10;

// Default-constructible, with a destructor that counts: `new Cell[n]` for any n.
struct Cell : virtual Counter {
  int cell = 7;
  Tally* tally = nullptr;
  __host__ __device__ Cell() : Counter(3) {}
  __host__ __device__ ~Cell() {
    if (tally) tally->destroyed += 1;
  }
};

// Polymorphic, with a virtual base whose destructor counts (its tally set before `delete[]`).
struct Port : virtual Node {
  int port = 4;
  __host__ __device__ Port() : Node(7, nullptr) {}
  __host__ __device__ ~Port() override { tally->destroyed += 20; }
  __host__ __device__ int kind() const override { return port * 3; }
};

// An implicit assignment through a reference to a side: the objects behind it may be of any
// class that has the side.
__device__ __host__ void assign_left(Left& to, const Left& from) { to = from; }

__device__ __host__ long shape_sum(const Both& b) {
  return b.count * 1000 + b.step * 100 + b.left * 10 + b.right + b.own;
}

__device__ __host__ void compute(int v, long* out, Tally* tally) {
  Both a(v), b(v + 5);
  b.bump();
  a = b;  // the whole object
  out[0] = shape_sum(a);
  Left l(v + 7);
  l.bump();
  static_cast<Left&>(a) = l;  // a side from an object that puts its virtual base elsewhere
  out[1] = shape_sum(a) + counter_value(a) * 100000;
  Padded p(v), q(v + 11);
  q.step = v % 5;
  p = q;
  out[2] = counter_value(p) * 100 + p.tag + static_cast<long>(p.pad[0]);
  Left into(v + 1);
  assign_left(into, b);  // the source is a side of a Both
  assign_left(b, l);     // the target is
  out[3] = counter_value(into) * 1000 + into.left + shape_sum(b);
  {
    Channel c(v, tally), d(v + 3, tally);
    d.buffered = 3;
    c = d;  // a polymorphic class: the target's class ids stay
    out[4] = node_value(c) * 100 + c.kind() + c.buffered + c.reads + c.writes;
    Reader r(v + 9, tally);
    static_cast<Reader&>(c) = r;
    out[5] = node_value(c) + c.written() * 7 + r.reads;
  }
  out[6] = tally->destroyed;
  // Arrays of them on the heap.
  int n = v % 5 + 1;
  Cell* cells = new Cell[n];
  long sum = 0;
  for (int k = 0; k < n; ++k) {
    cells[k].count += k * v;
    cells[k].tally = tally;
    sum = sum * 3 + counter_value(cells[k]) * (k + 2) + cells[k].cell;
  }
  delete[] cells;
  out[7] = sum * 100 + tally->destroyed;
  Port* ports = new Port[n + 1];
  for (int k = 0; k <= n; ++k) {
    ports[k].tally = tally;
    ports[k].id += k;
    sum += node_value(ports[k]) * (k + 1) + ports[k].kind();
  }
  delete[] ports;
  out[8] = sum * 100 + tally->destroyed;
}

__global__ void assignment_kernel(const int* in, long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Tally tally;
  compute(in[i], out + i * kOut, &tally);
}

int main() {
  constexpr int n = 256;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 + 1;
  std::vector<long> want(n * kOut, 0);
  for (int i = 0; i < n; ++i) {
    Tally tally;
    compute(in[i], want.data() + i * kOut, &tally);
  }
  int* d_in = to_device(in);
  long* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, want.size() * sizeof(long)));
  HIP_CHECK(hipMemset(d_out, 0, want.size() * sizeof(long)));
  assignment_kernel<<<(n + 63) / 64, 64>>>(d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  int failures = count_mismatches("virtual base assignment", from_device(d_out, want.size()), want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("virtual_base_assignment", failures);
}
