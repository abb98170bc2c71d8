//! Compiled programs on disk, beside the runtime's built programs and the compiler's
//! precompiled headers (one cache folder, device-image's): a program compiled again, in this
//! process or another, is read back instead of compiled.
//!
//! * Where: `<cache folder>/hiprtc/<key>.rtc`; `HIPMLIR_CACHE_DIR`, `HIPMLIR_DISABLE_CACHE`
//!   and the rest as for the other caches.
//! * Key: SHA-256 over this library's file (size and time: a rebuild or upgrade misses), the
//!   libclang version, the path and content of every hipmlir header, libdevice, the working
//!   folder (relative `-I` folders are read from it), and the program: its name, source,
//!   headers (name and content), name expressions and options, in order.
//! * What a source includes from elsewhere (`-I` folders, system headers) is recorded with each
//!   file's size and modification time; an entry whose files changed is compiled again.
//! * Entry: device-image's checked entry format (magic `HIPRTC01`, length, SHA-256), written
//!   whole or not at all; a damaged entry is removed. The folder is kept within 256 MiB, least
//!   recently used out first. Only successful compiles are kept.

use std::path::{Path, PathBuf};

use hipmlir_cache::{
    cache_dir_from_env, decode_entry, encode_entry, keep_within, mark_used, stamp, stamps_hold,
    write_atomically, CacheKey,
};
use hipmlir_device_image::files::read_regular;
use serde::{Deserialize, Serialize};

const ENTRY_MAGIC: &[u8; 8] = b"HIPRTC01";
const EXTENSION: &str = "rtc";
/// The most the folder keeps.
const KEPT_BYTES: u64 = 256 << 20;

/// What a compile gave, as it is kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    #[serde(with = "serde_bytes")]
    pub code: Option<Vec<u8>>,
    #[serde(with = "serde_bytes")]
    pub bitcode: Option<Vec<u8>>,
    /// The symbol of each name expression, in the program's order.
    pub lowered: Vec<String>,
    pub log: String,
    /// `stamps` of the files the source included from outside the key.
    pub inputs: String,
}

/// The folder of hiprtc's entries, unless caching is off.
fn folder() -> Option<PathBuf> {
    Some(cache_dir_from_env(|name| std::env::var(name).ok())?.join("hiprtc"))
}

/// What a compile is made from, besides the files it includes.
pub struct Inputs<'a> {
    pub include_dir: &'a Path,
    pub name: &'a str,
    pub source: &'a [u8],
    pub headers: &'a [(String, Vec<u8>)],
    pub name_expressions: &'a [String],
    pub options: &'a [String],
}

/// The key of a compile; None when caching is off or the toolchain cannot be read.
pub fn key(inputs: &Inputs) -> Option<String> {
    folder()?;
    let mut key = CacheKey::default();
    key.field("hiprtc cache v1")
        .field(hipmlir_cache::code_stamp())
        .field(hipmlir_frontend::clang::clang_version());
    let key = key.files_of(inputs.include_dir)?;
    match hipmlir_compiler::paths::libdevice() {
        Some(libdevice) => key
            .field(libdevice.display().to_string())
            .field(stamp(&libdevice)?),
        None => key.field("no libdevice"),
    };
    key.field(std::env::current_dir().ok()?.display().to_string())
        .field(inputs.name)
        .field(inputs.source);
    key.field(inputs.headers.len().to_le_bytes());
    for (name, text) in inputs.headers {
        key.field(name).field(text);
    }
    key.field(inputs.name_expressions.len().to_le_bytes());
    for e in inputs.name_expressions {
        key.field(e);
    }
    key.field(inputs.options.len().to_le_bytes());
    for o in inputs.options {
        key.field(o);
    }
    Some(key.hex())
}

/// The entry of `key`, if there is one whose included files are as they were.
pub fn load(key: &str) -> Option<Entry> {
    let path = folder()?.join(format!("{key}.{EXTENSION}"));
    let bytes = read_regular(&path, KEPT_BYTES).ok()?;
    let entry = decode_entry(ENTRY_MAGIC, &bytes)
        .ok()
        .and_then(|payload| rmp_serde::from_slice::<Entry>(payload).ok());
    match entry {
        Some(entry) if stamps_hold(&entry.inputs) => {
            mark_used(&path);
            Some(entry)
        }
        Some(_) => None,
        None => {
            // Damaged (or of another layout): compiled again and replaced.
            let _ = std::fs::remove_file(&path);
            None
        }
    }
}

/// Keeps `entry` under `key`; a cache that cannot be written is passed over.
pub fn store(key: &str, entry: &Entry) {
    let Some(dir) = folder() else { return };
    let Ok(payload) = rmp_serde::to_vec(entry) else {
        return;
    };
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let path = dir.join(format!("{key}.{EXTENSION}"));
    if write_atomically(&path, &encode_entry(ENTRY_MAGIC, &payload)).is_ok() {
        keep_within(&dir, KEPT_BYTES, |p| {
            p.extension().is_some_and(|x| x == EXTENSION)
        });
    }
}
