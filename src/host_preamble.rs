//! The host compile's precompiled preamble: hipmlir's prefix header and the source's leading
//! system `#include`s (`<random>`, `<vector>`, ...; see the frontend's `preamble.rs`) as one
//! GCC precompiled header, cached on disk, so that rebuilding a source compiles only the code
//! below its includes.
//!
//! * Folder: `<cache>/host-preamble/<key>/`: `preamble.h` (`#include <hip/hip_runtime.h>`, then
//!   the preamble's text), `preamble.h.gch`, and `inputs`, every header the PCH was made from
//!   with its size and modification time. The compile takes `-include <folder>/preamble.h` in
//!   place of the prefix header, and the source with its preamble made spaces.
//! * Key: SHA-256 over hipmlir's version, the host compiler command, the compile flags, hipmlir's
//!   headers and the preamble's text.
//! * Checked before each use: GCC does not check the headers a PCH holds, so hipmlir does (as
//!   clang does for its own): one changed or gone, and the folder is removed and the compile
//!   reads the headers. A PCH GCC finds unusable it ignores, reading `preamble.h` itself: the
//!   same text, so a PCH never changes a result.
//! * When: the second time a key is seen, as the prefix header's PCH; only for GCC.
//! * Concurrency: made in a temporary folder renamed into place.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::UNIX_EPOCH;

use hipmlir_device_image::{cache_dir_from_env, keep_within, mark_used, seen_before, CacheKey};
use hipmlir_frontend::preamble::Preamble;

use crate::host::HostCompiler;

/// The preamble folders (about 50 MB each: GCC's PCHs hold the whole prefix header; one per
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
/// preamble, no cache folder, not GCC, not made yet, or its headers changed).
pub fn find_or_make(
    cxx: &HostCompiler,
    flags: &[String],
    text: &[u8],
    user_include_dirs: &[PathBuf],
    hip_include_dir: &Path,
    verbose: bool,
) -> Option<HostPreamble> {
    let preamble = Preamble::of(text, user_include_dirs, hip_include_dir)?;
    let root = cache_dir_from_env(|name| std::env::var(name).ok())?.join("host-preamble");
    let mut key = CacheKey::default();
    key.field(env!("CARGO_PKG_VERSION")).field(&cxx.program);
    for flag in cxx.flags.iter().chain([&"--".to_string()]).chain(flags) {
        key.field(flag);
    }
    let key = key
        .files_of(&hip_include_dir.join("hip"))?
        .field(preamble.text(text))
        .hex();
    let dir = root.join(&key);
    let header = dir.join(HEADER);
    if dir.is_dir() {
        if inputs_unchanged(&dir) {
            mark_used(&dir);
            return Some(HostPreamble { header, preamble });
        }
        let _ = std::fs::remove_dir_all(&dir);
        return None;
    }
    std::fs::create_dir_all(&root).ok()?;
    if !seen_before(&root, &key) || !crate::host_pch::is_gcc(cxx) {
        return None;
    }
    let temporary = root.join(format!(".{key}.{}.tmp", std::process::id()));
    let made = make(cxx, flags, preamble.text(text), &temporary, verbose);
    if made.is_none() || std::fs::rename(&temporary, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&temporary);
        return None;
    }
    keep_within(&root, MAX_BYTES, |p| {
        p.is_dir()
            && !p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
    });
    Some(HostPreamble { header, preamble })
}

/// Writes `preamble.h`, precompiles it (`-MD` lists the headers it reads) and records the
/// headers' sizes and times in `inputs`.
fn make(
    cxx: &HostCompiler,
    flags: &[String],
    preamble: &[u8],
    dir: &Path,
    verbose: bool,
) -> Option<()> {
    std::fs::create_dir_all(dir).ok()?;
    let header = dir.join(HEADER);
    let text = [b"#include <hip/hip_runtime.h>\n".as_slice(), preamble].concat();
    std::fs::write(&header, text).ok()?;
    let dependencies = dir.join("preamble.d");
    let mut cmd = cxx.command();
    cmd.args(flags)
        .arg("-x")
        .arg("c++-header")
        .arg(&header)
        .arg("-o")
        .arg(dir.join(format!("{HEADER}.gch")))
        .arg("-MD")
        .arg("-MF")
        .arg(&dependencies)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if verbose {
        eprintln!("hipmlir: precompiling the host preamble: {cmd:?}");
    }
    cmd.status().ok()?.success().then_some(())?;
    let listed = std::fs::read_to_string(&dependencies).ok()?;
    let mut inputs = String::new();
    for path in dependency_paths(&listed) {
        if Path::new(&path).starts_with(dir) {
            continue;
        }
        inputs += &format!("{}\t{path}\n", stamp(Path::new(&path))?);
    }
    std::fs::write(dir.join(INPUTS), inputs).ok()?;
    let _ = std::fs::remove_file(&dependencies);
    Some(())
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

/// A file's size and modification time, as `inputs` records them.
fn stamp(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    let time = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some(format!("{} {}", meta.len(), time.as_nanos()))
}

/// Whether every header the PCH was made from is as it was.
fn inputs_unchanged(dir: &Path) -> bool {
    let Ok(inputs) = std::fs::read_to_string(dir.join(INPUTS)) else {
        return false;
    };
    inputs.lines().all(|line| {
        line.split_once('\t')
            .is_some_and(|(recorded, path)| stamp(Path::new(path)).as_deref() == Some(recorded))
    })
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
            let line = format!("{}\t{}\n", stamp(&header).unwrap(), header.display());
            std::fs::write(dir.join(INPUTS), line).unwrap();
        };
        record(&dir);
        assert!(inputs_unchanged(&dir));
        std::fs::write(&header, "int a, b;\n").unwrap();
        assert!(!inputs_unchanged(&dir));
        record(&dir);
        std::fs::remove_file(&header).unwrap();
        assert!(!inputs_unchanged(&dir));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
