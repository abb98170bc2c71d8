// RUN: hipmlir-opt %s --hipmlir-lower-pointers-to-spirv | FileCheck %s

// A packed !llvm.struct becomes a SPIR-V struct with each member's byte offset, members back
// to back (the serializer's patch turns the offsets into `CPacked`). A load or store below its
// type's alignment carries `Aligned`; one at its type's alignment (or without one) carries
// nothing, as before.

// CHECK-LABEL: gpu.func @packed
// CHECK: spirv.PtrAccessChain %{{.*}}[%{{.*}} %{{.*}}] : !spirv.ptr<!spirv.struct<(i8 [0], i32 [1], f64 [5], !spirv.array<3 x i8> [13])>, CrossWorkgroup>
// CHECK: spirv.Load "CrossWorkgroup" %{{.*}} ["Aligned", 1] : i32
// CHECK: spirv.Store "CrossWorkgroup" %{{.*}}, %{{.*}} ["Aligned", 2] : f64
// CHECK: spirv.Load "CrossWorkgroup" %{{.*}} : i32
// CHECK: spirv.Store "CrossWorkgroup" %{{.*}}, %{{.*}} : i32
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    gpu.func @packed(%arg0: !llvm.ptr<1>, %arg1: !llvm.ptr<1>) kernel {
      %c0 = llvm.mlir.constant(0 : i64) : i64
      %0 = llvm.getelementptr %arg0[%c0, 1] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, !llvm.struct<packed (i8, i32, f64, array<3 x i8>)>
      %1 = llvm.load %0 {alignment = 1 : i64} : !llvm.ptr<1> -> i32
      %2 = llvm.getelementptr %arg0[%c0, 2] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, !llvm.struct<packed (i8, i32, f64, array<3 x i8>)>
      %3 = arith.sitofp %1 : i32 to f64
      llvm.store %3, %2 {alignment = 2 : i64} : f64, !llvm.ptr<1>
      %4 = llvm.load %arg1 {alignment = 4 : i64} : !llvm.ptr<1> -> i32
      llvm.store %4, %arg1 : i32, !llvm.ptr<1>
      gpu.return
    }
  }
}
