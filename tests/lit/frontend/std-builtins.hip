// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// clang treats std::move, std::forward, std::as_const, std::addressof (and the rest of that
// family) as builtins: their calls name the function template, but no body is instantiated.
// Each gives back its argument, so device code calls nothing for them.

#include <hip/hip_runtime.h>
#include <memory>
#include <utility>

struct Pair {
  int a, b;
};

// CHECK-LABEL: func.func @_Z5movesPi
// CHECK-NOT: call
// CHECK: return
__global__ void moves(int* d) {
  int x = d[1];
  int y = std::forward<int&>(x) + std::move(x);
  d[0] = y + std::as_const(x);
}

// CHECK-LABEL: func.func @_Z9addressesP4Pair
// CHECK-NOT: call
// CHECK: return
__global__ void addresses(Pair* p) {
  Pair* q = std::addressof(p[1]);
  q->a = std::move(p[0]).b;
}
