// RUN: hipmlir %s --offload-arch=sm_70 --emit-ptx -o - | FileCheck %s
// RUN: hipmlir %s --offload-arch=sm_90 --emit-ptx -o - | FileCheck %s --check-prefix=SM90
// RUN: not hipmlir %s --offload-arch=sm_70,sm_80 --emit-ptx -o - 2>&1 | FileCheck %s --check-prefix=TWO

// PTX for NVIDIA GPUs: one .entry per kernel under its mangled name, pointers as global
// parameters, a struct by value as a .param copy, dynamic shared memory as CUDA's extern
// shared array (no parameter), printf as vprintf, math from libdevice, PTX ISA 6.3 at least.

#include <hip/hip_runtime.h>

struct Pair {
  float a;
  double b;
};

// CHECK: .version 6.3
// CHECK: .target sm_70
// CHECK-DAG: .extern .func (.param .b32 func_retval0) vprintf
// CHECK-DAG: .extern .shared .align 16 .b8 __hipmlir_dynamic_shared[];
// CHECK: .entry _Z5scalePf4Pairi(
// CHECK-NEXT: .param .u64 .ptr .global .align 1 _Z5scalePf4Pairi_param_0,
// CHECK-NEXT: .param .align 8 .b8 _Z5scalePf4Pairi_param_1[16],
// CHECK-NEXT: .param .u32 _Z5scalePf4Pairi_param_2
// CHECK: .entry _Z6stagedPfi(
// CHECK-NOT: param_2
// CHECK: bar.sync
// CHECK: ld.shared
// CHECK-NOT: .extern .func {{.*}}__nv_
// SM90: .version 7.8
// SM90: .target sm_90
// TWO: --emit-ptx writes the PTX of one architecture
__global__ void scale(float* x, Pair p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = sinf(x[i]) * p.a + (float)p.b;
  if (i == 0) printf("scaled %d\n", n);
}

__global__ void staged(float* x, int n) {
  extern __shared__ float tile[];
  int t = threadIdx.x;
  tile[t] = x[t];
  __syncthreads();
  if (t < n) x[t] = tile[n - 1 - t];
}
