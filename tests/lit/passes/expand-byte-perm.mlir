// RUN: hipmlir-opt %s --hipmlir-expand-byte-perm | FileCheck %s
// RUN: hipmlir-opt %s --hipmlir-expand-byte-perm --canonicalize | FileCheck %s --check-prefix=FOLDED

// SPIR-V has no byte permute: __byte_perm(x, y, s) becomes shifts and masks over the 8 bytes
// y:x, byte i of the result byte (s >> 4i) & 7 of them. With a constant selector the
// canonicalizer leaves constant shifts.

// CHECK-LABEL: func.func @perm
// CHECK-SAME: (%[[X:.*]]: i32, %[[Y:.*]]: i32, %[[S:.*]]: i32)
// CHECK-NOT: call @__byte_perm
// CHECK: %[[XL:.*]] = arith.extui %[[X]] : i32 to i64
// CHECK: %[[YL:.*]] = arith.extui %[[Y]] : i32 to i64
// CHECK: %[[YS:.*]] = arith.shli %[[YL]], %{{.*}} : i64
// CHECK: %[[POOL:.*]] = arith.ori %[[YS]], %[[XL]] : i64
// CHECK: %[[N0:.*]] = arith.shrui %[[S]], %{{.*}} : i32
// CHECK: %[[B0:.*]] = arith.andi %[[N0]], %{{.*}} : i32
// CHECK: %[[BITS0:.*]] = arith.shli %[[B0]], %{{.*}} : i32
// CHECK: %[[BITS0L:.*]] = arith.extui %[[BITS0]] : i32 to i64
// CHECK: %[[P0:.*]] = arith.shrui %[[POOL]], %[[BITS0L]] : i64
// CHECK: arith.trunci %[[P0]] : i64 to i32
// CHECK-COUNT-3: arith.shrui %[[POOL]]
// CHECK: return

// Selector 0x5410: bytes 0 and 1 of x, then bytes 4 and 5 (0 and 1 of y).
// FOLDED-LABEL: func.func @constant_selector
// FOLDED-DAG: %[[C8:.*]] = arith.constant 8 : i64
// FOLDED-DAG: %[[C32:.*]] = arith.constant 32 : i64
// FOLDED-DAG: %[[C40:.*]] = arith.constant 40 : i64
// FOLDED-NOT: call @__byte_perm
// FOLDED: %[[POOL:.*]] = arith.ori
// FOLDED: arith.trunci %[[POOL]] : i64 to i32
// FOLDED: arith.shrui %[[POOL]], %[[C8]] : i64
// FOLDED: arith.shrui %[[POOL]], %[[C32]] : i64
// FOLDED: arith.shrui %[[POOL]], %[[C40]] : i64
// FOLDED: return
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    func.func private @__byte_perm(i32, i32, i32) -> i32
    func.func @perm(%x: i32, %y: i32, %s: i32) -> i32 {
      %0 = func.call @__byte_perm(%x, %y, %s) : (i32, i32, i32) -> i32
      return %0 : i32
    }
    func.func @constant_selector(%x: i32, %y: i32) -> i32 {
      %s = arith.constant 0x5410 : i32
      %0 = func.call @__byte_perm(%x, %y, %s) : (i32, i32, i32) -> i32
      return %0 : i32
    }
  }
}
