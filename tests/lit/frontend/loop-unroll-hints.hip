// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s
// RUN: hipmlir %s --emit-ptx --offload-arch=sm_90 -o - | FileCheck %s --check-prefix=PTX

// Loop hints become the loop's `loop_annotation`, which the lowering hands on to the loop's back
// edge (LLVM's llvm.loop metadata): `#pragma unroll` asks for unrolling (full where the trip count
// is known), a count for that many copies, `nounroll` and `unroll 1` for none.

#include <hip/hip_runtime.h>

// CHECK-DAG: #[[ENABLE:.*]] = #llvm.loop_unroll<disable = false>
// CHECK-DAG: #[[FOUR:.*]] = #llvm.loop_unroll<count = 4 : i32>
// CHECK-DAG: #[[FULL:.*]] = #llvm.loop_unroll<full = true>
// CHECK-DAG: #[[NONE:.*]] = #llvm.loop_unroll<disable = true>
// CHECK-DAG: #[[A_ENABLE:.*]] = #llvm.loop_annotation<unroll = #[[ENABLE]]>
// CHECK-DAG: #[[A_FOUR:.*]] = #llvm.loop_annotation<unroll = #[[FOUR]]>
// CHECK-DAG: #[[A_FULL:.*]] = #llvm.loop_annotation<unroll = #[[FULL]]>
// CHECK-DAG: #[[A_NONE:.*]] = #llvm.loop_annotation<unroll = #[[NONE]]>

// CHECK-LABEL: func.func @_Z5hintsPfi
// CHECK: scf.while
// CHECK: } attributes {loop_annotation = #[[A_ENABLE]]}
// CHECK: scf.while
// CHECK: } attributes {loop_annotation = #[[A_FOUR]]}
// CHECK: scf.while
// CHECK: } attributes {loop_annotation = #[[A_FULL]]}
// CHECK: scf.while
// CHECK: } attributes {loop_annotation = #[[A_NONE]]}
// CHECK: scf.while
// CHECK: } attributes {loop_annotation = #[[A_NONE]]}
// A loop without a hint has none, inside a hinted one too.
// CHECK: scf.while
// CHECK-NOT: loop_annotation
// CHECK: } attributes {loop_annotation = #[[A_FOUR]]}
// CHECK-LABEL: func.func @_Z7blockedILi4EEvPKfPf
// CHECK: } attributes {loop_annotation = #[[A_FOUR]]}

// The per-thread array of an unrolled loop lives in registers: no local memory in the PTX.
// PTX-LABEL: .entry _Z7blockedILi4EEvPKfPf
// PTX-NOT: .local
// PTX: ret;
__global__ void hints(float* p, int n) {
  int t = threadIdx.x;
#pragma unroll
  for (int i = 0; i < 8; ++i) p[t + i] += 1.0f;
#pragma unroll 4
  for (int i = 0; i < n; ++i) p[t] *= 2.0f;
#pragma clang loop unroll(full)
  for (int i = 0; i < 3; ++i) p[t + i] -= 1.0f;
#pragma nounroll
  while (n > 16) n -= 3;
#pragma unroll 1
  do {
    n += 1;
  } while (n < 10);
#pragma GCC unroll 4
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < i; ++j) p[j] += p[i];
  }
}

template <int ITEMS>
__global__ void blocked(const float* in, float* out) {
  float items[ITEMS];
  const int base = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
#pragma unroll ITEMS
  for (int j = 0; j < ITEMS; ++j) items[j] = in[base + j];
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) out[base + ITEMS - 1 - j] = items[j] * 2.0f;
}

template __global__ void blocked<4>(const float*, float*);
