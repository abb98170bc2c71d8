// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses | FileCheck %s

// -fsanitize=address: one element read through two types' pointers (each index widened on its
// own), then written, in one block: the first read's check serves all three. Another element
// gets its own check.

// CHECK-LABEL: gpu.func @two_views
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK-NOT: func.call @__hipmlir_memcheck_slow_path
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @two_elements
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @same {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    gpu.func @two_views(%p: !llvm.ptr<1>) kernel attributes {hipmlir.kernel_name = "two_views"} {
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %tid = gpu.thread_id x
      %t = arith.index_castui %tid : index to i32
      %w1 = arith.extsi %t : i32 to i64
      %e1 = llvm.getelementptr %g[%w1] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %x = llvm.load %e1 : !llvm.ptr -> f32
      %w2 = arith.extsi %t : i32 to i64
      %e2 = llvm.getelementptr %g[%w2] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      %y = llvm.load %e2 : !llvm.ptr -> i32
      %z = arith.bitcast %x : f32 to i32
      %s = arith.addi %y, %z : i32
      llvm.store %s, %e2 : i32, !llvm.ptr
      gpu.return
    }
    gpu.func @two_elements(%p: !llvm.ptr<1>) kernel attributes {hipmlir.kernel_name = "two_elements"} {
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %tid = gpu.thread_id x
      %t = arith.index_castui %tid : index to i32
      %w1 = arith.extsi %t : i32 to i64
      %e1 = llvm.getelementptr %g[%w1] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %x = llvm.load %e1 : !llvm.ptr -> f32
      %e2 = llvm.getelementptr %e1[1] : (!llvm.ptr) -> !llvm.ptr, f32
      llvm.store %x, %e2 : f32, !llvm.ptr
      gpu.return
    }
  }
}
