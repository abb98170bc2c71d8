// RUN: not hipmlir-opt %s --split-input-file --hipmlir-address-spaces-to-spirv 2>&1 | FileCheck %s

// An address space that is none of hipmlir's is refused, not guessed.
// CHECK: address space 7 is none of hipmlir's
module {
  func.func private @f(!llvm.ptr<7>)
}

// -----

// Renumbering twice would scramble the spaces.
// CHECK: already renumbered for a target ("spirv")
module attributes {hipmlir.address_spaces = "spirv"} {
  func.func private @g(!llvm.ptr)
}
