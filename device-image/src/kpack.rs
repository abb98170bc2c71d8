//! Split device code (after AMD's kpack design): the device images of a program live in a `.hipk`
//! archive beside it, and the host binary carries only a small reference record.
//!
//! The record (MessagePack, in the ELF section [`RECORD_SECTION`]) names a lookup key and the
//! archive's file name, and lists the folders to search, relative to the folder of the binary
//! that holds the record. The runtime finds that binary from the record's own address.
//!
//! An archive file is:
//!
//! ```text
//! "HIPMLIRK"      8-byte magic
//! u32 format version, u32 reserved (0)
//! u64 body length, u64 FNV-1a 64 of the body     all little-endian
//! body            MessagePack: { format_version, entries: [{ key, target, images: [...] }] }
//! ```
//!
//! Each image is a device image bundle ([`crate::DeviceImage::to_bundle_bytes`]) with the name of
//! the source it came from. Several binaries may share one archive: entries are told apart by key.
//! A binary's entries may be for several targets; the runtime takes the first target of
//! [`TARGET_PRIORITY`] that the archive has.

use serde::{Deserialize, Serialize};

use crate::ImageError;

/// The ELF section holding a split binary's reference record.
pub const RECORD_SECTION: &str = ".hipmlir_kpack";
/// The archive's file extension.
pub const ARCHIVE_EXTENSION: &str = "hipk";
pub const ARCHIVE_MAGIC: &[u8; 8] = b"HIPMLIRK";
pub const KPACK_FORMAT_VERSION: u32 = 1;
/// Device targets, most preferred first. SPIR-V is the only one for now.
pub const TARGET_PRIORITY: &[&str] = &[SPIRV_TARGET];
/// The target name of SPIR-V images (the triple of their bundle entry).
pub const SPIRV_TARGET: &str = "spirv64-unknown-unknown";

const HEADER_LEN: usize = 8 + 4 + 4 + 8 + 8;

/// What a split host binary carries: where its device code is and under which key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KpackRecord {
    pub format_version: u32,
    /// The archive entries' key: the binary's name and a hash of its device images, so an
    /// archive from another build is not taken for this one.
    pub key: String,
    /// The archive's file name (`app.hipk`).
    pub archive: String,
    /// Folders to search for it, relative to the folder of the binary (`.` first).
    pub search_paths: Vec<String>,
}

/// One device image in an archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KpackImage {
    /// Where it came from (`vector_add.hip`), for messages.
    pub name: String,
    /// The device image bundle.
    #[serde(with = "serde_bytes")]
    pub bundle: Vec<u8>,
}

/// The images of one binary for one target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KpackEntry {
    pub key: String,
    pub target: String,
    pub images: Vec<KpackImage>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KpackArchive {
    pub format_version: u32,
    pub entries: Vec<KpackEntry>,
}

