// RUN: hipmlir-opt %s --hipmlir-lower-hip-to-nvptx | FileCheck %s

// A float stored below its alignment (a packed record's member) is stored as its bits, which
// a `mov` wrote: NVPTX stores it byte by byte from the register the float instruction wrote,
// and ptxas would convert that register's value to a byte. A record holding floats is stored
// member by member (each at its offset's alignment), a vector of halves as one 32-bit word.
// Aligned float stores and integer stores stay as they are.

// CHECK-LABEL: gpu.func @stores
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr<1>, %[[X:.*]]: f32, %[[D:.*]]: f64, %[[H:.*]]: vector<2xf16>, %[[R:.*]]: !llvm.struct<packed (i8, f32)>, %[[I:.*]]: i32)
// CHECK: %[[XB:.*]] = llvm.bitcast %[[X]] : f32 to i32
// CHECK: %[[XM:.*]] = llvm.inline_asm "mov.b32 $0, $1;", "=r,r" %[[XB]] : (i32) -> i32
// CHECK: llvm.store %[[XM]], %[[P]] {alignment = 1 : i64} : i32, !llvm.ptr<1>
// CHECK: %[[DB:.*]] = llvm.bitcast %[[D]] : f64 to i64
// CHECK: %[[DM:.*]] = llvm.inline_asm "mov.b64 $0, $1;", "=l,l" %[[DB]] : (i64) -> i64
// CHECK: llvm.store volatile %[[DM]], %[[P]] {alignment = 2 : i64} : i64, !llvm.ptr<1>
// CHECK: %[[HB:.*]] = llvm.bitcast %[[H]] : vector<2xf16> to i32
// CHECK: llvm.inline_asm "mov.b32 $0, $1;", "=r,r" %[[HB]]
// CHECK: %[[TAG:.*]] = llvm.extractvalue %[[R]][0] : !llvm.struct<packed (i8, f32)>
// CHECK: %[[TAGP:.*]] = llvm.getelementptr %[[P]][0, 0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, !llvm.struct<packed (i8, f32)>
// CHECK: llvm.store %[[TAG]], %[[TAGP]] {alignment = 1 : i64} : i8, !llvm.ptr<1>
// CHECK: %[[F:.*]] = llvm.extractvalue %[[R]][1] : !llvm.struct<packed (i8, f32)>
// CHECK: %[[FP:.*]] = llvm.getelementptr %[[P]][0, 1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, !llvm.struct<packed (i8, f32)>
// CHECK: %[[FB:.*]] = llvm.bitcast %[[F]] : f32 to i32
// CHECK: %[[FM:.*]] = llvm.inline_asm "mov.b32 $0, $1;", "=r,r" %[[FB]]
// CHECK: llvm.store %[[FM]], %[[FP]] {alignment = 1 : i64} : i32, !llvm.ptr<1>
// CHECK: llvm.store %[[X]], %[[P]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK: llvm.store %[[X]], %[[P]] : f32, !llvm.ptr<1>
// CHECK: llvm.store %[[I]], %[[P]] {alignment = 1 : i64} : i32, !llvm.ptr<1>
module attributes {gpu.container_module, hipmlir.address_spaces = "nvptx"} {
  gpu.module @hipmlir_kernels {
    gpu.func @stores(%p: !llvm.ptr<1>, %x: f32, %d: f64, %h: vector<2xf16>, %r: !llvm.struct<packed (i8, f32)>, %i: i32) kernel {
      llvm.store %x, %p {alignment = 1 : i64} : f32, !llvm.ptr<1>
      llvm.store volatile %d, %p {alignment = 2 : i64} : f64, !llvm.ptr<1>
      llvm.store %h, %p {alignment = 1 : i64} : vector<2xf16>, !llvm.ptr<1>
      llvm.store %r, %p {alignment = 1 : i64} : !llvm.struct<packed (i8, f32)>, !llvm.ptr<1>
      llvm.store %x, %p {alignment = 4 : i64} : f32, !llvm.ptr<1>
      llvm.store %x, %p : f32, !llvm.ptr<1>
      llvm.store %i, %p {alignment = 1 : i64} : i32, !llvm.ptr<1>
      gpu.return
    }
  }
}
