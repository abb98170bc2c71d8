//! A source's preamble: the leading run of system `#include`s (with the blank lines and comments
//! around them), which a build can precompile once and reuse while only the code below changes
//! (clang's "precompiled preamble", kept on disk between builds). Both compiles of a HIP source
//! use it: the device parse (`pch.rs`) and the host compile (the driver's `host_pch.rs`).
//!
//! Only `#include <...>` lines of headers that no user include folder (`-I`) holds are taken:
//! the system's and hipmlir's headers, which hold no code of the user's (the frontend walks only
//! the user's files, and a precompiled header's declarations are not walked). The run stops at the
//! first other line: code, `#define`, `#if`, a quoted include, a header found in a user folder.

use std::path::{Path, PathBuf};

/// The preamble of a source: its first `len` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preamble {
    pub len: usize,
    /// The headers as written between the angle brackets, in order.
    pub headers: Vec<String>,
}

impl Preamble {
    /// The preamble of `source`, or `None` when it includes nothing but hipmlir's own headers
    /// (which the prefix header's PCH already holds) or nothing at all.
    pub fn of(source: &[u8], user_include_dirs: &[PathBuf], hip_headers: &Path) -> Option<Self> {
        let mut len = 0;
        let mut headers = Vec::new();
        let mut offset = 0;
        let mut in_comment = false;
        while offset < source.len() {
            let end = source[offset..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(source.len(), |i| offset + i + 1);
            let Ok(line) = std::str::from_utf8(&source[offset..end]) else {
                break;
            };
            let rest = if in_comment {
                match line.find("*/") {
                    Some(close) => {
                        in_comment = false;
                        &line[close + 2..]
                    }
                    None => "",
                }
            } else {
                line
            };
            match classify(rest.trim()) {
                Line::Blank => {}
                Line::OpensComment(after) => {
                    in_comment = !after.contains("*/");
                    if !in_comment && !is_blank_after_comment(after) {
                        break;
                    }
                }
                Line::SystemInclude(header) => {
                    if user_include_dirs.iter().any(|d| d.join(header).exists())
                        || line.trim_end().ends_with('\\')
                    {
                        break;
                    }
                    headers.push(header.to_string());
                    len = end;
                }
                Line::Other => break,
            }
            offset = end;
        }
        let only_hipmlir_headers = headers.iter().all(|h| hip_headers.join(h).is_file());
        (!only_hipmlir_headers).then_some(Preamble { len, headers })
    }

    /// The preamble's text.
    pub fn text<'s>(&self, source: &'s [u8]) -> &'s [u8] {
        &source[..self.len]
    }

    /// `source` with the preamble's characters made spaces (its line breaks kept), for a
    /// compile that takes the preamble from its precompiled form: every later byte keeps its
    /// offset, line and column.
    pub fn blanked(&self, source: &[u8]) -> Vec<u8> {
        let mut out = source.to_vec();
        for b in &mut out[..self.len] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        out
    }
}

enum Line<'a> {
    Blank,
    /// A `/*` comment opens here; what follows the `/*`.
    OpensComment(&'a str),
    SystemInclude(&'a str),
    Other,
}

fn classify(line: &str) -> Line<'_> {
    if line.is_empty() || line.starts_with("//") {
        return Line::Blank;
    }
    if let Some(after) = line.strip_prefix("/*") {
        return Line::OpensComment(after);
    }
    let Some(directive) = line.strip_prefix('#') else {
        return Line::Other;
    };
    let Some(operand) = directive.trim_start().strip_prefix("include") else {
        return Line::Other;
    };
    let operand = operand.trim_start();
    let Some(inner) = operand.strip_prefix('<') else {
        return Line::Other;
    };
    let Some(close) = inner.find('>') else {
        return Line::Other;
    };
    let after = inner[close + 1..].trim();
    if !(after.is_empty() || after.starts_with("//")) {
        return Line::Other;
    }
    Line::SystemInclude(&inner[..close])
}

/// Whether what follows a comment's `*/` on its line is blank or another `//` comment.
fn is_blank_after_comment(after_open: &str) -> bool {
    after_open
        .find("*/")
        .map(|close| after_open[close + 2..].trim())
        .is_some_and(|rest| rest.is_empty() || rest.starts_with("//"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hip_headers() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../headers")
    }

    fn preamble(source: &str) -> Option<Preamble> {
        Preamble::of(source.as_bytes(), &[], &hip_headers())
    }

    #[test]
    fn the_leading_system_includes_and_comments_are_the_preamble() {
        let source = "// a program\n/* licence\n   text */\n#include <stdio.h>\n\n#include <hip/hip_runtime.h>\n  #  include <random> // numbers\n#define N 4\n#include <vector>\n";
        let p = preamble(source).expect("a preamble");
        assert_eq!(p.headers, ["stdio.h", "hip/hip_runtime.h", "random"]);
        assert_eq!(&source[..p.len], &source[..source.find("#define").unwrap()]);
    }

    #[test]
    fn the_preamble_stops_at_code_conditionals_and_quoted_includes() {
        let p = preamble("#include <cstdio>\n#include \"kernels.h\"\n#include <vector>\n");
        assert_eq!(p.unwrap().headers, ["cstdio"]);
        let p = preamble("#include <cstdio>\n#ifdef X\n#include <vector>\n#endif\n");
        assert_eq!(p.unwrap().headers, ["cstdio"]);
        let p = preamble("#include <cstdio>\n/* c */ int x;\n#include <vector>\n");
        assert_eq!(p.unwrap().headers, ["cstdio"]);
        assert_eq!(preamble("int x;\n#include <vector>\n"), None);
    }

    #[test]
    fn only_hipmlir_headers_make_no_preamble() {
        assert_eq!(preamble("#include <hip/hip_runtime.h>\nint x;\n"), None);
        assert_eq!(preamble(""), None);
    }

    #[test]
    fn a_header_in_a_user_folder_ends_the_preamble() {
        let dir = std::env::temp_dir().join(format!("hipmlir-preamble-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("common.h"), "").unwrap();
        let source = b"#include <cstdio>\n#include <common.h>\n#include <vector>\n";
        let p = Preamble::of(source, std::slice::from_ref(&dir), &hip_headers()).unwrap();
        assert_eq!(p.headers, ["cstdio"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn blanking_keeps_every_offset_and_line() {
        let source = b"#include <cstdio>\n#include <vector>\nint main() {}\n";
        let p = Preamble::of(source, &[], &hip_headers()).unwrap();
        let blanked = p.blanked(source);
        assert_eq!(blanked.len(), source.len());
        assert_eq!(&blanked[p.len..], &source[p.len..]);
        assert_eq!(
            blanked.iter().filter(|&&b| b == b'\n').count(),
            source.iter().filter(|&&b| b == b'\n').count()
        );
        assert!(blanked[..p.len].iter().all(|&b| b == b' ' || b == b'\n'));
    }
}
