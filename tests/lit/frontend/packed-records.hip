// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// A packed record is a packed !llvm.struct with its padding as members (clang's offsets): the
// int at byte 1, the short at byte 5. A record laid out naturally stays unpacked.

#include <hip/hip_runtime.h>

struct __attribute__((packed)) Packed { char c; int i; short s; };
struct Natural { char c; int i; short s; };

// CHECK-LABEL: @_Z6readerP6PackedP7NaturalPi
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}, 1] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<packed (i8, i32, i16)>
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}, 2] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<(i8, array<3 x i8>, i32, i16, array<2 x i8>)>
__global__ void reader(Packed* p, Natural* n, int* out) {
  out[0] = p->i;
  out[1] = n->i;
}
