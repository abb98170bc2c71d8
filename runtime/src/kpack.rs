//! Split device code (kpack-style): a binary built with `--split-device-code` registers a small
//! MessagePack reference record (`__hipmlirRegisterKpackRef`) instead of its device images, which
//! live in a `.hipk` archive beside it (see `hipmlir_device_image::kpack`).
//!
//! Nothing is read at registration (static constructors run before `main`): the record's address
//! is remembered, and the first kernel lookup resolves every pending record. The binary holding a
//! record is found from the record's address in `/proc/self/maps` (`dladdr` does not see data
//! sections); the archive is searched in, in order:
//! 1. the folders of `HIPMLIR_KPACK_PATH_PREFIX` (colon-separated; prepended);
//! 2. the folders of `HIPMLIR_KPACK_PATH` if set (an override), else the record's search paths,
//!    relative to the binary's folder.
//!
//! An entry that is a file is taken as the archive itself; a folder is searched for the record's
//! archive name. `HIPMLIR_KPACK_DEBUG=1` prints each step of the search; `HIPMLIR_KPACK_DISABLE=1`
//! loads no archive (launches of the split kernels then fail, saying so). A missing archive, a
//! damaged one, or one without the binary's key is an error naming every place searched; it is
//! printed once and remembered, so "kernel not found" carries it.

use std::path::{Path, PathBuf};

use hipmlir_device_image::kpack::{KpackArchive, KpackRecord};

use crate::registry::Registry;

/// A record registered by a split binary, not yet resolved.
#[derive(Debug, Clone)]
pub struct PendingRecord {
    /// Where the record lives in memory: tells which binary holds it.
    pub address: usize,
    pub bytes: Vec<u8>,
}

/// One device image found in an archive: a label for messages and the bundle.
#[derive(Debug)]
pub struct FoundImage {
    pub label: String,
    pub bundle: Vec<u8>,
}

/// The environment variables that steer the search (read once per resolution).
#[derive(Debug, Default, Clone)]
pub struct SearchEnv {
    pub path: Option<String>,
    pub prefix: Option<String>,
    pub debug: bool,
    pub disabled: bool,
}

fn flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

impl SearchEnv {
    pub fn from_env() -> Self {
        SearchEnv {
            path: std::env::var("HIPMLIR_KPACK_PATH").ok(),
            prefix: std::env::var("HIPMLIR_KPACK_PATH_PREFIX").ok(),
            debug: flag("HIPMLIR_KPACK_DEBUG"),
            disabled: flag("HIPMLIR_KPACK_DISABLE"),
        }
    }

    fn debug(&self, message: impl FnOnce() -> String) {
        if self.debug {
            eprintln!("hipmlir: kpack: {}", message());
        }
    }
}

/// Resolves every pending record of `reg`: registers the images found, remembers failures.
/// Called with the registry locked, before a lookup.
pub(crate) fn resolve_pending(reg: &mut Registry) {
    let pending = reg.take_pending_records();
    if pending.is_empty() {
        return;
    }
    let env = SearchEnv::from_env();
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    for record in pending {
        let binary = binary_of(&maps, record.address);
        match resolve(&record.bytes, binary.as_deref(), &env) {
            Ok(images) => {
                for image in images {
                    if let Err(failure) = reg.register_bundle(&image.bundle, image.label) {
                        crate::hlog!(Error, "{}", failure.message);
                    }
                }
            }
            Err(why) => {
                crate::hlog!(Error, "{why}");
                reg.add_failed_image(why);
            }
        }
    }
}

/// The file mapped at `address` according to a `/proc/self/maps` text.
pub fn binary_of(maps: &str, address: usize) -> Option<PathBuf> {
    for line in maps.lines() {
        let mut fields = line.splitn(6, ' ');
        let range = fields.next()?;
        let (start, end) = range.split_once('-')?;
        let (Ok(start), Ok(end)) = (
            usize::from_str_radix(start, 16),
            usize::from_str_radix(end, 16),
        ) else {
            continue;
        };
        if !(start..end).contains(&address) {
            continue;
        }
        // perms, offset, dev, inode, then the path (padded with spaces).
        let path = fields.nth(4).unwrap_or("").trim();
        let path = path.strip_suffix(" (deleted)").unwrap_or(path);
        if path.starts_with('/') {
            return Some(PathBuf::from(path));
        }
        return None;
    }
    None
}

