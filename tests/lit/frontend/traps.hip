// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s
// RUN: hipmlir %s --emit-mlir=spirv -o - | FileCheck %s --check-prefix=SPIRV

// Every trap stops the program: `__builtin_trap()` (and `__trap()`, `abort()`, a failed assert)
// calls the module's stop function, which raises the abort flag the runtime reads, then traps.
// On SPIR-V the trap itself is gone (OpenCL has none), the flag's volatile store stays.

#include <hip/hip_runtime.h>

// CHECK: llvm.mlir.global linkonce_odr @__hipmlir_device_abort_flag

__device__ int checked(int v) {
  if (v < 0) __builtin_trap();
  return v;
}

__global__ void guarded(const int* in, int* out) {
  // CHECK-LABEL: func.func @_Z7guardedPKiPi(
  out[threadIdx.x] = checked(in[threadIdx.x]);
  if (out[threadIdx.x] > 100) __trap();
}

// CHECK-LABEL: func.func private @__hipmlir_device_trap()
// CHECK: llvm.mlir.addressof @__hipmlir_device_abort_flag
// CHECK: scf.if
// CHECK: llvm.store volatile
// CHECK: llvm.intr.trap
// CHECK: return

// SPIRV: spirv.GlobalVariable @__hipmlir_device_abort_flag
// SPIRV-LABEL: spirv.func @_Z7guardedPKiPi
// SPIRV: spirv.Store "Generic" %{{.*}}, %{{.*}} ["Volatile"] : i32
// SPIRV-NOT: trap
// SPIRV: spirv.Return
