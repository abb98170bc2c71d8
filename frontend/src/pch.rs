//! The device parse's prefix header as a precompiled header (PCH), cached on disk.
//!
//! Every device parse begins with hipmlir's `hip/hip_runtime.h` (as hipcc pre-includes clang's
//! HIP wrapper), which brings in `<cmath>`, `<algorithm>`, `<complex>`, ...: most of the time
//! of a parse. The header is parsed once per set of parse flags and saved as a PCH
//! (`<cache>/pch/<key>.pch`, the cache folder the runtime's program cache uses); later parses
//! load it (`-include-pch`).
//!
//! A source whose preamble (its leading `#include`s, `preamble.rs`) adds headers of its own
//! (`<random>`, `<vector>`, and the user's `"util.hpp"` where it holds no device code the
//! frontend walks, `preamble_headers.rs`) gets a second PCH, of the prefix header and that
//! preamble, kept under `<cache>/preamble/`: rebuilding the source then parses only the code
//! below its includes, the preamble's characters made spaces so every location stays where it
//! was.
//!
//! * When: the second time a key is seen, so that one-off builds do not pay for writing one
//!   (the first time where the caller will compile again soon: hiprtc).
//! * Key: SHA-256 over libclang's and hipmlir's versions, the parse's arguments and the path and
//!   content of every hipmlir header. The system headers the PCH holds are clang's to check:
//!   one changed since the PCH was written makes the load fail.
//! * Whatever goes wrong with a PCH (it cannot be written, does not load, or gives errors), the
//!   parse falls back to the plain one, whose result and diagnostics are the answer; a PCH that
//!   failed where the plain parse did not is deleted. So no result depends on the PCH.
//! * Concurrency: written to a unique temporary file and renamed into place, so concurrent
//!   builds see a whole PCH or none.

use std::path::{Path, PathBuf};

use hipmlir_cache::{
    cache_dir_from_env, keep_most_recent, keep_within, mark_against_holds, mark_used, seen_before,
    stamps, CacheKey,
};

use crate::clang::{clang_version, TranslationUnit};
use crate::error::{Diagnostic, FrontendError};
use crate::preamble::{Preamble, QuotedIncludes};
use crate::preamble_headers;
use crate::FrontendOptions;

