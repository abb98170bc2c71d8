// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses=trap-on-failure | FileCheck %s

// -fsanitize=address where a trap ends the kernel (PTX): a work-item whose check failed calls the
// report function (not inlined; it reads its own ids) and traps before the access, which then
// runs unguarded, so that the device compiler keeps optimizing it as an unchecked one. The slow
// path only searches: it writes nothing (no report, no atomic), so a check that passed changes no
// memory the kernel holds. A write also traps where the error word is raised; the store to the
// address the load checked keeps only that. A write to shared memory, which nothing outside the
// kernel sees, does not read the error word.

// CHECK-LABEL: func.func private @__hipmlir_memcheck_report(%arg0: !llvm.ptr, %arg1: i64, %arg2: i64, %arg3: i64, %arg4: i64) attributes {no_inline}
// CHECK: gpu.thread_id  x
// CHECK: llvm.atomicrmw add
// CHECK: llvm.intr.trap
// CHECK-LABEL: func.func private @__hipmlir_memcheck_slow_path
// CHECK-NOT: llvm.atomicrmw
// CHECK-NOT: llvm.intr.trap
// CHECK-NOT: volatile
// CHECK-LABEL: gpu.func @k
// CHECK: %[[POINTER:[0-9]+]] = llvm.getelementptr %{{[0-9]+}}[%arg1] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[OK:[0-9]+]] = scf.if %{{.*}} -> (i1)
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: %[[BAD:[0-9]+]] = arith.xori %[[OK]]
// CHECK: scf.if
// CHECK-NEXT: scf.if %[[BAD]] {
// CHECK-NEXT: %[[ADDRESS:[0-9]+]] = llvm.ptrtoint %[[POINTER]] : !llvm.ptr to i64
// CHECK: func.call @__hipmlir_memcheck_report(%{{[0-9]+}}, %c0_i64{{[_0-9]*}}, %[[ADDRESS]], %c0_i64{{[_0-9]*}}, %c0_i64{{[_0-9]*}})
// CHECK: llvm.intr.trap
// CHECK-NEXT: } else {
// CHECK-NEXT: }
// CHECK-NEXT: llvm.load %[[POINTER]] : !llvm.ptr -> f32
// CHECK-NOT: func.call
// CHECK: scf.if
// CHECK-NEXT: llvm.intr.trap
// CHECK-NEXT: } else {
// CHECK-NEXT: }
// CHECK-NEXT: llvm.store %{{.*}}, %[[POINTER]] : f32, !llvm.ptr
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK-NOT: llvm.load
// CHECK: func.call @__hipmlir_memcheck_report(%{{[0-9]+}}, %c1_i64{{[_0-9]*}}, %{{[0-9]+}}, %{{[0-9]+}}, %c256_i64{{[_0-9]*}})
// CHECK: llvm.intr.trap
// CHECK-NEXT: } else {
// CHECK-NEXT: }
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
module attributes {gpu.container_module} {
  gpu.module @checked {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<64 x f32>
    gpu.func @k(%p: !llvm.ptr<1>, %i: i64) kernel attributes {hipmlir.kernel_name = "k"} {
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %e = llvm.getelementptr %g[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %x = llvm.load %e : !llvm.ptr -> f32
      %y = arith.addf %x, %x : f32
      llvm.store %y, %e : f32, !llvm.ptr
      %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
      %s = llvm.getelementptr %t[%i] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
      llvm.store %x, %s : f32, !llvm.ptr<3>
      gpu.return
    }
  }
}
