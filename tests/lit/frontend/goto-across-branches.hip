// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// A goto from an if's else into its then: the if becomes a loop whose rounds run it again
// while the goto's flag is set, entering it at the label (the condition not evaluated, the
// flag cleared at the label) and running it as usual otherwise.

#include <hip/hip_runtime.h>

__device__ int retry(int v) {
  int r = v;
  if (v & 1) {
  again:
    r = r * 3 + 1;
  } else {
    r += 5;
    if (r < 9) goto again;
  }
  return r;
}

__global__ void k(int* out) { out[0] = retry(out[1]); }

// CHECK-LABEL: func.func private @_Z5retryi
// CHECK: scf.while (%[[R:.*]] = %arg0, %[[FLAG:.*]] = %false) : (i32, i1) -> (i32, i1) {
// CHECK: %[[TAKEN:.*]] = arith.ori %{{.*}}, %[[FLAG]]
// CHECK: %[[ROUND:.*]]:3 = scf.if %[[TAKEN]] -> (i32, i1, i1) {
// CHECK: arith.muli %[[R]]
// CHECK: } else {
// CHECK: arith.andi %arg0
// CHECK: arith.cmpi slt
// CHECK: scf.yield %true
// CHECK: %[[AGAIN:.*]] = arith.ori %{{.*}}, %[[ROUND]]#2
// CHECK: scf.condition(%[[AGAIN]])
