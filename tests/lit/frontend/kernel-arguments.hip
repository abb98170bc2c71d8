// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// Each kernel records its parameters' layout in the packed argument block (what the runtime
// unpacks) and its names; a struct passed by value is a byval pointer parameter.

#include <hip/hip_runtime.h>

struct Params {
  char tag;
  double scale;
  int* out;
};

// CHECK-LABEL: func.func @_Z5applyPKf6Paramsi(
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<5>, %{{.*}}: i32
// CHECK-SAME: hipmlir.byval = {"1" = !llvm.struct<(i8, array<7 x i8>, f64, ptr)>}
// CHECK-SAME: hipmlir.kernel_args = [{addr_space = "global", align = 8 : i64, is_pointer = true, name = "in", offset = 0 : i64, size = 8 : i64, type = "const float *"}, {addr_space = "private", align = 8 : i64, is_pointer = false, name = "p", offset = 8 : i64, size = 24 : i64, type = "Params"}, {addr_space = "private", align = 4 : i64, is_pointer = false, name = "n", offset = 32 : i64, size = 4 : i64, type = "int"}]
// CHECK-SAME: hipmlir.kernel_args_size = 40 : i64
// CHECK-SAME: hipmlir.kernel_name = "apply"
__global__ void apply(const float* in, Params p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p.out[i] = static_cast<int>(in[i] * p.scale) + p.tag;
}

// __restrict__ pointer parameters are listed by index (noalias for the targets); a restrict
// value or an unqualified pointer is not, and a template's instance keeps its pattern's.
// CHECK-LABEL: func.func @_Z6blend3PfPKfS1_fi(
// CHECK-SAME: hipmlir.noalias = array<i64: 0, 1>
__global__ void blend3(float* __restrict__ out, const float* __restrict__ a, const float* b,
                       float w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = w * a[i] + b[i];
}

template <typename T>
__global__ void scale(T* __restrict__ x, T s) {
  x[threadIdx.x] *= s;
}
// CHECK-LABEL: func.func @_Z5scaleIdEvPT_S0_(
// CHECK-SAME: hipmlir.noalias = array<i64: 0>
template __global__ void scale<double>(double* __restrict__, double);
