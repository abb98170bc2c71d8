// RUN: hipmlir-opt %s --hipmlir-lower-hip-to-nvptx | FileCheck %s
// RUN: hipmlir-opt %s --hipmlir-lower-hip-to-nvptx --convert-func-to-llvm | FileCheck %s --check-prefix=LLVM

// A function not to be inlined (func.func's `no_inline`, which the memory checker sets on its
// slow path's copy for kernels with many checks) gets LLVM's `noinline` as a passthrough
// attribute: convert-func-to-llvm drops `no_inline` and keeps `passthrough`. Inlined at each of
// a kernel's hundreds of checks, the slow path made PTX that ptxas took minutes to build.
// Other functions are left as they are.

// CHECK-LABEL: func.func private @slow(
// CHECK-SAME: attributes {no_inline, passthrough = ["noinline"]}
// CHECK-LABEL: func.func private @plain(
// CHECK-NOT: passthrough
// CHECK: return
// LLVM: llvm.func @slow({{.*}}) -> i1 attributes {passthrough = ["noinline"]
// LLVM: llvm.func @plain({{.*}}) -> i1 attributes {sym_visibility = "private"}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func private @slow(%a: i64) -> i1 attributes {no_inline} {
      %z = arith.constant 0 : i64
      %r = arith.cmpi ne, %a, %z : i64
      return %r : i1
    }
    func.func private @plain(%a: i64) -> i1 {
      %z = arith.constant 0 : i64
      %r = arith.cmpi eq, %a, %z : i64
      return %r : i1
    }
  }
}
