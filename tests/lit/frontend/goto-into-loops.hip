// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// A goto into a loop's body: the loop's test is skipped while the goto's flag is set (the
// flag is carried by the scf.while), the statements ahead of the label too, and the label
// clears it. A goto back into an earlier block: a loop over the block and the statements up to
// the goto, entering the block at the label while the flag is set, for as long as the goto is
// taken.

#include <hip/hip_runtime.h>

__device__ int into_while(int v) {
  int i = v, acc = 1;
  if (v % 3 == 0) goto middle;
  while (i < 8) {
    acc += i;
  middle:
    acc *= 2;
    ++i;
  }
  return acc;
}

__device__ int retry(int v) {
  int acc = v, tries = 0;
  {
    acc += 3;
  again:
    acc *= 5;
  }
  if (acc % 4 != 0 && ++tries < 6) goto again;
  return acc;
}

// A do loop whose body holds a loop: the header only tests the loop's flag (a loop nested in a
// header is invalid SPIR-V as MLIR serializes it), the round runs in the body.
__device__ int rounds(int v) {
  int s = 0;
  do {
    for (int j = 0; j < v; ++j) s += j;
  } while (s < 100 && ++v < 20);
  return s;
}

__global__ void k(int* out) { out[0] = into_while(out[1]) + retry(out[2]) + rounds(out[3]); }

// (The functions are emitted in the order of their last call.)

// CHECK-LABEL: func.func private @_Z6roundsi
// CHECK: scf.while ({{.*}}, %[[ROUND:.*]] = %true) : (i32, i32, i1)
// CHECK-NEXT: scf.condition(%[[ROUND]])
// CHECK: } do {
// CHECK: scf.while
// CHECK: %[[NEXT:[0-9]+]]:2 = scf.if
// CHECK: scf.yield %{{.*}}, %[[NEXT]]#1, %[[NEXT]]#0 : i32, i32, i1

// CHECK-LABEL: func.func private @_Z5retryi
// CHECK: scf.while ({{.*}}, %[[AGAIN:.*]] = %false) : (i32, i32, i1)
// CHECK: %[[IN:.*]] = arith.ori %{{.*}}, %[[AGAIN]] : i1
// CHECK: %[[AHEAD:.*]] = arith.xori %[[IN]], %true
// CHECK: scf.if %[[AHEAD]] -> (i32) {
// CHECK: arith.muli
// CHECK: arith.remsi
// CHECK: %[[TAKEN:[0-9]+]] = scf.if %{{.*}} -> (i1) {
// CHECK: %[[ROUND:.*]] = arith.ori %{{.*}}, %[[TAKEN]] : i1
// CHECK: scf.condition(%[[ROUND]])

// CHECK-LABEL: func.func private @_Z10into_whilei
// CHECK: %[[FLAG:.*]] = scf.if
// CHECK: scf.while ({{.*}}, %[[CARRIED:.*]] = %[[FLAG]]) : (i32, i32, i1)
// CHECK: %[[TAKEN:.*]] = arith.ori %{{.*}}, %[[CARRIED]] : i1
// CHECK: %[[TEST:.*]] = scf.if %[[TAKEN]] -> (i1) {
// CHECK: scf.yield %true
// CHECK: } else {
// CHECK: arith.cmpi slt
// CHECK: scf.condition(%[[TEST]])
// CHECK: } do {
// CHECK: %[[SKIP:.*]] = arith.xori
// CHECK: scf.if %[[SKIP]] -> (i32) {
// CHECK: arith.addi
// CHECK: arith.muli
// The label cleared the flag.
// CHECK: scf.yield %{{.*}}, %{{.*}}, %false{{.*}} : i32, i32, i1
