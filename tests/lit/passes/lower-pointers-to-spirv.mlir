// RUN: hipmlir-opt %s --split-input-file --hipmlir-lower-pointers-to-spirv | FileCheck %s
// RUN: hipmlir-opt %s --split-input-file \
// RUN:   --hipmlir-lower-pointers-to-spirv=native-float-atomics=true | FileCheck %s --check-prefix=NATIVE

// C pointers (LLVM dialect, SPIR address spaces) become byte pointers in SPIR-V storage
// classes; each access bitcasts to the type it reads. Declarations take the types their calls
// now pass. A load or store through a generic pointer known to point into one space (here a
// kernel argument's) accesses that space.

// CHECK: func.func private @__hipmlir_printf_0(!spirv.ptr<i8, UniformConstant>, !spirv.ptr<i8, Generic>) -> i32
// CHECK: gpu.func @add(%[[A:.*]]: !spirv.ptr<i8, CrossWorkgroup>, %[[I:.*]]: i64) kernel
// CHECK: %[[GENERIC:.*]] = spirv.PtrCastToGeneric %[[A]] : !spirv.ptr<i8, CrossWorkgroup> to !spirv.ptr<i8, Generic>
// CHECK: spirv.PtrAccessChain
// CHECK: spirv.GenericCastToPtr
// CHECK: spirv.Load "CrossWorkgroup"
// CHECK: spirv.GenericCastToPtr
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

// -----

// An atomic on a Generic pointer of unknown space (here loaded from memory) is specialized at
// run time: the global atomic when the pointer casts to CrossWorkgroup, the local one when it
// casts to Workgroup, else (private memory) a plain load, operation and store. The local one
// has the work-group's scope: no other work-group reaches that memory.

// CHECK: gpu.func @generic_atomics
// CHECK: %[[GLOBAL:.*]] = spirv.GenericCastToPtrExplicit %{{.*}} : !spirv.ptr<i8, Generic> to !spirv.ptr<i8, CrossWorkgroup>
// CHECK: spirv.ConvertPtrToU %[[GLOBAL]]
// CHECK: scf.if
// CHECK: spirv.AtomicIAdd <Device> <None> %{{.*}} : !spirv.ptr<i32, CrossWorkgroup>
// CHECK: } else {
// CHECK: %[[LOCAL:.*]] = spirv.GenericCastToPtrExplicit %{{.*}} : !spirv.ptr<i8, Generic> to !spirv.ptr<i8, Workgroup>
// CHECK: scf.if
// CHECK: spirv.AtomicIAdd <Workgroup> <None> %{{.*}} : !spirv.ptr<i32, Workgroup>
// CHECK: } else {
// CHECK: %[[OLD:.*]] = spirv.Load "Generic"
// CHECK: %[[NEW:.*]] = spirv.IAdd %[[OLD]]
// CHECK: spirv.Store "Generic" %{{.*}}, %[[NEW]]
// CHECK: scf.yield %[[OLD]]
// The float add's loop runs on the specific pointer, never on the generic one.
// CHECK: spirv.GenericCastToPtrExplicit
// CHECK: spirv.AtomicCompareExchange <Device> <None> <None> %{{.*}} : !spirv.ptr<i64, CrossWorkgroup>
// CHECK: spirv.AtomicCompareExchange <Workgroup> <None> <None> %{{.*}} : !spirv.ptr<i64, Workgroup>
// CHECK: spirv.FAdd
// CHECK: spirv.Store "Generic"
// CHECK-NOT: spirv.Atomic{{.*}}Generic
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @generic_atomics(%arg0: !llvm.ptr<1>) kernel {
      %c1 = arith.constant 1 : i32
      %cst = arith.constant 1.000000e+00 : f64
      %0 = llvm.load %arg0 : !llvm.ptr<1> -> !llvm.ptr<4>
      %1 = llvm.atomicrmw add %0, %c1 syncscope("agent") monotonic : !llvm.ptr<4>, i32
      %2 = llvm.atomicrmw fadd %0, %cst syncscope("agent") monotonic : !llvm.ptr<4>, f64
      gpu.return
    }
  }
}
