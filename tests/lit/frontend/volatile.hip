// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s
// RUN: hipmlir %s --emit-mlir=spirv -o - | FileCheck %s --check-prefix=SPIRV

// Loads and stores through volatile-qualified lvalues are volatile from the frontend to the
// SPIR-V stage; other accesses are not.

#include <hip/hip_runtime.h>

struct Mailbox {
  int ready;
  int value;
};

__global__ void handshake(volatile float* sdata, int* flag, volatile Mailbox* box, int* out) {
  // CHECK-LABEL: @_Z9handshake{{.*}}(
  // CHECK: llvm.load volatile %{{.*}} -> f32
  // CHECK: llvm.store volatile %{{.*}} : f32
  sdata[threadIdx.x] += sdata[threadIdx.x + 1];
  // CHECK: llvm.load volatile %{{.*}} -> i32
  while (*(volatile int*)flag == 0) {
  }
  // CHECK: llvm.store volatile %{{.*}} : i32
  box->value = 3;
  // CHECK-NOT: volatile
  // CHECK: llvm.store %{{.*}} : i32
  out[threadIdx.x] = 1;
}

// SPIRV-LABEL: spirv.func @_Z9handshake
// SPIRV: spirv.Load "{{.*}}" %{{.*}} ["Volatile"] : f32
// SPIRV: spirv.Store "{{.*}}" %{{.*}}, %{{.*}} ["Volatile"] : f32
// SPIRV: spirv.Load "{{.*}}" %{{.*}} ["Volatile"] : i32
// SPIRV: spirv.Store "{{.*}}" %{{.*}}, %{{.*}} ["Volatile"] : i32
// SPIRV-NOT: Volatile
// SPIRV: spirv.Return
