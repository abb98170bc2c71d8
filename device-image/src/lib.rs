//! The device image that travels from the compiler to the runtime.
//!
//! A device image is a clang offload bundle (`__CLANG_OFFLOAD_BUNDLE__`) holding the SPIR-V of one
//! translation unit and hipmlir's kernel metadata (JSON, versioned). The compiler writes it, the runtime
//! reads it; both go through this crate so the two can never disagree on the layout.
//! This crate depends on nothing from MLIR or libclang: the runtime links it. Its
//! [`spirv_words`] serves the compiler's SPIR-V patches and the runtime's SPIR-V reader.

mod bundle;
pub mod device_ir;
pub mod files;
pub mod kpack;
pub mod memcheck;
mod metadata;
mod nvidia_arch;
pub mod spirv_validator;
pub mod spirv_words;
mod vocabulary;

pub use bundle::{
    split_bundles, Bundle, BundleEntry, SplitBundle, HASH_ENTRY_ID, HOST_ENTRY_ID,
    LEGACY_METADATA_ENTRY_ID, MAGIC, METADATA_ENTRY_ID, PTX_ENTRY_PREFIX, SPIRV_ENTRY_ID,
};

pub use metadata::{
    AddressSpace, GlobalVar, KernelArg, KernelInfo, ModuleMetadata, SpirvVariant,
    DEVICE_ABORT_FLAG_VARIABLE, DEVICE_HEAP_VARIABLE, DEVICE_STOP_FUNCTION,
    MEMCHECK_STATE_VARIABLE, METADATA_FORMAT_VERSION, RUNTIME_WORD_VARIABLES,
};
pub use nvidia_arch::{ArchVariant, NvidiaArch};
use sha2::{Digest, Sha256};
pub use vocabulary::{
    address_space, atomic_ordering, hip_api_version, AtomicBinOp, DeviceClock,
    ADDRESS_KERNEL_PREFIX, ADDRESS_SPACES_ATTRIBUTE, BYVAL_ATTRIBUTE, CHAIN_FALLBACK_ATTRIBUTE,
    CHAIN_GROUP_ATTRIBUTE, DYNAMIC_SHARED_SYMBOL, FUNCTION_POINTERS_ATTRIBUTE, HOST_ATTRIBUTE,
    KERNEL_ARGS_ATTRIBUTE, KERNEL_ARGS_SIZE_ATTRIBUTE, KERNEL_ATTRIBUTE, KERNEL_NAME_ATTRIBUTE,
    KERNEL_UNIT_ATTRIBUTE, LINEAR_BLOCK_ATTRIBUTE, LINKAGE_ATTRIBUTE,
    MAX_THREADS_PER_BLOCK_ATTRIBUTE, MEMCHECK_EXTENTS_ATTRIBUTE, NOALIAS_ATTRIBUTE,
    PRINTF_SYMBOL_PREFIX, RELOCATIONS_ATTRIBUTE, ZERO_INITIALIZER_ATTRIBUTE,
};

/// Everything that can go wrong reading a device image.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error("device image is truncated: {0}")]
    Truncated(String),
    #[error("device image has a bad magic (not a clang offload bundle)")]
    BadMagic,
    #[error("device image has no entry '{0}'")]
    MissingEntry(&'static str),
    #[error("device image metadata is invalid: {0}")]
    BadMetadata(String),
    #[error("device code archive is invalid: {0}")]
    BadArchive(String),
    #[error(
        "device image metadata has format version {found}, this runtime reads version {expected}"
    )]
    VersionMismatch { found: u32, expected: u32 },
    #[error("device image carries no content hash (written by an older hipmlir: rebuild it)")]
    NoContentHash,
    #[error("device image content hash mismatch: its SPIR-V or metadata is damaged")]
    HashMismatch,
    /// SPIR-V words that do not form a module ([`spirv_words`]).
    #[error("{0}")]
    BadSpirv(String),
}

