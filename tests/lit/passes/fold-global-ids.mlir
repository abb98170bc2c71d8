// RUN: hipmlir-opt %s --hipmlir-fold-global-ids | FileCheck %s

// HIP's global index, blockIdx.d * blockDim.d + threadIdx.d in 32 bits, in either operand
// order, is the low half of the global id (launches have no global offset); the product, the
// truncations and the ids nothing else uses go. Sums of ids of different dimensions, of other
// ids, in 64 bits, or whose local id the kernel uses elsewhere (a stencil's shared tile) stay.

// CHECK-LABEL: gpu.func @global_index
// CHECK-NOT: gpu.block_id x
// CHECK: %[[G:.*]] = gpu.global_id x
// CHECK: %[[I:.*]] = arith.index_castui %[[G]] : index to i32
// CHECK: arith.extsi %[[I]] : i32 to i64
// CHECK: %[[GY:.*]] = gpu.global_id y
// CHECK: %[[IY:.*]] = arith.index_castui %[[GY]] : index to i32
// CHECK: arith.cmpi slt, %[[IY]]
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @global_index(%p: !llvm.ptr<1>, %n: i32) kernel {
      %bx = gpu.block_id x
      %bx32 = arith.index_castui %bx : index to i32
      %dx = gpu.block_dim x
      %dx32 = arith.index_castui %dx : index to i32
      %offset = arith.muli %bx32, %dx32 : i32
      %tx = gpu.thread_id x
      %tx32 = arith.index_castui %tx : index to i32
      %i = arith.addi %offset, %tx32 : i32
      %wide = arith.extsi %i : i32 to i64
      %pa = llvm.getelementptr %p[%wide] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      // The other order: threadIdx.y + blockDim.y * blockIdx.y.
      %by = gpu.block_id y
      %by32 = arith.index_castui %by : index to i32
      %dy = gpu.block_dim y
      %dy32 = arith.index_castui %dy : index to i32
      %offset_y = arith.muli %dy32, %by32 : i32
      %ty = gpu.thread_id y
      %ty32 = arith.index_castui %ty : index to i32
      %j = arith.addi %ty32, %offset_y : i32
      %inside = arith.cmpi slt, %j, %n : i32
      gpu.return
    }

    // CHECK-LABEL: gpu.func @not_global_indices
    // CHECK-NOT: gpu.global_id
    // CHECK: gpu.return
    gpu.func @not_global_indices(%n: i32) kernel {
      // Dimensions that differ: blockIdx.x * blockDim.x + threadIdx.y.
      %bx = gpu.block_id x
      %bx32 = arith.index_castui %bx : index to i32
      %dx = gpu.block_dim x
      %dx32 = arith.index_castui %dx : index to i32
      %offset = arith.muli %bx32, %dx32 : i32
      %ty = gpu.thread_id y
      %ty32 = arith.index_castui %ty : index to i32
      %a = arith.addi %offset, %ty32 : i32
      // Grid dimensions in place of block dimensions: blockIdx.x * gridDim.x + threadIdx.x.
      %gx = gpu.grid_dim x
      %gx32 = arith.index_castui %gx : index to i32
      %other = arith.muli %bx32, %gx32 : i32
      %tx = gpu.thread_id x
      %tx32 = arith.index_castui %tx : index to i32
      %b = arith.addi %other, %tx32 : i32
      // 64-bit arithmetic (size_t): blockIdx.x * blockDim.x + threadIdx.x without truncation.
      %bx64 = arith.index_castui %bx : index to i64
      %dx64 = arith.index_castui %dx : index to i64
      %tx64 = arith.index_castui %tx : index to i64
      %offset64 = arith.muli %bx64, %dx64 : i64
      %c = arith.addi %offset64, %tx64 : i64
      // The local id used elsewhere too: threadIdx.z + blockIdx.z * blockDim.z and threadIdx.z + 3.
      %bz = gpu.block_id z
      %bz32 = arith.index_castui %bz : index to i32
      %dz = gpu.block_dim z
      %dz32 = arith.index_castui %dz : index to i32
      %offset_z = arith.muli %bz32, %dz32 : i32
      %tz = gpu.thread_id z
      %tz32 = arith.index_castui %tz : index to i32
      %d = arith.addi %tz32, %offset_z : i32
      %three = arith.constant 3 : i32
      %e = arith.addi %tz32, %three : i32
      gpu.return
    }
  }
}
