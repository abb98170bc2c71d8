//! The on-disk cache of built programs.
//!
//! Building SPIR-V is the slow part of a program's start (seconds for a large module). After a
//! build, the program's device binary (`CL_PROGRAM_BINARIES`) is stored; the next process loads it
//! with `clCreateProgramWithBinary` instead.
//!
//! * Where: `$HIPMLIR_CACHE_DIR`, else `$XDG_CACHE_HOME/hipmlir`, else `~/.cache/hipmlir`.
//!   `HIPMLIR_DISABLE_CACHE=1` turns it off (as does a folder that cannot be created: then a
//!   warning, once, and builds go on uncached).
//! * Key: SHA-256 over the SPIR-V, the device (name, vendor, OpenCL version), the driver version,
//!   the platform version, the build options and this runtime's version, each length-prefixed.
//!   The file is `<key>.clbin`.
//! * Entry: `HMLRPC01`, the payload length (u64 LE), SHA-256 of the payload, the payload. A
//!   truncated or corrupt entry fails the check, is deleted and rebuilt (and the driver refusing a
//!   binary is handled the same way by the caller).
//! * Concurrency: entries are written to a unique temporary file in the same folder and renamed
//!   into place (atomic on POSIX), so a reader sees a whole entry or none, and concurrent writers
//!   of the same key just replace each other's identical entries.

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::hlog;
use sha2::{Digest, Sha256};

/// Feeds a length-prefixed field, so that concatenated fields cannot alias.
fn field(h: &mut Sha256, data: &[u8]) {
    h.update((data.len() as u64).to_le_bytes());
    h.update(data);
}

/// Lower-case hexadecimal.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

const ENTRY_MAGIC: &[u8; 8] = b"HMLRPC01";

/// What identifies a build besides the SPIR-V.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildContext {
    pub device_name: String,
    pub device_vendor: String,
    pub device_version: String,
    pub driver_version: String,
    pub platform_version: String,
    pub options: String,
}

/// The cache key (64 hex digits) of a build.
pub fn key(spirv: &[u8], ctx: &BuildContext) -> String {
    let mut h = Sha256::new();
    field(&mut h, b"hipmlir program cache v1");
    field(&mut h, env!("CARGO_PKG_VERSION").as_bytes());
    field(&mut h, spirv);
    for part in [
        &ctx.device_name,
        &ctx.device_vendor,
        &ctx.device_version,
        &ctx.driver_version,
        &ctx.platform_version,
        &ctx.options,
    ] {
        field(&mut h, part.as_bytes());
    }
    hex(&h.finalize())
}

/// Encodes an entry: header with length and checksum, then the payload (device-image's entry
/// format, which hiprtc's cache shares).
pub fn encode_entry(payload: &[u8]) -> Vec<u8> {
    hipmlir_cache::encode_entry(ENTRY_MAGIC, payload)
}

/// Decodes and verifies an entry; the error says what is wrong with it.
pub fn decode_entry(bytes: &[u8]) -> Result<&[u8], String> {
    hipmlir_cache::decode_entry(ENTRY_MAGIC, bytes)
}

/// A cache folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramCache {
    pub dir: PathBuf,
}

impl ProgramCache {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ProgramCache { dir: dir.into() }
    }

    pub fn entry_path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.clbin"))
    }

    /// The verified payload of `key`, if present. A bad entry (not a regular file, too large,
    /// truncated, corrupt) is deleted (and logged).
    pub fn load(&self, key: &str) -> Option<Vec<u8>> {
        let path = self.entry_path(key);
        let read = crate::files::read_regular(&path, crate::files::MAX_DEVICE_FILE);
        let checked = match read {
            Ok(bytes) => decode_entry(&bytes).map(<[u8]>::to_vec),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => Err(e.to_string()),
        };
        match checked {
            Ok(payload) => Some(payload),
            Err(why) => {
                hlog!(
                    Warn,
                    "program cache entry {} is unusable ({why}); rebuilding it",
                    path.display()
                );
                self.remove(key);
                None
            }
        }
    }

    /// Deletes an entry (a binary the driver refused).
    pub fn remove(&self, key: &str) {
        let _ = std::fs::remove_file(self.entry_path(key));
    }

    /// Stores `payload` under `key`: a temporary file renamed into place.
    pub fn store(&self, key: &str, payload: &[u8]) -> Result<(), String> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        hipmlir_cache::write_atomically(&self.entry_path(key), &encode_entry(payload))
            .map_err(|e| format!("cannot write {}: {e}", self.entry_path(key).display()))
    }
}

