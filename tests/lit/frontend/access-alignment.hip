// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// Loads and stores carry clang's alignment of the type accessed: a record's (__half2 is 4-byte
// aligned, float4 16), which LLVM cannot infer from its members, lets NVPTX access it at once
// (ld.global.b32, ld.global.v4.b32); a scalar's is its size.

#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

// CHECK-LABEL: func.func @_Z6copies
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> !llvm.struct<(f16, f16)>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : !llvm.struct<(f16, f16)>, !llvm.ptr
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr -> !llvm.struct<
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : !llvm.struct<
// CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> i16
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr
__global__ void copies(const __half2* a, __half2* b, const float4* c, float4* d, const short* e,
                       short* f) {
  int i = threadIdx.x;
  b[i] = a[i];
  d[i] = c[i];
  f[i] = e[i];
}