/// SHA-256 of an image's contents: the SPIR-V's length (u64, little-endian), the SPIR-V, then
/// the metadata bytes. Writer and reader both call this.
pub fn content_hash(spirv: &[u8], metadata: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update((spirv.len() as u64).to_le_bytes());
    h.update(spirv);
    h.update(metadata);
    h.finalize().into()
}

/// SHA-256 of an image with PTX entries too: [`content_hash`]'s input followed, for each PTX
/// entry in the bundle's order, by its id's length (u64), the id, the text's length (u64) and
/// the text. Without PTX entries it is [`content_hash`], so images of SPIR-V alone keep their
/// hash.
pub fn content_hash_with_ptx(spirv: &[u8], metadata: &[u8], ptx: &[PtxCode]) -> [u8; 32] {
    if ptx.is_empty() {
        return content_hash(spirv, metadata);
    }
    let mut h = Sha256::new();
    h.update((spirv.len() as u64).to_le_bytes());
    h.update(spirv);
    h.update(metadata);
    for p in ptx {
        let id = p.entry_id();
        h.update((id.len() as u64).to_le_bytes());
        h.update(id.as_bytes());
        h.update((p.ptx.len() as u64).to_le_bytes());
        h.update(&p.ptx);
    }
    h.finalize().into()
}

/// One compiled module: the SPIR-V binary and the metadata describing its kernels.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceImage {
    pub spirv: Vec<u8>,
    pub metadata: ModuleMetadata,
}

/// PTX for one NVIDIA GPU architecture: the bundle entry `PTX_ENTRY_PREFIX` + `arch`.
///
/// The contract with the CUDA backend: the text is NUL-terminated (as `cuModuleLoadData` takes
/// it), its `.entry` kernels are the metadata's kernels under the same (mangled) names, and each
/// takes the parameters of the packed argument block as the metadata lays them out, with two
/// differences from SPIR-V: an argument in the workgroup address space (dynamic shared memory)
/// is no parameter (it is the launch's shared-memory bytes), and `linear_block_kernels` take no
/// block dimensions (blocks run as launched, lanes in CUDA's order, which is HIP's).
#[derive(Debug, Clone, PartialEq)]
pub struct PtxCode {
    /// `sm_70`, ...: the oldest architecture the PTX runs on (the driver JITs it forward).
    pub arch: String,
    pub ptx: Vec<u8>,
}

impl PtxCode {
    pub fn entry_id(&self) -> String {
        format!("{PTX_ENTRY_PREFIX}{}", self.arch)
    }
}

/// A device image with code for every target it was built for: SPIR-V (empty when SPIR-V was
/// not a target) and PTX per NVIDIA architecture, sharing one metadata entry. It derefs to the
/// [`DeviceImage`] (SPIR-V and metadata).
#[derive(Debug, Clone, PartialEq)]
pub struct FatImage {
    pub image: DeviceImage,
    pub ptx: Vec<PtxCode>,
}

impl std::ops::Deref for FatImage {
    type Target = DeviceImage;
    fn deref(&self) -> &DeviceImage {
        &self.image
    }
}

impl std::ops::DerefMut for FatImage {
    fn deref_mut(&mut self) -> &mut DeviceImage {
        &mut self.image
    }
}

impl From<DeviceImage> for FatImage {
    fn from(image: DeviceImage) -> Self {
        FatImage {
            image,
            ptx: Vec::new(),
        }
    }
}

