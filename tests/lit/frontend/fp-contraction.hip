// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// Float sums, differences and products may be fused into FMAs (fastmath<contract>), as hipcc
// compiles HIP (-ffp-contract=fast-honor-pragmas); a pragma that turns contraction off is
// honoured, and hipmlir's own device library (checked against libm without contraction, and
// with intrinsics that round each operation on its own: __fmul_rn, __fadd_rn...) is not fused.

#include <hip/hip_runtime.h>

// CHECK-LABEL: func.func @_Z5fusedPfPKfS1_
// CHECK: arith.mulf {{.*}} fastmath<contract> : f32
// CHECK: arith.addf {{.*}} fastmath<contract> : f32
__global__ void fused(float* c, const float* a, const float* b) {
  int i = threadIdx.x;
  c[i] = a[i] * b[i] + c[i];
}

// CHECK-LABEL: func.func @_Z9separatedPfPKfS1_
// CHECK: arith.mulf
// CHECK-NOT: fastmath
// CHECK: arith.addf
// CHECK-NOT: fastmath
// CHECK: return
__global__ void separated(float* c, const float* a, const float* b) {
#pragma clang fp contract(off)
  int i = threadIdx.x;
  c[i] = a[i] * b[i] + c[i];
}

// CHECK-LABEL: func.func private @_Z9__fmul_rnff
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-LABEL: func.func private @_Z9__fadd_rnff
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
__global__ void intrinsics(float* c, const float* a, const float* b) {
  int i = threadIdx.x;
  c[i] = __fadd_rn(__fmul_rn(a[i], b[i]), c[i]);
}
