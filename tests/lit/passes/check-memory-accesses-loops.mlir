// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses | FileCheck %s

// -fsanitize=address in a counted loop: the load's addresses at the first and last count are
// checked once before the loop, and the loop is unswitched on that: where the check passed,
// an unchecked copy of the loop runs (as written, so that the device compiler optimizes it as
// it does the unchecked program); where it failed, the loop with each access checked.

// CHECK-LABEL: gpu.func @sum
// CHECK: %[[LOOP:.*]]:2 = scf.if %{{.*}} -> (i32, f32) {
// CHECK: scf.while
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: scf.yield %{{.*}}#0, %{{.*}}#1 : i32, f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.while
// CHECK-NOT: func.call
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT: arith.addf
// CHECK: llvm.store %[[LOOP]]#1
// CHECK-LABEL: gpu.func @gather
// CHECK-NOT: scf.if %{{.*}} -> (i32, f32)
// CHECK: scf.while

// A loop counting by 16 with its load under a condition, at `(i + k) * n` (signed arithmetic
// that does not wrap): the last count is init + ((n - init - 1) / 16) * 16, the address is
// computed in 64 bits at both ends, the count must not pass the counter's greatest value, and
// the loop is unswitched.
// CHECK-LABEL: gpu.func @strided
// CHECK: arith.divui %{{.*}}, %c16_i64 : i64
// CHECK: %[[N:.*]] = arith.extsi %arg1 : i32 to i64
// CHECK-NEXT: %[[WIDE:.*]] = arith.muli %{{.*}}, %[[N]] : i64
// CHECK: llvm.getelementptr %{{.*}}[%[[WIDE]]]
// CHECK: arith.cmpi sle, %{{.*}}, %c2147483631_i64 : i64
// CHECK: scf.if %{{.*}} -> (i32, f32) {
// CHECK: scf.while
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: scf.yield %{{.*}}#0, %{{.*}}#1 : i32, f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.while
// CHECK-NOT: func.call
// CHECK: arith.addf

// Arithmetic on the count that may wrap (no `nsw`: unsigned in C) keeps each access's check.
// CHECK-LABEL: gpu.func @wrapping
// CHECK-NOT: scf.if %{{.*}} -> (i32, f32)
// CHECK: scf.while
module attributes {gpu.container_module} {
  gpu.module @loops {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    gpu.func @sum(%p: !llvm.ptr<1>, %n: i32) kernel attributes {hipmlir.kernel_name = "sum"} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %z = arith.constant 0.0 : f32
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %r:2 = scf.while (%i = %c0, %acc = %z) : (i32, f32) -> (i32, f32) {
        %c = arith.cmpi slt, %i, %n : i32
        scf.condition(%c) %i, %acc : i32, f32
      } do {
      ^bb0(%i: i32, %acc: f32):
        %w = arith.extsi %i : i32 to i64
        %e = llvm.getelementptr %g[%w] : (!llvm.ptr, i64) -> !llvm.ptr, f32
        %x = llvm.load %e : !llvm.ptr -> f32
        %s = arith.addf %acc, %x : f32
        %next = arith.addi %i, %c1 : i32
        scf.yield %next, %s : i32, f32
      }
      llvm.store %r#1, %g : f32, !llvm.ptr
      gpu.return
    }
    // An access whose address does not rise with the count keeps the loop as it is.
    gpu.func @gather(%p: !llvm.ptr<1>, %n: i32) kernel attributes {hipmlir.kernel_name = "gather"} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %z = arith.constant 0.0 : f32
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %r:2 = scf.while (%i = %c0, %acc = %z) : (i32, f32) -> (i32, f32) {
        %c = arith.cmpi slt, %i, %n : i32
        scf.condition(%c) %i, %acc : i32, f32
      } do {
      ^bb0(%i: i32, %acc: f32):
        %m = arith.muli %i, %i : i32
        %w = arith.extsi %m : i32 to i64
        %e = llvm.getelementptr %g[%w] : (!llvm.ptr, i64) -> !llvm.ptr, f32
        %x = llvm.load %e : !llvm.ptr -> f32
        %s = arith.addf %acc, %x : f32
        %next = arith.addi %i, %c1 : i32
        scf.yield %next, %s : i32, f32
      }
      llvm.store %r#1, %g : f32, !llvm.ptr
      gpu.return
    }
    gpu.func @strided(%p: !llvm.ptr<1>, %n: i32, %k: i32) kernel attributes {hipmlir.kernel_name = "strided"} {
      %c0 = arith.constant 0 : i32
      %c16 = arith.constant 16 : i32
      %z = arith.constant 0.0 : f32
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %r:2 = scf.while (%i = %c0, %acc = %z) : (i32, f32) -> (i32, f32) {
        %c = arith.cmpi slt, %i, %n : i32
        scf.condition(%c) %i, %acc : i32, f32
      } do {
      ^bb0(%i: i32, %acc: f32):
        %j = arith.addi %i, %k overflow<nsw> : i32
        %inside = arith.cmpi slt, %j, %n : i32
        %x = scf.if %inside -> (f32) {
          %m = arith.muli %j, %n overflow<nsw> : i32
          %w = arith.extsi %m : i32 to i64
          %e = llvm.getelementptr %g[%w] : (!llvm.ptr, i64) -> !llvm.ptr, f32
          %v = llvm.load %e : !llvm.ptr -> f32
          scf.yield %v : f32
        } else {
          scf.yield %z : f32
        }
        %s = arith.addf %acc, %x : f32
        %next = arith.addi %i, %c16 overflow<nsw> : i32
        scf.yield %next, %s : i32, f32
      }
      llvm.store %r#1, %g : f32, !llvm.ptr
      gpu.return
    }
    gpu.func @wrapping(%p: !llvm.ptr<1>, %n: i32, %k: i32) kernel attributes {hipmlir.kernel_name = "wrapping"} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %z = arith.constant 0.0 : f32
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %r:2 = scf.while (%i = %c0, %acc = %z) : (i32, f32) -> (i32, f32) {
        %c = arith.cmpi slt, %i, %n : i32
        scf.condition(%c) %i, %acc : i32, f32
      } do {
      ^bb0(%i: i32, %acc: f32):
        %j = arith.addi %i, %k : i32
        %w = arith.extui %j : i32 to i64
        %e = llvm.getelementptr %g[%w] : (!llvm.ptr, i64) -> !llvm.ptr, f32
        %x = llvm.load %e : !llvm.ptr -> f32
        %s = arith.addf %acc, %x : f32
        %next = arith.addi %i, %c1 : i32
        scf.yield %next, %s : i32, f32
      }
      llvm.store %r#1, %g : f32, !llvm.ptr
      gpu.return
    }
  }
}
