// RUN: not hipmlir-opt %s --split-input-file --hipmlir-lower-pointers-to-spirv 2>&1 >/dev/null | FileCheck %s

// An address space SPIR-V has no storage class for is an error, at the access.

// CHECK: lower-pointers-to-spirv-errors.mlir:[[# @LINE + 5]]:12: error: pointer in unknown address space 7
// CHECK-NEXT: note: while running hipmlir-lower-pointers-to-spirv
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @odd(%arg0: !llvm.ptr<7>) kernel {
      %0 = llvm.load %arg0 : !llvm.ptr<7> -> f32
      gpu.return
    }
  }
}

// -----

// A local array whose length is known only at run time has no SPIR-V function variable: it is
// named as unsupported, at the alloca.

// CHECK: lower-pointers-to-spirv-errors.mlir:[[# @LINE + 4]]:12: error: unsupported construct in device code: a local array whose length is known only at run time
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @run_time(%n: i64) kernel {
      %a = llvm.alloca %n x i64 : (i64) -> !llvm.ptr
      gpu.return
    }
  }
}
