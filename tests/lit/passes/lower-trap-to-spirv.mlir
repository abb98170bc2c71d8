// RUN: hipmlir-opt %s --hipmlir-lower-trap-to-spirv | FileCheck %s

// OpenCL cannot stop a kernel: a trap (`__builtin_trap()`) is removed and the work-item runs on.
// What precedes it stays, such as the store that raises the module's abort flag, which the
// runtime reads when the kernel completes.

// CHECK-LABEL: gpu.func @stops
// CHECK: llvm.store volatile %{{.*}}, %{{.*}} : i32, !llvm.ptr
// CHECK-NOT: llvm.intr.trap
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @stops(%flag: !llvm.ptr) kernel {
      %one = llvm.mlir.constant(1 : i32) : i32
      llvm.store volatile %one, %flag : i32, !llvm.ptr
      "llvm.intr.trap"() : () -> ()
      gpu.return
    }
  }
}
