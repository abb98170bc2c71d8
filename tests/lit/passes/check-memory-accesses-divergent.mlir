// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses | FileCheck %s

// -fsanitize=address under a condition that differs between work-items (`t < n ? p[t] : 0`):
// the address is computed and checked before the condition, for the lanes that take it; under
// the condition the load only takes the verdict (as a mask, where the device runs the lanes of
// a subgroup together and masks the condition's body anyway).

// CHECK-LABEL: gpu.func @ternary
// CHECK: %[[COND:.*]] = arith.cmpi slt
// CHECK-NEXT: arith.extsi
// CHECK-NEXT: llvm.getelementptr
// CHECK: arith.andi %{{.*}}, %[[COND]] : i1
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: scf.if %[[COND]] -> (f32) {
// CHECK-NEXT: arith.extsi
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr
// CHECK-NEXT: %[[V:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: llvm.load %[[P]] : !llvm.ptr -> f32
// CHECK-NEXT: scf.yield

// A condition the same for all work-items (on the block's id) keeps the check where the access
// is.
// CHECK-LABEL: gpu.func @uniform
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: func.call @__hipmlir_memcheck_slow_path

// The kernel's guard (`if (t < n) { ... }` ending its entry block), which the device compiler
// turns into the bounds of its loop over the work-group, keeps the check inside.
// CHECK-LABEL: gpu.func @guarded
// CHECK: scf.if %{{.*}} {
// CHECK: func.call @__hipmlir_memcheck_slow_path

// A call before the access under the condition (it may stop the work-item, as assert does)
// keeps the check where the access is.
// CHECK-LABEL: gpu.func @after_call
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: func.call @stop
// CHECK: func.call @__hipmlir_memcheck_slow_path
// A local made inside the condition is not among the objects the check before it compares
// with (the address computed there cannot point into it; naming it there made the module
// invalid).
// CHECK-LABEL: gpu.func @local_inside
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: llvm.alloca
module attributes {gpu.container_module} {
  gpu.module @divergent {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    func.func private @stop(i32)
    gpu.func @ternary(%p: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32) kernel attributes {hipmlir.kernel_name = "ternary"} {
      %z = arith.constant 0.0 : f32
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %o = llvm.addrspacecast %out : !llvm.ptr<1> to !llvm.ptr
      %tid = gpu.thread_id x
      %t = arith.index_castui %tid : index to i32
      %c = arith.cmpi slt, %t, %n : i32
      %x = scf.if %c -> (f32) {
        %w = arith.extsi %t : i32 to i64
        %e = llvm.getelementptr %g[%w] : (!llvm.ptr, i64) -> !llvm.ptr, f32
        %v = llvm.load %e : !llvm.ptr -> f32
        scf.yield %v : f32
      } else {
        scf.yield %z : f32
      }
      llvm.store %x, %o : f32, !llvm.ptr
      gpu.return
    }
    gpu.func @uniform(%p: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32) kernel attributes {hipmlir.kernel_name = "uniform"} {
      %z = arith.constant 0.0 : f32
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %o = llvm.addrspacecast %out : !llvm.ptr<1> to !llvm.ptr
      %bid = gpu.block_id x
      %b = arith.index_castui %bid : index to i32
      %c = arith.cmpi slt, %b, %n : i32
      %x = scf.if %c -> (f32) {
        %w = arith.extsi %b : i32 to i64
        %e = llvm.getelementptr %g[%w] : (!llvm.ptr, i64) -> !llvm.ptr, f32
        %v = llvm.load %e : !llvm.ptr -> f32
        scf.yield %v : f32
      } else {
        scf.yield %z : f32
      }
      llvm.store %x, %o : f32, !llvm.ptr
      gpu.return
    }
    gpu.func @guarded(%p: !llvm.ptr<1>, %n: i32) kernel attributes {hipmlir.kernel_name = "guarded"} {
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %tid = gpu.thread_id x
      %t = arith.index_castui %tid : index to i32
      %c = arith.cmpi slt, %t, %n : i32
      scf.if %c {
        %w = arith.extsi %t : i32 to i64
        %e = llvm.getelementptr %g[%w] : (!llvm.ptr, i64) -> !llvm.ptr, f32
        %v = llvm.load %e : !llvm.ptr -> f32
        %d = arith.addf %v, %v : f32
        llvm.store %d, %e : f32, !llvm.ptr
      }
      gpu.return
    }
    gpu.func @after_call(%p: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32) kernel attributes {hipmlir.kernel_name = "after_call"} {
      %z = arith.constant 0.0 : f32
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %o = llvm.addrspacecast %out : !llvm.ptr<1> to !llvm.ptr
      %tid = gpu.thread_id x
      %t = arith.index_castui %tid : index to i32
      %c = arith.cmpi slt, %t, %n : i32
      %x = scf.if %c -> (f32) {
        func.call @stop(%t) : (i32) -> ()
        %w = arith.extsi %t : i32 to i64
        %e = llvm.getelementptr %g[%w] : (!llvm.ptr, i64) -> !llvm.ptr, f32
        %v = llvm.load %e : !llvm.ptr -> f32
        scf.yield %v : f32
      } else {
        scf.yield %z : f32
      }
      llvm.store %x, %o : f32, !llvm.ptr
      gpu.return
    }
    gpu.func @local_inside(%out: !llvm.ptr<1>, %n: i32) kernel attributes {hipmlir.kernel_name = "local_inside"} {
      %one = arith.constant 1 : i64
      %o = llvm.addrspacecast %out : !llvm.ptr<1> to !llvm.ptr
      %tid = gpu.thread_id x
      %t = arith.index_castui %tid : index to i32
      %c = arith.cmpi slt, %t, %n : i32
      scf.if %c {
        %a = llvm.alloca %one x i32 : (i64) -> !llvm.ptr<5>
        %ag = llvm.addrspacecast %a : !llvm.ptr<5> to !llvm.ptr
        llvm.store %t, %ag : i32, !llvm.ptr
        %v = llvm.load %ag : !llvm.ptr -> i32
        %w = arith.extsi %t : i32 to i64
        %e = llvm.getelementptr %o[%w] : (!llvm.ptr, i64) -> !llvm.ptr, i32
        llvm.store %v, %e : i32, !llvm.ptr
      }
      llvm.store %n, %o : i32, !llvm.ptr
      gpu.return
    }
  }
}
