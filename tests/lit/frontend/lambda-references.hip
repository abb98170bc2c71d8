// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// A lambda captured by reference by a lambda only called is passed as its captures; captured by
// one stored in a struct, it is a closure object (clang's layout), whose address the stored
// closure's field holds.

#include <hip/hip_runtime.h>

template <typename F>
struct Stored {
  F f;
  __device__ int run(int x) const { return f(x); }
};

__device__ int stored(int k) {
  auto inner = [k](int x) { return x * k; };
  auto outer = [&inner](int x) { return inner(x) + 1; };
  Stored<decltype(outer)> s{outer};
  return s.run(3);
}

__device__ int called(int k) {
  auto inner = [k](int x) { return x * k; };
  auto outer = [&inner](int x) { return inner(x) + 1; };
  return outer(3);
}

__global__ void kern(int* out) { out[0] = called(out[1]) + stored(out[2]); }

// CHECK-LABEL: func.func private @_Z6storedi
// CHECK-DAG: %[[OUTER:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr)>
// CHECK-DAG: %[[INNER:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i32)>
// CHECK: %[[K:.*]] = llvm.getelementptr %[[INNER]][%{{.*}}, 0]
// CHECK: llvm.store %arg0, %[[K]]
// CHECK: %[[ADDRESS:.*]] = llvm.addrspacecast %[[INNER]]
// CHECK: %[[FIELD:.*]] = llvm.getelementptr %[[OUTER]][%{{.*}}, 0]
// CHECK: llvm.store %[[ADDRESS]], %[[FIELD]]
// CHECK: func.call @_ZNK6StoredIZ6storediEUliE0_E3runEi

// CHECK-LABEL: func.func private @_Z6calledi
// CHECK-NOT: llvm.alloca
// CHECK: func.call @_ZZ6callediENKUliE0_clEi(%arg0, %{{.*}})
