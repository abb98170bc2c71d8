// RUN: hipmlir-opt %s --hipmlir-linearize-warp-blocks | FileCheck %s

// A kernel using warp operations runs with a 1-D work-group: threadIdx is recomputed from the
// linear local id and blockDim arrives as three trailing i32 arguments; the kernel is marked
// hipmlir.linear_block for the runtime. Kernels without warp operations keep their shape.

// CHECK: gpu.func @warp(%{{.*}}: !llvm.ptr<1>, %[[DX:.*]]: i32, %[[DY:.*]]: i32, %[[DZ:.*]]: i32) kernel
// CHECK-SAME: hipmlir.linear_block
// CHECK-NOT: gpu.thread_id  y
// CHECK-NOT: gpu.block_dim
// CHECK: gpu.shuffle
// CHECK: gpu.func @plain(%{{.*}}: !llvm.ptr<1>) kernel
// CHECK-NOT: hipmlir.linear_block
// CHECK: gpu.thread_id  y
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @warp(%arg0: !llvm.ptr<1>) kernel attributes {hipmlir.kernel_args = [], hipmlir.kernel_args_size = 8 : i64, hipmlir.kernel_name = "warp"} {
      %c1_i32 = arith.constant 1 : i32
      %c32_i32 = arith.constant 32 : i32
      %0 = llvm.addrspacecast %arg0 : !llvm.ptr<1> to !llvm.ptr<4>
      %tx = gpu.thread_id  x
      %1 = arith.index_castui %tx : index to i32
      %ty = gpu.thread_id  y
      %2 = arith.index_castui %ty : index to i32
      %bx = gpu.block_dim  x
      %3 = arith.index_castui %bx : index to i32
      %4 = arith.muli %2, %3 : i32
      %5 = arith.addi %4, %1 : i32
      %6 = arith.extui %5 : i32 to i64
      %7 = llvm.getelementptr %0[%6] : (!llvm.ptr<4>, i64) -> !llvm.ptr<4>, i32
      %r, %valid = gpu.shuffle  down %1, %c1_i32, %c32_i32 : i32
      llvm.store %r, %7 : i32, !llvm.ptr<4>
      gpu.return
    }
    gpu.func @plain(%arg0: !llvm.ptr<1>) kernel attributes {hipmlir.kernel_args = [], hipmlir.kernel_args_size = 8 : i64, hipmlir.kernel_name = "plain"} {
      %ty = gpu.thread_id  y
      gpu.return
    }
  }
}
