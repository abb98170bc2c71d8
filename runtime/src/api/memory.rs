//! Memory: `hipMalloc`, `hipFree`, `hipMemcpy`, `hipMemset`.

use std::ffi::{c_int, c_void};

use super::{guard, hipError_t, write_out};
use crate::error::Failure;
use crate::memory;

/// Allocates `size` bytes of device memory (256-byte aligned) into `*ptr`; 0 bytes gives null.
///
/// # Safety
/// `ptr` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> hipError_t {
    guard("hipMalloc", || {
        if ptr.is_null() {
            return Err(Failure::invalid_value("the result pointer is null"));
        }
        let p = memory::malloc(size)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(ptr, p, "the result pointer") }
    })
}

/// Frees memory from `hipMalloc`; null is a no-op. Waits for queued work first.
///
/// # Safety
/// Always safe to call: pointers are checked against the allocation table.
#[no_mangle]
pub unsafe extern "C" fn hipFree(ptr: *mut c_void) -> hipError_t {
    guard("hipFree", || memory::free(ptr))
}

/// Copies `size` bytes; `kind` is a `hipMemcpyKind` (4 = infer from the pointers). Synchronous.
///
/// # Safety
/// Host ranges must be valid for `size` bytes; device ranges are checked against the table.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipMemcpy", || memory::memcpy(dst, src, size, kind))
}

/// Sets `size` bytes of device memory to the byte `value`. Synchronous.
///
/// # Safety
/// Always safe to call: the range is checked against the allocation table.
#[no_mangle]
pub unsafe extern "C" fn hipMemset(dst: *mut c_void, value: c_int, size: usize) -> hipError_t {
    guard("hipMemset", || memory::memset(dst, value, size))
}
