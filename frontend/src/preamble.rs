//! A source's preamble: the leading run of `#include`s (with the blank lines and comments
//! around them), which a build can precompile once and reuse while only the code below changes
//! (clang's "precompiled preamble", kept on disk between builds). Both compiles of a HIP source
//! use it: the device parse (`pch.rs`) and the host compile (the driver's `host_pch.rs`).
//!
//! `#include <...>` lines are taken for headers that no user include folder (`-I`) holds: the
//! system's and hipmlir's headers, which hold no code of the user's (the frontend walks only the
//! user's files, and a precompiled header's declarations are not walked). The run stops at the
//! first other line: code, `#define`, `#if`, a header found in a user folder, and a quoted
//! include unless the caller resolves those ([`QuotedIncludes`]):
//! - the host compile takes the user's headers of host code: a header with device code is given
//!   to the host compiler as an edited copy, and the include naming the copy ends the run;
//! - the device parse takes those that hold nothing its walk of the user's code must see (the
//!   frontend's `pch.rs` checks when it makes the PCH, and else keeps to the system headers).
//!
//! Either PCH records the headers it read, so one that changes makes it stale.

use std::ops::Range;
use std::path::{Path, PathBuf};

/// The preamble of a source: its first `len` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preamble {
    pub len: usize,
    /// The headers as written between the angle brackets or quotes, in order.
    pub headers: Vec<String>,
    /// The quoted includes taken: each one's line in the source and the path its header is found
    /// at, which the preamble's header names in its place (it is compiled from another folder).
    quoted: Vec<(Range<usize>, PathBuf)>,
}

/// How a preamble treats `#include "..."`.
pub enum QuotedIncludes<'a> {
    /// The first one ends the preamble (the device parse: its user headers must be walked).
    End,
    /// Taken where the compiler would find the header in `source_dir` or `search_dirs` (its
    /// `-I` folders, in order), by an absolute path and not under `except_under`; otherwise the
    /// preamble ends there.
    Resolve {
        source_dir: &'a Path,
        search_dirs: &'a [PathBuf],
        except_under: Option<&'a Path>,
    },
}

impl QuotedIncludes<'_> {
    /// The path the compiler finds a quoted include's header at, spelled as it forms it (the
    /// folder joined to the name, so `__FILE__` in the header reads the same).
    fn resolve(&self, name: &str) -> Option<PathBuf> {
        let QuotedIncludes::Resolve {
            source_dir,
            search_dirs,
            except_under,
        } = self
        else {
            return None;
        };
        let found = std::iter::once(*source_dir)
            .chain(search_dirs.iter().map(PathBuf::as_path))
            .map(|dir| dir.join(name)) // an absolute name stays itself
            .find(|path| path.is_file())?;
        // Found through a relative folder, it would be spelled another way from the preamble's
        // folder (and `__FILE__` with it).
        let excepted = except_under.is_some_and(|dir| found.starts_with(dir));
        (found.is_absolute() && !excepted).then_some(found)
    }
}

