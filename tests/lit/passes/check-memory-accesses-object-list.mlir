// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses | FileCheck %s

// -fsanitize=address: a kernel with five or more objects whose address becomes a generic
// pointer lists them once, in a local array of words (their count, then each one's address and
// size), just after the last of them is allocated; a check after that passes the list to the slow path, which searches
// it, instead of comparing the address with each object inline (a kernel with many inlined
// constructors made most of its code of those comparisons). A check before the list is filled
// still compares inline with the objects that exist there. A kernel with fewer objects has no
// list: its calls pass a null list.

// The slow path searches the list after the table.
// CHECK-LABEL: func.func private @__hipmlir_memcheck_slow_path
// CHECK-SAME: %[[LIST:[^:]*]]: !llvm.ptr) -> i1
// CHECK: %[[ADDRESS:.*]] = llvm.ptrtoint %[[LIST]]
// CHECK: %[[ANY:.*]] = arith.cmpi ne, %[[ADDRESS]], %{{.*}} : i64
// CHECK-NEXT: scf.if %[[ANY]] -> (i1)
// CHECK-NEXT: %[[AT:.*]] = llvm.getelementptr %[[LIST]][0]
// CHECK-NEXT: %[[COUNT:.*]] = llvm.load %[[AT]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[COUNT]] step
// CHECK: llvm.getelementptr %[[LIST]][%{{.*}}]
//
// CHECK-LABEL: gpu.func @five
// CHECK: %[[A:.*]] = llvm.alloca %{{.*}} x i32
// Before the list: the objects allocated so far, compared inline.
// CHECK: llvm.addrspacecast %[[A]]
// CHECK: arith.cmpi ule
// CHECK: %[[NONE:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: func.call @__hipmlir_memcheck_slow_path({{.*}}, %[[NONE]]) : (
// CHECK: %[[E:.*]] = llvm.alloca %{{.*}} x !llvm.array<8 x i32>
// CHECK: %[[WORDS:.*]] = llvm.alloca %{{.*}} x i64
// CHECK: llvm.addrspacecast %[[A]]
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<5>
// CHECK: llvm.addrspacecast %[[E]]
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<5>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<5>
// CHECK-NEXT: %[[FILLED:.*]] = llvm.addrspacecast %[[WORDS]]
// After it: no comparison with an object, the list passed.
// CHECK-NOT: llvm.addrspacecast %[[A]]
// CHECK: func.call @__hipmlir_memcheck_slow_path({{.*}}, %[[FILLED]])
// CHECK: gpu.return
//
// CHECK-LABEL: gpu.func @two
// CHECK-NOT: x i64
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: func.call @__hipmlir_memcheck_slow_path({{.*}}, %[[NULL]])
module attributes {gpu.container_module} {
  gpu.module @many {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    gpu.func @five(%p: !llvm.ptr<1>, %v: i32) kernel attributes {hipmlir.kernel_name = "five"} {
      %one = llvm.mlir.constant(1 : i64) : i64
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %a5 = llvm.alloca %one x i32 : (i64) -> !llvm.ptr<5>
      %a = llvm.addrspacecast %a5 : !llvm.ptr<5> to !llvm.ptr
      llvm.store %a, %g : !llvm.ptr, !llvm.ptr
      %b5 = llvm.alloca %one x i32 : (i64) -> !llvm.ptr<5>
      %b = llvm.addrspacecast %b5 : !llvm.ptr<5> to !llvm.ptr
      llvm.store %b, %g : !llvm.ptr, !llvm.ptr
      %c5 = llvm.alloca %one x i64 : (i64) -> !llvm.ptr<5>
      %c = llvm.addrspacecast %c5 : !llvm.ptr<5> to !llvm.ptr
      llvm.store %c, %g : !llvm.ptr, !llvm.ptr
      %d5 = llvm.alloca %one x !llvm.array<4 x i32> : (i64) -> !llvm.ptr<5>
      %d = llvm.addrspacecast %d5 : !llvm.ptr<5> to !llvm.ptr
      llvm.store %d, %g : !llvm.ptr, !llvm.ptr
      %early = llvm.load %g : !llvm.ptr -> !llvm.ptr
      llvm.store %v, %early : i32, !llvm.ptr
      %e5 = llvm.alloca %one x !llvm.array<8 x i32> : (i64) -> !llvm.ptr<5>
      %e = llvm.addrspacecast %e5 : !llvm.ptr<5> to !llvm.ptr
      llvm.store %e, %g : !llvm.ptr, !llvm.ptr
      %q = llvm.load %g : !llvm.ptr -> !llvm.ptr
      llvm.store %v, %q : i32, !llvm.ptr
      gpu.return
    }
    gpu.func @two(%p: !llvm.ptr<1>, %v: i32) kernel attributes {hipmlir.kernel_name = "two"} {
      %one = llvm.mlir.constant(1 : i64) : i64
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %a5 = llvm.alloca %one x i32 : (i64) -> !llvm.ptr<5>
      %a = llvm.addrspacecast %a5 : !llvm.ptr<5> to !llvm.ptr
      %b5 = llvm.alloca %one x i32 : (i64) -> !llvm.ptr<5>
      %b = llvm.addrspacecast %b5 : !llvm.ptr<5> to !llvm.ptr
      %q = llvm.load %g : !llvm.ptr -> !llvm.ptr
      llvm.store %v, %q : i32, !llvm.ptr
      gpu.return
    }
  }
}
