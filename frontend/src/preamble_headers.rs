//! Whether the user's headers of a device preamble may be precompiled: the frontend walks the
//! user's code for kernels, launches, device lambdas, device variables and what the host compile
//! must not see, and a precompiled header's declarations are not walked. A header holding any
//! of these stays out of the preamble and is parsed with the source. What kernels call is
//! reached through the calls, as it is in hipmlir's own precompiled headers, but for the
//! destructors of class template instances, which the frontend finds among the members already
//! read (cxx/statement_parts.cpp): a header declaring a device destructor stays out too.

use std::path::Path;

use clang_sys::*;

use crate::clang::{Cursor, TranslationUnit};
use crate::codegen::is_device_variable;
use crate::host_edits::{device_body_edits, holds_declarations, is_user_code, FileTexts};
use crate::launches::{defines_device_code_macro, find_launches};

/// Whether the user's code in `unit` (a preamble's parse, whose main file `header_text` only
/// includes) holds nothing the frontend walks.
pub fn hold_nothing_walked(unit: &TranslationUnit, header_text: &[u8], hip_headers: &Path) -> bool {
    let root = unit.cursor();
    let text = crate::host_edits::text_at_same_offsets(header_text);
    let mut texts = FileTexts::new(&root.spelling(), text);
    let user = find_launches(&root, hip_headers);
    if !(user.launches.is_empty() && user.kernel_values.is_empty()) {
        return false;
    }
    // Host lambdas may stay: a device lambda (what reaches a kernel) leaves an edit.
    let no_edits = device_body_edits(&root, hip_headers, &mut texts, &user.lambdas, None)
        .is_ok_and(|edits| edits.is_empty());
    no_edits
        && !defines_device_code_macro(&root, hip_headers)
        && !declares_any(&root, hip_headers, &|d| {
            is_device_variable(d)
                || (d.kind() == CXCursor_Destructor && d.has_attr(CXCursor_CUDADeviceAttr))
        })
}

/// Whether the user's code under `c` (in namespaces and classes) declares something `found`.
fn declares_any(c: &Cursor, hip_headers: &Path, found: &dyn Fn(&Cursor) -> bool) -> bool {
    c.children().iter().any(|child| {
        is_user_code(child, hip_headers)
            && if holds_declarations(child.kind()) {
                declares_any(child, hip_headers, found)
            } else {
                found(child)
            }
    })
}
