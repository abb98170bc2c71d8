//! clang's offload-bundle container, as `clang-offload-bundler` writes it:
//!
//! ```text
//! "__CLANG_OFFLOAD_BUNDLE__"            24-byte magic
//! u64 entry_count
//! entry_count x { u64 offset, u64 size, u64 id_len, id bytes }
//! entry data at the given offsets (from the start of the bundle)
//! ```
//! All integers are little-endian.

use crate::ImageError;

pub const MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
/// The host entry clang expects first; empty for device images.
pub const HOST_ENTRY_ID: &str = "host-x86_64-unknown-linux-gnu-";
/// The SPIR-V device code.
pub const SPIRV_ENTRY_ID: &str = "hip-spirv64-unknown-unknown-";
/// PTX for an NVIDIA GPU: the entry id is this prefix and the architecture it was built for
/// (`hip-nvptx64-nvidia-cuda--sm_70`), as clang names HIP's NVPTX targets. The text is PTX,
/// NUL-terminated as `cuModuleLoadData` takes it; the metadata entry describes its kernels too.
pub const PTX_ENTRY_PREFIX: &str = "hip-nvptx64-nvidia-cuda--";
/// hipmlir's kernel metadata (JSON).
///
/// Its offload kind is `hipmlir`, not `hip`: clang-offload-bundler reads an entry id as
/// `<kind>-<triple>[-<target id>]` and drops a target id that is not a GPU it knows, so
/// `hip-spirv64-unknown-unknown--<anything>` would be the same target as the SPIR-V entry and
/// `-unbundle -targets=hip-spirv64-unknown-unknown-` could hand out the metadata instead of the
/// SPIR-V. With its own kind the bundler lists the entry and never confuses it with the code.
pub const METADATA_ENTRY_ID: &str = "hipmlir-spirv64-unknown-unknown--metadata";
/// The SHA-256 of the SPIR-V and metadata entries (see [`crate::content_hash`]), checked
/// before an image is used: a damaged entry is refused instead of reaching a driver.
pub const HASH_ENTRY_ID: &str = "hipmlir-spirv64-unknown-unknown--sha256";
/// The metadata entry id of images written before [`METADATA_ENTRY_ID`]; still read.
pub const LEGACY_METADATA_ENTRY_ID: &str = "hip-spirv64-unknown-unknown--hipmlir_metadata";

/// Entry data starts at this alignment, like clang-offload-bundler's output.
const DATA_ALIGN: usize = 8;

#[derive(Debug, Clone, PartialEq)]
pub struct BundleEntry {
    pub id: String,
    pub data: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bundle {
    pub entries: Vec<BundleEntry>,
}

impl Bundle {
    pub fn entry(&self, id: &str) -> Option<&[u8]> {
        self.entries
            .iter()
            .find(|e| e.id == id)
            .map(|e| e.data.as_slice())
    }

    /// The PTX entries, as (architecture, PTX text) pairs in the bundle's order.
    pub fn ptx_entries(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.entries.iter().filter_map(|e| {
            e.id.strip_prefix(PTX_ENTRY_PREFIX)
                .map(|arch| (arch, e.data.as_slice()))
        })
    }

