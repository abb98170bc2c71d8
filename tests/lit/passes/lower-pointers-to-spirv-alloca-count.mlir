// RUN: hipmlir-opt %s --hipmlir-lower-pointers-to-spirv | FileCheck %s

// An alloca of a constant count of elements is one function variable of an array of them
// (before, the count was dropped: `7 x i64` became one i64, and stores to the other six words
// overwrote the stack beyond it). (One of a count known only at run time is refused: see
// lower-pointers-to-spirv-errors.mlir.)

// CHECK-LABEL: gpu.func @words
// CHECK: spirv.Variable : !spirv.ptr<!spirv.array<7 x i64>, Function>
// CHECK-NOT: spirv.Variable
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @words(%arg0: i64) kernel {
      %c7 = llvm.mlir.constant(7 : i64) : i64
      %a = llvm.alloca %c7 x i64 : (i64) -> !llvm.ptr
      %w = llvm.getelementptr %a[6] : (!llvm.ptr) -> !llvm.ptr, i64
      llvm.store %arg0, %w : i64, !llvm.ptr
      gpu.return
    }
  }
}
