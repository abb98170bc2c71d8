// RUN: hipmlir-opt %s --hipmlir-lower-pointers-to-spirv | FileCheck %s

// A global's initial bytes become a spec-constant composite of one spec constant per distinct
// byte (shared by the module's globals), which the variable names as its initializer; a
// zero-filled global is only marked, for the serializer's patch to give it OpConstantNull.
// An external definition (a variable the host reaches, see device_link::host_visible) is
// exported, so that the device's compiler never takes it for the module's own.

// CHECK-DAG: spirv.SpecConstant @__hipmlir_byte_0 = 0 : i8
// CHECK-DAG: spirv.SpecConstant @__hipmlir_byte_104 = 104 : i8
// CHECK-DAG: spirv.SpecConstant @__hipmlir_byte_105 = 105 : i8
// CHECK-DAG: spirv.SpecConstant @__hipmlir_byte_200 = -56 : i8
// CHECK-NOT: spirv.SpecConstant @
// CHECK: spirv.SpecConstantComposite @__hipmlir_init_greeting (@__hipmlir_byte_104, @__hipmlir_byte_105, @__hipmlir_byte_0) : !spirv.array<3 x i8>
// CHECK-NEXT: spirv.GlobalVariable @greeting initializer(@__hipmlir_init_greeting) : !spirv.ptr<!spirv.array<3 x i8>, UniformConstant>
// CHECK: spirv.SpecConstantComposite @__hipmlir_init_table (@__hipmlir_byte_200, @__hipmlir_byte_0, @__hipmlir_byte_104, @__hipmlir_byte_0) : !spirv.array<4 x i8>
// CHECK-NEXT: spirv.GlobalVariable @table initializer(@__hipmlir_init_table) {linkage_attributes = #spirv.linkage_attributes<linkage_name = "table", linkage_type = <Export>>} : !spirv.ptr<!spirv.array<4 x i8>, CrossWorkgroup>
// CHECK: spirv.GlobalVariable @counters {hipmlir.zero_initializer, linkage_attributes = #spirv.linkage_attributes<linkage_name = "counters", linkage_type = <Export>>} : !spirv.ptr<!spirv.array<1048576 x i8>, CrossWorkgroup>
// CHECK: spirv.GlobalVariable @scratch {hipmlir.zero_initializer} : !spirv.ptr<!spirv.array<8 x i8>, CrossWorkgroup>
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    llvm.mlir.global internal constant @greeting(dense<[104, 105, 0]> : tensor<3xi8>) {addr_space = 2 : i32} : !llvm.array<3 x i8>
    llvm.mlir.global external @table(dense<[-56, 0, 104, 0]> : tensor<4xi8>) {addr_space = 1 : i32} : !llvm.array<4 x i8>
    llvm.mlir.global external @counters(dense<0> : tensor<1048576xi8>) {addr_space = 1 : i32} : !llvm.array<1048576 x i8>
    llvm.mlir.global internal @scratch(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
  }
}
