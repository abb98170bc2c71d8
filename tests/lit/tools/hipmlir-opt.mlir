// hipmlir-opt: pipelines mix hipmlir's passes and MLIR's, given as --pass-pipeline or one flag
// per pass; what does not exist is an error before anything runs.

// RUN: hipmlir-opt %s --pass-pipeline='builtin.module(hipmlir-drop-host-functions,gpu.module(cse))' | FileCheck %s
// RUN: hipmlir-opt %s --hipmlir-drop-host-functions --cse | FileCheck %s
// RUN: hipmlir-opt < %s -p 'hipmlir-drop-host-functions, cse' | FileCheck %s
// RUN: hipmlir-opt %s --mlir-print-ir-after-all --hipmlir-drop-host-functions -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PRINT
// RUN: not hipmlir-opt %s --no-such-pass 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not hipmlir-opt %s --hipmlir-mark-entry-points=bogus=1 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not hipmlir-opt %s -p 'builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: hipmlir-opt --list-passes | FileCheck %s --check-prefix=LIST

// CHECK-NOT: @host
// CHECK: gpu.func @k
// CHECK: arith.constant
// CHECK-NOT: arith.constant
// CHECK: gpu.return

// PRINT: IR Dump After HipmlirDropHostFunctions (hipmlir-drop-host-functions)
// UNKNOWN: 'no-such-pass' does not refer to a registered pass
// OPTION: 'bogus' is not an option of hipmlir-mark-entry-points (it takes none)
// SYNTAX: invalid pass pipeline 'builtin.module(cse': expected ')'
// LIST: hipmlir-outline-kernels
// LIST-NEXT: kernels (func.func marked hipmlir.kernel) become gpu.func

module attributes {gpu.container_module} {
  func.func @host() attributes {hipmlir.host} {
    return
  }
  gpu.module @hipmlir_kernels {
    gpu.func @k(%p: !llvm.ptr<1>) kernel {
      %a = arith.constant 1 : i32
      %b = arith.constant 1 : i32
      %c = arith.addi %a, %b : i32
      llvm.store %c, %p : i32, !llvm.ptr<1>
      gpu.return
    }
  }
}
