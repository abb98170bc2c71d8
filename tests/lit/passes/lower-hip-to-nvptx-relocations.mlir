// RUN: hipmlir-opt %s --hipmlir-lower-hip-to-nvptx | FileCheck %s

// A global whose initial value holds addresses (hipmlir.relocations) becomes an array of
// 64-bit words with an initializer region: plain words are constants (zero words stay the
// zero the array starts as), each address the integer of the target's generic address plus
// the addend, which LLVM's NVPTX printer writes as `generic(table)+32`.

// CHECK: llvm.mlir.global external @span() {addr_space = 1 : i32} : !llvm.array<3 x i64> {
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.zero : !llvm.array<3 x i64>
// CHECK-NEXT: %[[T:.*]] = llvm.mlir.addressof @table : !llvm.ptr<1>
// CHECK-NEXT: %[[AT:.*]] = llvm.getelementptr %[[T]][32] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: %[[GENERIC:.*]] = llvm.addrspacecast %[[AT]] : !llvm.ptr<1> to !llvm.ptr
// CHECK-NEXT: %[[WORD:.*]] = llvm.ptrtoint %[[GENERIC]] : !llvm.ptr to i64
// CHECK-NEXT: %[[A0:.*]] = llvm.insertvalue %[[WORD]], %[[ZERO]][0] : !llvm.array<3 x i64>
// CHECK-NEXT: %[[FIVE:.*]] = llvm.mlir.constant(5 : i64) : i64
// CHECK-NEXT: %[[A1:.*]] = llvm.insertvalue %[[FIVE]], %[[A0]][2] : !llvm.array<3 x i64>
// CHECK-NEXT: llvm.return %[[A1]] : !llvm.array<3 x i64>
// CHECK-NOT: hipmlir.relocations
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    llvm.mlir.global external @table(dense<0> : tensor<256xi8>) {addr_space = 1 : i32} : !llvm.array<256 x i8>
    llvm.mlir.global external @span(dense<[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0]> : tensor<24xi8>) {addr_space = 1 : i32, hipmlir.relocations = [[0, @table, 32]]} : !llvm.array<24 x i8>
  }
}
