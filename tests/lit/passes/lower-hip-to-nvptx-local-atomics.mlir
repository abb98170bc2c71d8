// RUN: hipmlir-opt %s --hipmlir-lower-hip-to-nvptx | FileCheck %s

// PTX has no atomics on private (local) memory, which a generic pointer may reach (HIP on AMD
// allows them): an atomic through a generic pointer becomes a call of a helper that tests the
// pointer with isspacep.local and does a plain read-modify-write there, the atomic (with its
// ordering and scope) everywhere else. Atomics on pointers of a known space are left alone.

// CHECK: llvm.func @__hipmlir_atomic_rmw_{{[0-9]+}}(%[[P:.*]]: !llvm.ptr, %[[V:.*]]: i32) -> i32
// CHECK: %[[L:.*]] = llvm.call_intrinsic "llvm.nvvm.isspacep.local"(%[[P]]) : (!llvm.ptr) -> i1
// CHECK: llvm.cond_br %[[L]], ^[[LOCAL:.*]], ^[[OTHER:.*]]
// CHECK: ^[[LOCAL]]:
// CHECK: %[[O:.*]] = llvm.load %[[P]] : !llvm.ptr -> i32
// CHECK: %[[N:.*]] = llvm.add %[[O]], %[[V]] : i32
// CHECK: llvm.store %[[N]], %[[P]] : i32, !llvm.ptr
// CHECK: llvm.return %[[O]] : i32
// CHECK: ^[[OTHER]]:
// CHECK: %[[A:.*]] = llvm.atomicrmw add %[[P]], %[[V]] syncscope("device") monotonic : !llvm.ptr, i32
// CHECK: llvm.return %[[A]] : i32

// CHECK: gpu.func @k(
// CHECK-SAME: %[[G:[^:]*]]: !llvm.ptr, %[[GLOBAL:[^:]*]]: !llvm.ptr<1>, %[[X:[^:]*]]: i32
// CHECK: llvm.call @__hipmlir_atomic_rmw_{{[0-9]+}}(%[[G]], %[[X]]) : (!llvm.ptr, i32) -> i32
// CHECK: llvm.atomicrmw add %[[GLOBAL]], %[[X]] monotonic : !llvm.ptr<1>, i32
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%generic: !llvm.ptr, %global: !llvm.ptr<1>, %x: i32) kernel {
      %0 = llvm.atomicrmw add %generic, %x syncscope("agent") monotonic : !llvm.ptr, i32
      %1 = llvm.atomicrmw add %global, %x monotonic : !llvm.ptr<1>, i32
      gpu.return
    }
  }
}
