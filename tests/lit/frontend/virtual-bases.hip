// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// Virtual bases: a constructor of a class with virtual bases takes a construction context
// (0 for a complete object, which alone builds the virtual bases, at clang's offsets); its
// non-virtual bases with virtual bases get contexts derived from its own; a conversion to a
// virtual base asks the base's lookup function, which chooses by the id at the object.

#include <hip/hip_runtime.h>

struct A { int a; __device__ A(int x) : a(x) {} };
struct B : virtual A { int b; __device__ B(int x) : A(x), b(x + a) {} };
struct C : virtual A { int c; __device__ C(int x) : A(x), c(x) {} };
struct D : B, C { int d; __device__ D(int x) : A(x * 3), B(x), C(x), d(x) {} };

__device__ int get(A& a) { return a.a; }

// CHECK-LABEL: func.func @_Z1kPi(
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: call @_ZN1DC1Ei(%{{.*}}, %{{.*}}, %[[ZERO]]) : (!llvm.ptr, i32, i64) -> ()
// CHECK: call @__hipmlir_vbase_offset.[[A:[0-9a-f]+]](
__global__ void k(int* out) {
  D d(out[0]);
  out[2] = get(d);
}

// CHECK-LABEL: func.func private @_ZN1DC1Ei(%arg0: !llvm.ptr, %arg1: i32, %arg2: i64)
// CHECK: %[[COMPLETE:.*]] = arith.cmpi eq, %arg2, %{{.*}} : i64
// CHECK: scf.if %[[COMPLETE]] {
// A at 32 in a complete D (clang's layout: B at 0, C at 16, d at 28).
// CHECK: %[[AT:.*]] = arith.constant 32 : i64
// CHECK: llvm.getelementptr %arg0[%[[AT]]]
// CHECK: func.call @_ZN1AC1Ei(
// CHECK: } else {
// CHECK: arith.xori
// CHECK: arith.muli
// CHECK: %[[BCTX:.*]] = arith.ori
// CHECK: call @_ZN1BC1Ei(%arg0, %arg1, %[[BCTX]])
// CHECK: %[[CCTX:.*]] = arith.ori
// CHECK: call @_ZN1CC1Ei(%{{.*}}, %arg1, %[[CCTX]])

// CHECK: func.func private @__hipmlir_vbase_offset.[[A]](%arg0: !llvm.ptr) -> i64
// CHECK: %[[ID:.*]] = llvm.load %arg0 : !llvm.ptr -> i64
// CHECK: arith.cmpi eq, %[[ID]]
// CHECK: arith.select
