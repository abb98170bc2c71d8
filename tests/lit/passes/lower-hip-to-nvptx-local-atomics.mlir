// RUN: hipmlir-opt %s --hipmlir-lower-hip-to-nvptx | FileCheck %s

// PTX has no atomics on private (local) memory, which a generic pointer may reach (HIP on AMD
// allows them): an atomic through a generic pointer becomes a call of a helper that tests the
// pointer with isspacep.local and does a plain read-modify-write there, the atomic (with its
// ordering and scope) everywhere else. Atomics on pointers of a known space are left alone.

// Each helper is defined at the gpu.module's start: the last atomic's first. The plain update
// is the operation's own: a float minimum, an unsigned maximum as a compare and select, an
// exchange storing the operand.
// CHECK: llvm.func @__hipmlir_atomic_rmw_3(%[[P:.*]]: !llvm.ptr, %[[V:.*]]: f32) -> f32
// CHECK: %[[O:.*]] = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT: %[[N:.*]] = llvm.intr.minnum(%[[O]], %[[V]]) : (f32, f32) -> f32
// CHECK-NEXT: llvm.store %[[N]], %[[P]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK: llvm.atomicrmw fmin %[[P]], %[[V]] seq_cst : !llvm.ptr, f32
// CHECK: llvm.func @__hipmlir_atomic_rmw_2(%[[P:.*]]: !llvm.ptr, %[[V:.*]]: i64) -> i64
// CHECK: %[[O:.*]] = llvm.load %[[P]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT: %[[KEEP:.*]] = llvm.icmp "ugt" %[[O]], %[[V]] : i64
// CHECK-NEXT: %[[N:.*]] = llvm.select %[[KEEP]], %[[O]], %[[V]] : i1, i64
// CHECK-NEXT: llvm.store %[[N]], %[[P]] {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK-NEXT: llvm.return %[[O]] : i64
// CHECK: llvm.atomicrmw umax %[[P]], %[[V]] seq_cst : !llvm.ptr, i64
// CHECK: llvm.func @__hipmlir_atomic_rmw_1(%[[P:.*]]: !llvm.ptr, %[[V:.*]]: f32) -> f32
// CHECK: %[[O:.*]] = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT: llvm.store %[[V]], %[[P]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT: llvm.return %[[O]] : f32
// CHECK: llvm.atomicrmw xchg %[[P]], %[[V]] seq_cst : !llvm.ptr, f32

// CHECK: llvm.func @__hipmlir_atomic_rmw_{{[0-9]+}}(%[[P:.*]]: !llvm.ptr, %[[V:.*]]: i32) -> i32
// CHECK: %[[L:.*]] = llvm.call_intrinsic "llvm.nvvm.isspacep.local"(%[[P]]) : (!llvm.ptr) -> i1
// CHECK: llvm.cond_br %[[L]], ^[[LOCAL:.*]], ^[[OTHER:.*]]
// CHECK: ^[[LOCAL]]:
// CHECK: %[[O:.*]] = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: %[[N:.*]] = llvm.add %[[O]], %[[V]] : i32
// CHECK: llvm.store %[[N]], %[[P]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK: llvm.return %[[O]] : i32
// CHECK: ^[[OTHER]]:
// CHECK: %[[A:.*]] = llvm.atomicrmw add %[[P]], %[[V]] syncscope("device") monotonic : !llvm.ptr, i32
// CHECK: llvm.return %[[A]] : i32

// CHECK: gpu.func @k(
// CHECK-SAME: %[[G:[^:]*]]: !llvm.ptr, %[[GLOBAL:[^:]*]]: !llvm.ptr<1>, %[[X:[^:]*]]: i32
// CHECK: llvm.call @__hipmlir_atomic_rmw_{{[0-9]+}}(%[[G]], %[[X]]) : (!llvm.ptr, i32) -> i32
// CHECK: llvm.atomicrmw add %[[GLOBAL]], %[[X]] monotonic : !llvm.ptr<1>, i32
// CHECK: llvm.call @__hipmlir_atomic_rmw_1(%[[G]], %[[F:[^)]*]]) : (!llvm.ptr, f32) -> f32
// CHECK: llvm.call @__hipmlir_atomic_rmw_2(%[[G]], %[[L:[^)]*]]) : (!llvm.ptr, i64) -> i64
// CHECK: llvm.call @__hipmlir_atomic_rmw_3(%[[G]], %[[F]]) : (!llvm.ptr, f32) -> f32
// An operation without a plain update here is left alone.
// CHECK: llvm.atomicrmw uinc_wrap %[[G]], %[[X]] seq_cst : !llvm.ptr, i32
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%generic: !llvm.ptr, %global: !llvm.ptr<1>, %x: i32, %l: i64, %f: f32) kernel {
      %0 = llvm.atomicrmw add %generic, %x syncscope("agent") monotonic : !llvm.ptr, i32
      %1 = llvm.atomicrmw add %global, %x monotonic : !llvm.ptr<1>, i32
      %2 = llvm.atomicrmw xchg %generic, %f seq_cst : !llvm.ptr, f32
      %3 = llvm.atomicrmw umax %generic, %l seq_cst : !llvm.ptr, i64
      %4 = llvm.atomicrmw fmin %generic, %f seq_cst : !llvm.ptr, f32
      %5 = llvm.atomicrmw uinc_wrap %generic, %x seq_cst : !llvm.ptr, i32
      gpu.return
    }
  }
}
