// RUN: hipmlir-opt %s --split-input-file --hipmlir-lower-pointers-to-spirv | FileCheck %s
// RUN: hipmlir-opt %s --split-input-file \
// RUN:   --hipmlir-lower-pointers-to-spirv=native-float-atomics=true | FileCheck %s --check-prefix=NATIVE

// C pointers (LLVM dialect, SPIR address spaces) become byte pointers in SPIR-V storage
// classes; each access bitcasts to the type it reads. Declarations take the types their calls
// now pass.

// CHECK: func.func private @__hipmlir_printf_0(!spirv.ptr<i8, UniformConstant>, !spirv.ptr<i8, Generic>) -> i32
// CHECK: gpu.func @add(%[[A:.*]]: !spirv.ptr<i8, CrossWorkgroup>, %[[I:.*]]: i64) kernel
// CHECK: %[[GENERIC:.*]] = spirv.PtrCastToGeneric %[[A]] : !spirv.ptr<i8, CrossWorkgroup> to !spirv.ptr<i8, Generic>
// CHECK: spirv.PtrAccessChain
// CHECK: spirv.Load "Generic"
// CHECK: spirv.Store "CrossWorkgroup"
// CHECK-NOT: llvm.
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    func.func private @__hipmlir_printf_0(!llvm.ptr<2>, !llvm.ptr<4>) -> i32
    gpu.func @add(%arg0: !llvm.ptr<1>, %i: i64) kernel {
      %0 = llvm.addrspacecast %arg0 : !llvm.ptr<1> to !llvm.ptr<4>
      %1 = llvm.getelementptr %0[%i] : (!llvm.ptr<4>, i64) -> !llvm.ptr<4>, f32
      %2 = llvm.load %1 : !llvm.ptr<4> -> f32
      %3 = arith.addf %2, %2 : f32
      llvm.store %3, %1 : f32, !llvm.ptr<4>
      gpu.return
    }
  }
}

// -----

// Float atomicAdd is a compare-and-swap loop, or with native-float-atomics one instruction of
// SPV_EXT_shader_atomic_float_add; integer atomics map to SPIR-V's.

// CHECK: gpu.func @atomics
// CHECK: spirv.AtomicCompareExchange
// CHECK: spirv.AtomicIAdd <Device> <None>
// NATIVE: gpu.func @atomics
// NATIVE-NOT: spirv.AtomicCompareExchange
// NATIVE: spirv.EXT.AtomicFAdd <Device> <None>
// NATIVE: spirv.AtomicIAdd <Device> <None>
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @atomics(%arg1: !llvm.ptr<1>, %arg2: !llvm.ptr<1>) kernel {
      %c1_i64 = arith.constant 1 : i64
      %cst = arith.constant 1.000000e+00 : f32
      %1 = llvm.addrspacecast %arg1 : !llvm.ptr<1> to !llvm.ptr<4>
      %2 = llvm.addrspacecast %arg2 : !llvm.ptr<1> to !llvm.ptr<4>
      %3 = llvm.atomicrmw fadd %1, %cst syncscope("agent") monotonic : !llvm.ptr<4>, f32
      %4 = llvm.atomicrmw add %2, %c1_i64 syncscope("agent") monotonic : !llvm.ptr<4>, i64
      gpu.return
    }
  }
}
