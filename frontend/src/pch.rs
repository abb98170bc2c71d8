//! The device parse's prefix header as a precompiled header (PCH), cached on disk.
//!
//! Every device parse begins with hipmlir's `hip/hip_runtime.h` (as hipcc pre-includes clang's
//! HIP wrapper), which brings in `<cmath>`, `<algorithm>`, `<complex>`, ...: most of the time
//! of a parse. The header is parsed once per set of parse flags and saved as a PCH
//! (`<cache>/pch/<key>.pch`, the cache folder the runtime's program cache uses); later parses
//! load it (`-include-pch`).
//!
//! * When: the second time a key is seen, so that one-off builds do not pay for writing one.
//! * Key: SHA-256 over libclang's and hipmlir's versions, the parse's arguments and the path and
//!   content of every hipmlir header. The system headers the PCH holds are clang's to check:
//!   one changed since the PCH was written makes the load fail.
//! * Whatever goes wrong with a PCH (it cannot be written, does not load, or gives errors), the
//!   parse falls back to the plain one, whose result and diagnostics are the answer; a PCH that
//!   failed where the plain parse did not is deleted. So no result depends on the PCH.
//! * Concurrency: written to a unique temporary file and renamed into place, so concurrent
//!   builds see a whole PCH or none.

use std::path::{Path, PathBuf};

use hipmlir_device_image::{
    cache_dir_from_env, keep_most_recent, mark_used, seen_before, CacheKey,
};

use crate::clang::{clang_version, TranslationUnit};
use crate::error::{Diagnostic, FrontendError};
use crate::FrontendOptions;

/// Parses a device source: through the cached PCH of the prefix header where there is one (or
/// one can be made), else plainly.
pub fn parse_device_source(
    path: &Path,
    options: &FrontendOptions,
    text: Option<&[u8]>,
) -> Result<(TranslationUnit, Vec<Diagnostic>), FrontendError> {
    let plain = options.clang_args();
    let Some(pch) = cached_pch(options) else {
        return TranslationUnit::parse(path, &plain, text);
    };
    let pch_path = pch.display().to_string();
    let with_pch = replace_prefix_include(
        &plain,
        &options.prefix_header(),
        &["-include-pch", &pch_path],
    );
    match TranslationUnit::parse(path, &with_pch, text) {
        Ok(parsed) => Ok(parsed),
        Err(_) => {
            let parsed = TranslationUnit::parse(path, &plain, text);
            if parsed.is_ok() {
                // Stale (a system header changed) or otherwise unusable: made again next time.
                let _ = std::fs::remove_file(&pch);
            }
            parsed
        }
    }
}

/// The plain arguments with `-include <prefix header>` replaced by `with`.
fn replace_prefix_include(plain: &[String], header: &Path, with: &[&str]) -> Vec<String> {
    let header = header.display().to_string();
    let mut args = Vec::with_capacity(plain.len());
    let mut i = 0;
    while i < plain.len() {
        if plain[i] == "-include" && plain.get(i + 1) == Some(&header) {
            args.extend(with.iter().map(|a| a.to_string()));
            i += 2;
        } else {
            args.push(plain[i].clone());
            i += 1;
        }
    }
    args
}

/// The PCH for these options: found in the cache, or made now. `None` when there is no cache
/// folder or the PCH cannot be made (then the caller parses plainly).
fn cached_pch(options: &FrontendOptions) -> Option<PathBuf> {
    let dir = cache_dir_from_env(|name| std::env::var(name).ok())?.join("pch");
    let header = options.prefix_header();
    let plain = options.clang_args();
    let mut key = CacheKey::default();
    key.field(clang_version())
        .field(env!("CARGO_PKG_VERSION"))
        .field(INSTANTIATE_TEMPLATES);
    for arg in &plain {
        key.field(arg);
    }
    let key = key.files_of(&options.hip_headers)?.hex();
    let pch = dir.join(format!("{key}.pch"));
    if pch.is_file() {
        mark_used(&pch);
        return Some(pch);
    }
    std::fs::create_dir_all(&dir).ok()?;
    // A one-off build would pay for a PCH it never uses (writing one costs about a third of a
    // parse more than the parse it saves).
    if !seen_before(&dir, &key) {
        return None;
    }
    // The header's own parse: the device parse's arguments, less the pre-include of it.
    let mut header_args = replace_prefix_include(&plain, &header, &[]);
    header_args.push(INSTANTIATE_TEMPLATES.into());
    let (unit, _) = TranslationUnit::parse_prefix_header(&header, &header_args).ok()?;
    let temporary = dir.join(format!(".{key}.{}.tmp", std::process::id()));
    if unit.save(&temporary).is_err() || std::fs::rename(&temporary, &pch).is_err() {
        let _ = std::fs::remove_file(&temporary);
        return None;
    }
    keep_most_recent(&dir, KEPT_PCHS, |p| {
        p.extension().is_some_and(|x| x == "pch")
    });
    Some(pch)
}

/// The PCH holds the template instances its header needs (`std::complex<float>`'s members,
/// `<algorithm>`'s helpers...), so that each parse loading it does not instantiate them again:
/// a parse of a small kernel then takes a quarter of the time (measured with clang-22 on
/// hip_runtime.h: 0.05 s against 0.2 s).
const INSTANTIATE_TEMPLATES: &str = "-fpch-instantiate-templates";

/// At most this many PCHs (about 8 MB each) are kept: one per set of flags a user builds with.
const KEPT_PCHS: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_include_is_replaced_by_the_pch() {
        let plain: Vec<String> = ["-x", "hip", "-include", "/h/hip/hip_runtime.h", "-DN=1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let header = Path::new("/h/hip/hip_runtime.h");
        assert_eq!(
            replace_prefix_include(&plain, header, &["-include-pch", "/c/k.pch"]),
            ["-x", "hip", "-include-pch", "/c/k.pch", "-DN=1"]
        );
        assert_eq!(
            replace_prefix_include(&plain, header, &[]),
            ["-x", "hip", "-DN=1"]
        );
    }
}
