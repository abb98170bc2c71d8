// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// A local holding a lambda whose address is taken is the closure object, laid out as clang
// lays out the closure type (one field per capture), built where the lambda is written; a call
// through the pointer passes the addresses of its fields.

#include <hip/hip_runtime.h>

__device__ int through_pointer(int k, int b) {
  auto f = [=](int i) { return i * k + b; };
  auto* p = &f;
  return (*p)(3);
}

__global__ void kern(int* out) { out[0] = through_pointer(out[1], out[2]); }

// CHECK-LABEL: func.func private @_Z15through_pointerii
// CHECK: %[[OBJECT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i32, i32)>
// CHECK: %[[K:.*]] = llvm.getelementptr %[[OBJECT]][%{{.*}}, 0]
// CHECK: llvm.store %arg0, %[[K]]
// CHECK: %[[B:.*]] = llvm.getelementptr %[[OBJECT]][%{{.*}}, 1]
// CHECK: llvm.store %arg1, %[[B]]
// CHECK: %[[GENERIC:.*]] = llvm.addrspacecast %[[OBJECT]]
// CHECK: %[[KF:.*]] = llvm.getelementptr %[[GENERIC]][%{{.*}}, 0]
// CHECK: %[[BF:.*]] = llvm.getelementptr %[[GENERIC]][%{{.*}}, 1]
// CHECK: func.call @_ZZ15through_pointeriiENKUliE_clEi(%[[KF]], %[[BF]], %{{.*}})
