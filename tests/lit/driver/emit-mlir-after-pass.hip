// The stages of --emit-mlir are the IR after named passes of the device pipeline, and any pass
// of it can be named.
// RUN: hipmlir %s --emit-mlir=outlined -o %t.outlined.mlir
// RUN: hipmlir %s --emit-mlir=hipmlir-outline-kernels -o %t.pass.mlir
// RUN: diff %t.outlined.mlir %t.pass.mlir
// RUN: hipmlir %s --emit-mlir=hipmlir-lower-dynamic-shared -o - | FileCheck %s --check-prefix=SHARED
// RUN: hipmlir %s --emit-mlir=convert-gpu-to-spirv -o - | FileCheck %s --check-prefix=SPIRV
// RUN: hipmlir %s --emit-spirv -o %t.spv --mlir-print-ir-after-all 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=PRINT
// RUN: not hipmlir %s --emit-mlir=no-such-pass 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: hipmlir --list-passes | FileCheck %s --check-prefix=LIST
// hipmlir-opt's --spirv-pipeline is the driver's pipeline: the frontend's module through it is
// the spirv stage.
// RUN: hipmlir %s --emit-mlir=frontend -o - | hipmlir-opt --spirv-pipeline -o %t.opt.mlir
// RUN: hipmlir %s --emit-mlir=spirv -o %t.spirv.mlir
// RUN: diff %t.opt.mlir %t.spirv.mlir

#include <hip/hip_runtime.h>

// SHARED: gpu.func @_Z7reversePf(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<3>) kernel
// SPIRV: spirv.func @_Z7reversePf
// PRINT: IR Dump After HipmlirDevirtualizeFunctionPointers (hipmlir-devirtualize-function-pointers)
// PRINT: IR Dump After Inliner (inline)
// PRINT: IR Dump After HipmlirOutlineKernels (hipmlir-outline-kernels)
// PRINT: IR Dump After HipmlirLowerDynamicShared (hipmlir-lower-dynamic-shared)
// PRINT: IR Dump After HipmlirLowerPointersToSpirv (hipmlir-lower-pointers-to-spirv)
// PRINT: IR Dump After ConvertGPUToSPIRV (convert-gpu-to-spirv)
// PRINT: IR Dump After HipmlirAddMissingCapabilities (hipmlir-add-missing-capabilities)
// UNKNOWN: hipmlir: error: invalid --emit-mlir stage 'no-such-pass'
// LIST: hipmlir's passes
// LIST: hipmlir-outline-kernels
// LIST: The device pipeline for SPIR-V
// LIST: builtin.module(
// LIST-NEXT: hipmlir-devirtualize-function-pointers,
__global__ void reverse(float* data) {
  extern __shared__ float s[];
  unsigned t = threadIdx.x;
  s[t] = data[t];
  __syncthreads();
  data[t] = s[blockDim.x - 1 - t];
}
