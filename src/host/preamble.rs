//! The host compile's precompiled preamble: hipmlir's prefix header and the source's leading
//! `#include`s (`<random>`, `<vector>`, and the user's own headers of host code,
//! `"util.hpp"`; see the frontend's `preamble.rs`) as one precompiled header, cached on disk,
//! so that rebuilding a source compiles only the code below its includes.
//!
//! * Folder: `<cache>/host-preamble/<key>/`: `preamble.h` (`#include <hip/hip_runtime.h>`, then
//!   the preamble's text, its quoted includes naming their headers by the paths they were found
//!   at), its PCH (`preamble.h.gch` or `.pch`, see `pch`), and `inputs`,
//!   every header the PCH was made from with its size and modification time. The compile takes `-include <folder>/preamble.h` in
//!   place of the prefix header, and the source with its preamble made spaces.
//! * Key: the prefix header PCH's (`pch::key`) and the preamble's text.
//! * Checked before each use: GCC does not check the headers a PCH holds, so hipmlir does (as
//!   clang does for its own): one changed or gone, and the folder is removed and the compile
//!   reads the headers. A PCH the compiler finds unusable is ignored (GCC) or removed (clang),
//!   and `preamble.h` itself read: the same text, so a PCH never changes a result.
//! * When: the second time a key is seen, as the prefix header's PCH; for GCC and clang. Not
//!   when the user's headers in it draw warnings: a compile that loads the PCH would not repeat
//!   them.
//! * Concurrency: made in place, as `pch` says; `inputs` is written last.

use std::path::{Path, PathBuf};

use hipmlir_cache::{
    cache_dir_from_env, keep_within, mark_against_holds, mark_used, stamps, stamps_unchanged,
};
use hipmlir_frontend::preamble::{Preamble, QuotedIncludes};

use super::cxx::HostCompiler;
use super::pch::{precompile, Entry, PchKind};

/// The preamble folders (about 50 MB each with GCC, 10 MB with clang: a PCH holds the whole
/// prefix header; one per
/// source rebuilt) kept at most: 4 GiB, about eighty sources (the least recently used go first;
/// ccache keeps 5 GB by default).
const MAX_BYTES: u64 = 4 << 30;

const HEADER: &str = "preamble.h";
const INPUTS: &str = "inputs";

/// A usable precompiled preamble of a host source.
pub struct HostPreamble {
    /// The header to pre-include (`<folder>/preamble.h`).
    pub header: PathBuf,
    pub preamble: Preamble,
}

/// The precompiled preamble for a host source of `text` compiled with `flags`, or `None` (no
/// preamble, no cache folder, a compiler other than GCC and clang, not made yet, or its
/// headers changed). One holding the user's headers where there is one; until it is made (the
/// second time it is seen) or where it cannot be, the one of the leading system headers alone.
pub fn find_or_make(
    cxx: &HostCompiler,
    flags: &[String],
    text: &[u8],
    user_include_dirs: &[PathBuf],
    hip_include_dir: &Path,
    quoted_includes: QuotedIncludes,
    verbose: bool,
) -> Option<HostPreamble> {
    let of = |quoted| Preamble::of(text, user_include_dirs, hip_include_dir, quoted);
    of(quoted_includes)
        .filter(Preamble::has_user_headers)
        .into_iter()
        .chain(std::iter::once_with(|| of(QuotedIncludes::End)).flatten())
        .find_map(|preamble| find_or_make_one(cxx, flags, text, preamble, hip_include_dir, verbose))
}

