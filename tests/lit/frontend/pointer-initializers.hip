// RUN: hipmlir %s --emit-mlir=frontend -o - | FileCheck %s

// A device variable initialized with addresses keeps zeros where they go and lists each as a
// relocation [offset, @target, addend]: an element's address is the element's offset, a
// member's adds the member's, a base-class pointer to a derived object the base subobject's,
// one past the end is allowed, and a string literal is a read-only global of its own (named by
// its bytes, one in a program). A
// relocated variable is declared after its targets.

#include <hip/hip_runtime.h>

__device__ int table[16];
__device__ int* cursor = &table[2];
struct Span {
  int* begin;
  int count;
  int* end;
};
__device__ Span span = {table + 1, 4, table + 16};
struct Head { long long tag; };
struct Body { int value; };
struct Node : Head, Body {};
__device__ Node node = {{7}, {9}};
__device__ Body* body = &node;
__constant__ const char* label = "ok";
__device__ int** indirect = &cursor;

__global__ void k(int* out) {
  out[0] = *cursor + *span.end + body->value + label[0] + **indirect;
}

// CHECK-DAG: llvm.mlir.global linkonce_odr constant @[[OK:__hipmlir_string_[0-9a-f]+_3]](dense<[111, 107, 0]> : tensor<3xi8>)
// CHECK-DAG: llvm.mlir.global external @table(dense<0> : tensor<64xi8>)
// CHECK-DAG: llvm.mlir.global external @node(dense<[7, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]> : tensor<16xi8>)
// CHECK: llvm.mlir.global external @cursor
// CHECK-SAME: (dense<0> : tensor<8xi8>) {addr_space = 1 : i32, alignment = 8 : i64, hipmlir.relocations = {{\[\[}}0, @table, 8]]}
// CHECK-DAG: llvm.mlir.global external @span(dense<[0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]> : tensor<24xi8>) {addr_space = 1 : i32, alignment = 8 : i64, hipmlir.relocations = {{\[\[}}0, @table, 4], [16, @table, 64]]}
// CHECK-DAG: llvm.mlir.global external @body(dense<0> : tensor<8xi8>) {addr_space = 1 : i32, alignment = 8 : i64, hipmlir.relocations = {{\[\[}}0, @node, 8]]}
// CHECK-DAG: llvm.mlir.global external @label(dense<0> : tensor<8xi8>) {addr_space = 1 : i32, alignment = 8 : i64, hipmlir.relocations = {{\[\[}}0, @[[OK]], 0]]}
// CHECK-DAG: llvm.mlir.global external @indirect(dense<0> : tensor<8xi8>) {addr_space = 1 : i32, alignment = 8 : i64, hipmlir.relocations = {{\[\[}}0, @cursor, 0]]}
// CHECK: func.func
