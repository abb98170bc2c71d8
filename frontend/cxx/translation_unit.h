// The start of libclang's CXTranslationUnitImpl (tools/libclang/CXTranslationUnit.h, not
// installed): the index, then the ASTUnit. Shared by the shims that reach the ASTUnit.
#pragma once

#include <clang/Frontend/ASTUnit.h>

namespace hipmlir {
struct TranslationUnitStart {
  void *index;
  clang::ASTUnit *unit;
};
}  // namespace hipmlir
