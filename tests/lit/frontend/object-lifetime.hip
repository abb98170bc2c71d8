// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// Destructors run where C++ ends lifetimes: a block's locals last built first, after the value
// a return computes; a temporary at the end of its full-expression; a destructor's members
// after its body; a by-value argument is the caller's temporary, passed by address and destroyed
// by the caller after the call.

#include <hip/hip_runtime.h>

struct Guard {
  __device__ Guard(int* log, int id) : log(log), id(id) { *log += id; }
  __device__ ~Guard() { *log -= id; }
  int* log;
  int id;
};

struct Pair {
  Guard first;
  Guard second;
};

__device__ int scopes(int* log, int n) {
  Guard a(log, 1);
  Guard b(log, 2);
  return *log + n;
}

__device__ int take(int extra, Guard g) { return g.id + extra; }

__device__ int temporaries(int* log) { return take(3, Guard(log, 5)); }

// CHECK-LABEL: func.func @_Z9lifetimesPii(
// CHECK: call @_ZN4PairD1Ev(
// CHECK-NEXT: return
__global__ void lifetimes(int* log, int n) {
  Pair p{Guard(log, 10), Guard(log, 20)};
  log[1] = scopes(log, n) + temporaries(log);
}

// The implicit destructor of Pair destroys `second`, then `first`.
// CHECK-LABEL: func.func private @_ZN4PairD1Ev(
// CHECK: %[[FIRST:.*]] = llvm.getelementptr %arg0[{{.*}}, 0]
// CHECK: %[[SECOND:.*]] = llvm.getelementptr %arg0[{{.*}}, 1]
// CHECK-NEXT: call @_ZN5GuardD1Ev(%[[SECOND]])
// CHECK-NEXT: call @_ZN5GuardD1Ev(%[[FIRST]])

// The argument is a temporary of the caller's, passed by address, destroyed after the call.
// CHECK-LABEL: func.func private @_Z11temporariesPi(
// CHECK: %[[T:.*]] = llvm.alloca
// CHECK: call @_ZN5GuardC1EPii(
// CHECK: %[[ARG:.*]] = llvm.addrspacecast %[[T]]
// CHECK-NEXT: %[[R:.*]] = call @_Z4takei5Guard(%{{.*}}, %[[ARG]]) : (i32, !llvm.ptr) -> i32
// CHECK-NEXT: %[[D:.*]] = llvm.addrspacecast %[[T]]
// CHECK-NEXT: call @_ZN5GuardD1Ev(%[[D]])
// CHECK-NEXT: return %[[R]]

// The callee does not destroy its parameter.
// CHECK-LABEL: func.func private @_Z4takei5Guard(
// CHECK-NOT: call
// CHECK: return

// The value returned is computed first; then b, then a, are destroyed.
// CHECK-LABEL: func.func private @_Z6scopesPii(
// CHECK: %[[B:.*]] = llvm.alloca
// CHECK: %[[A:.*]] = llvm.alloca
// CHECK: %[[RESULT:.*]] = arith.addi
// CHECK-NEXT: %[[B2:.*]] = llvm.addrspacecast %[[B]]
// CHECK-NEXT: call @_ZN5GuardD1Ev(%[[B2]])
// CHECK-NEXT: %[[A2:.*]] = llvm.addrspacecast %[[A]]
// CHECK-NEXT: call @_ZN5GuardD1Ev(%[[A2]])
// CHECK-NEXT: return %[[RESULT]]
