// RUN: hipmlir-opt %s --hipmlir-nvptx-byval-parameters | FileCheck %s

// After convert-gpu-to-nvvm (which drops parameter attributes), a kernel's struct passed by
// value (hipmlir.byval, by parameter index) becomes an llvm.byval parameter: NVPTX passes it as
// a .param copy of the struct. Other parameters keep their attributes.

// CHECK: llvm.func @k(%{{.*}}: !llvm.ptr<1> {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.byval = !llvm.struct<(f32, f64)>}, %{{.*}}: i32)
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    llvm.func @k(%out: !llvm.ptr<1> {llvm.noalias}, %s: !llvm.ptr, %n: i32) attributes {hipmlir.byval = {"1" = !llvm.struct<(f32, f64)>}, nvvm.kernel} {
      llvm.return
    }
  }
}
