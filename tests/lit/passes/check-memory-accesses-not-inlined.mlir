// RUN: hipmlir-opt %s --hipmlir-check-memory-accesses | FileCheck %s

// -fsanitize=address: a kernel that calls the slow path more than 48 times calls the copy that
// is not inlined, and passes it 8 words instead of 11: the site, bytes and the flags search and
// write, constants at each call, are packed in one word (site | bytes << 32 | search << 56 |
// write << 57). The copy unpacks them and calls the slow path, which the device compiler
// inlines there. A kernel without warp operations passes no threadIdx (-1): the slow path reads
// the work-item's own ids when it reports. (With a word each, each of a kernel's thousands of
// calls took more lines of PTX, and its words lived across the whole kernel.)

// CHECK-LABEL: func.func private @__hipmlir_memcheck_slow_path_not_inlined
// CHECK-SAME: (%[[STATE:[^:]*]]: !llvm.ptr, %[[THREAD:[^:]*]]: i64, %[[ADDRESS:[^:]*]]: i64, %[[PACKED:[^:]*]]: i64, %[[BASE:[^:]*]]: i64, %[[SIZE:[^:]*]]: i64, %[[INSIDE:[^:]*]]: i64, %[[LIST:[^:]*]]: !llvm.ptr) -> i1 attributes {no_inline}
// CHECK: %[[BYTES:.*]] = arith.andi %{{.*}}, %{{.*}} : i64
// CHECK: %[[SITE:.*]] = arith.andi %{{.*}}, %{{.*}} : i64
// CHECK: %[[SEARCH:.*]] = arith.andi %{{.*}}, %{{.*}} : i64
// CHECK: %[[WRITE:.*]] = arith.andi %{{.*}}, %{{.*}} : i64
// CHECK: %[[CALL:.*]] = call @__hipmlir_memcheck_slow_path(%[[STATE]], %[[ADDRESS]], %[[BYTES]], %[[SITE]], %[[BASE]], %[[SIZE]], %[[THREAD]], %[[INSIDE]], %[[SEARCH]], %[[WRITE]], %[[LIST]])
// CHECK-NEXT: return %[[CALL]] : i1
//
// The report's threadIdx: the passed word's fields where one was passed, else the work-item's own.
// CHECK-LABEL: func.func private @__hipmlir_memcheck_slow_path
// CHECK: %[[OWN_X:.*]] = arith.index_castui %thread_id_x
// CHECK: %[[PASSED:.*]] = arith.cmpi ne, %[[PASSED_WORD:.*]], %c-1_i64
// CHECK: %[[FIELD_X:.*]] = arith.andi
// CHECK-NEXT: arith.select %[[PASSED]], %[[FIELD_X]], %[[OWN_X]] : i64
//
// CHECK-LABEL: gpu.func @fifty
// CHECK: %[[STATE:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> !llvm.ptr
// CHECK: %[[NONE:.*]] = arith.constant -1 : i64
// CHECK-NOT: gpu.thread_id
// The first store: site 0, 4 bytes, searched, a write.
// CHECK: %[[FIRST:.*]] = arith.constant 216172799293652992 : i64
// CHECK-NEXT: func.call @__hipmlir_memcheck_slow_path_not_inlined(%[[STATE]], %[[NONE]], %{{.*}}, %[[FIRST]], %{{.*}})
// The last: site 49.
// CHECK: %[[LAST:.*]] = arith.constant 216172799293653041 : i64
// CHECK-NEXT: func.call @__hipmlir_memcheck_slow_path_not_inlined(%[[STATE]], %[[NONE]], %{{.*}}, %[[LAST]], %{{.*}})
// CHECK-NOT: func.call @__hipmlir_memcheck_slow_path(
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @many_calls {
    llvm.mlir.global external @__hipmlir_memcheck_state(dense<0> : tensor<8xi8>) {addr_space = 1 : i32} : !llvm.array<8 x i8>
    gpu.func @fifty(%p: !llvm.ptr<1>, %i: i64, %v: i32) kernel attributes {hipmlir.kernel_name = "fifty"} {
      %g = llvm.addrspacecast %p : !llvm.ptr<1> to !llvm.ptr
      %e0 = llvm.getelementptr %g[%i, 0] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e0 : i32, !llvm.ptr
      %e1 = llvm.getelementptr %g[%i, 1] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e1 : i32, !llvm.ptr
      %e2 = llvm.getelementptr %g[%i, 2] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e2 : i32, !llvm.ptr
      %e3 = llvm.getelementptr %g[%i, 3] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e3 : i32, !llvm.ptr
      %e4 = llvm.getelementptr %g[%i, 4] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e4 : i32, !llvm.ptr
      %e5 = llvm.getelementptr %g[%i, 5] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e5 : i32, !llvm.ptr
      %e6 = llvm.getelementptr %g[%i, 6] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e6 : i32, !llvm.ptr
      %e7 = llvm.getelementptr %g[%i, 7] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e7 : i32, !llvm.ptr
      %e8 = llvm.getelementptr %g[%i, 8] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e8 : i32, !llvm.ptr
      %e9 = llvm.getelementptr %g[%i, 9] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e9 : i32, !llvm.ptr
      %e10 = llvm.getelementptr %g[%i, 10] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e10 : i32, !llvm.ptr
      %e11 = llvm.getelementptr %g[%i, 11] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e11 : i32, !llvm.ptr
      %e12 = llvm.getelementptr %g[%i, 12] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e12 : i32, !llvm.ptr
      %e13 = llvm.getelementptr %g[%i, 13] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e13 : i32, !llvm.ptr
      %e14 = llvm.getelementptr %g[%i, 14] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e14 : i32, !llvm.ptr
      %e15 = llvm.getelementptr %g[%i, 15] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e15 : i32, !llvm.ptr
      %e16 = llvm.getelementptr %g[%i, 16] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e16 : i32, !llvm.ptr
      %e17 = llvm.getelementptr %g[%i, 17] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e17 : i32, !llvm.ptr
      %e18 = llvm.getelementptr %g[%i, 18] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e18 : i32, !llvm.ptr
      %e19 = llvm.getelementptr %g[%i, 19] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e19 : i32, !llvm.ptr
      %e20 = llvm.getelementptr %g[%i, 20] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e20 : i32, !llvm.ptr
      %e21 = llvm.getelementptr %g[%i, 21] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e21 : i32, !llvm.ptr
      %e22 = llvm.getelementptr %g[%i, 22] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e22 : i32, !llvm.ptr
      %e23 = llvm.getelementptr %g[%i, 23] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e23 : i32, !llvm.ptr
      %e24 = llvm.getelementptr %g[%i, 24] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e24 : i32, !llvm.ptr
      %e25 = llvm.getelementptr %g[%i, 25] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e25 : i32, !llvm.ptr
      %e26 = llvm.getelementptr %g[%i, 26] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e26 : i32, !llvm.ptr
      %e27 = llvm.getelementptr %g[%i, 27] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e27 : i32, !llvm.ptr
      %e28 = llvm.getelementptr %g[%i, 28] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e28 : i32, !llvm.ptr
      %e29 = llvm.getelementptr %g[%i, 29] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e29 : i32, !llvm.ptr
      %e30 = llvm.getelementptr %g[%i, 30] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e30 : i32, !llvm.ptr
      %e31 = llvm.getelementptr %g[%i, 31] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e31 : i32, !llvm.ptr
      %e32 = llvm.getelementptr %g[%i, 32] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e32 : i32, !llvm.ptr
      %e33 = llvm.getelementptr %g[%i, 33] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e33 : i32, !llvm.ptr
      %e34 = llvm.getelementptr %g[%i, 34] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e34 : i32, !llvm.ptr
      %e35 = llvm.getelementptr %g[%i, 35] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e35 : i32, !llvm.ptr
      %e36 = llvm.getelementptr %g[%i, 36] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e36 : i32, !llvm.ptr
      %e37 = llvm.getelementptr %g[%i, 37] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e37 : i32, !llvm.ptr
      %e38 = llvm.getelementptr %g[%i, 38] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e38 : i32, !llvm.ptr
      %e39 = llvm.getelementptr %g[%i, 39] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e39 : i32, !llvm.ptr
      %e40 = llvm.getelementptr %g[%i, 40] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e40 : i32, !llvm.ptr
      %e41 = llvm.getelementptr %g[%i, 41] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e41 : i32, !llvm.ptr
      %e42 = llvm.getelementptr %g[%i, 42] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e42 : i32, !llvm.ptr
      %e43 = llvm.getelementptr %g[%i, 43] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e43 : i32, !llvm.ptr
      %e44 = llvm.getelementptr %g[%i, 44] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e44 : i32, !llvm.ptr
      %e45 = llvm.getelementptr %g[%i, 45] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e45 : i32, !llvm.ptr
      %e46 = llvm.getelementptr %g[%i, 46] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e46 : i32, !llvm.ptr
      %e47 = llvm.getelementptr %g[%i, 47] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e47 : i32, !llvm.ptr
      %e48 = llvm.getelementptr %g[%i, 48] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e48 : i32, !llvm.ptr
      %e49 = llvm.getelementptr %g[%i, 49] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<50 x i32>
      llvm.store %v, %e49 : i32, !llvm.ptr
      gpu.return
    }
  }
}