impl KpackRecord {
    pub fn new(key: String, archive: String) -> Self {
        KpackRecord {
            format_version: KPACK_FORMAT_VERSION,
            key,
            archive,
            search_paths: vec![".".into()],
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        rmp_serde::to_vec_named(self).expect("a record always serializes")
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, ImageError> {
        let record: KpackRecord = rmp_serde::from_slice(bytes)
            .map_err(|e| ImageError::BadArchive(format!("reference record: {e}")))?;
        if record.format_version != KPACK_FORMAT_VERSION {
            return Err(ImageError::BadArchive(format!(
                "reference record has format version {}, this reader reads version {KPACK_FORMAT_VERSION}",
                record.format_version
            )));
        }
        Ok(record)
    }
}

impl KpackArchive {
    pub fn new(entries: Vec<KpackEntry>) -> Self {
        KpackArchive {
            format_version: KPACK_FORMAT_VERSION,
            entries,
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let body = rmp_serde::to_vec_named(self).expect("an archive always serializes");
        let mut out = Vec::with_capacity(HEADER_LEN + body.len());
        out.extend_from_slice(ARCHIVE_MAGIC);
        out.extend_from_slice(&KPACK_FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(&fnv1a64(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// Parses an archive: magic, version, length and checksum are checked before the body is
    /// read, so a truncated or damaged file is reported as such.
    pub fn decode(bytes: &[u8]) -> Result<Self, ImageError> {
        let bad = |m: String| ImageError::BadArchive(m);
        if bytes.len() < HEADER_LEN {
            return Err(bad(format!(
                "{} bytes, shorter than the {HEADER_LEN}-byte header",
                bytes.len()
            )));
        }
        if &bytes[..8] != ARCHIVE_MAGIC {
            return Err(bad("bad magic (not a hipmlir .hipk archive)".into()));
        }
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4"));
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8"));
        let version = u32_at(8);
        if version != KPACK_FORMAT_VERSION {
            return Err(bad(format!(
                "format version {version}, this reader reads version {KPACK_FORMAT_VERSION}"
            )));
        }
        if u32_at(12) != 0 {
            return Err(bad("reserved header field is not zero (damaged)".into()));
        }
        let body = &bytes[HEADER_LEN..];
        let length = u64_at(16);
        if length != body.len() as u64 {
            return Err(bad(format!(
                "the header gives a {length}-byte body, the file has {} bytes after it (truncated or damaged)",
                body.len()
            )));
        }
        if u64_at(24) != fnv1a64(body) {
            return Err(bad("checksum mismatch (the file is damaged)".into()));
        }
        let archive: KpackArchive =
            rmp_serde::from_slice(body).map_err(|e| bad(format!("body: {e}")))?;
        if archive.format_version != KPACK_FORMAT_VERSION {
            return Err(bad(format!(
                "body format version {}, this reader reads version {KPACK_FORMAT_VERSION}",
                archive.format_version
            )));
        }
        Ok(archive)
    }

    /// The entry of `key` for the most preferred target the archive has.
    pub fn select(&self, key: &str) -> Option<&KpackEntry> {
        TARGET_PRIORITY.iter().find_map(|target| {
            self.entries
                .iter()
                .find(|e| e.key == key && e.target == *target)
        })
    }
}

/// FNV-1a, 64 bits: the archive's checksum (damage detection, not security).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The lookup key of a binary named `binary_name` whose device images are `bundles`.
pub fn lookup_key<'a>(binary_name: &str, bundles: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut all = Vec::new();
    for b in bundles {
        all.extend_from_slice(&(b.len() as u64).to_le_bytes());
        all.extend_from_slice(b);
    }
    format!("{binary_name}-{:016x}", fnv1a64(&all))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archive() -> KpackArchive {
        KpackArchive::new(vec![KpackEntry {
            key: "app-0011".into(),
            target: SPIRV_TARGET.into(),
            images: vec![
                KpackImage {
                    name: "a.hip".into(),
                    bundle: vec![1, 2, 3, 200],
                },
                KpackImage {
                    name: "b.hip".into(),
                    bundle: vec![],
                },
            ],
        }])
    }

    #[test]
    fn record_round_trips() {
        let r = KpackRecord::new("app-1".into(), "app.hipk".into());
        assert_eq!(KpackRecord::decode(&r.encode()).unwrap(), r);
        assert!(KpackRecord::decode(b"\xc1").is_err());
        let mut newer = r.clone();
        newer.format_version = 99;
        assert!(KpackRecord::decode(&newer.encode()).is_err());
    }

    #[test]
    fn archive_round_trips_and_selects() {
        let a = archive();
        let bytes = a.encode();
        let back = KpackArchive::decode(&bytes).unwrap();
        assert_eq!(back, a);
        assert_eq!(back.select("app-0011").unwrap().images.len(), 2);
        assert!(back.select("other").is_none());
    }

    #[test]
    fn damage_is_detected() {
        let bytes = archive().encode();
        for len in 0..bytes.len() {
            assert!(KpackArchive::decode(&bytes[..len]).is_err(), "len {len}");
        }
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x40;
            assert!(KpackArchive::decode(&bad).is_err(), "flip at {at}");
        }
    }

    #[test]
    fn keys_depend_on_the_images() {
        let a: &[u8] = &[1, 2];
        let b: &[u8] = &[3];
        assert_ne!(lookup_key("app", [a, b]), lookup_key("app", [a]));
        assert_eq!(lookup_key("app", [a, b]), lookup_key("app", [a, b]));
        assert!(lookup_key("app", [a]).starts_with("app-"));
    }
}
