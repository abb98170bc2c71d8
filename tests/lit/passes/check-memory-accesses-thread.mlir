// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses=subgroup-vote | FileCheck %s

// -fsanitize=address: the report names HIP's threadIdx. A kernel without warp operations passes
// the slow path no thread (-1), and the slow path reads the work-item's own ids when it reports
// (passed by every check, all six ids were extracted lane by lane in the checks' hot path by
// Intel's CPU compiler; read by the report, only threadIdx.x still is). A kernel using warp
// operations runs on SPIR-V as a linear work-group whose local ids are not HIP's
// (linearize-warp-blocks recomputes threadIdx in the kernel only): it reads threadIdx at its
// entry and passes it packed in one word, x | y << 21 | z << 42.

// The report: threadIdx from the passed word's fields, or the work-item's own.
// CHECK-LABEL: func.func private @__hipmlir_memcheck_slow_path
// CHECK-SAME: %[[ADDRESS:[^:]*]]: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %[[THREAD:[^:]*]]: i64,
// CHECK: %[[OWN_X:.*]] = arith.index_castui %thread_id_x
// CHECK: %[[OWN_Y:.*]] = arith.index_castui %thread_id_y
// CHECK: %[[OWN_Z:.*]] = arith.index_castui %thread_id_z
// CHECK: %[[PASSED:.*]] = arith.cmpi ne, %[[THREAD]], %c-1_i64
// CHECK: %[[X:.*]] = arith.andi
// CHECK-NEXT: arith.select %[[PASSED]], %[[X]], %[[OWN_X]]
// CHECK: arith.shrui %[[THREAD]], %c21_i64
// CHECK: %[[Y:.*]] = arith.andi
// CHECK-NEXT: arith.select %[[PASSED]], %[[Y]], %[[OWN_Y]]
// CHECK: arith.shrui %[[THREAD]], %c42_i64
// CHECK: %[[Z:.*]] = arith.andi
// CHECK-NEXT: arith.select %[[PASSED]], %[[Z]], %[[OWN_Z]]
// CHECK: gpu.block_id x
// CHECK: llvm.atomicrmw add
//
// CHECK-LABEL: gpu.func @plain
// CHECK-NOT: gpu.thread_id
// CHECK: %[[NONE:.*]] = arith.constant -1 : i64
// CHECK-NOT: gpu.thread_id
// CHECK: func.call @__hipmlir_memcheck_slow_path({{.*}}, %[[NONE]], {{.*}})
// CHECK: gpu.return
//
// CHECK-LABEL: gpu.func @warp
// CHECK: %[[TX:.*]] = arith.index_castui %thread_id_x
// CHECK: %[[TY:.*]] = arith.index_castui %thread_id_y
// CHECK: %[[TZ:.*]] = arith.index_castui %thread_id_z
// CHECK: arith.shli %[[TX]], %c0_i64
// CHECK: arith.shli %[[TY]], %c21_i64
// CHECK: arith.shli %[[TZ]], %c42_i64
// CHECK-NEXT: %[[PACKED:.*]] = arith.ori
// CHECK: spirv.GroupNonUniformAny
// CHECK: func.call @__hipmlir_memcheck_slow_path({{.*}}, %[[PACKED]], {{.*}})
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @threads {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    gpu.func @plain(%p: !llvm.ptr<1>, %i: i64, %v: i32) kernel attributes {hipmlir.kernel_name = "plain"} {
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %e = llvm.getelementptr %g[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      llvm.store %v, %e : i32, !llvm.ptr
      gpu.return
    }
    gpu.func @warp(%p: !llvm.ptr<1>, %i: i64, %v: i32) kernel attributes {hipmlir.kernel_name = "warp"} {
      %offset = arith.constant 1 : i32
      %width = arith.constant 32 : i32
      %s, %valid = gpu.shuffle xor %v, %offset, %width : i32
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %e = llvm.getelementptr %g[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      llvm.store %s, %e : i32, !llvm.ptr
      gpu.return
    }
  }
}
