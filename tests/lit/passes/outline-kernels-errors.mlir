// RUN: not hipmlir-opt %s --hipmlir-outline-kernels 2>&1 >/dev/null | FileCheck %s

// A kernel returns nothing: one that returns a value is a frontend bug, reported as such.

// CHECK: outline-kernels-errors.mlir:[[# @LINE + 3]]:3: error: internal compiler error in the outliner: a kernel returns a value
// CHECK-NEXT: note: while running hipmlir-outline-kernels
module {
  func.func @k(%x: i32) -> i32 attributes {hipmlir.kernel} {
    return %x : i32
  }
}
