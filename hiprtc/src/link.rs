//! A link (`hiprtcLinkState`): the relocatable device code of programs compiled with
//! `-fgpu-rdc` (and of objects and archives `hipcc -fgpu-rdc -c` made), put together by the
//! driver's device link into one code object, as a `-fgpu-rdc` build links its objects.

use std::ffi::c_void;

use hipmlir_compiler::cli::{is_nvidia_arch, Offload};
use hipmlir_compiler::device::{device_ir_records, link_device, DeviceJob};
use hipmlir_device_image::device_ir::DeviceIr;

use crate::compile_thread;
use crate::result::HiprtcResult;

/// `hiprtcJIT_option`'s numbers that hipmlir reads (hip/hiprtc.h); others are accepted and
/// change nothing, as ROCm's hiprtc ignores most.
pub mod option {
    pub const INFO_LOG_BUFFER: u32 = 3;
    pub const INFO_LOG_BUFFER_SIZE_BYTES: u32 = 4;
    pub const ERROR_LOG_BUFFER: u32 = 5;
    pub const ERROR_LOG_BUFFER_SIZE_BYTES: u32 = 6;
    /// The NVIDIA target, as CUDA's `CUjit_target` numbers it (`70` for `sm_70`).
    pub const TARGET: u32 = 9;
}

/// `hiprtcJITInputType`'s numbers.
pub mod input {
    /// hipmlir's relocatable device code, as `hiprtcGetBitcode` gives it.
    pub const LLVM_BITCODE: u32 = 100;
    pub const LLVM_BUNDLED_BITCODE: u32 = 101;
    /// An archive (`.a`) of objects compiled with `hipcc -fgpu-rdc -c`.
    pub const LLVM_ARCHIVES_OF_BUNDLED_BITCODE: u32 = 102;
}

/// A log buffer of the program's (`HIPRTC_JIT_*_LOG_BUFFER`): written at the end of each call
/// that fails or completes the link, truncated to its size, NUL-terminated.
#[derive(Default, Clone, Copy)]
struct LogBuffer {
    at: usize,
    size: usize,
}

impl LogBuffer {
    fn write(&self, text: &str) {
        if self.at == 0 || self.size == 0 {
            return;
        }
        let n = text.len().min(self.size - 1);
        // SAFETY: the program gave this buffer and its size for the link's lifetime.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), self.at as *mut u8, n);
            *(self.at as *mut u8).add(n) = 0;
        }
    }
}

pub struct Link {
    inputs: Vec<DeviceIr>,
    offload: Offload,
    info_log: LogBuffer,
    error_log: LogBuffer,
    /// Every image completed, alive until the link is destroyed (`bin_out` points into one).
    images: Vec<Vec<u8>>,
}

impl Link {
    /// A link with `options` (pairs of `hiprtcJIT_option` and its value).
    pub fn new(options: &[(u32, *mut c_void)]) -> Link {
        let mut link = Link {
            inputs: Vec::new(),
            offload: Offload::default(),
            info_log: LogBuffer::default(),
            error_log: LogBuffer::default(),
            images: Vec::new(),
        };
        for &(option, value) in options {
            // Values are pointers, or numbers stored in the pointer's place.
            let value = value as usize;
            match option {
                option::INFO_LOG_BUFFER => link.info_log.at = value,
                option::INFO_LOG_BUFFER_SIZE_BYTES => link.info_log.size = value,
                option::ERROR_LOG_BUFFER => link.error_log.at = value,
                option::ERROR_LOG_BUFFER_SIZE_BYTES => link.error_log.size = value,
                option::TARGET => {
                    // Beside the SPIR-V, as NVRTC's architectures are (options.rs).
                    let arch = format!("sm_{}", value & 0xffff_ffff);
                    if is_nvidia_arch(&arch) {
                        link.offload.ptx = vec![arch];
                    }
                }
                _ => {}
            }
        }
        link
    }

    /// Whether hiprtc links inputs of `input_type` (CUBIN, PTX, fat binaries, objects, libraries
    /// and NVVM IR are other compilers' code); the answer for one it does not.
    pub fn accepts(&self, input_type: u32) -> Result<(), HiprtcResult> {
        match input_type {
            input::LLVM_BITCODE
            | input::LLVM_BUNDLED_BITCODE
            | input::LLVM_ARCHIVES_OF_BUNDLED_BITCODE => Ok(()),
            _ => Err(self.fail(HiprtcResult::InvalidInput, "not an input hiprtc links")),
        }
    }

    /// Adds the relocatable device code of `bytes`, of the kind `input_type` says.
    pub fn add(&mut self, input_type: u32, bytes: &[u8], name: &str) -> HiprtcResult {
        if let Err(code) = self.accepts(input_type) {
            return code;
        }
        let records = records_of(bytes);
        match records {
            Ok(records) if !records.is_empty() => {
                self.inputs.extend(records);
                HiprtcResult::Success
            }
            Ok(_) => self.fail(
                HiprtcResult::ProgramCreationFailure,
                &format!("'{name}' holds no relocatable device code"),
            ),
            Err(e) => self.fail(
                HiprtcResult::ProgramCreationFailure,
                &format!("'{name}' is not relocatable device code of hipmlir's: {e}"),
            ),
        }
    }

    /// Links what was added into one code object (alive until the link is destroyed).
    pub fn complete(&mut self) -> Result<&[u8], HiprtcResult> {
        if self.inputs.is_empty() {
            return Err(self.fail(HiprtcResult::Linking, "nothing was added to the link"));
        }
        let (inputs, job) = (&self.inputs, DeviceJob::image(self.offload.clone()));
        let linked = compile_thread::run(|| link_device(inputs, &job));
        match linked {
            Ok(Ok(device)) => {
                let notes: Vec<String> = device.notes.clone();
                self.info_log.write(&notes.join("\n"));
                self.images.push(device.image.to_bundle_bytes());
                Ok(self.images.last().map(Vec::as_slice).unwrap_or_default())
            }
            Ok(Err(e)) => Err(self.fail(HiprtcResult::Linking, &e.to_string())),
            Err(e) => Err(self.fail(HiprtcResult::InternalError, &e)),
        }
    }

    /// Writes `message` to the error log and answers `code`.
    fn fail(&self, code: HiprtcResult, message: &str) -> HiprtcResult {
        self.error_log.write(&format!("hiprtc: error: {message}"));
        code
    }
}

/// The relocatable device code records of an input: a record as `hiprtcGetBitcode` gives it,
/// or an object or archive built with `hipcc -fgpu-rdc -c` (read as the driver's link reads
/// them).
fn records_of(bytes: &[u8]) -> Result<Vec<DeviceIr>, String> {
    if bytes.starts_with(b"\x7fELF") || bytes.starts_with(b"!<arch>\n") {
        device_ir_records(bytes).map_err(|e| e.to_string())
    } else {
        DeviceIr::decode_all(bytes).map_err(|e| e.to_string())
    }
}
