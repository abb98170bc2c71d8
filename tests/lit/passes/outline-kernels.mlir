// RUN: hipmlir-opt %s --hipmlir-outline-kernels | FileCheck %s

// Kernels become gpu.func in one gpu.module, named by their symbol, with their hipmlir.*
// metadata; the device code they use moves with them; host functions stay, and their launches
// become gpu.launch_func of the outlined kernel.

// CHECK: module attributes {gpu.container_module}
// CHECK: func.func @launch(
// CHECK-SAME: attributes {hipmlir.host}
// CHECK-NOT: gpu.launch blocks
// CHECK: gpu.launch_func  @hipmlir_kernels::@_Z5scalePfi blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %{{.*}} args(%{{.*}} : !llvm.ptr<1>, %{{.*}} : i32)
// CHECK-SAME: hipmlir.kernel_args = [{name = "p"}, {name = "n"}]
// CHECK-SAME: hipmlir.kernel_args_size = 16 : i64
// CHECK-SAME: hipmlir.kernel_name = "scale"
// CHECK: gpu.module @hipmlir_kernels {
// CHECK: llvm.mlir.global internal @counter
// CHECK: func.func private @twice(
// CHECK: gpu.func @_Z5scalePfi(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32) kernel
// CHECK-SAME: hipmlir.kernel_args = [{name = "p"}, {name = "n"}]
// CHECK-SAME: hipmlir.kernel_name = "scale"
// CHECK: func.call @twice
// CHECK: gpu.return
// CHECK-NOT: func.return
module {
  llvm.mlir.global internal @counter(0 : i32) {addr_space = 1 : i32} : i32
  func.func private @twice(%x: i32) -> i32 {
    %r = arith.addi %x, %x : i32
    return %r : i32
  }
  func.func @_Z5scalePfi(%p: !llvm.ptr<1>, %n: i32) attributes {hipmlir.kernel, hipmlir.kernel_args = [{name = "p"}, {name = "n"}], hipmlir.kernel_args_size = 16 : i64, hipmlir.kernel_name = "scale"} {
    %t = func.call @twice(%n) : (i32) -> i32
    return
  }
  func.func @launch(%g: index, %b: index, %shared: i32, %p: !llvm.ptr<1>, %n: i32) attributes {hipmlir.host} {
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %g, %gy = %g, %gz = %g) threads(%tx, %ty, %tz) in (%sx = %b, %sy = %b, %sz = %b) dynamic_shared_memory_size %shared {
      func.call @_Z5scalePfi(%p, %n) : (!llvm.ptr<1>, i32) -> ()
      gpu.terminator
    } {hipmlir.kernel = @_Z5scalePfi, hipmlir.kernel_args = [{name = "p"}, {name = "n"}], hipmlir.kernel_args_size = 16 : i64, hipmlir.kernel_name = "scale"}
    return
  }
}
