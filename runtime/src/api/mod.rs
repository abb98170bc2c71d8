//! The `extern "C"` HIP API. Every function runs its body through [`guard`]: panics never cross
//! the C ABI, failures become a `hipError_t`, this thread's last error and (when there is something
//! to say) one line `hipmlir: <function>: <message>` on stderr.

use std::borrow::Cow;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::{record_last_error, report, Failure, HipError, HipResult};

/// Runs the CUDA backend's side of an API call when that backend serves the process (see
/// `select`); the OpenCL code after it runs otherwise, unchanged.
/// The calling thread's device context is made current first, except for the device queries
/// (`unbound`), which need none.
macro_rules! on_cuda {
    (unbound $rt:ident => $body:expr) => {
        if let Some($rt) = crate::select::cuda()? {
            return $body;
        }
    };
    ($rt:ident => $body:expr) => {
        if let Some($rt) = crate::select::cuda()? {
            $rt.current()?;
            return $body;
        }
    };
}

pub mod device;
pub mod device_choice;
pub mod errors;
pub mod event;
pub mod launch;
pub mod memory;
pub mod module;
pub mod stream;
pub mod symbol;
pub mod texture;
pub mod unsupported;

/// `hipError_t` as the C ABI passes it (a C enum is an `int`).
#[allow(non_camel_case_types)]
pub type hipError_t = c_int;

/// `hipStream_t`: an opaque handle (see `handles`); null is the null stream, 2 is
/// `hipStreamPerThread`.
#[allow(non_camel_case_types)]
pub type hipStream_t = *mut c_void;

/// `hipEvent_t`: an opaque handle.
#[allow(non_camel_case_types)]
pub type hipEvent_t = *mut c_void;

/// Runs an API body: catches panics, reports failures, records the last error.
pub(crate) fn guard(function: &str, body: impl FnOnce() -> HipResult<()>) -> hipError_t {
    let code = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => HipError::Success,
        Ok(Err(failure)) => {
            report(function, failure.code, &failure.message);
            failure.code
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            report(
                function,
                HipError::Unknown,
                &format!("internal error: {what}"),
            );
            HipError::Unknown
        }
    };
    record_last_error(code);
    code.code()
}

/// Reads a C string argument; null is `hipErrorInvalidValue`, bad UTF-8 is replaced.
///
/// # Safety
/// `p` must be null or point to a NUL-terminated string.
pub(crate) unsafe fn c_string<'a>(p: *const c_char, what: &str) -> HipResult<Cow<'a, str>> {
    if p.is_null() {
        return Err(Failure::invalid_value(format!("{what} is null")));
    }
    // SAFETY: the caller guarantees a NUL-terminated string.
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy())
}

/// Writes through an out-pointer argument; null is `hipErrorInvalidValue`.
///
/// # Safety
/// `p` must be null or valid for a write of `T`.
pub(crate) unsafe fn write_out<T>(p: *mut T, value: T, what: &str) -> HipResult<()> {
    if p.is_null() {
        return Err(Failure::invalid_value(format!("{what} is null")));
    }
    // SAFETY: non-null and valid per the caller; `write` does not read or drop the old value.
    unsafe { p.write_unaligned(value) };
    Ok(())
}
