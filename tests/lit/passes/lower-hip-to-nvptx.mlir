// RUN: hipmlir-opt %s --hipmlir-lower-hip-to-nvptx | FileCheck %s

// HIP semantics that convert-gpu-to-nvvm does not know, on NVPTX-numbered address spaces:
// device library calls become LLVM calls of libdevice's __nv_* functions (fast intrinsics of
// the __nv_fast_* ones), printf becomes vprintf with its arguments in a buffer allocated in the
// kernel's entry block, memory scopes take NVPTX's names, dynamic shared memory is 16-byte
// aligned, warpSize is 32, warp and block votes call helpers (shfl.sync loops over the
// active mask; bar.red), and the clocks read %clock64 and %globaltimer.

// CHECK-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @__nv_hypotf(f32, f32) -> f32
// CHECK-DAG: llvm.func @__nv_fast_expf(f32) -> f32
// CHECK-DAG: func.func private @__hipmlir_nvptx_block_popc(%{{.*}}: i32) -> i32
// CHECK-DAG: llvm.inline_asm has_side_effects "{ .reg .pred %hp; setp.ne.u32 %hp, $1, 0; bar.red.popc.u32 $0, 0, %hp; }"
// CHECK-DAG: func.func private @__hipmlir_nvptx_warp_reduce_add_i64(%{{.*}}: i64) -> i64
// CHECK-DAG: llvm.call_intrinsic "llvm.nvvm.activemask"() : () -> i32
// CHECK-DAG: llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"
// CHECK-DAG: llvm.call_intrinsic "llvm.nvvm.bar.warp.sync"(%{{.*}}) : (i32) -> ()
// CHECK-DAG: llvm.mlir.global external @__hipmlir_dynamic_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: gpu.func @k(%[[F:.*]]: f32, %[[D:.*]]: f64, %[[P:.*]]: i1, %[[B:.*]]: i64)
// CHECK: %[[BUF:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(f64, i32)> {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK: llvm.call @__nv_hypotf(%[[F]], %[[F]]) : (f32, f32) -> f32
// CHECK: llvm.call @__nv_fast_expf(%[[F]]) : (f32) -> f32
// CHECK: %[[FMT:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<4> to !llvm.ptr
// CHECK: %[[F0:.*]] = llvm.getelementptr %[[BUF]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(f64, i32)>
// CHECK: llvm.store %[[D]], %[[F0]] : f64, !llvm.ptr
// CHECK: llvm.getelementptr %[[BUF]][0, 1]
// CHECK: llvm.call @vprintf(%[[FMT]], %[[BUF]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK: llvm.fence syncscope("device") seq_cst
// CHECK: llvm.fence syncscope("block") seq_cst
// CHECK-NEXT: func.call @__hipmlir_nvptx_syncwarp() : () -> ()
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("block") monotonic
// CHECK: func.call @__hipmlir_nvptx_warp_reduce_add_i64(%[[B]]) : (i64) -> i64
// CHECK: func.call @__hipmlir_nvptx_block_popc
// CHECK: arith.constant 32 : index
// CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.clock64"() : () -> i64
// CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.globaltimer"() : () -> i64
// CHECK-NOT: func.call @__hipmlir_clock
// CHECK-NOT: gpu.subgroup_size
// CHECK-NOT: gpu.subgroup_reduce
// CHECK-NOT: gpu.all_reduce
module attributes {gpu.container_module, hipmlir.address_spaces = "nvptx"} {
  gpu.module @hipmlir_kernels {
    llvm.mlir.global internal constant @fmt(dense<0> : tensor<4xi8>) {addr_space = 4 : i32} : !llvm.array<4 x i8>
    llvm.mlir.global external @__hipmlir_dynamic_shared() {addr_space = 3 : i32} : !llvm.array<0 x i8>
    llvm.mlir.global external @counter() {addr_space = 1 : i32} : i32
    func.func private @hypotf(f32, f32) -> f32
    func.func private @__expf(f32) -> f32
    func.func private @__hipmlir_printf_0(!llvm.ptr<4>, f64, i32) -> i32
    func.func private @__hipmlir_clock_cycles() -> i64
    func.func private @__hipmlir_clock_wall() -> i64
    gpu.func @k(%f: f32, %d: f64, %p: i1, %b: i64) kernel {
      %0 = func.call @hypotf(%f, %f) : (f32, f32) -> f32
      %1 = func.call @__expf(%f) : (f32) -> f32
      %s = llvm.mlir.addressof @fmt : !llvm.ptr<4>
      %c1 = arith.constant 1 : i32
      %2 = func.call @__hipmlir_printf_0(%s, %d, %c1) : (!llvm.ptr<4>, f64, i32) -> i32
      llvm.fence syncscope("agent") seq_cst
      llvm.fence syncscope("wavefront") seq_cst
      %g = llvm.mlir.addressof @counter : !llvm.ptr<1>
      %3 = llvm.atomicrmw add %g, %c1 syncscope("workgroup") monotonic : !llvm.ptr<1>, i32
      %4 = gpu.subgroup_reduce add %b : (i64) -> i64
      %e = arith.extui %p : i1 to i32
      %5 = gpu.all_reduce add %e uniform {} : (i32) -> i32
      %6 = gpu.subgroup_size : index
      %7 = func.call @__hipmlir_clock_cycles() : () -> i64
      %8 = func.call @__hipmlir_clock_wall() : () -> i64
      gpu.return
    }
  }
}