fn find_or_make_one(
    cxx: &HostCompiler,
    flags: &[String],
    text: &[u8],
    preamble: Preamble,
    hip_include_dir: &Path,
    verbose: bool,
) -> Option<HostPreamble> {
    let root = cache_dir_from_env(|name| std::env::var(name).ok())?.join("host-preamble");
    let header_text = preamble.header_text(text);
    let key = super::pch::key(cxx, flags, hip_include_dir)?
        .field(&header_text)
        .hex();
    let entry = Entry::new(root.join(&key), INPUTS);
    let header = entry.dir.join(HEADER);
    if entry.is_made() {
        if stamps_unchanged(&entry.marker()) {
            mark_used(&entry.dir);
            return Some(HostPreamble { header, preamble });
        }
        let _ = std::fs::remove_dir_all(&entry.dir);
        return None;
    }
    if !entry.may_make(&root, &key) {
        return None;
    }
    let kind = PchKind::of(cxx)?;
    // Made before and found to draw warnings: not again until one of its headers changes.
    let warns = root.join(format!("{key}.warns"));
    if mark_against_holds(&warns) {
        return None;
    }
    let user_headers = preamble.has_user_headers().then_some(warns.as_path());
    if !entry.make(|dir| make(cxx, kind, flags, &header_text, user_headers, dir, verbose)) {
        return None;
    }
    keep_within(&root, MAX_BYTES, |p| p.is_dir());
    Some(HostPreamble { header, preamble })
}

/// Writes `preamble.h` and precompiles it (`-MD` lists the headers it reads); returns the text
/// of `inputs`: the headers' sizes and times. `user_headers` is given when the preamble holds
/// the user's headers: then a compile that printed anything makes none, and leaves the headers'
/// sizes and times in that file instead.
fn make(
    cxx: &HostCompiler,
    kind: PchKind,
    flags: &[String],
    preamble: &[u8],
    user_headers: Option<&Path>,
    dir: &Path,
    verbose: bool,
) -> Option<String> {
    let header = dir.join(HEADER);
    let text = [b"#include <hip/hip_runtime.h>\n".as_slice(), preamble].concat();
    std::fs::write(&header, text).ok()?;
    let dependencies = dir.join("preamble.d");
    // Instances made in a PCH that holds the user's code come out of the compile in another
    // order than a plain compile's: the same program, but not the same object. The user's
    // headers' instances are left to each compile, so that a cache never changes an object.
    let instantiate = user_headers.is_none();
    let printed = precompile(
        cxx,
        kind,
        flags,
        &header,
        Some(&dependencies),
        instantiate,
        verbose,
    )?;
    let listed = std::fs::read_to_string(&dependencies).ok()?;
    let inputs = stamps(
        dependency_paths(&listed)
            .iter()
            .filter(|path| !Path::new(path).starts_with(dir)),
    )?;
    let _ = std::fs::remove_file(&dependencies);
    if let Some(warns) = user_headers.filter(|_| !printed.trim().is_empty()) {
        let _ = std::fs::write(warns, inputs);
        return None;
    }
    Some(inputs)
}

/// The prerequisites a GCC dependency file lists (`target: a.h b.h \` lines; spaces in names
/// escaped with `\`).
fn dependency_paths(listed: &str) -> Vec<String> {
    let joined = listed.replace("\\\n", " ");
    let Some((_, prerequisites)) = joined.split_once(": ") else {
        return Vec::new();
    };
    let mut paths = Vec::new();
    let mut current = String::new();
    let mut chars = prerequisites.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                current.push(' ');
                chars.next();
            }
            c if c.is_whitespace() => {
                if !current.is_empty() {
                    paths.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        paths.push(current);
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependency_files_are_read_as_make_writes_them() {
        let listed = "/c/preamble.h.gch: /c/preamble.h /w/hip/hip_runtime.h \\\n /usr/include/c++/12/random /a\\ b/x.h\n";
        assert_eq!(
            dependency_paths(listed),
            [
                "/c/preamble.h",
                "/w/hip/hip_runtime.h",
                "/usr/include/c++/12/random",
                "/a b/x.h"
            ]
        );
    }

    #[test]
    fn a_changed_or_missing_input_makes_the_preamble_stale() {
        let dir =
            std::env::temp_dir().join(format!("hipmlir-host-preamble-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let header = dir.join("a.h");
        std::fs::write(&header, "int a;\n").unwrap();
        let record = |dir: &Path| {
            std::fs::write(dir.join(INPUTS), stamps([&header]).unwrap()).unwrap();
        };
        record(&dir);
        assert!(stamps_unchanged(&dir.join(INPUTS)));
        std::fs::write(&header, "int a, b;\n").unwrap();
        assert!(!stamps_unchanged(&dir.join(INPUTS)));
        record(&dir);
        std::fs::remove_file(&header).unwrap();
        assert!(!stamps_unchanged(&dir.join(INPUTS)));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
