// Offsets of virtual base classes, read from the record layouts clang computed.
//
// libclang gives a base's offset only for a base-class specifier of the class itself
// (clang_getOffsetOfBase), so an indirect virtual base (the shared `A` of `D : B, C` with
// `B : virtual A` and `C : virtual A`) has none. Clang's ASTContext keeps every layout it
// computed in a cache, which libclang's size and offset queries fill; the layout's virtual-base
// offsets are read there through inline accessors, so nothing beyond libclang is linked.
#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/RecordLayout.h>

#include "translation_unit.h"

// A private member named where C++ allows it (an explicit instantiation's arguments are not
// access-checked): the ASTContext's cache of record layouts.
namespace {
template <typename Tag, typename Tag::type Member>
struct Expose {
  friend typename Tag::type member_of(Tag) { return Member; }
};
struct RecordLayoutsTag {
  using type = llvm::DenseMap<const clang::RecordDecl *, const clang::ASTRecordLayout *>
      clang::ASTContext::*;
  friend type member_of(RecordLayoutsTag);
};
template struct Expose<RecordLayoutsTag, &clang::ASTContext::ASTRecordLayouts>;
}  // namespace

// The byte offset of virtual base `vbase` in a complete object of class `decl` (both class
// declarations of translation unit `translation_unit`), or -1 when the class's layout is not
// computed yet (ask libclang for the class's size first) or `vbase` is not a virtual base of it.
extern "C" long long hipmlir_virtual_base_offset(void *translation_unit, const void *decl,
                                                 const void *vbase) {
  auto *start = static_cast<hipmlir::TranslationUnitStart *>(translation_unit);
  const auto *r = llvm::dyn_cast<clang::CXXRecordDecl>(static_cast<const clang::Decl *>(decl));
  const auto *v = llvm::dyn_cast<clang::CXXRecordDecl>(static_cast<const clang::Decl *>(vbase));
  if (!start || !start->unit || !r || !v || !r->hasDefinition() || !v->hasDefinition()) return -1;
  r = r->getDefinition();
  v = v->getDefinition();
  clang::ASTContext &context = start->unit->getASTContext();
  const auto &layouts = context.*member_of(RecordLayoutsTag());
  auto found = layouts.find(r);
  if (found == layouts.end() || !found->second) return -1;
  // A C++ class's layout has its C++ part (CXXRecordDecl layouts are built with it).
  const auto &offsets = found->second->getVBaseOffsetsMap();
  auto at = offsets.find(v);
  if (at == offsets.end()) return -1;
  return at->second.VBaseOffset.getQuantity();
}