impl Preamble {
    /// The preamble of `source`, or `None` when it includes nothing but hipmlir's own headers
    /// (which the prefix header's PCH already holds) or nothing at all.
    pub fn of(
        source: &[u8],
        user_include_dirs: &[PathBuf],
        hip_headers: &Path,
        quoted_includes: QuotedIncludes,
    ) -> Option<Self> {
        let mut len = 0;
        let mut headers = Vec::new();
        let mut quoted = Vec::new();
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
                Line::QuotedInclude(header) => {
                    let Some(path) = quoted_includes.resolve(header) else {
                        break;
                    };
                    if line.trim_end().ends_with('\\') {
                        break;
                    }
                    headers.push(header.to_string());
                    quoted.push((offset..end, path));
                    len = end;
                }
                Line::Other => break,
            }
            offset = end;
        }
        let only_hipmlir_headers = headers.iter().all(|h| hip_headers.join(h).is_file());
        (!only_hipmlir_headers).then_some(Preamble {
            len,
            headers,
            quoted,
        })
    }

    /// The preamble's text.
    pub fn text<'s>(&self, source: &'s [u8]) -> &'s [u8] {
        &source[..self.len]
    }

    /// The text of a header holding the preamble, to be compiled from another folder: each
    /// quoted include names its header by the path it was found at.
    pub fn header_text(&self, source: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len);
        let mut at = 0;
        for (line, path) in &self.quoted {
            out.extend_from_slice(&source[at..line.start]);
            let spelled = path
                .to_string_lossy()
                .replace('\\', "\\\\")
                .replace('"', "\\\"");
            out.extend_from_slice(format!("#include \"{spelled}\"\n").as_bytes());
            at = line.end;
        }
        out.extend_from_slice(&source[at..self.len]);
        out
    }

    /// Whether the preamble includes user headers (quoted includes), whose diagnostics a
    /// compile that loads it would not repeat.
    pub fn has_user_headers(&self) -> bool {
        !self.quoted.is_empty()
    }

    /// The user headers the preamble includes, by the paths they were found at.
    pub fn user_headers(&self) -> impl Iterator<Item = &Path> {
        self.quoted.iter().map(|(_, path)| path.as_path())
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
    QuotedInclude(&'a str),
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
    let (inner, close_with) = match operand.chars().next() {
        Some('<') => (&operand[1..], '>'),
        Some('"') => (&operand[1..], '"'),
        _ => return Line::Other,
    };
    let Some(close) = inner.find(close_with) else {
        return Line::Other;
    };
    let after = inner[close + 1..].trim();
    if !(after.is_empty() || after.starts_with("//")) {
        return Line::Other;
    }
    let header = &inner[..close];
    if close_with == '>' {
        Line::SystemInclude(header)
    } else {
        Line::QuotedInclude(header)
    }
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
        Preamble::of(source.as_bytes(), &[], &hip_headers(), QuotedIncludes::End)
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
        let p = Preamble::of(
            source,
            std::slice::from_ref(&dir),
            &hip_headers(),
            QuotedIncludes::End,
        )
        .unwrap();
        assert_eq!(p.headers, ["cstdio"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn quoted_includes_are_taken_where_the_compiler_finds_them() {
        let dir = std::env::temp_dir().join(format!("hipmlir-quoted-{}", std::process::id()));
        let (source_dir, search_dir, overlay) =
            (dir.join("src"), dir.join("include"), dir.join("overlay"));
        for d in [&source_dir, &search_dir, &overlay] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(source_dir.join("util.hpp"), "").unwrap();
        std::fs::write(search_dir.join("util.hpp"), "").unwrap();
        std::fs::write(search_dir.join("common.hpp"), "").unwrap();
        std::fs::write(overlay.join("kernels.h"), "").unwrap();
        let search = [search_dir.clone()];
        let resolve = QuotedIncludes::Resolve {
            source_dir: &source_dir,
            search_dirs: &search,
            except_under: Some(&overlay),
        };
        let kernels = overlay.join("kernels.h");
        let source = format!(
            "#include \"util.hpp\"\n#include \"common.hpp\" // shared\n#include <vector>\n#include \"{}\"\n#include <cstdio>\n",
            kernels.display()
        );
        let p = Preamble::of(source.as_bytes(), &[], &hip_headers(), resolve).unwrap();
        // The source's folder before the -I folders; an overlaid copy ends the run.
        assert_eq!(p.headers, ["util.hpp", "common.hpp", "vector"]);
        assert!(p.has_user_headers());
        let header = String::from_utf8(p.header_text(source.as_bytes())).unwrap();
        assert_eq!(
            header,
            format!(
                "#include \"{}\"\n#include \"{}\"\n#include <vector>\n",
                source_dir.join("util.hpp").display(),
                search_dir.join("common.hpp").display()
            )
        );
        // Not found, or found through a relative folder: the run ends there.
        let relative = [PathBuf::from("include")];
        for (text, dirs) in [
            ("#include <vector>\n#include \"missing.h\"\n", &search[..]),
            (
                "#include <vector>\n#include \"common.hpp\"\n",
                &relative[..],
            ),
        ] {
            let quoted = QuotedIncludes::Resolve {
                source_dir: &source_dir,
                search_dirs: dirs,
                except_under: Some(&overlay),
            };
            let p = Preamble::of(text.as_bytes(), &[], &hip_headers(), quoted).unwrap();
            assert_eq!(p.headers, ["vector"]);
            assert!(!p.has_user_headers());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn blanking_keeps_every_offset_and_line() {
        let source = b"#include <cstdio>\n#include <vector>\nint main() {}\n";
        let p = Preamble::of(source, &[], &hip_headers(), QuotedIncludes::End).unwrap();
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
