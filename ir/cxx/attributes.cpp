// Enum attributes of the gpu and arith dialects, built through MLIR's C++ API: MLIR's C API has
// no constructor for them, and hipmlir must not build them by parsing attribute text. The enum
// arguments are the discriminants of the Rust enums in src/attributes.rs; each switch below maps
// them onto MLIR's enumerators by name.

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"

using namespace mlir;

extern "C" {

MlirAttribute hipmlirGpuDimensionAttrGet(MlirContext ctx, uint32_t dimension) {
  gpu::Dimension d = dimension == 0   ? gpu::Dimension::x
                     : dimension == 1 ? gpu::Dimension::y
                                      : gpu::Dimension::z;
  return wrap(gpu::DimensionAttr::get(unwrap(ctx), d));
}

MlirAttribute hipmlirGpuAllReduceOperationAttrGet(MlirContext ctx, uint32_t op) {
  using O = gpu::AllReduceOperation;
  static const O operations[] = {O::ADD,   O::MUL,   O::AND,   O::OR,
                                 O::XOR,   O::MINUI, O::MINSI, O::MAXUI,
                                 O::MAXSI, O::MINNUMF, O::MAXNUMF};
  if (op >= sizeof(operations) / sizeof(operations[0]))
    return MlirAttribute{nullptr};
  return wrap(gpu::AllReduceOperationAttr::get(unwrap(ctx), operations[op]));
}

MlirAttribute hipmlirGpuShuffleModeAttrGet(MlirContext ctx, uint32_t mode) {
  using M = gpu::ShuffleMode;
  static const M modes[] = {M::XOR, M::UP, M::DOWN, M::IDX};
  if (mode >= sizeof(modes) / sizeof(modes[0]))
    return MlirAttribute{nullptr};
  return wrap(gpu::ShuffleModeAttr::get(unwrap(ctx), modes[mode]));
}

MlirAttribute hipmlirArithNoSignedWrapAttrGet(MlirContext ctx) {
  return wrap(arith::IntegerOverflowFlagsAttr::get(
      unwrap(ctx), arith::IntegerOverflowFlags::nsw));
}

MlirAttribute hipmlirArithFastMathContractAttrGet(MlirContext ctx) {
  return wrap(
      arith::FastMathFlagsAttr::get(unwrap(ctx), arith::FastMathFlags::contract));
}

// `#llvm.loop_annotation<unroll = #llvm.loop_unroll<...>>` for a loop hint: `kind` is the
// discriminant of the Rust `LoopUnroll` (0 enable, 1 full, 2 count, 3 disable).
MlirAttribute hipmlirLLVMLoopUnrollAnnotationGet(MlirContext ctx, uint32_t kind,
                                                 uint32_t count) {
  MLIRContext *c = unwrap(ctx);
  BoolAttr disable, full;
  IntegerAttr times;
  switch (kind) {
  case 0: disable = BoolAttr::get(c, false); break;
  case 1: full = BoolAttr::get(c, true); break;
  case 2: times = IntegerAttr::get(IntegerType::get(c, 32), count); break;
  case 3: disable = BoolAttr::get(c, true); break;
  default: return MlirAttribute{nullptr};
  }
  auto unroll = LLVM::LoopUnrollAttr::get(c, disable, times, {}, full, {}, {}, {});
  return wrap(LLVM::LoopAnnotationAttr::get(c, {}, {}, {}, unroll, {}, {}, {}, {}, {}, {},
                                            {}, {}, {}, {}, {}));
}

} // extern "C"
