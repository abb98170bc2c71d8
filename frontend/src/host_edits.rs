//! What the host compile must not see: the bodies of kernels and of device-only functions.
//!
//! The host source is the original file with these bodies replaced, so that line numbers and
//! everything else the host compiler reports stay those of the user's file.

use clang_sys::*;

use crate::clang::Cursor;
use crate::codegen::is_kernel;

/// A replacement of bytes `start..end` of the main file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceEdit {
    pub start: usize,
    pub end: usize,
    pub replacement: String,
}

/// Applies non-overlapping edits to `source`.
pub fn apply_edits(source: &str, edits: &[SourceEdit]) -> String {
    let mut edits = edits.to_vec();
    edits.sort_by_key(|e| e.start);
    let mut out = String::with_capacity(source.len());
    let mut pos = 0;
    for e in edits {
        if e.start < pos || e.end > source.len() {
            continue;
        }
        out.push_str(&source[pos..e.start]);
        out.push_str(&e.replacement);
        pos = e.end;
    }
    out.push_str(&source[pos..]);
    out
}

/// The edits that remove device code from the main file of a parsed translation unit.
pub fn device_body_edits(root: &Cursor) -> Vec<SourceEdit> {
    let mut out = Vec::new();
    collect(root, &mut out);
    out
}

fn collect(c: &Cursor, out: &mut Vec<SourceEdit>) {
    for child in c.children() {
        if !child.is_in_main_file() {
            continue;
        }
        match child.kind() {
            CXCursor_Namespace | CXCursor_LinkageSpec | CXCursor_StructDecl
            | CXCursor_ClassDecl => collect(&child, out),
            CXCursor_FunctionDecl | CXCursor_FunctionTemplate | CXCursor_CXXMethod
                if child.is_definition() =>
            {
                let device_only = child.has_attr(CXCursor_CUDADeviceAttr)
                    && !child.has_attr(CXCursor_CUDAHostAttr);
                let replacement = if is_kernel(&child) {
                    "{}"
                } else if device_only {
                    "{ __builtin_unreachable(); }"
                } else {
                    continue;
                };
                if let Some(body) = child
                    .children()
                    .into_iter()
                    .rfind(|b| b.kind() == CXCursor_CompoundStmt)
                {
                    let (_, start, end) = body.extent_offsets();
                    out.push(SourceEdit {
                        start,
                        end,
                        replacement: replacement.to_string(),
                    });
                }
            }
            _ => {}
        }
    }
}