impl FatImage {
    /// The bundle: a (empty) host entry, the SPIR-V entry (unless the image has only PTX), one
    /// entry per PTX architecture, the metadata and the content hash of them all.
    pub fn to_bundle_bytes(&self) -> Vec<u8> {
        let metadata = self.image.metadata.to_json();
        let hash = content_hash_with_ptx(&self.image.spirv, metadata.as_bytes(), &self.ptx);
        let mut entries = vec![BundleEntry {
            id: HOST_ENTRY_ID.to_string(),
            data: Vec::new(),
        }];
        if !self.image.spirv.is_empty() || self.ptx.is_empty() {
            entries.push(BundleEntry {
                id: SPIRV_ENTRY_ID.to_string(),
                data: self.image.spirv.clone(),
            });
        }
        for p in &self.ptx {
            entries.push(BundleEntry {
                id: p.entry_id(),
                data: p.ptx.clone(),
            });
        }
        entries.push(BundleEntry {
            id: METADATA_ENTRY_ID.to_string(),
            data: metadata.into_bytes(),
        });
        entries.push(BundleEntry {
            id: HASH_ENTRY_ID.to_string(),
            data: hash.to_vec(),
        });
        Bundle { entries }.encode()
    }

    /// Decodes a bundle written by [`FatImage::to_bundle_bytes`] (or
    /// [`DeviceImage::to_bundle_bytes`]); every offset and the content hash are checked.
    pub fn from_bundle_bytes(bytes: &[u8]) -> Result<Self, ImageError> {
        let bundle = Bundle::decode(bytes)?;
        let ptx: Vec<PtxCode> = bundle
            .ptx_entries()
            .map(|(arch, text)| PtxCode {
                arch: arch.to_string(),
                ptx: text.to_vec(),
            })
            .collect();
        let spirv = match bundle.entry(SPIRV_ENTRY_ID) {
            Some(spirv) => spirv,
            None if !ptx.is_empty() => &[],
            None => return Err(ImageError::MissingEntry(SPIRV_ENTRY_ID)),
        };
        let metadata = bundle
            .entry(METADATA_ENTRY_ID)
            .or_else(|| bundle.entry(LEGACY_METADATA_ENTRY_ID))
            .ok_or(ImageError::MissingEntry(METADATA_ENTRY_ID))?;
        let hash = bundle
            .entry(HASH_ENTRY_ID)
            .ok_or(ImageError::NoContentHash)?;
        if hash != content_hash_with_ptx(spirv, metadata, &ptx) {
            return Err(ImageError::HashMismatch);
        }
        let metadata =
            std::str::from_utf8(metadata).map_err(|e| ImageError::BadMetadata(e.to_string()))?;
        Ok(FatImage {
            image: DeviceImage {
                spirv: spirv.to_vec(),
                metadata: ModuleMetadata::from_json(metadata)?,
            },
            ptx,
        })
    }
}

impl DeviceImage {
    /// Encodes the image as a clang offload bundle with a (empty) host entry, the SPIR-V entry and
    /// the metadata entry.
    pub fn to_bundle_bytes(&self) -> Vec<u8> {
        let metadata = self.metadata.to_json();
        let hash = content_hash(&self.spirv, metadata.as_bytes());
        Bundle {
            entries: vec![
                BundleEntry {
                    id: HOST_ENTRY_ID.to_string(),
                    data: Vec::new(),
                },
                BundleEntry {
                    id: SPIRV_ENTRY_ID.to_string(),
                    data: self.spirv.clone(),
                },
                BundleEntry {
                    id: METADATA_ENTRY_ID.to_string(),
                    data: metadata.into_bytes(),
                },
                BundleEntry {
                    id: HASH_ENTRY_ID.to_string(),
                    data: hash.to_vec(),
                },
            ],
        }
        .encode()
    }

