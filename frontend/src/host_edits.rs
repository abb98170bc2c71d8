//! What the host compile must not see: the bodies of kernels and of device-only functions, in
//! the main file and in the user's headers (hipmlir's headers and system headers are left alone).
//!
//! The host source is the original file with these bodies replaced, so that line numbers and
//! everything else the host compiler reports stay those of the user's file.

use std::path::{Path, PathBuf};

use clang_sys::*;

use crate::clang::Cursor;
use crate::codegen::is_kernel;
use crate::launches::FileTexts;

/// A replacement of bytes `start..end` of `file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceEdit {
    pub file: PathBuf,
    pub start: usize,
    pub end: usize,
    pub replacement: String,
}

/// Applies non-overlapping edits to `source`. Sources are bytes, as clang reads them: a file
/// need not be UTF-8 (Latin-1 comments and strings are common) and is passed on unchanged.
pub fn apply_edits(source: &[u8], edits: &[SourceEdit]) -> Vec<u8> {
    let mut edits = edits.to_vec();
    edits.sort_by_key(|e| e.start);
    let mut out = Vec::with_capacity(source.len());
    let mut pos = 0;
    for e in edits {
        if e.start < pos || e.end > source.len() {
            continue;
        }
        out.extend_from_slice(&source[pos..e.start]);
        out.extend_from_slice(e.replacement.as_bytes());
        // The replaced lines stay lines, so later line numbers do not move; inside a macro
        // definition (a body written by a macro) they stay continuation lines.
        let replaced = &source[e.start..e.end];
        for (at, _) in replaced.iter().enumerate().filter(|(_, b)| **b == b'\n') {
            let before = replaced[..at].iter().rev().find(|b| **b != b'\r');
            out.extend_from_slice(if before == Some(&b'\\') {
                b"\\\n"
            } else {
                b"\n"
            });
        }
        pos = e.end;
    }
    out.extend_from_slice(&source[pos..]);
    out
}

/// The source as text with every byte at its offset: bytes that are not UTF-8 read as `?`, so
/// the byte offsets clang reports index this text as they index the file.
pub fn text_at_same_offsets(source: &[u8]) -> String {
    let mut text = String::with_capacity(source.len());
    for chunk in source.utf8_chunks() {
        text.push_str(chunk.valid());
        text.extend(std::iter::repeat_n('?', chunk.invalid().len()));
    }
    text
}

/// The edits that remove device code from the user's files of a parsed translation unit: the
/// main file and every header outside the system's and hipmlir's own (`hip_headers`).
pub fn device_body_edits(
    root: &Cursor,
    hip_headers: &Path,
    texts: &mut FileTexts,
) -> Vec<SourceEdit> {
    let mut out = Vec::new();
    collect(root, hip_headers, texts, &mut out);
    out.sort_by(|a, b| (&a.file, a.start).cmp(&(&b.file, b.start)));
    out.dedup();
    out
}

/// Whether a declaration is the user's: in the main file or a header other than the system's
/// and hipmlir's own (`hip_headers`).
pub fn is_user_code(c: &Cursor, hip_headers: &Path) -> bool {
    c.is_in_main_file()
        || !(c.is_in_system_header() || Path::new(&c.location().file).starts_with(hip_headers))
}

fn collect(c: &Cursor, hip_headers: &Path, texts: &mut FileTexts, out: &mut Vec<SourceEdit>) {
    for child in c.children() {
        if !is_user_code(&child, hip_headers) {
            continue;
        }
        match child.kind() {
            CXCursor_Namespace
            | CXCursor_LinkageSpec
            | CXCursor_StructDecl
            | CXCursor_ClassDecl
            | CXCursor_UnionDecl
            | CXCursor_ClassTemplate
            | CXCursor_ClassTemplatePartialSpecialization => {
                collect(&child, hip_headers, texts, out)
            }
            CXCursor_FunctionDecl
            | CXCursor_FunctionTemplate
            | CXCursor_CXXMethod
            | CXCursor_Constructor
            | CXCursor_Destructor
            | CXCursor_ConversionFunction
                if child.is_definition() =>
            {
                let device_only = child.has_attr(CXCursor_CUDADeviceAttr)
                    && !child.has_attr(CXCursor_CUDAHostAttr);
                if !is_kernel(&child) && !device_only {
                    // A host function: device lambdas written in it keep their bodies from the
                    // host compile too.
                    device_lambda_edits(&child, out);
                    continue;
                }
                let replacement = if is_kernel(&child) {
                    // Launches call the stub; a kernel whose parameters cannot all be named
                    // keeps an empty one and is launched by its address.
                    crate::kernel_stubs::call_stub(&child).unwrap_or_else(|| "{}".to_string())
                } else if device_only {
                    "{ __builtin_unreachable(); }".to_string()
                } else {
                    continue;
                };
                if let Some(body) = child
                    .children()
                    .into_iter()
                    .rfind(|b| b.kind() == CXCursor_CompoundStmt)
                {
                    let (file, start, mut end) = body.extent_offsets();
                    if body.expansion_offsets() != (file.clone(), start, end) {
                        // A body written by a macro: its range within the macro's definition
                        // runs from its `{` to the matching `}`.
                        match texts
                            .get(&file)
                            .and_then(|text| matching_brace(text, start))
                        {
                            Some(close) => end = close,
                            None => continue,
                        }
                    }
                    out.push(SourceEdit {
                        file: PathBuf::from(file),
                        start,
                        end,
                        replacement,
                    });
                }
            }
            _ => {}
        }
    }
}

/// Edits that empty the bodies of device lambdas (`[] __device__ (float x) { ... }`) written in
/// a host function: the host compile never calls them, and their device code would not compile.
fn device_lambda_edits(c: &Cursor, out: &mut Vec<SourceEdit>) {
    for child in c.children() {
        if child.kind() == CXCursor_LambdaExpr && is_device_only_lambda(&child) {
            if let Some(body) = child
                .children()
                .into_iter()
                .rfind(|b| b.kind() == CXCursor_CompoundStmt)
            {
                let (file, start, end) = body.extent_offsets();
                if body.expansion_offsets() == (file.clone(), start, end) {
                    out.push(SourceEdit {
                        file: PathBuf::from(file),
                        start,
                        end,
                        replacement: "{ __builtin_unreachable(); }".to_string(),
                    });
                    continue;
                }
            }
        }
        device_lambda_edits(&child, out);
    }
}

/// Whether a lambda is declared `__device__` and not `__host__`: libclang shows no attributes of
/// a lambda, so they are read from its declarator, between the capture list and the parameters.
fn is_device_only_lambda(lambda: &Cursor) -> bool {
    let tokens = lambda.tokens();
    let Some(close) = tokens.iter().position(|t| t == "]") else {
        return false;
    };
    let declarator: Vec<&String> = tokens[close + 1..]
        .iter()
        .take_while(|t| *t != "(" && *t != "{")
        .collect();
    declarator.iter().any(|t| *t == "__device__") && !declarator.iter().any(|t| *t == "__host__")
}

/// The end (one past) of the `}` that closes the `{` at `open`, skipping string and character
/// literals and comments; `None` when `open` is not a `{` or it is not closed.
fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(open) != Some(&b'{') {
        return None;
    }
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            quote @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}
