// RUN: hipmlir-opt %s --hipmlir-address-spaces-to-nvptx | FileCheck %s

// For NVPTX the neutral numbers are NVPTX's own (generic 0, global 1, shared 3, constant 4),
// except private memory, which stays generic: NVPTX's backend moves allocas to local memory
// itself. A cast from private to generic is then no cast and disappears.

// CHECK: module attributes {{{.*}}hipmlir.address_spaces = "nvptx"
// CHECK-DAG: llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<4 x f32>
// CHECK-DAG: llvm.mlir.global internal constant @table(dense<1.000000e+00> : tensor<4xf32>) {addr_space = 4 : i32} : !llvm.array<4 x f32>
// CHECK: gpu.func @k(%[[OUT:.*]]: !llvm.ptr<1>) kernel
// CHECK: llvm.addrspacecast %[[OUT]] : !llvm.ptr<1> to !llvm.ptr
// CHECK: %[[P:.*]] = llvm.alloca %{{.*}} x f32 : (i64) -> !llvm.ptr
// CHECK-NOT: llvm.addrspacecast
// CHECK: llvm.store %{{.*}}, %[[P]] : f32, !llvm.ptr
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<4 x f32>
    llvm.mlir.global internal constant @table(dense<1.0> : tensor<4xf32>) {addr_space = 4 : i32} : !llvm.array<4 x f32>
    gpu.func @k(%out: !llvm.ptr<1>) kernel {
      %g = llvm.addrspacecast %out : !llvm.ptr<1> to !llvm.ptr
      %one = arith.constant 1 : i64
      %p = llvm.alloca %one x f32 : (i64) -> !llvm.ptr<5>
      %pg = llvm.addrspacecast %p : !llvm.ptr<5> to !llvm.ptr
      %x = arith.constant 2.0 : f32
      llvm.store %x, %pg : f32, !llvm.ptr
      gpu.return
    }
  }
}
