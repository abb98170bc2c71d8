// RUN: not hipmlir-opt %s --split-input-file --hipmlir-mark-recursive-calls 2>&1 >/dev/null | FileCheck %s

// What a recursive function cannot do on SPIR-V is reported where it does it, naming the cycle
// (NVIDIA targets run it: their pipeline has no such pass).

// Warp operations: subgroups are sized and numbered per kernel, from the kernel's own body.
// CHECK: mark-recursive-calls-errors.mlir:[[@LINE+6]]:20: error: unsupported construct in device code: a warp operation (a shuffle, vote or reduction, the lane id, warpSize) in a recursive function ('reduce' calls itself; on SPIR-V, recursive functions are called through SPV_INTEL_function_pointers: NVIDIA targets, --offload-arch=sm_XX alone, run it)
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

// A kernel using warp operations runs its blocks linearized and recomputes threadIdx in its own
// body only.
// CHECK: mark-recursive-calls-errors.mlir:[[@LINE+13]]:12: error: unsupported construct in device code: threadIdx or blockDim in a recursive function called from a kernel using warp operations (such a kernel recomputes them from its linear thread id) ('walk' calls itself;
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @k(%n: i32) kernel {
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %s, %valid = gpu.shuffle  xor %n, %c1, %c32 : i32
      %r = func.call @walk(%s) : (i32) -> i32
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

// -----

// Dynamic shared memory is a kernel's trailing argument.
// CHECK: mark-recursive-calls-errors.mlir:[[@LINE+7]]:12: error: unsupported construct in device code: dynamic shared memory (extern __shared__) in a recursive function (a kernel's own: pass a pointer to it) ('first' calls itself;
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    llvm.mlir.global external @__hipmlir_dynamic_shared() {addr_space = 3 : i32} : !llvm.array<0 x i8>
    func.func @first(%n: i32) -> !llvm.ptr<3> {
      %c1 = arith.constant 1 : i32
      %m = arith.subi %n, %c1 : i32
      %p = llvm.mlir.addressof @__hipmlir_dynamic_shared : !llvm.ptr<3>
      %r = func.call @first(%m) : (i32) -> !llvm.ptr<3>
      return %p : !llvm.ptr<3>
    }
  }
}