    /// Decodes a bundle written by [`DeviceImage::to_bundle_bytes`] or [`FatImage`]'s (its PTX
    /// entries checked by the content hash, then left out; an image of PTX alone has empty
    /// SPIR-V); every offset is checked.
    pub fn from_bundle_bytes(bytes: &[u8]) -> Result<Self, ImageError> {
        FatImage::from_bundle_bytes(bytes).map(|f| f.image)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> DeviceImage {
        DeviceImage {
            spirv: vec![0x03, 0x02, 0x23, 0x07, 1, 2, 3, 4],
            metadata: ModuleMetadata::new(vec![KernelInfo {
                name: "_Z4vaddPKfS0_Pfi".into(),
                source_name: "vadd".into(),
                args: vec![KernelArg {
                    name: "a".into(),
                    r#type: "const float *".into(),
                    offset: 0,
                    size: 8,
                    align: 8,
                    is_pointer: true,
                    address_space: AddressSpace::Global,
                }],
                args_size: 8,
                max_threads_per_block: None,
                unit: None,
                memcheck_extents: Vec::new(),
            }]),
        }
    }

    #[test]
    fn bundle_round_trips() {
        let image = sample();
        let bytes = image.to_bundle_bytes();
        assert!(bytes.starts_with(b"__CLANG_OFFLOAD_BUNDLE__"));
        assert_eq!(DeviceImage::from_bundle_bytes(&bytes).unwrap(), image);
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let bytes = sample().to_bundle_bytes();
        for len in 0..bytes.len() {
            assert!(
                DeviceImage::from_bundle_bytes(&bytes[..len]).is_err(),
                "len {len}"
            );
        }
    }

    #[test]
    fn damaged_contents_fail_the_hash() {
        let bytes = sample().to_bundle_bytes();
        let bundle = Bundle::decode(&bytes).unwrap();
        // Every byte of the SPIR-V and metadata entries, flipped one bit at a time.
        let header_len =
            bytes.len() - bundle.entries.iter().map(|e| e.data.len()).sum::<usize>() - 8;
        for at in header_len..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            assert!(
                DeviceImage::from_bundle_bytes(&damaged).is_err_and(|e| matches!(
                    e,
                    ImageError::HashMismatch
                        | ImageError::BadMetadata(_)
                        | ImageError::NoContentHash
                )) || DeviceImage::from_bundle_bytes(&damaged).is_ok_and(|i| i == sample()),
                "byte {at}"
            );
        }
        let mut bundle = bundle;
        bundle.entries.retain(|e| e.id != HASH_ENTRY_ID);
        assert!(matches!(
            DeviceImage::from_bundle_bytes(&bundle.encode()),
            Err(ImageError::NoContentHash)
        ));
    }

    #[test]
    fn legacy_metadata_id_is_read() {
        let image = sample();
        let mut bundle = Bundle::decode(&image.to_bundle_bytes()).unwrap();
        for e in &mut bundle.entries {
            if e.id == METADATA_ENTRY_ID {
                e.id = LEGACY_METADATA_ENTRY_ID.into();
            }
        }
        assert_eq!(
            DeviceImage::from_bundle_bytes(&bundle.encode()).unwrap(),
            image
        );
    }

    #[test]
    fn an_entry_id_that_is_not_utf8_keeps_the_bundle_inside_its_bytes() {
        // Found by runtime/tests/fuzz.rs: the header's length was taken from the ids as decoded
        // (each invalid byte became three), and splitting sliced past the section's end.
        // One empty entry whose 4-byte id is not UTF-8: 60 bytes in all.
        let mut bytes = MAGIC.to_vec();
        for field in [1u64, 0, 0, 4] {
            bytes.extend_from_slice(&field.to_le_bytes());
        }
        bytes.extend_from_slice(&[0xff; 4]);
        assert_eq!(Bundle::encoded_len(&bytes).unwrap(), bytes.len());
        let parts = split_bundles(&bytes);
        assert!(matches!(parts.as_slice(), [Ok((0, b))] if b.len() == bytes.len()));
    }

