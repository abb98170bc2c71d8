//! Error queries: `hipGetLastError`, `hipPeekAtLastError`, `hipGetErrorName`, `hipGetErrorString`.

use std::ffi::c_char;

use super::hipError_t;
use crate::error::{peek_last_error, take_last_error, HipError};

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