pub use hipmlir_cache::cache_dir_from_env as dir_from_env;

/// The process's cache (the environment is read once).
pub fn global() -> Option<&'static ProgramCache> {
    static CACHE: OnceLock<Option<ProgramCache>> = OnceLock::new();
    CACHE
        .get_or_init(|| {
            let dir = dir_from_env(|name| std::env::var(name).ok());
            match &dir {
                Some(d) => hlog!(Debug, "program cache: {}", d.display()),
                None => hlog!(Debug, "program cache: disabled"),
            }
            dir.map(ProgramCache::new)
        })
        .as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_depends_on_everything() {
        let ctx = BuildContext {
            device_name: "dev".into(),
            driver_version: "1.0".into(),
            ..Default::default()
        };
        let k = key(b"spirv", &ctx);
        assert_eq!(k.len(), 64);
        assert_eq!(k, key(b"spirv", &ctx.clone()));
        assert_ne!(k, key(b"spirv!", &ctx));
        for change in [
            |c: &mut BuildContext| c.device_name.push('x'),
            |c: &mut BuildContext| c.driver_version.push('x'),
            |c: &mut BuildContext| c.options.push_str("-O0"),
            |c: &mut BuildContext| c.platform_version.push('x'),
        ] {
            let mut other = ctx.clone();
            change(&mut other);
            assert_ne!(k, key(b"spirv", &other));
        }
        // Fields cannot bleed into each other.
        let a = BuildContext {
            device_name: "ab".into(),
            device_vendor: "c".into(),
            ..Default::default()
        };
        let b = BuildContext {
            device_name: "a".into(),
            device_vendor: "bc".into(),
            ..Default::default()
        };
        assert_ne!(key(b"", &a), key(b"", &b));
    }

    #[test]
    fn entries_detect_truncation_and_corruption() {
        let payload: Vec<u8> = (0..500u32).map(|i| i as u8).collect();
        let entry = encode_entry(&payload);
        assert_eq!(decode_entry(&entry).unwrap(), &payload[..]);
        for len in 0..entry.len() {
            assert!(decode_entry(&entry[..len]).is_err(), "len {len}");
        }
        let header = entry.len() - payload.len();
        for at in [0, 9, 20, header, entry.len() - 1] {
            let mut bad = entry.clone();
            bad[at] ^= 0x40;
            assert!(decode_entry(&bad).is_err(), "flip at {at}");
        }
        assert!(decode_entry(&encode_entry(&[])).is_err());
    }

    #[test]
    fn store_load_and_bad_entries_on_disk() {
        let dir = std::env::temp_dir().join(format!("hipmlir-cache-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = ProgramCache::new(dir.join("nested"));
        assert_eq!(cache.load("k1"), None);
        cache.store("k1", b"binary bytes").unwrap();
        assert_eq!(cache.load("k1").as_deref(), Some(&b"binary bytes"[..]));
        // No temporary files are left behind.
        let names: Vec<_> = std::fs::read_dir(&cache.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec!["k1.clbin".to_string()]);
        // Truncate it: detected, deleted, and a miss.
        let path = cache.entry_path("k1");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        assert_eq!(cache.load("k1"), None);
        assert!(!path.exists());
        // Concurrent writers of one key leave one whole entry.
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let cache = cache.clone();
                std::thread::spawn(move || {
                    for _ in 0..20 {
                        cache.store("k2", &vec![i as u8; 100_000]).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let got = cache.load("k2").unwrap();
        assert_eq!(got.len(), 100_000);
        assert!(got.iter().all(|&b| b == got[0]));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
