//! What the host compile must not see: the bodies of kernels and of device-only functions, in
//! the main file and in the user's headers (hipmlir's headers and system headers are left alone).
//!
//! The host source is the original file with these bodies replaced, so that line numbers and
//! everything else the host compiler reports stay those of the user's file.

use std::path::{Path, PathBuf};

use clang_sys::*;

use crate::captures::{lambda_captures, lambda_targets};
use crate::clang::Cursor;
use crate::codegen::{closure_type_key, is_kernel};
use crate::error::{FrontendError, Result};

/// The text of each of the user's files the host edits address, read once, indexed by the byte
/// offsets clang reports (the main file's as parsed).
pub struct FileTexts {
    texts: std::collections::HashMap<String, Option<String>>,
}

impl FileTexts {
    pub fn new(main_file: &str, main_text: String) -> Self {
        FileTexts {
            texts: std::collections::HashMap::from([(main_file.to_string(), Some(main_text))]),
        }
    }

    pub fn get(&mut self, file: &str) -> Option<&str> {
        self.texts
            .entry(file.to_string())
            .or_insert_with(|| std::fs::read(file).ok().map(|b| text_at_same_offsets(&b)))
            .as_deref()
    }
}

/// A replacement of bytes `start..end` of `file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceEdit {
    pub file: PathBuf,
    pub start: usize,
    pub end: usize,
    pub replacement: String,
}

impl SourceEdit {
    /// Bytes `start..end` of `file` replaced.
    pub fn span(file: &str, start: usize, end: usize, replacement: &str) -> SourceEdit {
        SourceEdit {
            file: file.into(),
            start,
            end,
            replacement: replacement.to_string(),
        }
    }

    /// `text` inserted at byte `at` of `file`.
    pub fn insert(file: &str, at: usize, text: &str) -> SourceEdit {
        SourceEdit::span(file, at, at, text)
    }
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
/// `lambdas` are the lambda expressions of the user's code, host template instances included.
pub fn device_body_edits(
    root: &Cursor,
    hip_headers: &Path,
    texts: &mut FileTexts,
    lambdas: &[Cursor],
    unit_key: Option<&str>,
) -> Result<Vec<SourceEdit>> {
    let mut edits = Edits {
        hip_headers,
        macros: UserMacros::of(root, hip_headers),
        texts,
        lambdas,
        unit_key,
        out: Vec::new(),
    };
    edits.collect(root)?;
    Ok(in_order(edits.out))
}

/// Edits in the order [`apply_edits`] applies them, each once: a macro's definition is rewritten
/// once for all the launches it writes.
pub fn in_order(mut edits: Vec<SourceEdit>) -> Vec<SourceEdit> {
    // Stable: edits of one range stay in the order made; an insertion comes before a replacement
    // that begins where it is.
    edits.sort_by(|a, b| (&a.file, a.start, a.end).cmp(&(&b.file, b.start, b.end)));
    edits.dedup();
    edits
}

struct Edits<'a> {
    hip_headers: &'a Path,
    macros: UserMacros,
    texts: &'a mut FileTexts,
    lambdas: &'a [Cursor],
    /// The translation unit's key, which the stubs of its internal kernels launch with.
    unit_key: Option<&'a str>,
    out: Vec<SourceEdit>,
}

/// The user's macro definitions, where the host edits rewrite what a macro writes (a launch, a
/// kernel's body).
pub struct UserMacros(Vec<Cursor>);

impl UserMacros {
    pub fn of(root: &Cursor, hip_headers: &Path) -> Self {
        UserMacros(
            root.children()
                .into_iter()
                .filter(|d| d.kind() == CXCursor_MacroDefinition && is_user_code(d, hip_headers))
                .collect(),
        )
    }

    /// The definition whose text holds byte `at` of `file`.
    pub fn containing(&self, file: &str, at: usize) -> Option<&Cursor> {
        self.0.iter().find(|d| {
            let (f, start, end) = d.extent_offsets();
            f == file && start <= at && at < end
        })
    }

    pub fn iter(&self) -> impl Iterator<Item = &Cursor> {
        self.0.iter()
    }
}