/// The archive files to try, in order (see the module docs).
pub fn candidates(record: &KpackRecord, binary: Option<&Path>, env: &SearchEnv) -> Vec<PathBuf> {
    let list = |v: &Option<String>| -> Vec<PathBuf> {
        v.as_deref()
            .unwrap_or("")
            .split(':')
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .collect()
    };
    let mut places = list(&env.prefix);
    if env.path.is_some() {
        places.extend(list(&env.path));
    } else if let Some(dir) = binary.and_then(Path::parent) {
        places.extend(record.search_paths.iter().map(|p| dir.join(p)));
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for place in places {
        let file = if place.is_dir() || !place.is_file() && place.extension().is_none() {
            place.join(&record.archive)
        } else {
            place
        };
        let file = normalize(&file);
        if !out.contains(&file) {
            out.push(file);
        }
    }
    out
}

/// `a/./b/../c` → `a/c`, lexically (for messages and duplicate removal).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Finds the archive of one record and returns its images for the preferred target.
pub fn resolve(
    record_bytes: &[u8],
    binary: Option<&Path>,
    env: &SearchEnv,
) -> Result<Vec<FoundImage>, String> {
    let who = binary
        .map(|b| b.display().to_string())
        .unwrap_or_else(|| "this program".into());
    if env.disabled {
        env.debug(|| format!("HIPMLIR_KPACK_DISABLE is set: not loading the archive of {who}"));
        return Err(format!(
            "the device code of {who} is in a split archive and HIPMLIR_KPACK_DISABLE is set"
        ));
    }
    let record = KpackRecord::decode(record_bytes)
        .map_err(|e| format!("{who} carries an invalid split-device-code record: {e}"))?;
    env.debug(|| {
        format!(
            "{who}: key {}, archive '{}', search paths [{}]",
            record.key,
            record.archive,
            record.search_paths.join(", ")
        )
    });
    if binary.is_none() {
        env.debug(|| "the record's address is in no file mapping of /proc/self/maps".into());
    }
    let candidates = candidates(&record, binary, env);
    let mut tried = Vec::new();
    for file in &candidates {
        let bytes = match crate::files::read_regular(file, crate::files::MAX_DEVICE_FILE) {
            Ok(b) => b,
            Err(e) => {
                env.debug(|| format!("{}: {e}", file.display()));
                tried.push(format!("{} ({})", file.display(), short_io(&e)));
                continue;
            }
        };
        let archive = KpackArchive::decode(&bytes).map_err(|e| {
            env.debug(|| format!("{}: {e}", file.display()));
            format!(
                "the device code archive {} of {who} is unusable: {e}",
                file.display()
            )
        })?;
        match archive.select(&record.key) {
            Some(entry) => {
                env.debug(|| {
                    format!(
                        "{}: using target {} ({} image(s))",
                        file.display(),
                        entry.target,
                        entry.images.len()
                    )
                });
                return Ok(entry
                    .images
                    .iter()
                    .map(|i| FoundImage {
                        label: format!("{} in {}", i.name, file.display()),
                        bundle: i.bundle.clone(),
                    })
                    .collect());
            }
            None => {
                env.debug(|| format!("{}: no entry for key {}", file.display(), record.key));
                tried.push(format!(
                    "{} (no entry for key {}: another build?)",
                    file.display(),
                    record.key
                ));
            }
        }
    }
    let searched = if tried.is_empty() {
        "nowhere (no search path)".to_string()
    } else {
        tried.join(", ")
    };
    Err(format!(
        "cannot find the device code archive '{}' of {who}; searched: {searched}. \
         Keep it beside the binary or name its folder in HIPMLIR_KPACK_PATH",
        record.archive
    ))
}

fn short_io(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "not found".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hipmlir_device_image::kpack::{KpackEntry, KpackImage, SPIRV_TARGET};

    const MAPS: &str = "\
55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1234                       /opt/app/bin/app
55d0c0a01000-55d0c0a02000 r-xp 00001000 08:01 1234                       /opt/app/bin/app
7f0000000000-7f0000001000 rw-p 00000000 00:00 0 
7f0000002000-7f0000003000 r--p 00000000 08:01 99                         /tmp/x/libk.so (deleted)
7ffd00000000-7ffd00001000 rw-p 00000000 00:00 0                          [stack]
";

    #[test]
    fn maps_give_the_binary() {
        assert_eq!(
            binary_of(MAPS, 0x55d0c0a01800),
            Some(PathBuf::from("/opt/app/bin/app"))
        );
        assert_eq!(
            binary_of(MAPS, 0x7f0000002010),
            Some(PathBuf::from("/tmp/x/libk.so"))
        );
        assert_eq!(binary_of(MAPS, 0x7f0000000010), None);
        assert_eq!(binary_of(MAPS, 0x7ffd00000010), None);
        assert_eq!(binary_of(MAPS, 0x1000), None);
        assert_eq!(binary_of("garbage\n\n", 0x1000), None);
    }

    fn record() -> KpackRecord {
        let mut r = KpackRecord::new("app-1".into(), "app.hipk".into());
        r.search_paths.push("../lib/hipk".into());
        r
    }

    #[test]
    fn search_order_prefix_then_paths() {
        let bin = Path::new("/opt/app/bin/app");
        let env = SearchEnv::default();
        assert_eq!(
            candidates(&record(), Some(bin), &env),
            vec![
                PathBuf::from("/opt/app/bin/app.hipk"),
                PathBuf::from("/opt/app/lib/hipk/app.hipk")
            ]
        );
        let env = SearchEnv {
            prefix: Some("/p1::/p2/x.hipk".into()),
            ..Default::default()
        };
        let c = candidates(&record(), Some(bin), &env);
        assert_eq!(c[0], PathBuf::from("/p1/app.hipk"));
        assert_eq!(c[1], PathBuf::from("/p2/x.hipk"));
        assert_eq!(c.len(), 4);
        let env = SearchEnv {
            path: Some("/override".into()),
            ..Default::default()
        };
        assert_eq!(
            candidates(&record(), Some(bin), &env),
            vec![PathBuf::from("/override/app.hipk")]
        );
        assert!(candidates(&record(), None, &SearchEnv::default()).is_empty());
    }

    #[test]
    fn resolution_reports_what_it_searched() {
        let dir = std::env::temp_dir().join(format!("hipmlir-kpack-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bin = dir.join("app");
        let rec = KpackRecord::new("app-1".into(), "app.hipk".into()).encode();
        let env = SearchEnv::default();
        let e = resolve(&rec, Some(&bin), &env).unwrap_err();
        assert!(e.contains("app.hipk (not found)"), "{e}");

        let archive = |key: &str| {
            KpackArchive::new(vec![KpackEntry {
                key: key.into(),
                target: SPIRV_TARGET.into(),
                images: vec![KpackImage {
                    name: "a.hip".into(),
                    bundle: vec![7; 8],
                }],
            }])
            .encode()
        };
        std::fs::write(dir.join("app.hipk"), archive("other")).unwrap();
        let e = resolve(&rec, Some(&bin), &env).unwrap_err();
        assert!(e.contains("no entry for key app-1"), "{e}");

        std::fs::write(dir.join("app.hipk"), archive("app-1")).unwrap();
        let found = resolve(&rec, Some(&bin), &env).unwrap();
        assert_eq!(found.len(), 1);
        assert!(found[0].label.starts_with("a.hip in "));

        let mut bytes = archive("app-1");
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(dir.join("app.hipk"), bytes).unwrap();
        let e = resolve(&rec, Some(&bin), &env).unwrap_err();
        assert!(e.contains("unusable") && e.contains("checksum"), "{e}");

        // An archive that is a symlink to a device that never ends: once a read that never
        // returned; now a refusal naming it, and the search goes on.
        std::fs::remove_file(dir.join("app.hipk")).unwrap();
        std::os::unix::fs::symlink("/dev/urandom", dir.join("app.hipk")).unwrap();
        let e = resolve(&rec, Some(&bin), &env).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        std::fs::remove_file(dir.join("app.hipk")).unwrap();

        let off = SearchEnv {
            disabled: true,
            ..Default::default()
        };
        assert!(resolve(&rec, Some(&bin), &off)
            .unwrap_err()
            .contains("HIPMLIR_KPACK_DISABLE"));
        assert!(resolve(b"\xc1", Some(&bin), &env)
            .unwrap_err()
            .contains("invalid split-device-code record"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
