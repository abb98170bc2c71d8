// RUN: hipmlir-opt %s --hipmlir-mark-entry-points | FileCheck %s

// Kernels become SPIR-V entry points; one using warp operations asks for 32-wide subgroups
// (HIP's warpSize). Device functions are not entry points.

// CHECK: func.func private @helper
// CHECK-NOT: spirv.entry_point_abi
// CHECK: gpu.func @plain() kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<>}
// CHECK: gpu.func @warp(%{{.*}}: i32) kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<subgroup_size = 32>}
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    func.func private @helper() {
      return
    }
    gpu.func @plain() kernel {
      gpu.return
    }
    gpu.func @warp(%v: i32) kernel {
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %r, %valid = gpu.shuffle  xor %v, %c1, %c32 : i32
      gpu.return
    }
  }
}
