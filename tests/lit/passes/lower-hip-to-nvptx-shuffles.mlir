// RUN: hipmlir-opt %s --hipmlir-lower-hip-to-nvptx | FileCheck %s

// A shuffle (the frontend's `gpu.shuffle idx` over the whole warp, HIP's width segments already
// in the source lane) becomes shfl.sync under the active mask: convert-gpu-to-nvvm would name
// the whole warp, and a shfl.sync waits for every lane it names, so a shuffle in code that part
// of the warp does not run would never finish. 64-bit values and shuffles whose validity flag is
// used are left to convert-gpu-to-nvvm.

// The helpers are defined at the gpu.module's start, the last one first.
// CHECK-LABEL: func.func private @__hipmlir_nvptx_shuffle_idx_i32(
// CHECK-SAME: %[[V:.*]]: i32, %[[S:.*]]: i32) -> i32
// CHECK-NEXT: %[[MASK:.*]] = llvm.call_intrinsic "llvm.nvvm.activemask"() : () -> i32
// CHECK-NEXT: %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT: %[[R:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%[[MASK]], %[[V]], %[[S]], %[[C31]]) : (i32, i32, i32, i32) -> i32
// CHECK-NEXT: return %[[R]] : i32
// CHECK-LABEL: func.func private @__hipmlir_nvptx_shuffle_idx_f32(
// CHECK-SAME: %[[V:.*]]: f32, %[[S:.*]]: i32) -> f32
// CHECK-NEXT: %[[MASK:.*]] = llvm.call_intrinsic "llvm.nvvm.activemask"() : () -> i32
// CHECK-NEXT: %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT: %[[R:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.f32"(%[[MASK]], %[[V]], %[[S]], %[[C31]]) : (i32, f32, i32, i32) -> f32
// CHECK-NEXT: return %[[R]] : f32
// CHECK-LABEL: gpu.func @k
// CHECK: func.call @__hipmlir_nvptx_shuffle_idx_f32(%{{.*}}, %{{.*}}) : (f32, i32) -> f32
// CHECK: func.call @__hipmlir_nvptx_shuffle_idx_i32(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
// CHECK: gpu.shuffle idx %{{.*}} : i64
// CHECK: %[[KEPT:.*]], %[[VALID:.*]] = gpu.shuffle idx %{{.*}} : i32
// CHECK: llvm.store %[[VALID]]
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @k(%f: f32, %i: i32, %l: i64, %src: i32, %out: !llvm.ptr<1>) kernel {
      %w = arith.constant 32 : i32
      %a, %va = gpu.shuffle idx %f, %src, %w : f32
      %b, %vb = gpu.shuffle idx %i, %src, %w : i32
      %c, %vc = gpu.shuffle idx %l, %src, %w : i64
      %d, %vd = gpu.shuffle idx %i, %src, %w : i32
      llvm.store %vd, %out : i1, !llvm.ptr<1>
      gpu.return
    }
  }
}
