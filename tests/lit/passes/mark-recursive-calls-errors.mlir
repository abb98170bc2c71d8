// RUN: not hipmlir-opt %s --split-input-file --hipmlir-mark-recursive-calls 2>&1 >/dev/null | FileCheck %s

// What a recursive function cannot do on SPIR-V is reported where it does it, naming the cycle
// (NVIDIA targets run it: their pipeline has no such pass).

// Warp operations: subgroups are sized and numbered per kernel, from the kernel's own body.
// CHECK: mark-recursive-calls-errors.mlir:[[@LINE+6]]:20: error: unsupported construct in device code: a warp shuffle in a recursive function ('reduce' calls itself; on SPIR-V, recursive functions are called through SPV_INTEL_function_pointers: NVIDIA targets, --offload-arch=sm_XX alone, run it)
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    func.func @reduce(%v: i32, %n: i32) -> i32 {
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %r, %valid = gpu.shuffle  xor %v, %c1, %c32 : i32
      %m = arith.subi %n, %c1 : i32
      %s = func.call @reduce(%r, %m) : (i32, i32) -> i32
      return %s : i32
    }
  }
}

// -----

// A kernel whose blocks run linearized recomputes threadIdx in its own body only.
// CHECK: mark-recursive-calls-errors.mlir:[[@LINE+10]]:12: error: unsupported construct in device code: threadIdx or blockDim in a recursive function called from a kernel using warp operations (such a kernel recomputes them from its linear thread id) ('walk' calls itself;
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @k(%n: i32) kernel attributes {hipmlir.linear_block} {
      %r = func.call @walk(%n) : (i32) -> i32
      gpu.return
    }
    func.func @walk(%n: i32) -> i32 {
      %c1 = arith.constant 1 : i32
      %m = arith.subi %n, %c1 : i32
      %t = gpu.thread_id y
      %r = func.call @walk(%m) : (i32) -> i32
      return %r : i32
    }
  }
}
