// Virtual calls through a virtual base while a class is built or destroyed as a base subobject
// of a larger object: a diamond, a chain of three levels, a virtual base of a virtual base, a
// virtual base that shares its holder's table pointer, and one with two polymorphic bases.
// Each constructor and destructor calls through the virtual base (a pointer, a reference, a
// helper taking it by reference) and records what it reached; C++ says the class being built
// or destroyed is the dynamic type there, the complete class once it is built. Objects on the
// stack and on the heap, deleted through a pointer to the virtual base. The host build of the
// same classes is the reference.
#include "test_common.h"
#include "include/construction_shapes.h"

constexpr int kOut = kTrace + 1;

__device__ __host__ void build_and_destroy(int v, Trace* trace) {
  {
    Box box(trace, v);
    trace->add(describe(box));
    Wide& wide = box;
    Tall& tall = box;
    trace->add(describe(wide) + describe(tall) % 1000);
    High high(trace, v + 1);
    trace->add(describe(high));
    Mid mid(trace, v + 2);
    trace->add(describe(mid));
  }
  trace->add(-1);
  {
    Pile pile(trace, v);
    trace->add(describe(pile));
    Stack stack(trace, v + 4);
    trace->add(describe(stack));
    TagAB both(trace, v);
    trace->add(read_tag(both) * 10 + read_tag(static_cast<TagA&>(both)));
    TagB alone(trace, v + 3);
    trace->add(read_tag(alone));
    Shelf shelf(trace, v);
    const Named& named = shelf;
    trace->add(named.name() * 1000 + measure(shelf));
  }
  trace->add(-2);
  // On the heap, destroyed through the virtual base's virtual destructor.
  Shape* shapes[3] = {new Box(trace, v + 7), new High(trace, v + 8), new Pile(trace, v + 9)};
  for (int k = 0; k < 3; ++k) trace->add(shapes[(k + v) % 3] ? describe(*shapes[(k + v) % 3]) : -3);
  for (int k = 0; k < 3; ++k) delete shapes[(k + v) % 3];
}

__global__ void construction_kernel(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Trace trace;
  build_and_destroy(in[i], &trace);
  out[i * kOut] = trace.n;
  for (int k = 0; k < kTrace; ++k) out[i * kOut + 1 + k] = k < trace.n ? trace.seen[k] : 0;
}

int main() {
  constexpr int n = 128;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 29) % 97 + 1;
  std::vector<int> want(n * kOut, 0), got(n * kOut, -7);
  for (int i = 0; i < n; ++i) {
    Trace trace;
    build_and_destroy(in[i], &trace);
    want[i * kOut] = trace.n;
    for (int k = 0; k < trace.n; ++k) want[i * kOut + 1 + k] = trace.seen[k];
  }
  // The trace must fit: a cut trace would hide what came after.
  if (want[0] >= kTrace) {
    printf("trace of %d entries does not fit in %d\n", want[0], kTrace);
    return 1;
  }
  int* d_in = to_device(in);
  int* d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_out, got.size() * sizeof(int)));
  hipLaunchKernelGGL(construction_kernel, dim3((n + 63) / 64), dim3(64), 0, 0, d_in, d_out, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(got.data(), d_out, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  int failures = count_mismatches("virtual base construction", got, want);
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  return report("virtual_base_construction", failures);
}