/// Parses a device source (`text`, the file's contents as parsed): through the cached PCH of
/// its preamble or of the prefix header where there is one (or one can be made), else plainly.
pub fn parse_device_source(
    path: &Path,
    options: &FrontendOptions,
    text: &[u8],
) -> Result<(TranslationUnit, Vec<Diagnostic>), FrontendError> {
    let plain = options.clang_args();
    let Some(prefix_pch) = cached_pch(options) else {
        return TranslationUnit::parse(path, &plain, Some(text));
    };
    if let Some((preamble, pch)) = preamble_pch(path, options, &prefix_pch, text) {
        let with_pch = replace_prefix_include(
            &plain,
            &options.prefix_header(),
            &["-include-pch", &pch.display().to_string()],
        );
        let blanked = preamble.blanked(text);
        if let Ok(parsed) = TranslationUnit::parse(path, &with_pch, Some(&blanked)) {
            return Ok(parsed);
        }
        // A header it holds changed: the plain parse decides; the preamble's PCH is made
        // again next time if that one succeeds.
        let parsed = TranslationUnit::parse(path, &plain, Some(text));
        if parsed.is_ok() {
            remove_preamble_pch(&pch);
        }
        return parsed;
    }
    let with_pch = replace_prefix_include(
        &plain,
        &options.prefix_header(),
        &["-include-pch", &prefix_pch.display().to_string()],
    );
    match TranslationUnit::parse(path, &with_pch, Some(text)) {
        Ok(parsed) => Ok(parsed),
        Err(_) => {
            let parsed = TranslationUnit::parse(path, &plain, Some(text));
            if parsed.is_ok() {
                // Stale (a system header changed) or otherwise unusable: made again next time.
                let _ = std::fs::remove_file(&prefix_pch);
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

/// What `TranslationUnit::save` leaves out of a PCH (cxx/precompiled_header.cpp), part of the
/// key: a PCH saved before it left that out is not taken for one that does.
const PCH_LEAVES_OUT: &str = "deferred-diagnostic roots";

/// The PCH for these options: found in the cache, or made now. `None` when there is no cache
/// folder or the PCH cannot be made (then the caller parses plainly).
fn cached_pch(options: &FrontendOptions) -> Option<PathBuf> {
    let dir = cache_dir_from_env(|name| std::env::var(name).ok())?.join("pch");
    let header = options.prefix_header();
    let plain = options.prefix_header_args();
    let mut key = CacheKey::default();
    key.field(clang_version())
        .field(hipmlir_cache::code_stamp())
        .field(INSTANTIATE_TEMPLATES)
        .field(PCH_LEAVES_OUT);
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
    if !options.pch_at_first_sight && !seen_before(&dir, &key) {
        return None;
    }
    // The header's own parse: the device parse's arguments, less the pre-include of it.
    let mut header_args = replace_prefix_include(&plain, &header, &[]);
    header_args.push(INSTANTIATE_TEMPLATES.into());
    make_pch(&header, &header_args, &pch, |_, _| true)?;
    keep_most_recent(&dir, KEPT_PCHS, |p| {
        p.extension().is_some_and(|x| x == "pch")
    });
    Some(pch)
}

/// Parses `header` with `args` and saves it as the PCH `pch` if `may_save` agrees (given the
/// parse and its warnings): written to a unique temporary file and renamed into place, so that
/// concurrent builds see a whole PCH or none. `Some(false)`: not saved, as `may_save` said.
fn make_pch(
    header: &Path,
    args: &[String],
    pch: &Path,
    may_save: impl FnOnce(&TranslationUnit, &[Diagnostic]) -> bool,
) -> Option<bool> {
    let (unit, warnings) = TranslationUnit::parse_prefix_header(header, args).ok()?;
    if !may_save(&unit, &warnings) {
        return Some(false);
    }
    let temporary = pch.with_extension(format!("{}.tmp", std::process::id()));
    if unit.save(&temporary).is_err() || std::fs::rename(&temporary, pch).is_err() {
        let _ = std::fs::remove_file(&temporary);
        return None;
    }
    Some(true)
}

/// The source's preamble and its PCH, found in the cache or made now: with the user's leading
/// headers where they may be precompiled (`preamble_headers.rs`), else (and until that one is
/// made) the leading system headers alone.
///
/// The user's headers are taken as the parse finds them, by an absolute path only: the
/// preamble's header names them by that path, and a relative one would read another way in
/// `__FILE__`. Not with `-fgpu-rdc`, whose walk of the user's code exports device functions.
fn preamble_pch(
    path: &Path,
    options: &FrontendOptions,
    prefix_pch: &Path,
    text: &[u8],
) -> Option<(Preamble, PathBuf)> {
    let search_dirs: Vec<PathBuf> = std::iter::once(options.hip_headers.clone())
        .chain(options.include_dirs.iter().cloned())
        .collect();
    let with_user_headers = Preamble::of(
        text,
        &options.include_dirs,
        &options.hip_headers,
        QuotedIncludes::Resolve {
            source_dir: path.parent().unwrap_or(Path::new("")),
            search_dirs: &search_dirs,
            except_under: None,
        },
    )
    .filter(|p| p.has_user_headers() && !options.relocatable);
    if let Some(preamble) = with_user_headers {
        let header_text = preamble.header_text(text);
        // Until it is made (the second time it is seen), the system headers' serves.
        if let Some(pch) = cached_preamble_pch(options, prefix_pch, &header_text, Some(&preamble)) {
            return Some((preamble, pch));
        }
    }
    let preamble = Preamble::of(
        text,
        &options.include_dirs,
        &options.hip_headers,
        QuotedIncludes::End,
    )?;
    cached_preamble_pch(options, prefix_pch, preamble.text(text), None).map(|pch| (preamble, pch))
}

/// The PCH of the prefix header followed by a preamble (`header_text`, the text of a header
/// holding it): found in the cache, or made now (the second time the preamble is seen, from the
/// plain arguments): `<cache>/preamble/<key>.pch`, with the header beside it as `<key>.h` (the
/// file the PCH was made from, which clang checks when it loads the PCH, with every header the
/// preamble brought in).
///
/// Key: the prefix PCH's name (its key covers the parse's arguments and hipmlir's headers) and
/// the header's text. `user_headers`: the preamble, when it holds the user's headers; one found
/// unsuitable (its headers hold code the frontend walks, or draw warnings) leaves `<key>.unsuitable`, their sizes and times, and is not tried again until one of
/// them changes.
fn cached_preamble_pch(
    options: &FrontendOptions,
    prefix_pch: &Path,
    header_text: &[u8],
    user_headers: Option<&Preamble>,
) -> Option<PathBuf> {
    let dir = cache_dir_from_env(|name| std::env::var(name).ok())?.join("preamble");
    let key = CacheKey::default()
        .field(prefix_pch.display().to_string())
        .field(hipmlir_cache::code_stamp())
        .field(header_text)
        .hex();
    let pch = dir.join(format!("{key}.pch"));
    let header = dir.join(format!("{key}.h"));
    let unsuitable = dir.join(format!("{key}.unsuitable"));
    if pch.is_file() && header.is_file() {
        mark_used(&pch);
        return Some(pch);
    }
    if mark_against_holds(&unsuitable) {
        return None;
    }
    std::fs::create_dir_all(&dir).ok()?;
    if !seen_before(&dir, &key) {
        return None;
    }
    // Concurrent builds may write the same header: the same bytes, so either write serves.
    std::fs::write(&header, header_text).ok()?;
    // Made from the plain arguments: a PCH libclang saves from a parse that loaded another PCH
    // does not load again (clang's chained PCHs are not libclang's to write).
    let mut args = options.prefix_header_args();
    args.push(INSTANTIATE_TEMPLATES.into());
    let suitable = |unit: &TranslationUnit, warnings: &[Diagnostic]| {
        user_headers.is_none()
            || (warnings.is_empty()
                && preamble_headers::hold_nothing_walked(unit, header_text, &options.hip_headers))
    };
    if !make_pch(&header, &args, &pch, suitable)? {
        let _ = std::fs::remove_file(&header);
        if let Some(stamps) = user_headers.and_then(|p| stamps(p.user_headers())) {
            let _ = std::fs::write(&unsuitable, stamps);
        }
        return None;
    }
    keep_within(&dir, PREAMBLES_MAX_BYTES, |p| {
        p.extension().is_some_and(|x| x == "pch")
    });
    remove_orphaned_headers(&dir);
    Some(pch)
}

/// Removes a preamble's PCH and the header it was made from.
fn remove_preamble_pch(pch: &Path) {
    let _ = std::fs::remove_file(pch);
    let _ = std::fs::remove_file(pch.with_extension("h"));
}

/// Removes the preamble headers whose PCH is gone (evicted by `keep_most_recent`).
fn remove_orphaned_headers(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "h") && !path.with_extension("pch").exists() {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The PCH holds the template instances its header needs (`std::complex<float>`'s members,
/// `<algorithm>`'s helpers...), so that each parse loading it does not instantiate them again:
/// a parse of a small kernel then takes a quarter of the time (measured with clang-22 on
/// hip_runtime.h: 0.05 s against 0.2 s).
const INSTANTIATE_TEMPLATES: &str = "-fpch-instantiate-templates";

/// At most this many PCHs (about 8 MB each) are kept: one per set of flags a user builds with.
const KEPT_PCHS: usize = 32;

/// The preamble PCHs (about 10 MB each, one per source a user rebuilds) kept at most: 1 GiB,
/// about a hundred sources (the least recently used go first).
const PREAMBLES_MAX_BYTES: u64 = 1 << 30;

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
