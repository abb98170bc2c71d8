// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses | FileCheck %s

// -fsanitize=address: an object escapes, and a check of an address from the table compares
// with it in its cold path, only when its generic pointer reaches more than accesses the pass
// traces back to it: stored to memory, selected, passed to a call, made an integer. An object
// whose generic pointer only addresses loads and stores (an inlined helper's `this`) is checked
// at those accesses against its own bounds and is compared with nowhere else: that comparison
// took its address as an integer, and LLVM then kept the object on the stack.

// CHECK-LABEL: gpu.func @kernel
// CHECK: %[[ACCESSED:.*]] = llvm.alloca %{{.*}} x !llvm.array<4 x i32>
// CHECK: %[[STORED:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: %[[SELECTED:.*]] = llvm.alloca %{{.*}} x i64
// CHECK-NOT: llvm.addrspacecast %[[ACCESSED]]
// CHECK: llvm.addrspacecast %[[STORED]]
// CHECK: arith.cmpi ule
// CHECK: llvm.addrspacecast %[[SELECTED]]
// CHECK: arith.cmpi ule
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK-NOT: llvm.addrspacecast %[[ACCESSED]]
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @objects {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    gpu.func @kernel(%p: !llvm.ptr<1>, %i: i64, %v: i32, %s: i1) kernel attributes {hipmlir.kernel_name = "kernel"} {
      %one = llvm.mlir.constant(1 : i64) : i64
      %accessed5 = llvm.alloca %one x !llvm.array<4 x i32> : (i64) -> !llvm.ptr<5>
      %accessed = llvm.addrspacecast %accessed5 : !llvm.ptr<5> to !llvm.ptr
      %element = llvm.getelementptr %accessed[0, %i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<4 x i32>
      llvm.store %v, %element : i32, !llvm.ptr
      %stored5 = llvm.alloca %one x i32 : (i64) -> !llvm.ptr<5>
      %stored = llvm.addrspacecast %stored5 : !llvm.ptr<5> to !llvm.ptr
      %selected5 = llvm.alloca %one x i64 : (i64) -> !llvm.ptr<5>
      %selected = llvm.addrspacecast %selected5 : !llvm.ptr<5> to !llvm.ptr
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %either = llvm.select %s, %selected, %g : i1, !llvm.ptr
      llvm.store %stored, %g : !llvm.ptr, !llvm.ptr
      %q = llvm.load %g : !llvm.ptr -> !llvm.ptr
      llvm.store %v, %q : i32, !llvm.ptr
      llvm.store %v, %either : i32, !llvm.ptr
      gpu.return
    }
  }
}
