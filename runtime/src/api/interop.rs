//! Objects of other APIs (Vulkan, Direct3D, NvSci): `hipImportExternalMemory`,
//! `hipExternalMemoryGetMappedBuffer`, `hipExternalMemoryGetMappedMipmappedArray`,
//! `hipDestroyExternalMemory`, `hipImportExternalSemaphore`, `hipSignalExternalSemaphoresAsync`,
//! `hipWaitExternalSemaphoresAsync`, `hipDestroyExternalSemaphore`.
//!
//! Neither backend imports another API's objects (OpenCL has no such import, and the CUDA
//! backend does not reach `cuImportExternal*`), so an import answers `hipErrorNotSupported`,
//! saying so, once its arguments pass HIP's checks; and since no import ever succeeds, no
//! `hipExternalMemory_t` or `hipExternalSemaphore_t` is valid: the calls that take one answer
//! `hipErrorInvalidValue`, as HIP answers a handle it did not make (or one destroyed).

use std::ffi::{c_int, c_uint, c_void};

use super::{guard, hipError_t, hipStream_t, read_in, stream};
use crate::error::{Failure, HipError};

/// `hipExternalMemory_t` and `hipExternalSemaphore_t`: opaque pointers.
#[allow(non_camel_case_types)]
type hipExternal_t = *mut c_void;

/// The handle types of `hipExternalMemoryHandleType` (1..=8: opaque fd, Win32, Win32 KMT,
/// D3D12 heap and resource, D3D11 resource and KMT, NvSciBuf).
const MEMORY_HANDLE_TYPES: std::ops::RangeInclusive<c_int> = 1..=8;
/// The handle types of `hipExternalSemaphoreHandleType` (1..=10: opaque fd, Win32, Win32 KMT,
/// D3D12 and D3D11 fences, NvSciSync, keyed mutexes, timeline semaphores).
const SEMAPHORE_HANDLE_TYPES: std::ops::RangeInclusive<c_int> = 1..=10;

/// Why no import succeeds (also the answer of the graph nodes that signal or wait for one).
pub(crate) fn no_external_objects(what: &str) -> Failure {
    Failure::new(
        HipError::NotSupported,
        format!(
            "not supported by hipmlir: {what} (Vulkan/Direct3D/NvSci interop): neither OpenCL nor \
             hipmlir's CUDA backend imports another API's objects"
        ),
    )
}

/// The answer for a handle of either kind: none exists, as no import succeeds.
fn not_imported(what: &str, handle: *const c_void) -> Failure {
    if handle.is_null() {
        Failure::invalid_value(format!("the {what} is null"))
    } else {
        Failure::invalid_value(format!(
            "{handle:p} is no {what} (none was imported: hipmlir imports no external objects)"
        ))
    }
}

/// The handle type of an import description (its first field, a C enum).
///
/// # Safety
/// `desc` must be null or point to the description.
unsafe fn handle_type(
    desc: *const c_void,
    valid: std::ops::RangeInclusive<c_int>,
    what: &str,
) -> Result<c_int, Failure> {
    // SAFETY: per the caller; every description begins with its `type`.
    let ty = unsafe { read_in(desc.cast::<c_int>(), &format!("the {what} description"))? };
    if !valid.contains(&ty) {
        return Err(Failure::invalid_value(format!(
            "{ty} is no {what} handle type"
        )));
    }
    Ok(ty)
}

/// Would map memory of another API (`memHandleDesc`: `hipExternalMemoryHandleDesc`).
///
/// # Safety
/// `out` must be null or valid for writing a handle; `desc` null or a valid description.
#[no_mangle]
pub unsafe extern "C" fn hipImportExternalMemory(
    out: *mut hipExternal_t,
    desc: *const c_void,
) -> hipError_t {
    guard("hipImportExternalMemory", || {
        if out.is_null() {
            return Err(Failure::invalid_value(
                "the external memory pointer is null",
            ));
        }
        // SAFETY: per the caller.
        unsafe { handle_type(desc, MEMORY_HANDLE_TYPES, "external memory")? };
        Err(no_external_objects("external memory"))
    })
}

