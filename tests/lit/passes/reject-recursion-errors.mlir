// RUN: not hipmlir-opt %s --hipmlir-reject-recursion 2>&1 >/dev/null | FileCheck %s

// A call left after inlining is recursion, reported where the call is.

// CHECK: reject-recursion-errors.mlir:[[@LINE+5]]:10: error: unsupported construct in device code: recursion (the call of @factorial cannot be inlined; GPU code has no call stack)
module {
  func.func @factorial(%n: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %m = arith.subi %n, %c1 : i32
    %r = func.call @factorial(%m) : (i32) -> i32
    %p = arith.muli %n, %r : i32
    return %p : i32
  }
}
