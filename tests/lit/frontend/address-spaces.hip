// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// The frontend's address spaces are target-neutral (generic 0, global 1, shared 3, constant 4,
// private 5): nothing in its output is SPIR-V's or NVPTX's until a target pipeline renumbers it.

#include <hip/hip_runtime.h>

__constant__ float coeffs[4];
__device__ int counter;

// CHECK-NOT: hipmlir.address_spaces
// Device variables (__constant__ ones too: the host writes them) are global memory, string
// literals constant memory.
// CHECK-DAG: llvm.mlir.global external @coeffs({{.*}}) {addr_space = 1 : i32, alignment = 4 : i64}
// CHECK-DAG: llvm.mlir.global external @counter({{.*}}) {addr_space = 1 : i32, alignment = 4 : i64}
// CHECK-DAG: llvm.mlir.global {{.*}}constant @{{.*}}({{.*}}) {addr_space = 4 : i32}
// CHECK-DAG: llvm.mlir.global internal @{{.*}}tile{{.*}}() {addr_space = 3 : i32} : !llvm.array<64 x f32>
// CHECK: func.func @_Z5stagePfi(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32)
// CHECK-DAG: llvm.addrspacecast %{{.*}} : !llvm.ptr<1> to !llvm.ptr
// CHECK-DAG: llvm.alloca %{{.*}} x !llvm.array<2 x f32> {{.*}}: (i64) -> !llvm.ptr<5>
// CHECK-DAG: llvm.mlir.addressof @{{.*}}tile{{.*}} : !llvm.ptr<3>
// CHECK-DAG: llvm.mlir.addressof @coeffs : !llvm.ptr<1>
// CHECK-NOT: ptr<2>
__global__ void stage(float* out, int n) {
  __shared__ float tile[64];
  float pair[2];
  int t = threadIdx.x;
  pair[0] = coeffs[t % 4];
  pair[1] = out[t];
  tile[t] = pair[t & 1];
  __syncthreads();
  if (t < n) out[t] = tile[63 - t];
  atomicAdd(&counter, 1);
  if (t == 0) printf("staged\n");
}
