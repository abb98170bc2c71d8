// RUN: hipmlir-opt %s --hipmlir-lower-hip-to-nvptx | FileCheck %s

// The bodies of the helpers the NVPTX lowering calls (each defined once per gpu.module, at its
// start, so in the reverse order of first use): block votes as bar.red, warp reductions as a
// loop over the active lanes reading each with shfl.sync under the active mask (a 64-bit value
// as two 32-bit halves), starting from the reduction's identity, and __syncwarp as
// bar.warp.sync of the whole warp after the fence.

// CHECK-LABEL: func.func private @__hipmlir_nvptx_block_popc(%{{.*}}: i32) -> i32
// CHECK-NEXT: %[[R:.*]] = llvm.inline_asm has_side_effects "{ .reg .pred %hp; setp.ne.u32 %hp, $1, 0; bar.red.popc.u32 $0, 0, %hp; }", "=r,r" %{{.*}} : (i32) -> i32
// CHECK-NEXT: return %[[R]] : i32

// A maximum of 0/1 values is "any": bar.red.or.
// CHECK-LABEL: func.func private @__hipmlir_nvptx_block_or(%{{.*}}: i32) -> i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "{ .reg .pred %hp, %hq; setp.ne.u32 %hp, $1, 0; bar.red.or.pred %hq, 0, %hp; selp.u32 $0, 1, 0, %hq; }", "=r,r"

// CHECK-LABEL: func.func private @__hipmlir_nvptx_block_and(%{{.*}}: i32) -> i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "{ .reg .pred %hp, %hq; setp.ne.u32 %hp, $1, 0; bar.red.and.pred %hq, 0, %hp; selp.u32 $0, 1, 0, %hq; }", "=r,r"

// CHECK-LABEL: func.func private @__hipmlir_nvptx_warp_reduce_minsi_i64(
// CHECK-SAME: %[[V:.*]]: i64) -> i64
// CHECK-NEXT: %[[MASK:.*]] = llvm.call_intrinsic "llvm.nvvm.activemask"() : () -> i32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[C31:.*]] = arith.constant 31 : i32
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : i32
// CHECK-NEXT: %[[SHIFT:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[MAX:.*]] = arith.constant 9223372036854775807 : i64
// CHECK-NEXT: %[[R:.*]] = scf.for %[[LANE:.*]] = %[[C0]] to %[[C32]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[MAX]]) -> (i64)  : i32 {
// CHECK-NEXT: %[[S:.*]] = arith.shrui %[[MASK]], %[[LANE]] : i32
// CHECK-NEXT: %[[B:.*]] = arith.andi %[[S]], %[[C1]] : i32
// CHECK-NEXT: %[[ON:.*]] = arith.cmpi ne, %[[B]], %[[C0]] : i32
// CHECK-NEXT: %[[N:.*]] = scf.if %[[ON]] -> (i64) {
// CHECK-NEXT: %[[LO:.*]] = arith.trunci %[[V]] : i64 to i32
// CHECK-NEXT: %[[H:.*]] = arith.shrui %[[V]], %[[SHIFT]] : i64
// CHECK-NEXT: %[[HI:.*]] = arith.trunci %[[H]] : i64 to i32
// CHECK-NEXT: %[[XLO:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%[[MASK]], %[[LO]], %[[LANE]], %[[C31]]) : (i32, i32, i32, i32) -> i32
// CHECK-NEXT: %[[XHI:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%[[MASK]], %[[HI]], %[[LANE]], %[[C31]]) : (i32, i32, i32, i32) -> i32
// CHECK-NEXT: %[[WLO:.*]] = arith.extui %[[XLO]] : i32 to i64
// CHECK-NEXT: %[[WHI:.*]] = arith.extui %[[XHI]] : i32 to i64
// CHECK-NEXT: %[[UP:.*]] = arith.shli %[[WHI]], %[[SHIFT]] : i64
// CHECK-NEXT: %[[X:.*]] = arith.ori %[[UP]], %[[WLO]] : i64
// CHECK-NEXT: %[[Y:.*]] = arith.minsi %[[ACC]], %[[X]] : i64
// CHECK-NEXT: scf.yield %[[Y]] : i64
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[ACC]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[N]] : i64
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : i64

// CHECK-LABEL: func.func private @__hipmlir_nvptx_warp_reduce_maxsi_i32(
// CHECK-SAME: %[[V:.*]]: i32) -> i32
// CHECK-NEXT: %[[MASK:.*]] = llvm.call_intrinsic "llvm.nvvm.activemask"() : () -> i32
// CHECK-NOT: i64
// CHECK: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK-NEXT: scf.for %[[LANE:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %[[MIN]]) -> (i32)
// CHECK: scf.if
// CHECK-NEXT: %[[X:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.i32"(%[[MASK]], %[[V]], %[[LANE]], %{{.*}}) : (i32, i32, i32, i32) -> i32
// CHECK-NEXT: %[[Y:.*]] = arith.maxsi %[[ACC]], %[[X]] : i32
// CHECK-NEXT: scf.yield %[[Y]] : i32

// CHECK-LABEL: func.func private @__hipmlir_nvptx_syncwarp() {
// CHECK-NEXT: %[[ALL:.*]] = arith.constant -1 : i32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.bar.warp.sync"(%[[ALL]]) : (i32) -> ()
// CHECK-NEXT: return

// CHECK-LABEL: gpu.func @k(
// CHECK-SAME: %[[I:.*]]: i32, %[[L:.*]]: i64)
// CHECK-NEXT: func.call @__hipmlir_nvptx_warp_reduce_maxsi_i32(%[[I]]) : (i32) -> i32
// CHECK-NEXT: func.call @__hipmlir_nvptx_warp_reduce_minsi_i64(%[[L]]) : (i64) -> i64
// CHECK-NEXT: func.call @__hipmlir_nvptx_block_and(%[[I]]) : (i32) -> i32
// CHECK-NEXT: func.call @__hipmlir_nvptx_block_or(%[[I]]) : (i32) -> i32
// CHECK-NEXT: func.call @__hipmlir_nvptx_block_popc(%[[I]]) : (i32) -> i32
// CHECK-NEXT: llvm.fence syncscope("block") release
// CHECK-NEXT: func.call @__hipmlir_nvptx_syncwarp() : () -> ()
// CHECK-NEXT: gpu.return
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @k(%i: i32, %l: i64) kernel {
      %0 = gpu.subgroup_reduce maxsi %i : (i32) -> i32
      %1 = gpu.subgroup_reduce minsi %l : (i64) -> i64
      %2 = gpu.all_reduce and %i uniform {} : (i32) -> i32
      %3 = gpu.all_reduce maxsi %i uniform {} : (i32) -> i32
      %4 = gpu.all_reduce add %i uniform {} : (i32) -> i32
      llvm.fence syncscope("wavefront") release
      gpu.return
    }
  }
}
