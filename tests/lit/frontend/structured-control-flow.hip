// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// Device code is raised to structured MLIR: loops and branches are scf, HIP's builtins gpu ops,
// shared memory a workgroup global, __syncthreads a barrier.

#include <hip/hip_runtime.h>

#define BLOCK 64

// CHECK: llvm.mlir.global internal @[[TILE:.*tile.*]]() {addr_space = 3 : i32} : !llvm.array<64 x f32>
// CHECK-LABEL: func.func @_Z9block_sumPKfPfi(
// CHECK-DAG: llvm.mlir.addressof @[[TILE]] : !llvm.ptr<3>
// CHECK-DAG: gpu.thread_id  x
// CHECK: gpu.barrier
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: scf.if
// CHECK: gpu.barrier
// CHECK: scf.yield
// CHECK: scf.if
// CHECK: gpu.block_id  x
// CHECK: return
__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float tile[BLOCK];
  unsigned t = threadIdx.x;
  tile[t] = in[blockIdx.x * BLOCK + t];
  __syncthreads();
  for (unsigned stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (t < stride)
      tile[t] += tile[t + stride];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = tile[0];
}
