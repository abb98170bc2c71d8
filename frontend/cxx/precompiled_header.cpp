// What a precompiled header keeps of Sema's state, trimmed before libclang saves it.
//
// In HIP mode clang lists every function of the header for the end-of-translation-unit check of
// deferred device diagnostics, and a parse that loads the PCH deserializes the whole list (with
// libstdc++'s <complex>, which hipcc's headers make visible, some 12 000 declarations: every
// member of the extern std::basic_string instantiations among them) before it finds that no
// diagnostic was deferred. Nothing is lost by leaving the list out of the PCH: the diagnostics
// deferred while the header was parsed are not saved in a PCH at all, and a header function
// cannot call a function of the main file (an instantiation the main file needs is a
// declaration of the main file's, listed there).
#include <clang/Sema/Sema.h>

#include "translation_unit.h"

extern "C" void hipmlir_forget_deferred_diagnostic_roots(void *translation_unit) {
  auto *start = static_cast<hipmlir::TranslationUnitStart *>(translation_unit);
  if (start && start->unit && start->unit->hasSema())
    start->unit->getSema().DeclsToCheckForDeferredDiags.clear();
}
