// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses=subgroup-vote | FileCheck %s

// -fsanitize=address, second round: a kernel argument's allocation is looked up once at the
// entry (the per-access check compares with it first; with subgroup-vote, the SPIR-V target's,
// the slow path is called only when a lane of the subgroup failed, and the vote is marked as
// the checker's); a compare-and-swap runs
// under the check, its old value the scf.if's result and its success flag a comparison with
// the expected value; dynamic shared memory is checked against the size the runtime writes into
// the state.

// CHECK: gpu.module @checked attributes {hipmlir.memcheck_sites = [{{.*}}\22access\22:\22atomic\22,\22bytes\22:4}", {{.*}}\22access\22:\22write\22,\22bytes\22:4,\22object\22:{\22kind\22:\22dynamic_shared\22,\22size\22:0}}"]}
// CHECK-LABEL: gpu.func @k
// CHECK: llvm.mlir.addressof @__hipmlir_memcheck_state
// CHECK-NOT: scf.while
// CHECK: spirv.GroupNonUniformAny <Subgroup> %{{.*}} {hipmlir.memcheck_vote} : i1
// CHECK: func.call @__hipmlir_memcheck_slow_path
// CHECK: scf.if %{{.*}} -> (i32) {
// CHECK-NEXT: llvm.cmpxchg
// CHECK-NEXT: llvm.extractvalue %{{.*}}[0]
// CHECK: arith.cmpi eq
// CHECK-NOT: llvm.extractvalue %{{.*}}[1]
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
module attributes {gpu.container_module} {
  gpu.module @checked {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    llvm.mlir.global external @__hipmlir_dynamic_shared() {addr_space = 3 : i32} : !llvm.array<0 x i8>
    gpu.func @k(%p: !llvm.ptr<1>, %i: i64) kernel attributes {hipmlir.kernel_name = "k"} {
      %z = llvm.mlir.constant(0 : i32) : i32
      %v = llvm.mlir.constant(7 : i32) : i32
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %e = llvm.getelementptr %g[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      %pair = llvm.cmpxchg %e, %z, %v monotonic monotonic : !llvm.ptr, i32
      %old = llvm.extractvalue %pair[0] : !llvm.struct<(i32, i1)>
      %ok = llvm.extractvalue %pair[1] : !llvm.struct<(i32, i1)>
      %d = llvm.mlir.addressof @__hipmlir_dynamic_shared : !llvm.ptr<3>
      %s = llvm.getelementptr %d[%i] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i32
      llvm.store %old, %s : i32, !llvm.ptr<3>
      gpu.return
    }
  }
}
