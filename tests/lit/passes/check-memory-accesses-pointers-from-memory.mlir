// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses=subgroup-vote | FileCheck %s

// -fsanitize=address with the SPIR-V target's vote: a load through a kernel argument is
// compared with the argument's allocation, voted on, and calls the slow path where a lane
// failed. A pointer read from memory has no fast check: every lane fails it, the vote calls
// the slow path, and the load is guarded (calling the slow path without the vote and its
// branch made smaller code, but Intel's CPU compiler then computed wrong float atomics in
// tests/programs/generic_atomics.hip). The store to the same address takes the load's verdict
// and waits for a clear error word.

// CHECK-LABEL: gpu.func @m
// CHECK-NOT: scf.if
// The pointer, read through the argument: voted on.
// CHECK: %[[ANY:.*]] = spirv.GroupNonUniformAny <Subgroup>
// CHECK-NEXT: scf.if %[[ANY]] -> (i1)
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: scf.if %[[ANY]] -> (!llvm.ptr)
// CHECK: llvm.load
// The element, through the pointer read: voted on, the slow path called, the load guarded.
// CHECK: %[[ANY2:.*]] = spirv.GroupNonUniformAny <Subgroup>
// CHECK-NEXT: %[[OK:.*]] = scf.if %[[ANY2]] -> (i1)
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: scf.if %[[ANY2]] -> (i32)
// CHECK-NEXT: scf.if %[[OK]] -> (i32)
// CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK: } else {
// CHECK: } else {
// CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK-NOT: func.call
// CHECK: %[[CLEAR:.*]] = arith.cmpi eq
// CHECK-NEXT: %[[STORE_OK:.*]] = arith.andi %[[OK]], %[[CLEAR]]
// CHECK-NEXT: scf.if %[[STORE_OK]] {
// CHECK-NEXT: llvm.store
//
// A pointer read from a variable through which the runtime gives the module a word of its own
// (the abort flag's, raised by every inlined trap) points to no memory of the program's: the
// store through it is left alone, with no site (before, one kernel made 1263 checks of it).
// CHECK-LABEL: gpu.func @stop
// CHECK-NOT: func.call
// CHECK: llvm.store volatile %{{.*}}, %{{.*}} : i32, !llvm.ptr
// CHECK-NEXT: llvm.intr.trap
module attributes {gpu.container_module} {
  gpu.module @read_pointers {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    gpu.func @m(%p: !llvm.ptr<1>, %i: i64) kernel attributes {hipmlir.kernel_name = "m"} {
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %q = llvm.load %g : !llvm.ptr -> !llvm.ptr
      %e = llvm.getelementptr %q[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      %x = llvm.load %e : !llvm.ptr -> i32
      %one = llvm.mlir.constant(1 : i32) : i32
      %y = llvm.add %x, %one : i32
      llvm.store %y, %e : i32, !llvm.ptr
      gpu.return
    }
  }
  gpu.module @runtime_words {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    llvm.mlir.global linkonce_odr @__hipmlir_device_abort_flag(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    gpu.func @stop() kernel attributes {hipmlir.kernel_name = "stop"} {
      %slot = llvm.mlir.addressof @__hipmlir_device_abort_flag : !llvm.ptr<1>
      %word = llvm.load %slot : !llvm.ptr<1> -> !llvm.ptr
      %one = llvm.mlir.constant(1 : i32) : i32
      llvm.store volatile %one, %word : i32, !llvm.ptr
      llvm.intr.trap
      gpu.return
    }
  }
}
