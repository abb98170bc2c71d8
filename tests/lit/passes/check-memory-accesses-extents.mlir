// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses | FileCheck %s

// -fsanitize=address: a kernel's accesses through its pointer arguments are compared with each
// pointer's extent (the bytes from it to the end of its allocation), which the runtime computes
// at each launch and passes as hidden i64 parameters after the listed arguments: one for each
// global pointer argument, in order, named in hipmlir.memcheck_extents. Nothing is read from
// the table's index at the entry.
//
// @saxpy: y is accessed first, then x; the extents follow the arguments' order, and the scalar
// and the shared-memory pointer get none.
// @pointer_only: an argument used through a GEP and a cast.
// @no_metadata: a kernel without hipmlir.kernel_args (its parameters cannot be told from hidden
// ones) still finds its arguments' allocations in the table's index.

// CHECK-LABEL: gpu.func @saxpy
// CHECK-SAME: (%[[X:.*]]: !llvm.ptr<1>, %[[Y:.*]]: !llvm.ptr<1>, %[[N:.*]]: i32, %{{.*}}: !llvm.ptr<3>, %[[EX:.*]]: i64, %[[EY:.*]]: i64)
// CHECK-SAME: hipmlir.memcheck_extents = array<i64: 0, 1>
// CHECK-NOT: -7046029254386353131
// CHECK: arith.cmpi uge, %[[EY]], %c4_i64
// CHECK: llvm.load
// CHECK-NOT: -7046029254386353131
// CHECK: arith.cmpi uge, %[[EX]], %c4_i64
// CHECK: llvm.load
// CHECK-NOT: arith.cmpi uge, %[[EY]]
// CHECK: llvm.store

// CHECK-LABEL: gpu.func @pointer_only
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr<1>, %[[EP:.*]]: i64)
// CHECK-SAME: hipmlir.memcheck_extents = array<i64: 0>
// CHECK: %[[LAST:.*]] = arith.subi %[[EP]], %c8_i64 : i64
// CHECK-NEXT: arith.cmpi ule, %c16_i64, %[[LAST]] : i64

// CHECK-LABEL: gpu.func @no_metadata
// CHECK-SAME: (%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32)
// CHECK-NOT: hipmlir.memcheck_extents
// CHECK: arith.constant -7046029254386353131 : i64
module attributes {gpu.container_module} {
  gpu.module @checked {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    gpu.func @saxpy(%x: !llvm.ptr<1>, %y: !llvm.ptr<1>, %i: i32, %shared: !llvm.ptr<3>) kernel attributes {hipmlir.kernel_args = [{addr_space = "global", is_pointer = true, name = "x"}, {addr_space = "global", is_pointer = true, name = "y"}, {addr_space = "private", is_pointer = false, name = "i"}, {addr_space = "workgroup", is_pointer = true, name = "s"}], hipmlir.kernel_name = "saxpy"} {
      %gx = llvm.addrspacecast %x : !llvm.ptr<1> to !llvm.ptr
      %gy = llvm.addrspacecast %y : !llvm.ptr<1> to !llvm.ptr
      %k = arith.extsi %i : i32 to i64
      %py = llvm.getelementptr %gy[%k] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %vy = llvm.load %py : !llvm.ptr -> f32
      %px = llvm.getelementptr %gx[%k] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %vx = llvm.load %px : !llvm.ptr -> f32
      %s = arith.addf %vx, %vy : f32
      llvm.store %s, %py : f32, !llvm.ptr
      gpu.return
    }
    gpu.func @pointer_only(%p: !llvm.ptr<1>) kernel attributes {hipmlir.kernel_args = [{addr_space = "global", is_pointer = true, name = "p"}], hipmlir.kernel_name = "pointer_only"} {
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %e = llvm.getelementptr %g[16] : (!llvm.ptr) -> !llvm.ptr, i8
      %x = llvm.load %e : !llvm.ptr -> i64
      gpu.return
    }
    gpu.func @no_metadata(%p: !llvm.ptr<1>, %i: i32) kernel attributes {hipmlir.kernel_name = "no_metadata"} {
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %k = arith.extsi %i : i32 to i64
      %e = llvm.getelementptr %g[%k] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %x = llvm.load %e : !llvm.ptr -> f32
      gpu.return
    }
  }
}