    #[test]
    fn concatenated_bundles_split_apart() {
        let a = sample().to_bundle_bytes();
        let mut other = sample();
        other.spirv.extend_from_slice(&[9, 9, 9, 9]);
        let b = other.to_bundle_bytes();
        let mut section = a.clone();
        section.resize(a.len().next_multiple_of(16) + 16, 0);
        let b_at = section.len();
        section.extend_from_slice(&b);
        section.resize(section.len() + 5, 0);
        assert_eq!(Bundle::encoded_len(&section).unwrap(), a.len());
        let found: Vec<_> = split_bundles(&section)
            .into_iter()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(found, vec![(0, &a[..]), (b_at, &b[..])]);
        assert_eq!(DeviceImage::from_bundle_bytes(found[1].1).unwrap(), other);
        // Garbage after a bundle is reported, not skipped.
        section.extend_from_slice(b"junk");
        let last = split_bundles(&section).pop().unwrap();
        assert!(matches!(last, Err((_, ImageError::BadMagic))));
        assert!(split_bundles(&[0; 32]).is_empty());
    }

    #[test]
    fn spirv_variants_round_trip() {
        let v = SpirvVariant::new("cl_ext_float_atomics", &[0x03, 0x02, 0x23, 0x07, 0xff]);
        assert_eq!(v.spirv().unwrap(), vec![0x03, 0x02, 0x23, 0x07, 0xff]);
        let mut image = sample();
        image.metadata.spirv_variants.push(v);
        let bytes = image.to_bundle_bytes();
        assert_eq!(DeviceImage::from_bundle_bytes(&bytes).unwrap(), image);
    }

    #[test]
    fn ptx_entries_round_trip_under_the_content_hash() {
        let ptx = PtxCode {
            arch: "sm_70".into(),
            ptx: b".version 6.3\n.target sm_70\n\0".to_vec(),
        };
        let fat = FatImage {
            image: sample(),
            ptx: vec![ptx.clone()],
        };
        let bytes = fat.to_bundle_bytes();
        let bundle = Bundle::decode(&bytes).unwrap();
        assert_eq!(
            bundle.ptx_entries().collect::<Vec<_>>(),
            vec![("sm_70", &ptx.ptx[..])]
        );
        assert_eq!(FatImage::from_bundle_bytes(&bytes).unwrap(), fat);
        assert_eq!(DeviceImage::from_bundle_bytes(&bytes).unwrap(), sample());
        // A damaged PTX text fails the hash.
        let mut damaged = bundle.clone();
        for e in &mut damaged.entries {
            if e.id.starts_with(PTX_ENTRY_PREFIX) {
                e.data[3] ^= 1;
            }
        }
        assert!(matches!(
            FatImage::from_bundle_bytes(&damaged.encode()),
            Err(ImageError::HashMismatch)
        ));
        // PTX alone: no SPIR-V entry.
        let only = FatImage {
            image: DeviceImage {
                spirv: Vec::new(),
                ..sample()
            },
            ptx: vec![ptx],
        };
        let bytes = only.to_bundle_bytes();
        assert!(Bundle::decode(&bytes)
            .unwrap()
            .entry(SPIRV_ENTRY_ID)
            .is_none());
        assert_eq!(FatImage::from_bundle_bytes(&bytes).unwrap(), only);
        // Without PTX the bundle is the SPIR-V image's, byte for byte.
        assert_eq!(
            FatImage::from(sample()).to_bundle_bytes(),
            sample().to_bundle_bytes()
        );
    }

    #[test]
    fn bad_magic_is_named() {
        let mut bytes = sample().to_bundle_bytes();
        bytes[0] = b'X';
        assert!(matches!(
            DeviceImage::from_bundle_bytes(&bytes),
            Err(ImageError::BadMagic)
        ));
    }

    #[test]
    fn newer_metadata_version_is_refused() {
        let mut image = sample();
        image.metadata.format_version = METADATA_FORMAT_VERSION + 1;
        let bytes = image.to_bundle_bytes();
        assert!(matches!(
            DeviceImage::from_bundle_bytes(&bytes),
            Err(ImageError::VersionMismatch { .. })
        ));
    }
}
