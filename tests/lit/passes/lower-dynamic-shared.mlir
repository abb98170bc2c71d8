// RUN: hipmlir-opt %s --hipmlir-lower-dynamic-shared | FileCheck %s

// `extern __shared__` memory (the frontend's placeholder global) becomes a trailing workgroup
// pointer argument of each kernel that uses it, recorded in hipmlir.kernel_args with no bytes in
// the packed argument block. Kernels that do not use it are left alone.
//
// @checked has the memory checker's hidden extent after its listed argument: the new argument
// joins the listed ones, before the extent.

// CHECK-NOT: @__hipmlir_dynamic_shared
// CHECK: gpu.func @dyn(%[[OUT:.*]]: !llvm.ptr<1>, %[[SHARED:.*]]: !llvm.ptr<3>) kernel
// CHECK-SAME: hipmlir.kernel_args = [{name = "out", offset = 0 : i64, size = 8 : i64}, {addr_space = "workgroup", {{.*}}is_pointer = true, name = "{{.*}}", offset = 8 : i64, size = 0 : i64{{.*}}}]
// CHECK: llvm.addrspacecast %[[SHARED]] : !llvm.ptr<3> to !llvm.ptr<4>
// CHECK: gpu.func @checked(%[[OUT:.*]]: !llvm.ptr<1>, %[[SHARED:.*]]: !llvm.ptr<3>, %[[EXTENT:.*]]: i64) kernel
// CHECK-SAME: hipmlir.memcheck_extents = array<i64: 0>
// CHECK: llvm.addrspacecast %[[SHARED]] : !llvm.ptr<3> to !llvm.ptr<4>
// CHECK: llvm.icmp "ult" %{{.*}}, %[[EXTENT]] : i64
// CHECK: gpu.func @plain(%{{.*}}: !llvm.ptr<1>) kernel
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    llvm.mlir.global external @__hipmlir_dynamic_shared() {addr_space = 3 : i32} : !llvm.array<0 x i8>
    gpu.func @dyn(%out: !llvm.ptr<1>) kernel attributes {hipmlir.kernel_args = [{name = "out", offset = 0 : i64, size = 8 : i64}], hipmlir.kernel_args_size = 8 : i64, hipmlir.kernel_name = "dyn"} {
      %s = llvm.mlir.addressof @__hipmlir_dynamic_shared : !llvm.ptr<3>
      %g = llvm.addrspacecast %s : !llvm.ptr<3> to !llvm.ptr<4>
      %v = llvm.load %g : !llvm.ptr<4> -> f32
      %o = llvm.addrspacecast %out : !llvm.ptr<1> to !llvm.ptr<4>
      llvm.store %v, %o : f32, !llvm.ptr<4>
      gpu.return
    }
    gpu.func @checked(%out: !llvm.ptr<1>, %extent: i64) kernel attributes {hipmlir.kernel_args = [{name = "out", offset = 0 : i64, size = 8 : i64}], hipmlir.kernel_args_size = 8 : i64, hipmlir.kernel_name = "checked", hipmlir.memcheck_extents = array<i64: 0>} {
      %s = llvm.mlir.addressof @__hipmlir_dynamic_shared : !llvm.ptr<3>
      %g = llvm.addrspacecast %s : !llvm.ptr<3> to !llvm.ptr<4>
      %v = llvm.load %g : !llvm.ptr<4> -> f32
      %c = llvm.mlir.constant(4 : i64) : i64
      %inside = llvm.icmp "ult" %c, %extent : i64
      %o = llvm.addrspacecast %out : !llvm.ptr<1> to !llvm.ptr<4>
      llvm.store %v, %o : f32, !llvm.ptr<4>
      gpu.return
    }
    gpu.func @plain(%out: !llvm.ptr<1>) kernel attributes {hipmlir.kernel_args = [{name = "out", offset = 0 : i64, size = 8 : i64}], hipmlir.kernel_args_size = 8 : i64, hipmlir.kernel_name = "plain"} {
      gpu.return
    }
  }
}
