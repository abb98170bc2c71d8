// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses | FileCheck %s

// -fsanitize=address: a store through a kernel argument is compared with the argument's
// allocation (found at the entry in the table's index, with no loop); when the comparison fails
// the module's slow path (one function: the table's binary search, the report) is called, and
// the store runs only when the check passed. A load from a shared array is compared with the
// array's size alone. The sites go to the gpu.module. Kernels of a module without the checker's
// state variable are left alone.
//
// A load through a kernel argument runs unguarded when no lane of the subgroup failed its check
// (here, with no vote, when its own check passed), and guarded only where one did. A store to the
// address a load of the same block checked takes the load's verdict, with no check of its own.

// CHECK: gpu.module @checked attributes {hipmlir.memcheck_sites = [{{.*}}\22access\22:\22write\22,\22bytes\22:4}", {{.*}}\22access\22:\22read\22,\22bytes\22:4,\22object\22:{\22kind\22:\22shared\22,\22name\22:\22tile\22,\22size\22:256}}"]}
// CHECK: func.func private @__hipmlir_memcheck_slow_path
// CHECK: scf.while
// CHECK: llvm.atomicrmw add
// CHECK: llvm.intr.trap
// CHECK-LABEL: gpu.func @k
// CHECK: llvm.mlir.addressof @__hipmlir_memcheck_state
// CHECK-NOT: scf.while
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: scf.if
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr
// CHECK: arith.constant 252 : i64
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-LABEL: gpu.func @l
// CHECK: %[[ANY:.*]] = arith.xori
// CHECK-NEXT: %[[OK:.*]] = scf.if %[[ANY]] -> (i1)
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: scf.if %[[ANY]] -> (f32)
// CHECK-NEXT: scf.if %[[OK]] -> (f32)
// CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: } else {
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-LABEL: gpu.func @rmw
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK-NOT: func.call
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK: gpu.module @unchecked
// CHECK-NOT: scf.if
module attributes {gpu.container_module} {
  gpu.module @checked {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<64 x f32>
    gpu.func @k(%p: !llvm.ptr<1>, %i: i64) kernel attributes {hipmlir.kernel_name = "k"} {
      %v = llvm.mlir.constant(7 : i32) : i32
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %e = llvm.getelementptr %g[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      llvm.store %v, %e : i32, !llvm.ptr
      %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
      %s = llvm.getelementptr %t[%i] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
      %x = llvm.load %s : !llvm.ptr<3> -> f32
      gpu.return
    }
  }
  gpu.module @loads {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    gpu.func @l(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>, %i: i64) kernel attributes {hipmlir.kernel_name = "l"} {
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %e = llvm.getelementptr %g[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %x = llvm.load %e : !llvm.ptr -> f32
      %h = llvm.addrspacecast %q : !llvm.ptr<1> to !llvm.ptr
      llvm.store %x, %h : f32, !llvm.ptr
      gpu.return
    }
    gpu.func @rmw(%p: !llvm.ptr<1>, %i: i64) kernel attributes {hipmlir.kernel_name = "rmw"} {
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %e = llvm.getelementptr %g[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %x = llvm.load %e : !llvm.ptr -> f32
      %y = arith.addf %x, %x : f32
      llvm.store %y, %e : f32, !llvm.ptr
      gpu.return
    }
  }
  gpu.module @unchecked {
    gpu.func @u(%p: !llvm.ptr) kernel {
      %v = llvm.mlir.constant(7 : i32) : i32
      llvm.store %v, %p : i32, !llvm.ptr
      gpu.return
    }
  }
}
