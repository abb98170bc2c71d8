// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses=subgroup-vote | FileCheck %s

// -fsanitize=address, checks hoisted out of the work-group: where every checked access of a
// kernel is an affine function of the work-item's ids (and of counted loops' counters), its
// addresses at the corners of the work-group are checked at the entry, and where all pass, a
// copy of the body made before the pass changed it runs with no check in it. The copy goes in
// the kernel's guard (`if (i < n)`), which a CPU device compiler turns into the bounds of its
// loop over the work-group. A 32-bit index computed with unsigned arithmetic (HIP's
// `blockIdx.x * blockDim.x + threadIdx.x`, which may wrap) is computed in 64 bits at the
// corners and must fit 32 bits there. The copy's writes wait for a clear error word.

// (The verdict's variable, used by @staged below.)
// CHECK: llvm.mlir.global internal @__hipmlir_memcheck_verdict() {addr_space = 3 : i32} : i32
// CHECK-LABEL: gpu.func @add_one
// The corner at the greatest thread id: blockDim.x - 1, and i = blockIdx.x * blockDim.x + it
// fits 32 bits.
// CHECK: %[[WIDE_DIM:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK-NEXT: %{{.*}} = arith.constant 1 : i64
// CHECK-NEXT: %[[LAST:.*]] = arith.subi %[[WIDE_DIM]]
// CHECK: %[[I:.*]] = arith.addi %{{.*}}, %[[LAST]] : i64
// CHECK: arith.cmpi sge, %[[I]], %c-2147483648_i64
// CHECK: arith.cmpi sle, %[[I]], %c2147483647_i64
// CHECK: %[[GUARD:.*]] = arith.cmpi slt
// CHECK-NEXT: scf.if %[[GUARD]] {
// CHECK-NEXT: scf.if %{{.*}} {
// CHECK-NOT: func.call
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: %[[ERROR:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK-NEXT: %{{.*}} = arith.constant 0 : i64
// CHECK-NEXT: %[[CLEAR:.*]] = arith.cmpi eq, %[[ERROR]]
// CHECK-NEXT: scf.if %[[CLEAR]] {
// CHECK-NEXT: llvm.store
// CHECK: } else {
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: gpu.return

// Under `if (threadIdx.x < 3)` the greatest thread id of the access is min(blockDim.x - 1, 2).
// CHECK-LABEL: gpu.func @first_three
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: %[[LAST:.*]] = arith.subi
// CHECK: %[[BOUND:.*]] = arith.extui %c3_i32 : i32 to i64
// CHECK-NEXT: %{{.*}} = arith.constant 1 : i64
// CHECK-NEXT: %[[BELOW:.*]] = arith.subi %[[BOUND]]
// CHECK-NEXT: arith.minsi %[[LAST]], %[[BELOW]] : i64
// CHECK: scf.if %{{.*}} {
// CHECK-NOT: func.call
// CHECK: } else {
// CHECK: func.call @__hipmlir_memcheck_slow_path

// With a barrier, a CPU device compiler computes the entry for each work-item: the corners
// are computed by the work-group's first work-item only, which stores the verdict in a
// work-group variable that every work-item reads behind a barrier.
// CHECK-LABEL: gpu.func @staged
// CHECK: %[[X:.*]] = gpu.thread_id x
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.cmpi eq, %[[X]]
// CHECK: %[[Z:.*]] = gpu.thread_id z
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: %[[Z0:.*]] = arith.cmpi eq, %[[Z]]
// CHECK-NEXT: %[[FIRST:.*]] = arith.andi %{{.*}}, %[[Z0]]
// CHECK-NEXT: scf.if %[[FIRST]] -> (i1) {
// CHECK: %[[WORD:.*]] = arith.extui %[[PASSED:.*]] : i1 to i32
// CHECK-NEXT: %[[SLOT:.*]] = llvm.mlir.addressof @__hipmlir_memcheck_verdict
// CHECK-NEXT: llvm.store %[[WORD]], %[[SLOT]]
// CHECK-NEXT: scf.yield %[[PASSED]] : i1
// CHECK: gpu.barrier
// CHECK-NEXT: %[[SHARED:.*]] = llvm.mlir.addressof @__hipmlir_memcheck_verdict
// CHECK-NEXT: %[[READ:.*]] = llvm.load %[[SHARED]]
// CHECK: %[[VERDICT:.*]] = arith.cmpi ne, %[[READ]]
// CHECK: scf.if %[[VERDICT]] {
// CHECK-NOT: func.call
// CHECK: gpu.barrier
// CHECK: } else {
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: gpu.barrier
// CHECK: gpu.return

// A loop to n by 16: the last count is exact (n - 16 for n a multiple of 16).
// CHECK-LABEL: gpu.func @tiles
// CHECK: arith.divsi %{{.*}}, %c16_i64
// CHECK: gpu.barrier
// CHECK: } else {
// CHECK: gpu.barrier
// CHECK: gpu.return

// An address read from memory is no function of the ids: no copy.
// CHECK-LABEL: gpu.func @indirect
// CHECK-NOT: gpu.block_dim
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<256 x f32>
    gpu.func @add_one(%a: !llvm.ptr<1>, %c: !llvm.ptr<1>, %n: i32) kernel attributes {hipmlir.kernel_name = "add_one"} {
      %one = arith.constant 1.0 : f32
      %ga = llvm.addrspacecast %a : !llvm.ptr<1> to !llvm.ptr
      %gc = llvm.addrspacecast %c : !llvm.ptr<1> to !llvm.ptr
      %bid = gpu.block_id x
      %b32 = arith.index_castui %bid : index to i32
      %bdim = gpu.block_dim x
      %d32 = arith.index_castui %bdim : index to i32
      %base = arith.muli %b32, %d32 : i32
      %tid = gpu.thread_id x
      %t32 = arith.index_castui %tid : index to i32
      %i = arith.addi %base, %t32 : i32
      %in = arith.cmpi slt, %i, %n : i32
      scf.if %in {
        %i64 = arith.extsi %i : i32 to i64
        %pa = llvm.getelementptr %ga[%i64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
        %x = llvm.load %pa : !llvm.ptr -> f32
        %y = arith.addf %x, %one : f32
        %pc = llvm.getelementptr %gc[%i64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
        llvm.store %y, %pc : f32, !llvm.ptr
      }
      gpu.return
    }
    gpu.func @first_three(%a: !llvm.ptr<1>, %v: f32) kernel attributes {hipmlir.kernel_name = "first_three"} {
      %three = arith.constant 3 : i32
      %ga = llvm.addrspacecast %a : !llvm.ptr<1> to !llvm.ptr
      %tid = gpu.thread_id x
      %t32 = arith.index_castui %tid : index to i32
      %few = arith.cmpi ult, %t32, %three : i32
      scf.if %few {
        %t64 = arith.extui %t32 : i32 to i64
        %p = llvm.getelementptr %ga[%t64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
        llvm.store %v, %p : f32, !llvm.ptr
      }
      gpu.return
    }
    gpu.func @staged(%a: !llvm.ptr<1>) kernel attributes {hipmlir.kernel_name = "staged"} {
      %ga = llvm.addrspacecast %a : !llvm.ptr<1> to !llvm.ptr
      %s = llvm.mlir.addressof @tile : !llvm.ptr<3>
      %gs = llvm.addrspacecast %s : !llvm.ptr<3> to !llvm.ptr
      %tid = gpu.thread_id x
      %t32 = arith.index_castui %tid : index to i32
      %t64 = arith.extui %t32 : i32 to i64
      %p = llvm.getelementptr %ga[%t64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %x = llvm.load %p : !llvm.ptr -> f32
      %q = llvm.getelementptr %gs[%t64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      llvm.store %x, %q : f32, !llvm.ptr
      gpu.barrier
      gpu.return
    }
    gpu.func @tiles(%a: !llvm.ptr<1>, %n: i32) kernel attributes {hipmlir.kernel_name = "tiles"} {
      %zero = arith.constant 0 : i32
      %sixteen = arith.constant 16 : i32
      %ga = llvm.addrspacecast %a : !llvm.ptr<1> to !llvm.ptr
      %s = llvm.mlir.addressof @tile : !llvm.ptr<3>
      %gs = llvm.addrspacecast %s : !llvm.ptr<3> to !llvm.ptr
      %tid = gpu.thread_id x
      %t32 = arith.index_castui %tid : index to i32
      %done = scf.while (%t = %zero) : (i32) -> i32 {
        %more = arith.cmpi slt, %t, %n : i32
        scf.condition(%more) %t : i32
      } do {
      ^bb0(%t: i32):
        %k = arith.addi %t, %t32 overflow<nsw> : i32
        %k64 = arith.extsi %k : i32 to i64
        %p = llvm.getelementptr %ga[%k64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
        %x = llvm.load %p : !llvm.ptr -> f32
        %t64 = arith.extui %t32 : i32 to i64
        %q = llvm.getelementptr %gs[%t64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
        llvm.store %x, %q : f32, !llvm.ptr
        gpu.barrier
        %next = arith.addi %t, %sixteen overflow<nsw> : i32
        scf.yield %next : i32
      }
      gpu.return
    }
    gpu.func @indirect(%a: !llvm.ptr<1>, %v: f32) kernel attributes {hipmlir.kernel_name = "indirect"} {
      %ga = llvm.addrspacecast %a : !llvm.ptr<1> to !llvm.ptr
      %target = llvm.load %ga : !llvm.ptr -> !llvm.ptr
      llvm.store %v, %target : f32, !llvm.ptr
      gpu.return
    }
  }
}
