// RUN: hipmlir-opt %s --hipmlir-drop-host-functions | FileCheck %s

// Functions standing for host code (launch sites) go: only the gpu.module is device code.

// CHECK: module attributes {gpu.container_module} {
// CHECK-NOT: @main.launch.0
// CHECK: gpu.module @hipmlir_kernels {
// CHECK: gpu.func @k() kernel
module attributes {gpu.container_module} {
  func.func @main.launch.0(%n: index) attributes {hipmlir.host} {
    gpu.launch_func @hipmlir_kernels::@k blocks in (%n, %n, %n) threads in (%n, %n, %n)
    return
  }
  gpu.module @hipmlir_kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}