/// A device pointer to a range of imported memory.
///
/// # Safety
/// `dev_ptr` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipExternalMemoryGetMappedBuffer(
    dev_ptr: *mut *mut c_void,
    memory: hipExternal_t,
    buffer_desc: *const c_void,
) -> hipError_t {
    guard("hipExternalMemoryGetMappedBuffer", || {
        if dev_ptr.is_null() || buffer_desc.is_null() {
            return Err(Failure::invalid_value(
                "the pointer's pointer or the buffer description is null",
            ));
        }
        Err(not_imported("external memory", memory))
    })
}

/// A mipmapped array over imported memory.
///
/// # Safety
/// Any pointers; none is read, as no memory was imported.
#[no_mangle]
pub unsafe extern "C" fn hipExternalMemoryGetMappedMipmappedArray(
    mipmap: *mut *mut c_void,
    memory: hipExternal_t,
    mipmap_desc: *const c_void,
) -> hipError_t {
    guard("hipExternalMemoryGetMappedMipmappedArray", || {
        if mipmap.is_null() || mipmap_desc.is_null() {
            return Err(Failure::invalid_value(
                "the mipmapped array pointer or the description is null",
            ));
        }
        Err(not_imported("external memory", memory))
    })
}

/// Releases imported memory.
#[no_mangle]
pub extern "C" fn hipDestroyExternalMemory(memory: hipExternal_t) -> hipError_t {
    guard("hipDestroyExternalMemory", || {
        Err(not_imported("external memory", memory))
    })
}

/// Would import a semaphore of another API (`semHandleDesc`: `hipExternalSemaphoreHandleDesc`).
///
/// # Safety
/// `out` must be null or valid for writing a handle; `desc` null or a valid description.
#[no_mangle]
pub unsafe extern "C" fn hipImportExternalSemaphore(
    out: *mut hipExternal_t,
    desc: *const c_void,
) -> hipError_t {
    guard("hipImportExternalSemaphore", || {
        if out.is_null() {
            return Err(Failure::invalid_value(
                "the external semaphore pointer is null",
            ));
        }
        // SAFETY: per the caller.
        unsafe { handle_type(desc, SEMAPHORE_HANDLE_TYPES, "external semaphore")? };
        Err(no_external_objects("external semaphores"))
    })
}

/// Checks the arguments of a signal or a wait of `count` semaphores on `stream_handle`.
///
/// # Safety
/// `semaphores` must be null or valid for reading `count` handles.
unsafe fn semaphore_operation(
    semaphores: *const hipExternal_t,
    params: *const c_void,
    count: c_uint,
    stream_handle: hipStream_t,
) -> Result<(), Failure> {
    if semaphores.is_null() || params.is_null() {
        return Err(Failure::invalid_value(
            "the semaphore array or the parameter array is null",
        ));
    }
    if count == 0 {
        return Err(Failure::invalid_value("no semaphores (numExtSems is 0)"));
    }
    stream(stream_handle)?;
    // SAFETY: non-null, `count` handles per the caller.
    let first = unsafe { semaphores.read_unaligned() };
    Err(not_imported("external semaphore", first))
}

/// Signals imported semaphores in stream order.
///
/// # Safety
/// `semaphores` must be null or valid for reading `count` handles.
#[no_mangle]
pub unsafe extern "C" fn hipSignalExternalSemaphoresAsync(
    semaphores: *const hipExternal_t,
    params: *const c_void,
    count: c_uint,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipSignalExternalSemaphoresAsync", || {
        // SAFETY: per the caller.
        unsafe { semaphore_operation(semaphores, params, count, stream) }
    })
}

/// Waits for imported semaphores in stream order.
///
/// # Safety
/// `semaphores` must be null or valid for reading `count` handles.
#[no_mangle]
pub unsafe extern "C" fn hipWaitExternalSemaphoresAsync(
    semaphores: *const hipExternal_t,
    params: *const c_void,
    count: c_uint,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipWaitExternalSemaphoresAsync", || {
        // SAFETY: per the caller.
        unsafe { semaphore_operation(semaphores, params, count, stream) }
    })
}

/// Releases an imported semaphore.
#[no_mangle]
pub extern "C" fn hipDestroyExternalSemaphore(semaphore: hipExternal_t) -> hipError_t {
    guard("hipDestroyExternalSemaphore", || {
        Err(not_imported("external semaphore", semaphore))
    })
}
