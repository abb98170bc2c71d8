// RUN: hipmlir-opt %s --hipmlir-address-spaces-to-spirv | FileCheck %s

// hipmlir's target-neutral address spaces (generic 0, global 1, shared 3, constant 4,
// private 5) become SPIR-V's storage-class numbers (Generic 4, CrossWorkgroup 1, Workgroup 3,
// UniformConstant 2, Function 0) everywhere a type can hold a pointer: values, block
// arguments, function types, globals and types inside attributes.

// CHECK: module attributes {{{.*}}hipmlir.address_spaces = "spirv"
// CHECK-DAG: llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<4 x f32>
// CHECK-DAG: llvm.mlir.global internal constant @table(dense<1.000000e+00> : tensor<4xf32>) {addr_space = 2 : i32} : !llvm.array<4 x f32>
// CHECK-DAG: llvm.mlir.global external @slots() {addr_space = 1 : i32} : !llvm.array<2 x ptr<4>>
// CHECK: gpu.func @k(%[[OUT:.*]]: !llvm.ptr<1>, %[[BYVAL:.*]]: !llvm.ptr) kernel attributes {hipmlir.byval = {"1" = !llvm.struct<(i32, ptr<4>)>}}
// CHECK: %[[G:.*]] = llvm.addrspacecast %[[OUT]] : !llvm.ptr<1> to !llvm.ptr<4>
// CHECK: llvm.mlir.addressof @tile : !llvm.ptr<3>
// CHECK: llvm.mlir.addressof @table : !llvm.ptr<2>
// CHECK: llvm.alloca %{{.*}} x !llvm.struct<(ptr<4>, ptr<1>)> : (i64) -> !llvm.ptr
// CHECK: llvm.getelementptr %[[BYVAL]][0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i32, ptr<4>)>
// CHECK: scf.if %{{.*}} -> (!llvm.ptr<4>)
// CHECK: func.func private @take(!llvm.ptr<4>, !llvm.ptr<3>) -> !llvm.ptr<1>
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<4 x f32>
    llvm.mlir.global internal constant @table(dense<1.0> : tensor<4xf32>) {addr_space = 4 : i32} : !llvm.array<4 x f32>
    llvm.mlir.global external @slots() {addr_space = 1 : i32} : !llvm.array<2 x ptr>
    gpu.func @k(%out: !llvm.ptr<1>, %byval: !llvm.ptr<5>) kernel attributes {hipmlir.byval = {"1" = !llvm.struct<(i32, ptr)>}} {
      %g = llvm.addrspacecast %out : !llvm.ptr<1> to !llvm.ptr
      %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
      %c = llvm.mlir.addressof @table : !llvm.ptr<4>
      %one = arith.constant 1 : i64
      %p = llvm.alloca %one x !llvm.struct<(ptr, ptr<1>)> : (i64) -> !llvm.ptr<5>
      %f = llvm.getelementptr %byval[0, 1] : (!llvm.ptr<5>) -> !llvm.ptr<5>, !llvm.struct<(i32, ptr)>
      %true = arith.constant true
      %r = scf.if %true -> (!llvm.ptr) {
        scf.yield %g : !llvm.ptr
      } else {
        %tg = llvm.addrspacecast %t : !llvm.ptr<3> to !llvm.ptr
        scf.yield %tg : !llvm.ptr
      }
      gpu.return
    }
  }
  func.func private @take(!llvm.ptr, !llvm.ptr<3>) -> !llvm.ptr<1>
}
