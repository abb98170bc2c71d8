// RUN: hipmlir-opt %s --hipmlir-widen-work-item-ids | FileCheck %s

// A 32-bit work-item id extended to 64 bits (an array subscript) is the id's 64-bit value:
// ids are below 2^32, and those bounded by the work-group size below 2^31 (so the signed
// extension of threadIdx and blockDim is exact too). The signed extension of a block id, which
// may reach 2^31, and an extension of arithmetic on an id stay.

// CHECK-LABEL: gpu.func @ids
// CHECK: %[[A:.*]] = arith.index_castui %thread_id_x : index to i64
// CHECK: llvm.getelementptr %{{.*}}[%[[A]]]
// A truncation nothing else uses goes.
// CHECK-NOT: %thread_id_y : index to i32
// CHECK: %[[B:.*]] = arith.index_castui %thread_id_y : index to i64
// CHECK: llvm.getelementptr %{{.*}}[%[[B]]]
// CHECK: %[[BX32:.*]] = arith.index_castui %block_id_x : index to i32
// CHECK: %[[C:.*]] = arith.index_castui %block_id_x : index to i64
// CHECK: llvm.getelementptr %{{.*}}[%[[C]]]
// CHECK: %[[D:.*]] = arith.extsi %[[BX32]] : i32 to i64
// CHECK: llvm.getelementptr %{{.*}}[%[[D]]]
// CHECK: %[[E:.*]] = arith.index_castui %block_dim_x : index to i64
// CHECK: llvm.getelementptr %{{.*}}[%[[E]]]
// CHECK: %[[SUM:.*]] = arith.addi
// CHECK: %[[F:.*]] = arith.extui %[[SUM]] : i32 to i64
// CHECK: llvm.getelementptr %{{.*}}[%[[F]]]
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @ids(%p: !llvm.ptr<3>, %n: i32) kernel {
      %tx = gpu.thread_id x
      %tx32 = arith.index_castui %tx : index to i32
      %a = arith.extui %tx32 : i32 to i64
      %pa = llvm.getelementptr %p[%a] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
      %ty = gpu.thread_id y
      %ty32 = arith.index_castui %ty : index to i32
      %b = arith.extsi %ty32 : i32 to i64
      %pb = llvm.getelementptr %p[%b] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
      %bx = gpu.block_id x
      %bx32 = arith.index_castui %bx : index to i32
      %c = arith.extui %bx32 : i32 to i64
      %pc = llvm.getelementptr %p[%c] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
      %d = arith.extsi %bx32 : i32 to i64
      %pd = llvm.getelementptr %p[%d] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
      %dx = gpu.block_dim x
      %dx32 = arith.index_castui %dx : index to i32
      %e = arith.extsi %dx32 : i32 to i64
      %pe = llvm.getelementptr %p[%e] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
      %sum = arith.addi %tx32, %n : i32
      %f = arith.extui %sum : i32 to i64
      %pf = llvm.getelementptr %p[%f] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
      gpu.return
    }
  }
}
