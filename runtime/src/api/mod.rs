//! The `extern "C"` HIP API: a thin C layer. Each function checks and converts its arguments
//! once (handles to runtime objects, ordinals to devices, C enums to Rust ones; bad ones are the
//! HIP error codes HIP documents) and calls the backend interface (`backend`). Every function
//! runs its body through [`guard`]: panics never cross the C ABI, failures become a
//! `hipError_t`, this thread's last error and (when there is something to say) one line
//! `hipmlir: <function>: <message>` on stderr.
//!
//! The calling thread's device (`hipSetDevice`) is kept here: below this layer every call names
//! its device.

use std::borrow::Cow;
use std::cell::Cell;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::backend::{Backend, Device, DeviceId, Event, Location, Stream, CPU_DEVICE_ID};
use crate::error::{record_last_error, report, Failure, HipError, HipResult};

pub mod call_configuration;
pub mod capture;
pub mod cu_mask;
pub mod device;
pub mod device_choice;
pub mod device_settings;
pub mod errors;
pub mod event;
pub mod graph;
pub mod graph_exec;
pub mod interop;
pub mod introspection;
pub mod ipc;
pub mod launch;
pub mod memory;
pub mod mempool;
pub mod module;
pub mod peer;
pub mod proc_address;
pub mod stream;
pub mod stream_value;
pub mod symbol;
pub mod texture;
pub mod texture_reference;
pub mod unsupported;
// Driver API and memory (issue 28, points 4 and 5).
pub mod array;
pub mod context;
pub mod driver;
pub mod driver_memory;
pub mod host_memory;
pub mod memset;
pub mod mipmap;
pub mod pointer;
pub mod user_object;
// Virtual memory management and the rest of the API (rt-vmm).
pub mod api_name;
pub mod func_by_symbol;
pub mod graph_drv_copy;
pub mod multi_device_launch;
pub mod stream_attach;
pub mod surface;
pub mod texture_driver;
pub mod virtual_memory;

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

/// The calls HIP answers without a device (error names and strings, versions, the call
/// configuration) or that answer a missing device themselves (`hipGetDeviceCount` writes 0);
/// hipmlir's registrations, run before `main`, are never to open a backend either.
const DEVICE_FREE: &[&str] = &[
    "hipGetDeviceCount",
    "hipGetErrorName",
    "hipGetErrorString",
    "hipDrvGetErrorName",
    "hipDrvGetErrorString",
    "hipRuntimeGetVersion",
    "hipDriverGetVersion",
    "__hipPushCallConfiguration",
    "__hipPopCallConfiguration",
];

/// Whether `function` initializes the runtime (opens the backend), as every HIP call but
/// [`DEVICE_FREE`]'s does.
fn opens_the_backend(function: &str) -> bool {
    !function.starts_with("__hipmlirRegister") && !DEVICE_FREE.contains(&function)
}

/// Runs an API body: catches panics, reports failures, records the last error. As HIP
/// initializes its runtime at every call, a call first opens the backend: without a device it
/// answers `hipErrorNoDevice` before any other check (`hipHostFree(nullptr)` too).
pub(crate) fn guard(function: &str, body: impl FnOnce() -> HipResult<()>) -> hipError_t {
    let body = || {
        if crate::select::backend_if_initialized().is_none() && opens_the_backend(function) {
            backend()?;
        }
        // The memory checker's sticky error (see `memcheck`).
        if let Some(failure) = crate::memcheck::before_call(function) {
            return Err(failure);
        }
        let result = body();
        // A report raised meanwhile is the call's error, whatever the call's own (on CUDA the
        // checker's trap also fails it with a launch failure).
        crate::memcheck::after_call(function).map_or(result, Err)
    };
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

/// Reads a required input struct; null is `hipErrorInvalidValue`.
///
/// # Safety
/// `p` must be null or valid for reading a `T`.
pub(crate) unsafe fn read_in<T: Copy>(p: *const T, what: &str) -> HipResult<T> {
    if p.is_null() {
        return Err(Failure::invalid_value(format!("{what} is null")));
    }
    // SAFETY: non-null and valid per the caller.
    Ok(unsafe { p.read_unaligned() })
}

/// Writes `text` into a caller's buffer of `len` bytes, truncated and NUL-terminated.
///
/// # Safety
/// `out` must be valid for `len` bytes (checked non-null, `len > 0` by the caller).
pub(crate) unsafe fn write_c_string(out: *mut c_char, len: c_int, text: &str) {
    let n = text.len().min(len.max(1) as usize - 1);
    // SAFETY: per the caller; n < len.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr().cast(), out, n);
        out.add(n).write(0);
    }
}

