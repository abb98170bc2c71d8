// RUN: hipmlir-opt %s --hipmlir-mark-recursive-calls | FileCheck %s

// After inlining, the calls left in device code are recursion. Every call between functions of
// one cycle of the call graph is marked (it becomes a call through a function pointer in the
// serialized SPIR-V); a kernel calling into a cycle, a call out of a cycle into a function that
// does not call back, and calls of declarations (device library functions) stay plain calls.

// CHECK-LABEL: gpu.func @k
// CHECK: call @factorial(%{{.*}}) : (i32) -> i32
// CHECK-NEXT: call @even(%{{.*}}) : (i32) -> i32
// CHECK-NEXT: call @a(%{{.*}}) : (i32) -> i32
// CHECK-NEXT: gpu.return

// CHECK-LABEL: func.func @factorial
// CHECK: call @factorial(%{{.*}}) {hipmlir.recursive_call} : (i32) -> i32
// CHECK: call @sqrt_helper(%{{.*}}) : (i32) -> i32

// CHECK-LABEL: func.func @even
// CHECK: call @odd(%{{.*}}) {hipmlir.recursive_call} : (i32) -> i32
// CHECK-LABEL: func.func @odd
// CHECK: call @even(%{{.*}}) {hipmlir.recursive_call} : (i32) -> i32

// A cycle of three (the inliner leaves these when it stops inlining one into another).
// CHECK-LABEL: func.func @a
// CHECK: call @b(%{{.*}}) {hipmlir.recursive_call}
// CHECK-LABEL: func.func @b
// CHECK: call @c(%{{.*}}) {hipmlir.recursive_call}
// CHECK-LABEL: func.func @c
// CHECK: call @a(%{{.*}}) {hipmlir.recursive_call}

// CHECK-LABEL: func.func @sqrt_helper
// CHECK: call @sqrtf(%{{.*}}) : (f32) -> f32
// CHECK-NEXT: arith.fptosi
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @k(%n: i32) kernel {
      %f = func.call @factorial(%n) : (i32) -> i32
      %e = func.call @even(%n) : (i32) -> i32
      %a = func.call @a(%n) : (i32) -> i32
      gpu.return
    }
    func.func @factorial(%n: i32) -> i32 {
      %c1 = arith.constant 1 : i32
      %m = arith.subi %n, %c1 : i32
      %r = func.call @factorial(%m) : (i32) -> i32
      %s = func.call @sqrt_helper(%r) : (i32) -> i32
      %p = arith.muli %n, %s : i32
      return %p : i32
    }
    func.func @even(%n: i32) -> i32 {
      %c1 = arith.constant 1 : i32
      %m = arith.subi %n, %c1 : i32
      %r = func.call @odd(%m) : (i32) -> i32
      return %r : i32
    }
    func.func @odd(%n: i32) -> i32 {
      %c1 = arith.constant 1 : i32
      %m = arith.subi %n, %c1 : i32
      %r = func.call @even(%m) : (i32) -> i32
      return %r : i32
    }
    func.func @a(%n: i32) -> i32 {
      %r = func.call @b(%n) : (i32) -> i32
      return %r : i32
    }
    func.func @b(%n: i32) -> i32 {
      %r = func.call @c(%n) : (i32) -> i32
      return %r : i32
    }
    func.func @c(%n: i32) -> i32 {
      %r = func.call @a(%n) : (i32) -> i32
      return %r : i32
    }
    // Called from a cycle, calling none of it back: not recursive (a helper of the compiler's
    // own, say, which inlining keeps).
    func.func @sqrt_helper(%n: i32) -> i32 {
      %f = arith.sitofp %n : i32 to f32
      %s = func.call @sqrtf(%f) : (f32) -> f32
      %r = arith.fptosi %s : f32 to i32
      return %r : i32
    }
    func.func private @sqrtf(f32) -> f32
  }
}
