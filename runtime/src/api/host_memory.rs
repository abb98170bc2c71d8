//! Host memory the device reaches, and the driver API's allocation spellings:
//! `hipHostRegister`/`hipHostUnregister` with their flags, `hipHostGetFlags`,
//! `hipHostGetDevicePointer`, `hipHostAlloc`, `hipMemAllocHost`, `hipMemAllocPitch` and
//! `hipExtMallocWithFlags`.

use std::ffi::{c_uint, c_void};

use super::memory::{alloc_into, host_alloc_into};
use super::pointer::allocation_of;
use super::{current_device, guard, hipError_t, write_out};
use crate::backend::{pitched_layout, MemoryKind, MemoryType};
use crate::error::{Failure, HipError, HipResult};

/// `hipHostRegisterPortable`, `Mapped`, `IoMemory` and `ReadOnly`: every flag HIP defines.
const HOST_REGISTER_FLAGS: c_uint = 0x1 | 0x2 | 0x4 | 0x8;

/// Lets the device use `bytes` of the program's own host memory at `ptr`. Flags:
/// `hipHostRegisterDefault`, `Portable`, `Mapped`, `IoMemory`, `ReadOnly` (other bits are
/// `hipErrorInvalidValue`). On OpenCL the device must reach the host's memory (shared system
/// memory access), else `hipErrorNotSupported`; the memory is used at its own address, and a
/// range that is not mapped is `hipErrorInvalidValue`. On CUDA, `cuMemHostRegister` (portable
/// and mapped).
#[no_mangle]
pub extern "C" fn hipHostRegister(ptr: *mut c_void, bytes: usize, flags: c_uint) -> hipError_t {
    guard("hipHostRegister", || {
        if ptr.is_null() || bytes == 0 {
            return Err(Failure::invalid_value("a null pointer or an empty range"));
        }
        if flags & !HOST_REGISTER_FLAGS != 0 {
            return Err(Failure::invalid_value(format!(
                "flags {flags:#x}: hipHostRegister takes Portable (1), Mapped (2), IoMemory (4) \
                 and ReadOnly (8)"
            )));
        }
        current_device()?.host_register(ptr, bytes, flags)
    })
}

/// Undoes [`hipHostRegister`]: `ptr` must be the start of a registered range
/// (`hipErrorHostMemoryNotRegistered` otherwise). Waits for work that may still use it.
#[no_mangle]
pub extern "C" fn hipHostUnregister(ptr: *mut c_void) -> hipError_t {
    guard("hipHostUnregister", || {
        if ptr.is_null() {
            return Err(Failure::invalid_value("the pointer is null"));
        }
        current_device()?.host_unregister(ptr)
    })
}

/// The flags host memory was allocated (`hipHostMalloc`) or registered (`hipHostRegister`)
/// with; other memory is `hipErrorInvalidValue`.
///
/// # Safety
/// `flags` must be null or valid for writing an `unsigned int`.
#[no_mangle]
pub unsafe extern "C" fn hipHostGetFlags(flags: *mut c_uint, ptr: *mut c_void) -> hipError_t {
    guard("hipHostGetFlags", || {
        if flags.is_null() || ptr.is_null() {
            return Err(Failure::invalid_value(
                "the flags pointer or the pointer is null",
            ));
        }
        let a = allocation_of(ptr, HipError::InvalidValue, "hipHostGetFlags")?;
        if a.memory != MemoryType::Host {
            return Err(Failure::invalid_value(format!(
                "{ptr:p} is {:?} memory, not host memory from hipHostMalloc or hipHostRegister",
                a.memory
            )));
        }
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(flags, a.flags, "the flags pointer") }
    })
}

/// The device address of host memory (`hipHostMalloc`, `hipHostRegister`) or of any other
/// allocation the device reaches; `flags` must be 0.
///
/// # Safety
/// `out` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipHostGetDevicePointer(
    out: *mut *mut c_void,
    host: *mut c_void,
    flags: c_uint,
) -> hipError_t {
    guard("hipHostGetDevicePointer", || {
        if out.is_null() || flags != 0 {
            return Err(Failure::invalid_value(
                "the result pointer is null or the flags are not 0",
            ));
        }
        let a = allocation_of(host, HipError::InvalidValue, "hipHostGetDevicePointer")?;
        let device_base = a.device_base.ok_or_else(|| {
            Failure::invalid_value(format!(
                "{host:p} is host memory the device cannot reach on this backend"
            ))
        })?;
        let p = (device_base + a.offset_of(host as usize)) as *mut c_void;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(out, p, "the result pointer") }
    })
}

