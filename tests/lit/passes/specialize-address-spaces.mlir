// RUN: hipmlir-opt %s --split-input-file --hipmlir-specialize-address-spaces | FileCheck %s

// Address arithmetic and accesses through a generic pointer cast from a kernel argument
// (global) or a __shared__ array (workgroup) move into that space; the cast sinks below them
// and stays only where a generic pointer is still needed (here, a call taking one).

// CHECK-LABEL: gpu.func @tile
// CHECK-SAME: %[[IN:[^:]*]]: !llvm.ptr<1>
// CHECK: %[[TILE:.*]] = llvm.mlir.addressof @shared_tile : !llvm.ptr<3>
// CHECK-NOT: llvm.addrspacecast %[[TILE]]
// CHECK: %[[FROM:.*]] = llvm.getelementptr %[[IN]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// The call below still takes a generic pointer: the cast, now after the GEP.
// CHECK: %[[GENERIC:.*]] = llvm.addrspacecast %[[FROM]] : !llvm.ptr<1> to !llvm.ptr<4>
// CHECK: %[[V:.*]] = llvm.load %[[FROM]] : !llvm.ptr<1> -> f32
// CHECK: %[[ROW:.*]] = llvm.getelementptr %[[TILE]][%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<33 x f32>
// CHECK: %[[TO:.*]] = llvm.getelementptr %[[ROW]][%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
// CHECK: llvm.store %[[V]], %[[TO]] : f32, !llvm.ptr<3>
// CHECK: %[[OLD:.*]] = llvm.atomicrmw add %[[TO]], %{{.*}} monotonic : !llvm.ptr<3>, i32
// CHECK: func.call @use(%[[GENERIC]])
// A pointer stored as a value keeps its generic form.
// CHECK: llvm.store %[[GENERIC]], %{{.*}} : !llvm.ptr<4>, !llvm.ptr<3>
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    llvm.mlir.global internal @shared_tile() {addr_space = 3 : i32} : !llvm.array<32 x array<33 x f32>>
    func.func private @use(!llvm.ptr<4>)
    gpu.func @tile(%in: !llvm.ptr<1>, %i: i64, %row: i64, %col: i64) kernel {
      %one = arith.constant 1 : i32
      %tile = llvm.mlir.addressof @shared_tile : !llvm.ptr<3>
      %in_generic = llvm.addrspacecast %in : !llvm.ptr<1> to !llvm.ptr<4>
      %tile_generic = llvm.addrspacecast %tile : !llvm.ptr<3> to !llvm.ptr<4>
      %from = llvm.getelementptr %in_generic[%i] : (!llvm.ptr<4>, i64) -> !llvm.ptr<4>, f32
      %v = llvm.load %from : !llvm.ptr<4> -> f32
      %r = llvm.getelementptr %tile_generic[%row] : (!llvm.ptr<4>, i64) -> !llvm.ptr<4>, !llvm.array<33 x f32>
      %to = llvm.getelementptr %r[%col] : (!llvm.ptr<4>, i64) -> !llvm.ptr<4>, f32
      llvm.store %v, %to : f32, !llvm.ptr<4>
      %old = llvm.atomicrmw add %to, %one monotonic : !llvm.ptr<4>, i32
      func.call @use(%from) : (!llvm.ptr<4>) -> ()
      %slot = llvm.getelementptr %tile[0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, !llvm.ptr<4>
      llvm.store %from, %slot : !llvm.ptr<4>, !llvm.ptr<3>
      gpu.return
    }
  }
}

// -----

// A pointer whose space is not one cast away (chosen by a branch, loaded from memory) is left
// to the lowering's inference.

// CHECK-LABEL: gpu.func @unknown
// CHECK: %[[P:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<4>
// CHECK: llvm.getelementptr %[[P]][%{{.*}}] : (!llvm.ptr<4>, i64) -> !llvm.ptr<4>, f32
// CHECK: %[[Q:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> !llvm.ptr<4>
// CHECK: llvm.load %[[Q]] : !llvm.ptr<4> -> f32
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    llvm.mlir.global internal @buffer() {addr_space = 3 : i32} : !llvm.array<64 x f32>
    gpu.func @unknown(%in: !llvm.ptr<1>, %table: !llvm.ptr<1>, %c: i1, %i: i64) kernel {
      %s = llvm.mlir.addressof @buffer : !llvm.ptr<3>
      %g = llvm.addrspacecast %in : !llvm.ptr<1> to !llvm.ptr<4>
      %l = llvm.addrspacecast %s : !llvm.ptr<3> to !llvm.ptr<4>
      %p = arith.select %c, %g, %l : !llvm.ptr<4>
      %a = llvm.getelementptr %p[%i] : (!llvm.ptr<4>, i64) -> !llvm.ptr<4>, f32
      %v = llvm.load %a : !llvm.ptr<4> -> f32
      %q = llvm.load %table : !llvm.ptr<1> -> !llvm.ptr<4>
      %w = llvm.load %q : !llvm.ptr<4> -> f32
      gpu.return
    }
  }
}
