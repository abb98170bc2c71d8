//! The host compile's prefix header (`hip/hip_runtime.h`, which brings in `<cmath>`,
//! `<algorithm>`, `<complex>`, ...) precompiled for GCC and cached on disk: loading it takes a
//! fraction of the time parsing it does.
//!
//! GCC looks for `hip/hip_runtime.h.gch` in each include folder before the header itself, uses
//! it when it was made by the same compiler with compatible flags, and otherwise ignores it
//! and reads the header (which the folder also holds, as links to hipmlir's headers). So a PCH
//! never changes a result; at worst it goes unused.
//!
//! * Folder: `<cache>/host-pch/<key>/hip/` (the cache folder of the runtime's program cache),
//!   put first among the include folders of the host compile.
//! * Key: SHA-256 over hipmlir's version, the host compiler command, the compile flags and the
//!   path and content of every hipmlir header.
//! * When: the second time a key is seen (the first leaves a mark), since making one costs
//!   about three compiles; only for GCC (clang refuses, rather than ignores, a PCH made with
//!   other options).
//! * Concurrency: made in a temporary folder renamed into place.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use hipmlir_device_image::{
    cache_dir_from_env, keep_most_recent, mark_used, seen_before, CacheKey,
};

use crate::host::HostCompiler;

/// At most this many PCH folders are kept (about 40 MB each): one per set of flags.
const KEPT: usize = 8;

const PREFIX_HEADER: &str = "hip/hip_runtime.h";

/// The folder to search first in a host compile with `flags` (which do not depend on the
/// source), or `None` when there is no usable PCH for them (yet).
pub fn include_dir(
    cxx: &HostCompiler,
    flags: &[String],
    hip_include_dir: &Path,
    verbose: bool,
) -> Option<PathBuf> {
    let root = cache_dir_from_env(|name| std::env::var(name).ok())?.join("host-pch");
    let mut key = CacheKey::default();
    key.field(env!("CARGO_PKG_VERSION")).field(&cxx.program);
    for flag in cxx.flags.iter().chain([&"--".to_string()]).chain(flags) {
        key.field(flag);
    }
    let key = key.files_of(&hip_include_dir.join("hip"))?.hex();
    let dir = root.join(&key);
    if dir.is_dir() {
        mark_used(&dir);
        return Some(dir);
    }
    std::fs::create_dir_all(&root).ok()?;
    if !seen_before(&root, &key) || !is_gcc(cxx) {
        return None;
    }
    let temporary = root.join(format!(".{key}.{}.tmp", std::process::id()));
    let made = make(cxx, flags, hip_include_dir, &temporary, verbose);
    if made.is_none() || std::fs::rename(&temporary, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&temporary);
    }
    keep_most_recent(&root, KEPT, |p| {
        p.is_dir()
            && !p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
    });
    dir.is_dir().then_some(dir)
}

/// Makes `<dir>/hip/`: links to each of hipmlir's HIP headers and the PCH of the prefix header.
fn make(
    cxx: &HostCompiler,
    flags: &[String],
    hip_include_dir: &Path,
    dir: &Path,
    verbose: bool,
) -> Option<()> {
    let hip = dir.join("hip");
    std::fs::create_dir_all(&hip).ok()?;
    for entry in std::fs::read_dir(hip_include_dir.join("hip")).ok()? {
        let entry = entry.ok()?;
        std::os::unix::fs::symlink(entry.path(), hip.join(entry.file_name())).ok()?;
    }
    let mut cmd = cxx.command();
    cmd.args(flags)
        .arg("-x")
        .arg("c++-header")
        .arg(hip_include_dir.join(PREFIX_HEADER))
        .arg("-o")
        .arg(dir.join(format!("{PREFIX_HEADER}.gch")))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if verbose {
        eprintln!("hipmlir: precompiling the host prefix header: {cmd:?}");
    }
    cmd.status().ok()?.success().then_some(())
}

/// Whether the host compiler is GCC (`--version` names the Free Software Foundation).
pub fn is_gcc(cxx: &HostCompiler) -> bool {
    let mut cmd = cxx.command();
    cmd.arg("--version").stderr(Stdio::null());
    cmd.output().is_ok_and(|o| {
        let text = String::from_utf8_lossy(&o.stdout);
        text.contains("Free Software Foundation") && !text.contains("clang")
    })
}
