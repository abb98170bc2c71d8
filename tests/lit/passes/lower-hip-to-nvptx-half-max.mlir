// RUN: hipmlir-opt %s --hipmlir-lower-hip-to-nvptx | FileCheck %s

// fmax/fmin of halves and of pairs (__hmax, __hmax2, ...) become LLVM's maxnum/minnum, which
// NVPTX emits as max.f16 / max.f16x2 from sm_80 (through float before); convert-gpu-to-nvvm
// would call libdevice's __nv_fmaxf on each lane. Float ones are left to it.

// CHECK-LABEL: gpu.func @min_max
// CHECK-SAME: (%[[A:.*]]: f16, %[[B:.*]]: f16, %[[X:.*]]: vector<2xf16>, %[[Y:.*]]: vector<2xf16>, %[[F:.*]]: f32
// CHECK: llvm.intr.maxnum(%[[A]], %[[B]]) : (f16, f16) -> f16
// CHECK: llvm.intr.minnum(%[[A]], %[[B]]) : (f16, f16) -> f16
// CHECK: llvm.intr.maxnum(%[[X]], %[[Y]]) : (vector<2xf16>, vector<2xf16>) -> vector<2xf16>
// CHECK: llvm.intr.minnum(%[[X]], %[[Y]]) : (vector<2xf16>, vector<2xf16>) -> vector<2xf16>
// CHECK: arith.maxnumf %[[F]], %[[F]] : f32
module attributes {gpu.container_module, hipmlir.address_spaces = "nvptx"} {
  gpu.module @hipmlir_kernels {
    gpu.func @min_max(%a: f16, %b: f16, %x: vector<2xf16>, %y: vector<2xf16>, %f: f32, %out: !llvm.ptr<1>) kernel {
      %0 = arith.maxnumf %a, %b : f16
      %1 = arith.minnumf %a, %b : f16
      %2 = arith.maxnumf %x, %y : vector<2xf16>
      %3 = arith.minnumf %x, %y : vector<2xf16>
      %4 = arith.maxnumf %f, %f : f32
      llvm.store %0, %out : f16, !llvm.ptr<1>
      llvm.store %1, %out : f16, !llvm.ptr<1>
      llvm.store %2, %out : vector<2xf16>, !llvm.ptr<1>
      llvm.store %3, %out : vector<2xf16>, !llvm.ptr<1>
      llvm.store %4, %out : f32, !llvm.ptr<1>
      gpu.return
    }
  }
}
