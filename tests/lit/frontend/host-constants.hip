// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// Constants of host code in device code, as clang takes them: a variable template's instance
// (std::is_integral_v<T>) or a constexpr scalar is folded to its value; a constexpr array read
// at a run-time index becomes a read-only global of this source holding the array's bytes (the
// implicit __constant__ copy clang makes).

#include <hip/hip_runtime.h>
#include <type_traits>

constexpr int kTable[4] = {10, 20, 30, 40};
template <typename T>
constexpr int kSize = sizeof(T);

// CHECK-DAG: llvm.mlir.global internal constant @_ZL6kTable(dense<[10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0, 40, 0, 0, 0]> : tensor<16xi8>) {addr_space = 1 : i32, alignment = 4 : i64}
// CHECK-LABEL: func.func @_Z5pickyIdEvPii
// CHECK: %[[INTEGRAL:.*]] = arith.constant false
// CHECK: scf.if %[[INTEGRAL]]
// CHECK-DAG: arith.constant 8 : i32
// CHECK-DAG: llvm.mlir.addressof @_ZL6kTable
// CHECK: return
template <typename T>
__global__ void picky(int* out, int i) {
  if constexpr (std::is_integral_v<T>) {
    out[0] = 1;
  } else {
    out[0] = kSize<T> + kTable[i & 3];
  }
}
template __global__ void picky<double>(int*, int);
