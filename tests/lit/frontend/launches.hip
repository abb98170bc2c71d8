// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// A <<<>>> launch in host code stands in the device module as a host function (hipmlir.host)
// holding a gpu.launch that calls the kernel, with the kernel's metadata; template kernels are
// instantiated with the launch's arguments.

#include <hip/hip_runtime.h>

template <typename T, int N>
__global__ void fill(T* p) {
  p[threadIdx.x] = T(N);
}

// CHECK-DAG: func.func @_Z4fillIfLi3EEvPT_(%{{.*}}: !llvm.ptr<1>) attributes {{{.*}}hipmlir.kernel,{{.*}}hipmlir.kernel_name = "fill<float, 3>"
// CHECK-DAG: func.func @_Z4fillIiLi7EEvPT_(%{{.*}}: !llvm.ptr<1>) attributes {{{.*}}hipmlir.kernel,{{.*}}hipmlir.kernel_name = "fill<int, 7>"
// CHECK: func.func @main.launch.0(
// CHECK-SAME: attributes {hipmlir.host}
// CHECK: gpu.launch blocks
// CHECK: func.call @_Z4fillIfLi3EEvPT_(
// CHECK: hipmlir.kernel = @_Z4fillIfLi3EEvPT_
int main() {
  float* f;
  int* i;
  hipMalloc(&f, 64 * sizeof(float));
  hipMalloc(&i, 64 * sizeof(int));
  fill<float, 3><<<1, 64>>>(f);
  hipLaunchKernelGGL((fill<int, 7>), dim3(1), dim3(64), 0, 0, i);
  hipDeviceSynchronize();
  return 0;
}
