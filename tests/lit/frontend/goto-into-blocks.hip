// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// A goto into the block of an if: the goto sets its flag, the statements it skips run under
// !flag, and the if is entered when the flag is set (its condition not evaluated, the
// statements ahead of the label skipped, the flag cleared at the label) and runs as usual
// otherwise.

#include <hip/hip_runtime.h>

__device__ int classify(int v) {
  int score = 0;
  if (v % 7 == 0) goto tail;
  score += 3;
  if (v > 100) {
    score *= 2;
  tail:
    score += v % 5;
  }
  return score;
}

__global__ void k(int* out) { out[0] = classify(out[1]); }

// CHECK-LABEL: func.func private @_Z8classifyi
// CHECK: %[[FLAG:.*]] = scf.if %{{.*}} -> (i1) {
// CHECK: %[[SKIP:.*]] = arith.xori %{{.*}}, %true
// CHECK: scf.if %[[SKIP]] -> (i32) {
// CHECK: arith.addi
// CHECK: %[[TAKEN:.*]] = arith.ori %{{.*}}, %[[FLAG]]
// CHECK: scf.if %[[TAKEN]] -> (i32, i1) {
// CHECK: arith.muli
// CHECK: arith.remsi
// CHECK: } else {
// CHECK: arith.cmpi sgt
