// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// A record whose members lie below their alignment (packed, #pragma pack) is a packed
// !llvm.struct, explicit padding kept: LLVM's own layout would move `id` to offset 4. Accesses
// of its members take the record's alignment, not their type's (a GPU faults on a 4-byte load
// from an odd address), and so do accesses reached from them (an ordinary struct inside).
// Records that LLVM lays out as clang does stay unpacked.

#include <hip/hip_runtime.h>

struct __attribute__((packed)) Packed {
  char tag;
  int id;
  double mass;
};

#pragma pack(push, 2)
struct Pack2 {
  char version;
  int length;
};
#pragma pack(pop)

struct Inner {
  float x, y;
};
struct __attribute__((packed)) Outer {
  char tag;
  Inner at;
};

struct Plain {
  char tag;
  int id;
};

// CHECK-LABEL: func.func @_Z5reads
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}, 1] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<packed (i8, i32, f64)>
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> i32
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}, 2] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<packed (i8, array<1 x i8>, i32)>
// CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> i32
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}, 1] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<packed (i8, struct<(f32, f32)>)>
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}, 1] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<(f32, f32)>
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> f32
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}, 2] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<(i8, array<3 x i8>, i32)>
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
__global__ void reads(Packed* p, Pack2* q, Outer* o, Plain* r, float* out) {
  *out = p->id + q->length + o->at.y + r->id;
}

// CHECK-LABEL: func.func @_Z6writes
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : f64, !llvm.ptr
__global__ void writes(Packed* p, double m) { p->mass = m; }
