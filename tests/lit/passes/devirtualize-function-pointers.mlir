// RUN: hipmlir-opt %s --hipmlir-devirtualize-function-pointers | FileCheck %s

// A call through a function pointer (an integer id) becomes a choice among the address-taken
// functions of the call's type; an id naming none of them prints a report and calls the module's
// stop function (which raises the abort flag and traps: the program stops), then yields zero.
// The table of address-taken functions is consumed.

// CHECK-NOT: hipmlir.function_pointers
// The report's message: its bytes ("hipmlir: device code called a function pointer (0x%lx)
// ...\n") and a NUL, in constant memory.
// CHECK: llvm.mlir.global internal constant @__hipmlir_str_bad_function_pointer(dense<"0x6869706D6C69723A2064657669636520636F64652063616C6C656420612066756E6374696F6E20706F696E74657220283078256C7829{{([0-9A-F][0-9A-F])+}}0A00"> : tensor<120xi8>) {addr_space = 4 : i32} : !llvm.array<120 x i8>
// CHECK: func.func private @__hipmlir_printf_bad_function_pointer(!llvm.ptr<4>, i64) -> i32
module attributes {hipmlir.function_pointers = {half = 2 : i64, other = 3 : i64, twice = 1 : i64}} {
  // CHECK-LABEL: func.func @apply(
  // CHECK-SAME: %[[ID:.*]]: i64, %[[X:.*]]: f32
  // CHECK-NOT: call_indirect
  // CHECK: %[[HALF:.*]] = arith.constant 2 : i64
  // CHECK: %[[IS_HALF:.*]] = arith.cmpi eq, %[[ID]], %[[HALF]]
  // CHECK: scf.if %[[IS_HALF]]
  // CHECK: func.call @half(%[[X]])
  // CHECK: arith.cmpi eq
  // CHECK: func.call @twice(%[[X]])
  // CHECK: %[[MESSAGE:.*]] = llvm.mlir.addressof @__hipmlir_str_bad_function_pointer : !llvm.ptr<4>
  // CHECK-NEXT: func.call @__hipmlir_printf_bad_function_pointer(%[[MESSAGE]], %[[ID]]) : (!llvm.ptr<4>, i64) -> i32
  // CHECK-NEXT: func.call @__hipmlir_device_trap() : () -> ()
  // CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: scf.yield %[[ZERO]] : f32
  // The function of another type is no candidate.
  // CHECK-NOT: func.call @other
  // CHECK: return
  func.func @apply(%id: i64, %x: f32) -> f32 {
    %f = builtin.unrealized_conversion_cast %id : i64 to (f32) -> f32
    %r = func.call_indirect %f(%x) : (f32) -> f32
    return %r : f32
  }
  func.func private @twice(%x: f32) -> f32 {
    %r = arith.addf %x, %x : f32
    return %r : f32
  }
  func.func private @half(%x: f32) -> f32 {
    %c = arith.constant 2.0 : f32
    %r = arith.divf %x, %c : f32
    return %r : f32
  }
  func.func private @other(%x: i32) -> i32 {
    return %x : i32
  }
  // The frontend's stop function (its body: raise the abort flag, trap).
  func.func private @__hipmlir_device_trap() {
    llvm.intr.trap
    return
  }
}
