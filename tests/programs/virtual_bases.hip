// Virtual base classes in device code, objects built on the device: a diamond sharing one
// virtual base (with and without virtual functions), members of the virtual base read and
// written through each side, conversions to the virtual base from classes that put it at
// different offsets (a function taking it by reference), virtual calls whose overriders are in
// the virtual base, a side or the most derived class, destructors run once per subobject (the
// virtual base last) also through delete of a pointer to the virtual base, copies (slicing
// included), and the virtual base's offset as the host's layout puts it.
#include "test_common.h"
#include "include/virtual_base_shapes.h"

constexpr int kOut = 14;

// Where the virtual base is in each object: the offsets the device computes by conversion.
__device__ __host__ long offset_of_counter(Counter& c, void* object) {
  return reinterpret_cast<char*>(&c) - static_cast<char*>(object);
}

// A side taken by value: copied by its implicit copy constructor.
__device__ __host__ int by_value(Left l) { return l.count * 3 + l.left; }

template <typename T>
__device__ __host__ int through_counter(T& object) {
  return counter_value(object);
}

__device__ __host__ void compute(int v, long* out, Tally* tally) {
  Both both(v);
  Left left(v + 2);
  Right right(v + 3);
  Padded padded(v);
  // Member access through the virtual base, from each side and the whole.
  both.bump();
  left.bump();
  out[0] = both.count * 1000 + both.left * 10 + both.right + both.own;
  out[1] = left.count * 100 + left.left + right.total() + static_cast<Right&>(both).total();
  // One function taking the virtual base, given objects that put it at different offsets.
  out[2] = through_counter(both) + 3 * through_counter(left) + 5 * through_counter(right) +
           7 * through_counter(padded) + 11 * through_counter(static_cast<Left&>(both));
  out[3] = offset_of_counter(both, &both) * 10000 + offset_of_counter(left, &left) * 100 +
           offset_of_counter(padded, &padded);
  out[4] = offset_of_counter(static_cast<Right&>(both), &both) * 100 + sizeof(Both);
  // Through pointers: a pointer to a side, converted to the virtual base.
  Left* lp = (v % 2) ? &both : &left;
  Counter* cp = lp;
  cp->step += v;
  out[5] = both.bump() + left.bump() + (cp == nullptr ? -1 : cp->count);
  {
    Channel ch(v, tally);
    Reader r(v + 1, tally);
    Writer w(v + 2, tally);
    Node* nodes[3] = {&ch, &r, &w};
    Reader* readers[2] = {&ch, &r};
    Writer* writers[2] = {&ch, &w};
    long acc = 0;
    for (int k = 0; k < 3; ++k) acc = acc * 3 + node_value(*nodes[(k + v) % 3]);
    for (int k = 0; k < 2; ++k) acc += readers[(k + v) % 2]->weight() * (k + 1) + readers[k]->kind();
    for (int k = 0; k < 2; ++k) acc += writers[(k + v) % 2]->written() * (k + 2) + writers[k]->id;
    out[6] = acc;
    out[7] = ch.reads + ch.writes + ch.id + r.id + w.id;
  }
  out[8] = tally->destroyed;
  // new and delete through a pointer to the virtual base: the whole object is destroyed.
  Node* heap = (v % 3 == 0) ? static_cast<Node*>(new Channel(v, tally))
             : (v % 3 == 1) ? static_cast<Node*>(new Reader(v, tally))
                            : static_cast<Node*>(new Writer(v, tally));
  out[9] = heap ? node_value(*heap) : -1;
  delete heap;
  out[10] = tally->destroyed;
  Counter* null_counter = static_cast<Left*>(nullptr);
  out[11] = null_counter == nullptr ? 1 : 0;
  // Copies: of the whole object, of a side (slicing: the virtual base is copied from where
  // the source's class puts it), and by value.
  Both copy = both;
  copy.count += 2;
  Left sliced = copy;
  out[12] = sliced.count * 100 + sliced.left + counter_value(copy);
  out[13] = by_value(sliced) * 7 + by_value(copy);
}

__global__ void virtual_base_kernel(const int* in, long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Tally tally;
  compute(in[i], out + i * kOut, &tally);
}

int main() {
  constexpr int n = 256;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 + 1;
  std::vector<long> want(n * kOut), got(n * kOut);
  for (int i = 0; i < n; ++i) {
    Tally tally;
    compute(in[i], want.data() + i * kOut, &tally);
  }
  int* d_in = to_device(in);
  long* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, got.size() * sizeof(long)));
  hipLaunchKernelGGL(virtual_base_kernel, dim3((n + 63) / 64), dim3(64), 0, 0, d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(got.data(), d_out, got.size() * sizeof(long), hipMemcpyDeviceToHost));
  int failures = count_mismatches("virtual bases", got, want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("virtual_bases", failures);
}
