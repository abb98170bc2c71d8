// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses | FileCheck %s

// -fsanitize=address: a fast check measures an access's offset from its object or kernel
// argument out of the GEPs' indices, not as the difference of two addresses (which a device
// compiler running work-items as vector lanes keeps as a 64-bit address per lane).
//
// @narrow: one index extended from 32 bits (p[i - 3], 4-byte elements, the allocation's size
// found at the entry) is compared in 32 bits with the range of indices that stay inside: its
// lowest (3) subtracted, an unsigned comparison with the range's width. The width is worked out
// from the size with a division by the step, capped to the index's range; a size below the
// access, or a range that ends before it starts, fails the check.
//
// @wide: an i64 index is scaled and added in 64 bits, and compared with the last offset.
//
// @unsigned_shared: a zero-extended index into a shared array of 64 floats: the range is the
// constants 0 .. 63.
//
// None of these computes the access's address before the vote; only the slow path's branch
// does.
//
// @shared_two_indices: two indices into a shared tile keep the difference of the access's
// generic address and the tile's (as integer arithmetic, NVPTX hoisted the checks of an unrolled
// tile loop out of the loop around it, each result live across it).

// CHECK-LABEL: gpu.func @narrow
// CHECK: arith.extsi %arg1 : i32 to i64
// CHECK-NOT: llvm.ptrtoint
// CHECK: arith.divui %{{.*}}, %c4_i64{{.*}} : i64
// CHECK: arith.constant 8589934592 : i64
// CHECK: arith.constant 2147483647 : i64
// CHECK: %[[WIDTH:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK: %[[LOWEST:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[DISTANCE:.*]] = arith.subi %arg1, %[[LOWEST]] : i32
// CHECK-NEXT: %{{.*}} = arith.cmpi ule, %[[DISTANCE]], %[[WIDTH]] : i32
// CHECK-NOT: llvm.ptrtoint
// CHECK: scf.if
// CHECK-NEXT: llvm.ptrtoint
// CHECK: func.call @__hipmlir_memcheck_slow_path

// CHECK-LABEL: gpu.func @wide
// CHECK-NOT: llvm.ptrtoint %{{.*}}f32
// CHECK: %[[SCALED:.*]] = arith.muli %arg1, %c8_i64{{.*}} : i64
// CHECK-NEXT: %[[OFFSET:.*]] = arith.addi %c0_i64{{.*}}, %[[SCALED]] : i64
// CHECK: arith.cmpi ule, %[[OFFSET]], %{{.*}} : i64
// CHECK: scf.if
// CHECK-NEXT: llvm.ptrtoint
// CHECK: func.call @__hipmlir_memcheck_slow_path

// CHECK-LABEL: gpu.func @unsigned_shared
// CHECK: arith.extui %arg0 : i32 to i64
// CHECK-NOT: llvm.ptrtoint
// CHECK: arith.constant 0 : i32
// CHECK-NEXT: arith.subi %arg0, %{{.*}} : i32
// CHECK-NEXT: arith.cmpi ule
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-LABEL: gpu.func @shared_two_indices
// CHECK: llvm.getelementptr %{{.*}}[0, %arg0, %arg1]
// CHECK: %[[ACCESS:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr to i64
// CHECK-NEXT: llvm.mlir.addressof @tile2
// CHECK-NEXT: llvm.addrspacecast
// CHECK-NEXT: %[[TILE:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr to i64
// CHECK-NEXT: %[[OFFSET:.*]] = arith.subi %[[ACCESS]], %[[TILE]] : i64
// CHECK-NEXT: %[[LAST:.*]] = arith.constant 1020 : i64
// CHECK-NEXT: arith.cmpi ule, %[[OFFSET]], %[[LAST]] : i64
module attributes {gpu.container_module} {
  gpu.module @checked {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<64 x f32>
    llvm.mlir.global internal @tile2() {addr_space = 3 : i32} : !llvm.array<16 x array<16 x f32>>
    gpu.func @narrow(%p: !llvm.ptr<1>, %i: i32) kernel attributes {hipmlir.kernel_name = "narrow"} {
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %k = arith.extsi %i : i32 to i64
      %e = llvm.getelementptr %g[%k] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %f = llvm.getelementptr %e[-3] : (!llvm.ptr) -> !llvm.ptr, f32
      %x = llvm.load %f : !llvm.ptr -> f32
      gpu.return
    }
    gpu.func @wide(%p: !llvm.ptr<1>, %i: i64) kernel attributes {hipmlir.kernel_name = "wide"} {
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %e = llvm.getelementptr %g[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f64
      %x = llvm.load %e : !llvm.ptr -> f64
      gpu.return
    }
    gpu.func @unsigned_shared(%i: i32, %out: !llvm.ptr<1>) kernel attributes {hipmlir.kernel_name = "unsigned_shared"} {
      %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
      %k = arith.extui %i : i32 to i64
      %s = llvm.getelementptr %t[0, %k] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<64 x f32>
      %x = llvm.load %s : !llvm.ptr<3> -> f32
      gpu.return
    }
    gpu.func @shared_two_indices(%i: i64, %j: i64) kernel attributes {hipmlir.kernel_name = "shared_two_indices"} {
      %t = llvm.mlir.addressof @tile2 : !llvm.ptr<3>
      %s = llvm.getelementptr %t[0, %i, %j] : (!llvm.ptr<3>, i64, i64) -> !llvm.ptr<3>, !llvm.array<16 x array<16 x f32>>
      %x = llvm.load %s : !llvm.ptr<3> -> f32
      gpu.return
    }
  }
}