/// Deprecated spelling of `hipHostMalloc`.
///
/// # Safety
/// `ptr` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipHostAlloc(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    guard("hipHostAlloc", || unsafe {
        host_alloc_into(ptr, size, flags)
    })
}

/// The driver API's spelling of `hipHostMalloc` with default flags.
///
/// # Safety
/// `ptr` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipMemAllocHost(ptr: *mut *mut c_void, size: usize) -> hipError_t {
    guard("hipMemAllocHost", || unsafe {
        host_alloc_into(ptr, size, 0)
    })
}

/// The driver API's `hipMallocPitch`: `element_bytes` (the widest access the rows get) must be
/// 4, 8 or 16, and neither dimension 0.
///
/// # Safety
/// `ptr` and `pitch` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipMemAllocPitch(
    ptr: *mut *mut c_void,
    pitch: *mut usize,
    width: usize,
    height: usize,
    element_bytes: c_uint,
) -> hipError_t {
    guard("hipMemAllocPitch", || {
        if ptr.is_null() || pitch.is_null() {
            return Err(Failure::invalid_value(
                "the pointer or pitch result is null",
            ));
        }
        if width == 0 || height == 0 {
            return Err(Failure::invalid_value(format!(
                "a {width} x {height} pitched allocation is empty"
            )));
        }
        if !matches!(element_bytes, 4 | 8 | 16) {
            return Err(Failure::invalid_value(format!(
                "the element size is {element_bytes} bytes; 4, 8 or 16 are allowed"
            )));
        }
        let (row, total) = pitched_layout(width, height, 1)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe {
            alloc_into(ptr, MemoryKind::Device, total)?;
            write_out(pitch, row, "the pitch pointer")
        }
    })
}

/// `hipExtMallocWithFlags`' flags: values, not bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ExtMallocFlag {
    Default = 0,
    Finegrained = 1,
    Signal = 2,
    Uncached = 3,
    Contiguous = 4,
}

impl ExtMallocFlag {
    fn parse(flags: c_uint) -> HipResult<Self> {
        use ExtMallocFlag::*;
        [Default, Finegrained, Signal, Uncached, Contiguous]
            .into_iter()
            .find(|f| *f as c_uint == flags)
            .ok_or_else(|| {
                Failure::invalid_value(format!(
                    "{flags:#x} is not a hipExtMallocWithFlags flag (hipDeviceMallocDefault, \
                     Finegrained, Uncached, Contiguous or hipMallocSignalMemory)"
                ))
            })
    }

    /// The memory each flag gets. Fine-grained, uncached and signal memory is coherent between
    /// host and device while kernels run: the backends' managed memory (reported as managed by
    /// `hipPointerGetAttributes`). Contiguous memory is ordinary device memory, which both
    /// backends give as one range of device addresses.
    fn memory(self) -> MemoryKind {
        match self {
            ExtMallocFlag::Default | ExtMallocFlag::Contiguous => MemoryKind::Device,
            _ => MemoryKind::Managed { flags: 1 },
        }
    }
}

/// `hipMalloc` with AMD's placement flags (see [`ExtMallocFlag::memory`]). Signal memory is one
/// 8-byte word (any other size is `hipErrorInvalidValue`); 0 bytes of other memory give null.
///
/// # Safety
/// `ptr` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipExtMallocWithFlags(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    guard("hipExtMallocWithFlags", || {
        let flag = ExtMallocFlag::parse(flags)?;
        if flag == ExtMallocFlag::Signal && size != 8 {
            return Err(Failure::invalid_value(format!(
                "signal memory is one 8-byte word, not {size} bytes"
            )));
        }
        // SAFETY: per the caller.
        unsafe { alloc_into(ptr, flag.memory(), size) }
    })
}
