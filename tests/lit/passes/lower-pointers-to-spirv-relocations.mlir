// RUN: hipmlir-opt %s --hipmlir-lower-pointers-to-spirv | FileCheck %s

// A global whose initial value holds addresses (hipmlir.relocations) is an array of 64-bit
// words: plain words are shared spec constants, each address a placeholder constant named by
// its target and addend (holding the addend), which the serializer's patch makes the address.
// Placeholders stand in front of the variable, after their targets; one address used twice
// has one placeholder. A use of the variable sees the word array.

// CHECK-DAG: spirv.SpecConstant @__hipmlir_word_0 = 0 : i64
// CHECK-DAG: spirv.SpecConstant @__hipmlir_word_5 = 5 : i64
// CHECK: spirv.GlobalVariable @table
// CHECK: spirv.SpecConstant @__hipmlir_address_32_of_table = 32 : i64
// CHECK-NEXT: spirv.SpecConstantComposite @__hipmlir_init_cursor (@__hipmlir_address_32_of_table) : !spirv.array<1 x i64>
// CHECK-NEXT: spirv.GlobalVariable @cursor initializer(@__hipmlir_init_cursor) {{.*}} : !spirv.ptr<!spirv.array<1 x i64>, CrossWorkgroup>
// CHECK: spirv.SpecConstant @__hipmlir_address_0_of_table = 0 : i64
// CHECK-NEXT: spirv.SpecConstantComposite @__hipmlir_init_span (@__hipmlir_address_0_of_table, @__hipmlir_word_5, @__hipmlir_address_32_of_table, @__hipmlir_word_0) : !spirv.array<4 x i64>
// CHECK-NEXT: spirv.GlobalVariable @span initializer(@__hipmlir_init_span) : !spirv.ptr<!spirv.array<4 x i64>, CrossWorkgroup>
// CHECK: spirv.mlir.addressof @span : !spirv.ptr<!spirv.array<4 x i64>, CrossWorkgroup>
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    llvm.mlir.global external @table(dense<0> : tensor<256xi8>) {addr_space = 1 : i32} : !llvm.array<256 x i8>
    llvm.mlir.global external @cursor(dense<0> : tensor<8xi8>) {addr_space = 1 : i32, hipmlir.relocations = [[0, @table, 32]]} : !llvm.array<8 x i8>
    llvm.mlir.global internal @span(dense<[0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]> : tensor<32xi8>) {addr_space = 1 : i32, hipmlir.relocations = [[0, @table, 0], [16, @table, 32]]} : !llvm.array<32 x i8>
    gpu.func @first(%out: !llvm.ptr<1>) kernel {
      %span = llvm.mlir.addressof @span : !llvm.ptr<1>
      %p = llvm.load %span : !llvm.ptr<1> -> i64
      llvm.store %p, %out : i64, !llvm.ptr<1>
      gpu.return
    }
  }
}
