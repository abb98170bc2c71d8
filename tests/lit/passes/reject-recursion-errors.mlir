// RUN: not hipmlir-opt %s --split-input-file --hipmlir-reject-recursion 2>&1 >/dev/null | FileCheck %s

// A call left after inlining is recursion, which the SPIR-V pipeline does not run (NVPTX does:
// its pipeline has no such pass): reported where the call closing the cycle is, naming the
// functions of the cycle.

// CHECK: reject-recursion-errors.mlir:[[@LINE+5]]:10: error: unsupported construct in device code: recursion ('factorial' calls itself; hipmlir compiles SPIR-V with every call inlined: NVIDIA targets, --offload-arch=sm_XX alone, run it)
module {
  func.func @factorial(%n: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %m = arith.subi %n, %c1 : i32
    %r = func.call @factorial(%m) : (i32) -> i32
    %p = arith.muli %n, %r : i32
    return %p : i32
  }
}

// -----

// A kernel calling into a cycle is not part of it; the cycle is named from where it closes.

// CHECK: reject-recursion-errors.mlir:[[@LINE+10]]:12: error: unsupported construct in device code: recursion ('even' calls 'odd', which calls 'even';
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @k(%n: i32) kernel {
      %e = func.call @even(%n) : (i32) -> i32
      gpu.return
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
  }
}
