// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses | FileCheck %s

// -fsanitize=address: an access at a constant offset inside one of the kernel's own objects
// of fixed size (here a local array of four i32, 16 bytes) is valid for the whole run and is
// left unchecked, as AddressSanitizer leaves such accesses. An access at a dynamic index, or at
// a constant offset past the object's end, is still checked (one site each).

// Two sites: the dynamic load and the store past the end.
// CHECK: hipmlir.memcheck_sites = ["{{[^"]*}}access\22:\22read{{[^"]*}}", "{{[^"]*}}access\22:\22write{{[^"]*}}"]
// CHECK-LABEL: gpu.func @locals
// The store at element 2 (bytes 8-11): no check, no call.
// CHECK: %[[TWO:.*]] = llvm.getelementptr %[[A:.*]][0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x i32>
// CHECK-NEXT: llvm.store %{{.*}}, %[[TWO]] : i32, !llvm.ptr
// The load at a dynamic index: checked against the array's 16 bytes.
// CHECK: llvm.getelementptr %[[A]][0, %{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<4 x i32>
// CHECK: arith.constant 12 : i64
// CHECK: func.call @__hipmlir_memcheck_slow_path
// The store at element 4 (bytes 16-19, past the end): checked.
// CHECK: llvm.getelementptr %[[A]][0, 4] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x i32>
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    gpu.func @locals(%i: i64, %v: i32) kernel attributes {hipmlir.kernel_name = "locals"} {
      %one = llvm.mlir.constant(1 : i64) : i64
      %a5 = llvm.alloca %one x !llvm.array<4 x i32> : (i64) -> !llvm.ptr<5>
      %a = llvm.addrspacecast %a5 : !llvm.ptr<5> to !llvm.ptr
      %two = llvm.getelementptr %a[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x i32>
      llvm.store %v, %two : i32, !llvm.ptr
      %some = llvm.getelementptr %a[0, %i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<4 x i32>
      %x = llvm.load %some : !llvm.ptr -> i32
      %past = llvm.getelementptr %a[0, 4] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x i32>
      llvm.store %x, %past : i32, !llvm.ptr
      gpu.return
    }
  }
}