/// Whether a declaration is the user's: in the main file or a header other than the system's
/// and hipmlir's own (`hip_headers`).
pub fn is_user_code(c: &Cursor, hip_headers: &Path) -> bool {
    c.is_in_main_file()
        || !(c.is_in_system_header() || Path::new(&c.location().file).starts_with(hip_headers))
}

/// Whether a cursor of this kind holds declarations the walks of the user's code look into:
/// namespaces, `extern "C"` blocks, classes and class templates.
pub fn holds_declarations(kind: CXCursorKind) -> bool {
    matches!(
        kind,
        CXCursor_Namespace
            | CXCursor_LinkageSpec
            | CXCursor_StructDecl
            | CXCursor_ClassDecl
            | CXCursor_UnionDecl
            | CXCursor_ClassTemplate
            | CXCursor_ClassTemplatePartialSpecialization
    )
}

impl Edits<'_> {
    fn collect(&mut self, c: &Cursor) -> Result<()> {
        for child in c.children() {
            if !is_user_code(&child, self.hip_headers) {
                continue;
            }
            match child.kind() {
                kind if holds_declarations(kind) => self.collect(&child)?,
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
                        self.device_lambda_edits(&child)?;
                        continue;
                    }
                    let replacement = if is_kernel(&child) {
                        // Launches call the stub. A kernel whose parameters cannot all be named
                        // (unnamed ones written by a macro) has one that fails every launch.
                        match crate::kernel_stubs::kernel_stub(
                            &child,
                            self.texts,
                            &self.macros,
                            self.unit_key,
                        ) {
                            Some(stub) => {
                                self.out.extend(stub.parameter_edits);
                                stub.body
                            }
                            None => {
                                "{ ::hipmlir::detail::unnamed_parameters_stub(__func__); }".into()
                            }
                        }
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
                            match self
                                .texts
                                .get(&file)
                                .and_then(|text| matching_brace(text, start))
                            {
                                Some(close) => end = close,
                                None => continue,
                            }
                        }
                        self.out.push(SourceEdit {
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
        Ok(())
    }

    /// Edits of the device lambdas written in a host function (`[=] __device__ (float x) {...}`):
    /// - the body of a lambda that is `__device__` only is emptied: the host compile never calls
    ///   it, and its device code would not compile;
    /// - implicit captures become explicit, in the order of the closure's fields on the device
    ///   (an emptied body uses nothing, and the closure object the host passes to a kernel must be
    ///   laid out as the device reads it);
    /// - the lambda is wrapped in `::hipmlir::detail::device_lambda("(lambda at f:l:c)", ...)`,
    ///   which records which lambda its closure type is: launches of kernel instances for closure
    ///   types, which the host and device compilers name apart, find their kernel by it.
    fn device_lambda_edits(&mut self, c: &Cursor) -> Result<()> {
        for child in c.children() {
            if child.kind() == CXCursor_LambdaExpr {
                let (device, host) = lambda_targets(&child);
                if device && written_in_file(&child) {
                    self.device_lambda(&child, host)?;
                    if !host {
                        continue;
                    }
                }
            }
            self.device_lambda_edits(&child)?;
        }
        Ok(())
    }

    fn device_lambda(&mut self, lambda: &Cursor, host: bool) -> Result<()> {
        let (file, start, end) = lambda.extent_offsets();
        let Some(id) = closure_type_key(lambda.ty()) else {
            return Ok(());
        };
        let Some(body) = lambda
            .children()
            .into_iter()
            .rfind(|b| b.kind() == CXCursor_CompoundStmt)
        else {
            return Ok(());
        };
        let edit = |start: usize, end: usize, replacement: String| SourceEdit {
            file: PathBuf::from(&file),
            start,
            end,
            replacement,
        };
        self.out.push(edit(
            start,
            start,
            format!("::hipmlir::detail::device_lambda({}, ", c_string(&id)),
        ));
        if let Some((list_end, list)) = self.explicit_capture_list(lambda)? {
            self.out.push(edit(start, list_end, list));
        }
        if !host {
            let (_, body_start, body_end) = body.extent_offsets();
            self.out.push(edit(
                body_start,
                body_end,
                "{ __builtin_unreachable(); }".to_string(),
            ));
        }
        self.out.push(edit(end, end, ")".to_string()));
        Ok(())
    }

    /// The capture list that names every capture of a lambda with implicit ones (`[=]` becomes
    /// `[n, p, s]`), and where the written list ends; None when the list names them all already or
    /// the captures cannot be read (the device compile reports those it needs). A lambda in a host
    /// function template is read in the template's instances, which must agree.
    fn explicit_capture_list(&self, lambda: &Cursor) -> Result<Option<(usize, String)>> {
        let written = lambda_in_source(lambda);
        let mut found: Option<(String, bool)> = None;
        for instance in self
            .lambdas
            .iter()
            .filter(|l| lambda_in_source(l) == written)
        {
            if instance.ty().size_of().is_none() {
                continue; // the template's own (dependent) lambda
            }
            let Ok(captures) = lambda_captures(instance) else {
                return Ok(None);
            };
            // The written captures come first, in order (as clang and g++ lay the closure
            // out), and are kept as written (init-captures, `*this`); the implicit ones
            // follow in the order of their first use, each named.
            let written_items = written_captures(instance);
            // A pack expansion writes one item for many captures: left as written.
            if written_items.iter().any(|item| item.ends_with("...")) {
                return Ok(None);
            }
            let Some(implicit_names) = captures
                .iter()
                .skip(written_items.len())
                .map(|c| match c.captured {
                    crate::captures::Captured::Variable(d) => Some(format!(
                        "{}{}",
                        if c.by_ref { "&" } else { "" },
                        d.spelling()
                    )),
                    _ => None,
                })
                .collect::<Option<Vec<String>>>()
            else {
                return Ok(None);
            };
            let implicit = !implicit_names.is_empty();
            let list: Vec<String> = written_items.into_iter().chain(implicit_names).collect();
            let list = format!("[{}]", list.join(", "));
            match &found {
            Some((known, _)) if *known != list => {
                return Err(FrontendError::unsupported(
                    lambda.location(),
                    "device lambda in a host function template whose instances capture different variables",
                ))
            }
            _ => found = Some((list, implicit)),
        }
        }
        let Some((list, true)) = found else {
            return Ok(None);
        };
        // The written list ends at the `]` that closes the lambda's first token, `[`.
        let mut depth = 0usize;
        for (token, offset) in lambda.tokens_with_offsets() {
            match token.as_str() {
                "[" => depth += 1,
                "]" => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Ok(Some((offset + 1, list)));
                    }
                }
                _ => {}
            }
        }
        Ok(None)
    }
}

