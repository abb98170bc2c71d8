// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses | FileCheck %s

// -fsanitize=address: a local array that inlining placed inside a condition's block or a
// loop's body (a helper's local, called there) is the access's object as one of the entry
// block is: an access at a dynamic index is checked against its 16 bytes, where it is made.
// (Before, such accesses were left unchecked.) In the loop the check stays in the body, after
// the array: no check of it is made before the loop, where the array does not exist.

// CHECK: hipmlir.memcheck_sites = ["{{[^"]*}}write\22,\22bytes\22:4,\22object\22:{\22kind\22:\22local\22,\22size\22:16}}", "{{[^"]*}}write\22,\22bytes\22:4,\22object\22:{\22kind\22:\22local\22,\22size\22:16}}"]
// CHECK-LABEL: gpu.func @nested
// CHECK: scf.if
// CHECK: %[[A:.*]] = llvm.alloca
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: llvm.store
// CHECK: scf.for
// CHECK: %[[B:.*]] = llvm.alloca
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: llvm.store
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    gpu.func @nested(%i: i64, %v: i32, %c: i1) kernel attributes {hipmlir.kernel_name = "nested"} {
      %one = llvm.mlir.constant(1 : i64) : i64
      scf.if %c {
        %a5 = llvm.alloca %one x !llvm.array<4 x i32> : (i64) -> !llvm.ptr<5>
        %a = llvm.addrspacecast %a5 : !llvm.ptr<5> to !llvm.ptr
        %some = llvm.getelementptr %a[0, %i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<4 x i32>
        llvm.store %v, %some : i32, !llvm.ptr
      }
      %lo = arith.constant 0 : index
      %hi = arith.constant 8 : index
      %step = arith.constant 1 : index
      scf.for %k = %lo to %hi step %step {
        %b5 = llvm.alloca %one x !llvm.array<4 x i32> : (i64) -> !llvm.ptr<5>
        %b = llvm.addrspacecast %b5 : !llvm.ptr<5> to !llvm.ptr
        %ki = arith.index_cast %k : index to i64
        %at = llvm.getelementptr %b[0, %ki] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<4 x i32>
        llvm.store %v, %at : i32, !llvm.ptr
      }
      gpu.return
    }
  }
}
