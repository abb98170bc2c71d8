// SPIR-V types and attributes for hipmlir's passes, built through MLIR's C++ API: MLIR's C API
// has no constructor for them (only the dialect's registration), and the passes must not build
// them by printing and parsing text. Enum arguments carry the SPIR-V specification's numbers,
// which MLIR's SPIR-V enums use as their values. src/spirv_ir.rs is the safe Rust side.

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVTypes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"

#include <optional>
#include <vector>

using namespace mlir;

extern "C" {

MlirType hipmlirSpirvPointerTypeGet(MlirType pointee, uint32_t storageClass) {
  return wrap(spirv::PointerType::get(
      unwrap(pointee), static_cast<spirv::StorageClass>(storageClass)));
}

// The storage class of a `!spirv.ptr`, or -1 for any other type.
int64_t hipmlirSpirvPointerTypeGetStorageClass(MlirType type) {
  auto pointer = llvm::dyn_cast<spirv::PointerType>(unwrap(type));
  return pointer ? static_cast<int64_t>(pointer.getStorageClass()) : -1;
}

MlirType hipmlirSpirvArrayTypeGet(MlirType element, uint32_t count) {
  return wrap(spirv::ArrayType::get(unwrap(element), count));
}

// A struct of `members`, with each member's byte offset when `offsets` is not null.
MlirType hipmlirSpirvStructTypeGet(MlirContext ctx, intptr_t count,
                                   const MlirType *members,
                                   const uint32_t *offsets) {
  std::vector<Type> types;
  std::vector<spirv::StructType::OffsetInfo> offsetInfo;
  for (intptr_t i = 0; i < count; ++i) {
    types.push_back(unwrap(members[i]));
    if (offsets)
      offsetInfo.push_back(offsets[i]);
  }
  if (types.empty())
    return wrap(spirv::StructType::getEmpty(unwrap(ctx)));
  return wrap(spirv::StructType::get(types, offsetInfo));
}

bool hipmlirTypeIsALLVMArrayType(MlirType type) {
  return llvm::isa<LLVM::LLVMArrayType>(unwrap(type));
}

uint64_t hipmlirLLVMArrayTypeGetNumElements(MlirType type) {
  return llvm::cast<LLVM::LLVMArrayType>(unwrap(type)).getNumElements();
}

MlirAttribute hipmlirSpirvScopeAttrGet(MlirContext ctx, uint32_t scope) {
  return wrap(spirv::ScopeAttr::get(unwrap(ctx),
                                    static_cast<spirv::Scope>(scope)));
}

MlirAttribute hipmlirSpirvMemorySemanticsAttrGet(MlirContext ctx,
                                                 uint32_t bits) {
  return wrap(spirv::MemorySemanticsAttr::get(
      unwrap(ctx), static_cast<spirv::MemorySemantics>(bits)));
}

MlirAttribute hipmlirSpirvStorageClassAttrGet(MlirContext ctx,
                                              uint32_t storageClass) {
  return wrap(spirv::StorageClassAttr::get(
      unwrap(ctx), static_cast<spirv::StorageClass>(storageClass)));
}

MlirAttribute hipmlirSpirvMemoryAccessAttrGet(MlirContext ctx, uint32_t bits) {
  return wrap(spirv::MemoryAccessAttr::get(
      unwrap(ctx), static_cast<spirv::MemoryAccess>(bits)));
}

MlirAttribute hipmlirSpirvFunctionControlAttrGet(MlirContext ctx,
                                                 uint32_t bits) {
  return wrap(spirv::FunctionControlAttr::get(
      unwrap(ctx), static_cast<spirv::FunctionControl>(bits)));
}

MlirAttribute hipmlirSpirvExecutionModeAttrGet(MlirContext ctx, uint32_t mode) {
  return wrap(spirv::ExecutionModeAttr::get(
      unwrap(ctx), static_cast<spirv::ExecutionMode>(mode)));
}

MlirAttribute hipmlirSpirvLinkageAttributesGet(MlirContext ctx,
                                               MlirStringRef name,
                                               uint32_t linkageType) {
  MLIRContext *context = unwrap(ctx);
  return wrap(spirv::LinkageAttributesAttr::get(
      context, StringAttr::get(context, unwrap(name)),
      spirv::LinkageTypeAttr::get(
          context, static_cast<spirv::LinkageType>(linkageType))));
}

// `#spirv.entry_point_abi<>`, with a subgroup size when it is positive.
MlirAttribute hipmlirSpirvEntryPointAbiGet(MlirContext ctx,
                                           int32_t subgroupSize) {
  std::optional<int> size;
  if (subgroupSize > 0)
    size = subgroupSize;
  return wrap(spirv::EntryPointABIAttr::get(unwrap(ctx), nullptr, size,
                                            std::nullopt));
}

// `vce` with a capability (unless negative) and an extension (unless empty) put in front of
// its lists when they are missing; null when `vce` is no `#spirv.vce` or the extension unknown.
MlirAttribute hipmlirSpirvVceAttrAdd(MlirAttribute vce, int64_t capability,
                                     MlirStringRef extension) {
  auto attr = llvm::dyn_cast<spirv::VerCapExtAttr>(unwrap(vce));
  if (!attr)
    return MlirAttribute{nullptr};
  std::vector<spirv::Capability> capabilities;
  if (capability >= 0) {
    auto added = static_cast<spirv::Capability>(capability);
    if (!llvm::is_contained(attr.getCapabilities(), added))
      capabilities.push_back(added);
  }
  for (spirv::Capability c : attr.getCapabilities())
    capabilities.push_back(c);
  std::vector<spirv::Extension> extensions;
  if (extension.length > 0) {
    std::optional<spirv::Extension> added =
        spirv::symbolizeExtension(unwrap(extension));
    if (!added)
      return MlirAttribute{nullptr};
    if (!llvm::is_contained(attr.getExtensions(), *added))
      extensions.push_back(*added);
  }
  for (spirv::Extension e : attr.getExtensions())
    extensions.push_back(e);
  return wrap(spirv::VerCapExtAttr::get(attr.getVersion(), capabilities,
                                        extensions, attr.getContext()));
}

} // extern "C"
