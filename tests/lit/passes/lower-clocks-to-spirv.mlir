// RUN: hipmlir-opt %s --hipmlir-lower-clocks-to-spirv | FileCheck %s

// Both of HIP's clocks (clock64 and clock read the cycle clock, wall_clock64 the wall clock) read
// SPIR-V's one device clock: each read becomes a call of one imported placeholder taking the
// scope (Device, 1), which serialization turns into OpReadClockKHR. The reads stay apart (the
// placeholder is not pure) and the frontend's clock declarations go.

// CHECK-LABEL: gpu.module @hipmlir_kernels
// CHECK-NOT: func.func private @__hipmlir_clock
// CHECK: spirv.func @__hipmlir_spirv_read_clock(i32) -> i64 "None" attributes {linkage_attributes = #spirv.linkage_attributes<linkage_name = "__hipmlir_spirv_read_clock", linkage_type = <Import>>}
// CHECK-NOT: func.func private @__hipmlir_clock
// CHECK: gpu.func @timed
// CHECK: %[[SCOPE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT: %[[BEFORE:.*]] = spirv.FunctionCall @__hipmlir_spirv_read_clock(%[[SCOPE]]) : (i32) -> i64
// CHECK: %[[SCOPE2:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT: %[[WALL:.*]] = spirv.FunctionCall @__hipmlir_spirv_read_clock(%[[SCOPE2]]) : (i32) -> i64
// CHECK: %[[SCOPE3:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT: %[[AFTER:.*]] = spirv.FunctionCall @__hipmlir_spirv_read_clock(%[[SCOPE3]]) : (i32) -> i64
// CHECK: llvm.store %[[BEFORE]]
// CHECK: llvm.store %[[WALL]]
// CHECK: llvm.store %[[AFTER]]
// CHECK-NOT: func.call
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @hipmlir_kernels {
    func.func private @__hipmlir_clock_cycles() -> i64
    func.func private @__hipmlir_clock_wall() -> i64
    gpu.func @timed(%out: !llvm.ptr<1>) kernel {
      %before = func.call @__hipmlir_clock_cycles() : () -> i64
      %wall = func.call @__hipmlir_clock_wall() : () -> i64
      %after = func.call @__hipmlir_clock_cycles() : () -> i64
      %one = llvm.mlir.constant(1 : i64) : i64
      %p1 = llvm.getelementptr %out[%one] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
      %p2 = llvm.getelementptr %p1[%one] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
      llvm.store %before, %out : i64, !llvm.ptr<1>
      llvm.store %wall, %p1 : i64, !llvm.ptr<1>
      llvm.store %after, %p2 : i64, !llvm.ptr<1>
      gpu.return
    }
  }
}
