// RUN: hipmlir-opt %s --hipmlir-nvptx-parameter-attributes | FileCheck %s

// After convert-gpu-to-nvvm (which drops parameter attributes), a kernel's struct passed by
// value (hipmlir.byval, by parameter index) becomes an llvm.byval parameter: NVPTX passes it as
// a .param copy of the struct. A __restrict__ pointer (hipmlir.noalias, by parameter index)
// becomes llvm.noalias, once. Other parameters keep their attributes.

// CHECK: llvm.func @k(%{{.*}}: !llvm.ptr<1> {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.byval = !llvm.struct<(f32, f64)>}, %{{.*}}: i32)
// CHECK: llvm.func @restricted(%{{.*}}: !llvm.ptr<1> {llvm.noalias}, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1> {llvm.noalias}, %{{.*}}: i32)
// CHECK: llvm.func @both(%{{.*}}: !llvm.ptr<1> {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.byval = !llvm.struct<(i32)>})
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    llvm.func @k(%out: !llvm.ptr<1> {llvm.noalias}, %s: !llvm.ptr, %n: i32) attributes {hipmlir.byval = {"1" = !llvm.struct<(f32, f64)>}, nvvm.kernel} {
      llvm.return
    }
    llvm.func @restricted(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>, %n: i32) attributes {hipmlir.noalias = array<i64: 0, 2>, nvvm.kernel} {
      llvm.return
    }
    llvm.func @both(%a: !llvm.ptr<1> {llvm.noalias}, %s: !llvm.ptr) attributes {hipmlir.byval = {"1" = !llvm.struct<(i32)>}, hipmlir.noalias = array<i64: 0>, nvvm.kernel} {
      llvm.return
    }
  }
}
