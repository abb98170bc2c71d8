//! Relocatable device code (`-fgpu-rdc`): an object carries its translation unit's device code
//! as MLIR, not as a finished image, and the link puts the device code of every object together
//! into one image (as clang's `-fgpu-rdc` carries LLVM bitcode to its device link).
//!
//! The records sit in the section `DEVICE_IR_SECTION`, one per translation unit; a relocatable
//! link (`ld -r`) concatenates them, so a section is read as a sequence of records, each with
//! its magic and length, padded to 8 bytes.

use serde::{Deserialize, Serialize};

use crate::{GlobalVar, ImageError};

/// The object-file section holding device-IR records (excluded from executables, as clang's
/// offload sections are).
pub const DEVICE_IR_SECTION: &str = ".hipmlir_device_ir";

const RECORD_MAGIC: &[u8; 8] = b"HIPMLIRD";
/// Bumped whenever a field changes meaning.
const RECORD_VERSION: u32 = 1;
/// Magic, version, reserved word, payload length.
const HEADER_BYTES: usize = 8 + 4 + 4 + 8;
/// No translation unit's MLIR comes near this; a larger length is damage.
const MAX_PAYLOAD_BYTES: u64 = 1 << 30;

/// A device symbol a translation unit uses but does not define (`extern __device__`), with the
/// diagnostic naming where it is used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UndefinedSymbol {
    pub symbol: String,
    /// `file:line:col: error: ...`, shown when no translation unit defines the symbol.
    pub diagnostic: String,
}

/// One translation unit's device code, before lowering.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceIr {
    /// The source it was compiled from (for messages).
    pub source: String,
    /// The frontend's module, printed with locations.
    pub mlir: String,
    /// Device variables it defines (the symbol API's entries).
    pub variables: Vec<GlobalVar>,
    pub undefined: Vec<UndefinedSymbol>,
}

impl DeviceIr {
    /// The record as it is stored in `DEVICE_IR_SECTION`.
    pub fn encode(&self) -> Vec<u8> {
        let payload = serde_json::to_vec(self).expect("device IR serializes");
        let mut out = Vec::with_capacity(HEADER_BYTES + payload.len() + 8);
        out.extend_from_slice(RECORD_MAGIC);
        out.extend_from_slice(&RECORD_VERSION.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&payload);
        out.resize(out.len().next_multiple_of(8), 0);
        out
    }

    /// Every record of a section's contents (zero padding between records is skipped).
    pub fn decode_all(section: &[u8]) -> Result<Vec<DeviceIr>, ImageError> {
        let mut records = Vec::new();
        let mut at = 0usize;
        while at < section.len() {
            let rest = &section[at..];
            if rest.iter().take(8).all(|b| *b == 0) {
                at += rest.len().min(8);
                continue;
            }
            if rest.len() < HEADER_BYTES || &rest[..8] != RECORD_MAGIC {
                return Err(ImageError::BadArchive(format!(
                    "device IR record at byte {at} has no valid header"
                )));
            }
            let word = |range: std::ops::Range<usize>| {
                let mut bytes = [0u8; 8];
                bytes[..range.len()].copy_from_slice(&rest[range]);
                u64::from_le_bytes(bytes)
            };
            let version = word(8..12) as u32;
            if version != RECORD_VERSION {
                return Err(ImageError::VersionMismatch {
                    found: version,
                    expected: RECORD_VERSION,
                });
            }
            let length = word(16..24);
            if length > MAX_PAYLOAD_BYTES || length > (rest.len() - HEADER_BYTES) as u64 {
                return Err(ImageError::Truncated(format!(
                    "device IR record at byte {at} declares {length} bytes"
                )));
            }
            let payload = &rest[HEADER_BYTES..HEADER_BYTES + length as usize];
            let record: DeviceIr = serde_json::from_slice(payload)
                .map_err(|e| ImageError::BadMetadata(format!("device IR record: {e}")))?;
            records.push(record);
            at += (HEADER_BYTES + length as usize).next_multiple_of(8);
        }
        Ok(records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(source: &str) -> DeviceIr {
        DeviceIr {
            source: source.into(),
            mlir: "module {\n}\n".into(),
            variables: vec![GlobalVar {
                name: "table".into(),
                size: 16,
                address_kernel: "__hipmlir_address_of_table".into(),
                ..Default::default()
            }],
            undefined: vec![UndefinedSymbol {
                symbol: "_Z6squarei".into(),
                diagnostic: "a.hip:3:4: error: no definition".into(),
            }],
        }
    }

    #[test]
    fn concatenated_records_read_back() {
        let mut section = record("a.hip").encode();
        section.extend_from_slice(&[0; 8]);
        section.extend(record("b.hip").encode());
        let records = DeviceIr::decode_all(&section).expect("decodes");
        assert_eq!(records, vec![record("a.hip"), record("b.hip")]);
    }

    #[test]
    fn damaged_records_are_errors() {
        let good = record("a.hip").encode();
        for cut in [1, 8, HEADER_BYTES, good.len() - 9] {
            assert!(DeviceIr::decode_all(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut huge = good.clone();
        huge[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(DeviceIr::decode_all(&huge).is_err());
        let mut version = good;
        version[8] = 9;
        assert!(DeviceIr::decode_all(&version).is_err());
    }
}