    pub fn encode(&self) -> Vec<u8> {
        let header_len: usize =
            MAGIC.len() + 8 + self.entries.iter().map(|e| 24 + e.id.len()).sum::<usize>();
        let mut offsets = Vec::with_capacity(self.entries.len());
        let mut cursor = header_len;
        for entry in &self.entries {
            cursor = cursor.next_multiple_of(DATA_ALIGN);
            offsets.push(cursor);
            cursor += entry.data.len();
        }
        let mut out = Vec::with_capacity(cursor);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.entries.len() as u64).to_le_bytes());
        for (entry, offset) in self.entries.iter().zip(&offsets) {
            out.extend_from_slice(&(*offset as u64).to_le_bytes());
            out.extend_from_slice(&(entry.data.len() as u64).to_le_bytes());
            out.extend_from_slice(&(entry.id.len() as u64).to_le_bytes());
            out.extend_from_slice(entry.id.as_bytes());
        }
        for (entry, offset) in self.entries.iter().zip(&offsets) {
            out.resize(*offset, 0);
            out.extend_from_slice(&entry.data);
        }
        out
    }

    /// The number of bytes the bundle at the start of `bytes` occupies: its header and the end
    /// of its last entry (later bytes, e.g. the next bundle of a `.hip_fatbin` section, are not
    /// part of it).
    pub fn encoded_len(bytes: &[u8]) -> Result<usize, ImageError> {
        let bundle = Bundle::decode(bytes)?;
        // decode checked every entry against the input, so the ends fit. The header's length
        // is where the reader stops, not the decoded ids' lengths (an id that is not UTF-8 grows
        // when decoded: a slice past the section's end, found by runtime/tests/fuzz.rs).
        let mut reader = Reader {
            bytes,
            pos: MAGIC.len() + 8,
        };
        let mut end = 0;
        for _ in &bundle.entries {
            let offset = reader.u64("entry offset")?;
            let size = reader.u64("entry size")?;
            let id_len = reader.u64("entry id length")?;
            reader.take(to_usize(id_len)?, "entry id")?;
            end = end.max(to_usize(offset + size)?);
        }
        Ok(end.max(reader.pos))
    }

    /// Parses a bundle; every count, offset and size is checked against the input length.
    pub fn decode(bytes: &[u8]) -> Result<Self, ImageError> {
        let mut reader = Reader { bytes, pos: 0 };
        let magic = reader.take(MAGIC.len(), "magic")?;
        if magic != MAGIC {
            return Err(ImageError::BadMagic);
        }
        let count = reader.u64("entry count")?;
        // Each header entry needs at least 24 bytes: reject absurd counts before allocating.
        if count > (bytes.len() as u64) / 24 {
            return Err(ImageError::Truncated(format!(
                "{count} entries cannot fit in {} bytes",
                bytes.len()
            )));
        }
        let mut entries = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let offset = reader.u64("entry offset")?;
            let size = reader.u64("entry size")?;
            let id_len = reader.u64("entry id length")?;
            let id = reader.take(to_usize(id_len)?, "entry id")?;
            let id = String::from_utf8_lossy(id).into_owned();
            let end = offset
                .checked_add(size)
                .filter(|end| *end <= bytes.len() as u64)
                .ok_or_else(|| {
                    ImageError::Truncated(format!(
                        "entry '{id}' spans {offset}+{size}, bundle has {} bytes",
                        bytes.len()
                    ))
                })?;
            let data = bytes[to_usize(offset)?..to_usize(end)?].to_vec();
            entries.push(BundleEntry { id, data });
        }
        Ok(Bundle { entries })
    }
}

fn to_usize(v: u64) -> Result<usize, ImageError> {
    usize::try_from(v).map_err(|_| ImageError::Truncated(format!("size {v} out of range")))
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, len: usize, what: &str) -> Result<&'a [u8], ImageError> {
        let end = self
            .pos
            .checked_add(len)
            .filter(|end| *end <= self.bytes.len())
            .ok_or_else(|| ImageError::Truncated(format!("{what} at byte {}", self.pos)))?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn u64(&mut self, what: &str) -> Result<u64, ImageError> {
        let b = self.take(8, what)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }
}

/// One bundle found by [`split_bundles`]: its offset and bytes, or where and why the walk stopped.
pub type SplitBundle<'a> = Result<(usize, &'a [u8]), (usize, ImageError)>;

/// The bundles of a section that holds several one after another (a linked `.hip_fatbin`: one
/// bundle per object, each aligned, zero padding between them): `(offset, bytes)` of each, or
/// the error that stopped the walk at `offset`.
pub fn split_bundles(section: &[u8]) -> Vec<SplitBundle<'_>> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < section.len() {
        // Padding between bundles is zeros; anything else must be the next bundle.
        match section[pos..].iter().position(|b| *b != 0) {
            None => break,
            Some(skip) => pos += skip,
        }
        let rest = &section[pos..];
        if !rest.starts_with(MAGIC) {
            out.push(Err((pos, ImageError::BadMagic)));
            break;
        }
        match Bundle::encoded_len(rest) {
            Ok(len) => {
                out.push(Ok((pos, &rest[..len])));
                pos += len.max(1);
            }
            Err(e) => {
                out.push(Err((pos, e)));
                break;
            }
        }
    }
    out
}
