//! Error queries: `hipGetLastError`, `hipPeekAtLastError`, `hipExtGetLastError`,
//! `hipGetErrorName`, `hipGetErrorString`, and the driver API's `hipDrvGetErrorName`,
//! `hipDrvGetErrorString`.

use std::ffi::{c_char, CStr};

use super::{guard, hipError_t, write_out};
use crate::error::{peek_last_error, take_last_error, Failure, HipError};

/// Returns this thread's last error and resets it to `hipSuccess`.
#[no_mangle]
pub extern "C" fn hipGetLastError() -> hipError_t {
    take_last_error().code()
}

/// Returns this thread's last error without resetting it.
#[no_mangle]
pub extern "C" fn hipPeekAtLastError() -> hipError_t {
    peek_last_error().code()
}

/// The enumerator name of a code (`"hipErrorInvalidValue"`); static storage, never null.
#[no_mangle]
pub extern "C" fn hipGetErrorName(error: hipError_t) -> *const c_char {
    HipError::name_of(error).as_ptr()
}

/// HIP's description of a code (`"invalid argument"`); static storage, never null.
#[no_mangle]
pub extern "C" fn hipGetErrorString(error: hipError_t) -> *const c_char {
    HipError::description_of(error).as_ptr()
}

/// As [`hipGetLastError`]: this thread's last error, reset to `hipSuccess`.
#[no_mangle]
pub extern "C" fn hipExtGetLastError() -> hipError_t {
    take_last_error().code()
}

/// The driver API's form of [`hipGetErrorName`]: writes the name; a value that is no
/// `hipError_t` gets `"hipErrorUnknown"` and `hipErrorInvalidValue`, as HIP answers.
///
/// # Safety
/// `out` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipDrvGetErrorName(
    error: hipError_t,
    out: *mut *const c_char,
) -> hipError_t {
    // SAFETY: per the caller.
    guard("hipDrvGetErrorName", || unsafe {
        driver_text(error, out, HipError::name_of)
    })
}

/// The driver API's form of [`hipGetErrorString`], with [`hipDrvGetErrorName`]'s answers.
///
/// # Safety
/// `out` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipDrvGetErrorString(
    error: hipError_t,
    out: *mut *const c_char,
) -> hipError_t {
    // SAFETY: per the caller.
    guard("hipDrvGetErrorString", || unsafe {
        driver_text(error, out, HipError::description_of)
    })
}

/// Writes `text(error)` through `out`; a code HIP does not define is `hipErrorInvalidValue`
/// (after writing the unknown error's text, as HIP does).
///
/// # Safety
/// `out` must be null or valid for writing a pointer.
unsafe fn driver_text(
    error: hipError_t,
    out: *mut *const c_char,
    text: fn(i32) -> &'static CStr,
) -> crate::error::HipResult<()> {
    // SAFETY: `write_out` checks null; valid per the caller.
    unsafe { write_out(out, text(error).as_ptr(), "the string pointer")? };
    match HipError::from_code(error) {
        Some(_) => Ok(()),
        None => Err(Failure::invalid_value(format!(
            "{error} is not a hipError_t"
        ))),
    }
}