thread_local! {
    /// The calling thread's device (`hipSetDevice`); `None` until the thread sets one.
    static CURRENT_DEVICE: Cell<Option<DeviceId>> = const { Cell::new(None) };
}

/// The device of threads that set none (`hipSetValidDevices`' first; else device 0).
static DEFAULT_DEVICE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Makes `device` the device of every thread that has not chosen one (`hipSetValidDevices`).
pub(crate) fn set_default_device(device: DeviceId) {
    DEFAULT_DEVICE.store(device, std::sync::atomic::Ordering::Relaxed);
}

/// The backend serving the process (chosen and opened on the first call).
pub(crate) fn backend() -> HipResult<&'static dyn Backend> {
    crate::select::backend()
}

/// The calling thread's device index.
pub(crate) fn current_device_id() -> DeviceId {
    CURRENT_DEVICE
        .try_with(Cell::get)
        .ok()
        .flatten()
        .unwrap_or_else(|| DEFAULT_DEVICE.load(std::sync::atomic::Ordering::Relaxed))
}

/// Makes `device` the calling thread's.
pub(crate) fn set_current_device(device: &dyn Device) -> HipResult<()> {
    device.make_current()?;
    let _ = CURRENT_DEVICE.try_with(|d| d.set(Some(device.id())));
    Ok(())
}

/// The calling thread's device.
pub(crate) fn current_device() -> HipResult<&'static dyn Device> {
    backend()?.device(current_device_id())
}

/// The device a C ordinal names; anything else is `hipErrorInvalidDevice`.
pub(crate) fn device_at(ordinal: c_int) -> HipResult<&'static dyn Device> {
    let b = backend()?;
    let count = b.device_count();
    match usize::try_from(ordinal) {
        Ok(id) if id < count => b.device(id),
        _ => Err(Failure::new(
            HipError::InvalidDevice,
            format!(
                "device {ordinal} does not exist (the {} backend has {count} device(s))",
                b.kind().name()
            ),
        )),
    }
}

/// Where a C device argument points managed memory: `hipCpuDeviceId` or a device ordinal.
pub(crate) fn location(device: c_int) -> HipResult<Location> {
    if device == CPU_DEVICE_ID {
        return Ok(Location::Host);
    }
    device_at(device).map(|d| Location::Device(d.id()))
}

/// The stream a `hipStream_t` names (its special values: the calling thread's device's).
pub(crate) fn stream(handle: *mut c_void) -> HipResult<Arc<Stream>> {
    crate::backend::stream::resolve(current_device()?, handle as usize)
}

/// [`stream`] for the calls whose answer to a handle naming no live stream is `dead` rather
/// than `hipErrorContextIsDestroyed` (HIP's answers differ by call: kernel launches say
/// `hipErrorInvalidValue`, stream-ordered allocation `hipErrorInvalidHandle`).
pub(crate) fn stream_or(handle: *mut c_void, dead: HipError) -> HipResult<Arc<Stream>> {
    stream(handle).map_err(|e| {
        if e.code == HipError::ContextIsDestroyed {
            Failure::new(dead, e.message)
        } else {
            e
        }
    })
}

/// The event a `hipEvent_t` names.
pub(crate) fn event(handle: *mut c_void) -> HipResult<Arc<dyn Event>> {
    crate::backend::stream::event(handle as usize)
}
