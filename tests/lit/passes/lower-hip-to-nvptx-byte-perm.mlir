// RUN: hipmlir-opt %s --hipmlir-lower-hip-to-nvptx | FileCheck %s

// __byte_perm is one prmt.b32 (llvm.nvvm.prmt). PTX's default mode reads a selector nibble's
// top bit as "replicate the byte's sign", HIP's __byte_perm only the low three bits: the
// selector is masked with 0x7777 first.

// CHECK-LABEL: gpu.func @perm
// CHECK-SAME: (%[[X:.*]]: i32, %[[Y:.*]]: i32, %[[S:.*]]: i32, %{{.*}}: !llvm.ptr<1>)
// CHECK-NOT: call @__byte_perm
// CHECK: %[[MASK:.*]] = arith.constant 30583 : i32
// CHECK: %[[SEL:.*]] = arith.andi %[[S]], %[[MASK]] : i32
// CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.nvvm.prmt"(%[[X]], %[[Y]], %[[SEL]]) : (i32, i32, i32) -> i32
// CHECK: llvm.store %[[R]]
module attributes {gpu.container_module, hipmlir.address_spaces = "nvptx"} {
  gpu.module @hipmlir_kernels {
    func.func private @__byte_perm(i32, i32, i32) -> i32
    gpu.func @perm(%x: i32, %y: i32, %s: i32, %out: !llvm.ptr<1>) kernel {
      %0 = func.call @__byte_perm(%x, %y, %s) : (i32, i32, i32) -> i32
      llvm.store %0, %out : i32, !llvm.ptr<1>
      gpu.return
    }
  }
}