/// The captures a lambda's list writes, each as written (`*this`, `y = 5`, `&n`), without its
/// capture default (`=` or `&` alone).
fn written_captures(lambda: &Cursor) -> Vec<String> {
    let mut items: Vec<Vec<String>> = vec![Vec::new()];
    let mut depth = 0usize;
    for (token, _) in lambda.tokens_with_offsets() {
        match token.as_str() {
            "[" | "(" | "{" => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            }
            "]" | ")" | "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            "," if depth == 1 => {
                items.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(item) = items.last_mut() {
            item.push(token);
        }
    }
    items
        .into_iter()
        .map(|tokens| tokens.join(" "))
        .filter(|item| !item.is_empty() && item != "=" && item != "&")
        .collect()
}

/// `s` as a C string literal.
pub fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' | '\t' => out.push(' '),
            _ => out.push(ch),
        }
    }
    out.push('"');
    out
}

/// Whether a lambda's text is in its file as written: not in a macro's definition, which may
/// write several lambdas (a lambda written as a macro's argument, `hipLaunchKernelGGL(k, g, b,
/// 0, 0, [=] __device__ (int i) {...})`, is; it comes after the macro's name).
fn written_in_file(lambda: &Cursor) -> bool {
    let (file, start, end) = lambda.extent_offsets();
    let (expanded_in, expanded_at, _) = lambda.expansion_offsets();
    file == expanded_in && start <= end && start >= expanded_at
}

/// Where a lambda is written: one place for a template's lambda and its instances' lambdas.
fn lambda_in_source(lambda: &Cursor) -> (String, usize, usize) {
    lambda.extent_offsets()
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
