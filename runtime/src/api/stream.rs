//! Streams: `hipStreamCreate*`, `hipStreamDestroy`, `hipStreamSynchronize`, `hipStreamQuery`,
//! `hipStreamWaitEvent`, flags and priorities, host functions (`hipLaunchHostFunc`,
//! `hipStreamAddCallback`).

use std::ffi::{c_int, c_uint, c_void};

use super::{current_device, event, guard, hipError_t, hipEvent_t, hipStream_t, stream, write_out};
use crate::backend::{ops, HostCall, Stream, StreamFlags};
use crate::error::{Failure, HipError, HipResult};
use crate::graph::capture;

/// A new stream of the calling thread's device; its priority clamped to the device's range
/// (OpenCL queues have none: 0..0).
unsafe fn create_into(out: *mut hipStream_t, flags: c_uint, priority: c_int) -> HipResult<()> {
    if out.is_null() {
        return Err(Failure::invalid_value("the stream pointer is null"));
    }
    let flags = StreamFlags::parse(flags)?;
    let device = current_device()?;
    // Numerically lower is higher: the range is (least, greatest).
    let (least, greatest) = device.stream_priority_range()?;
    let priority = priority.clamp(greatest.min(least), least.max(greatest));
    let queue = device.create_stream(flags, priority)?;
    let handle = crate::backend::stream::insert_stream(Stream::new(device.id(), queue));
    // SAFETY: checked non-null; valid per the caller.
    unsafe { write_out(out, handle as hipStream_t, "the stream pointer") }
}

/// Creates a blocking stream (synchronizes with the null stream).
///
/// # Safety
/// `out` must be null or valid for writing a `hipStream_t`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamCreate(out: *mut hipStream_t) -> hipError_t {
    guard("hipStreamCreate", || unsafe { create_into(out, 0, 0) })
}

/// Creates a stream; `flags` is `hipStreamDefault` (0) or `hipStreamNonBlocking` (1).
///
/// # Safety
/// `out` must be null or valid for writing a `hipStream_t`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamCreateWithFlags(
    out: *mut hipStream_t,
    flags: c_uint,
) -> hipError_t {
    guard("hipStreamCreateWithFlags", || unsafe {
        create_into(out, flags, 0)
    })
}

/// Creates a stream with a priority, clamped to `hipDeviceGetStreamPriorityRange` (OpenCL queues
/// have no priorities: 0..0) and reported back.
///
/// # Safety
/// `out` must be null or valid for writing a `hipStream_t`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamCreateWithPriority(
    out: *mut hipStream_t,
    flags: c_uint,
    priority: c_int,
) -> hipError_t {
    guard("hipStreamCreateWithPriority", || unsafe {
        create_into(out, flags, priority)
    })
}

/// Destroys a stream; work already queued on it still completes.
#[no_mangle]
pub extern "C" fn hipStreamDestroy(s: hipStream_t) -> hipError_t {
    guard("hipStreamDestroy", || {
        crate::backend::stream::remove_stream(s as usize)
    })
}

/// Waits for all work on the stream (the null stream: also for blocking streams).
#[no_mangle]
pub extern "C" fn hipStreamSynchronize(s: hipStream_t) -> hipError_t {
    guard("hipStreamSynchronize", || {
        let target = stream(s)?;
        capture::check_stream_wait(&target, true)?;
        target.queue().synchronize()?;
        crate::mempool::after_synchronize();
        Ok(())
    })
}

/// `hipSuccess` when all work on the stream is done, else `hipErrorNotReady`.
#[no_mangle]
pub extern "C" fn hipStreamQuery(s: hipStream_t) -> hipError_t {
    guard("hipStreamQuery", || {
        let target = stream(s)?;
        capture::check_stream_wait(&target, false)?;
        if target.queue().is_idle()? {
            Ok(())
        } else {
            Err(Failure::quiet(HipError::NotReady))
        }
    })
}

/// Makes later work on `s` wait until `e` completes. An event never recorded is complete.
#[no_mangle]
pub extern "C" fn hipStreamWaitEvent(s: hipStream_t, e: hipEvent_t, flags: c_uint) -> hipError_t {
    guard("hipStreamWaitEvent", || {
        if flags != 0 {
            return Err(Failure::invalid_value(format!(
                "flags must be 0, got {flags:#x}"
            )));
        }
        let target = stream(s)?;
        ops::wait_event(&target, &event(e)?)
    })
}

/// Writes the stream's flags.
///
/// # Safety
/// `flags` must be null or valid for writing an `unsigned int`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetFlags(s: hipStream_t, flags: *mut c_uint) -> hipError_t {
    guard("hipStreamGetFlags", || {
        if flags.is_null() {
            return Err(Failure::invalid_value("the flags pointer is null"));
        }
        let value = stream(s)?.queue().flags()?;
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { write_out(flags, value, "the flags pointer") }
    })
}

/// Writes the stream's priority.
///
/// # Safety
/// `priority` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetPriority(s: hipStream_t, priority: *mut c_int) -> hipError_t {
    guard("hipStreamGetPriority", || {
        if priority.is_null() {
            return Err(Failure::invalid_value("the priority pointer is null"));
        }
        let value = stream(s)?.queue().priority()?;
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { write_out(priority, value, "the priority pointer") }
    })
}

/// Writes the device the stream belongs to (the special streams: the calling thread's device).
///
/// # Safety
/// `device` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetDevice(s: hipStream_t, device: *mut c_int) -> hipError_t {
    guard("hipStreamGetDevice", || {
        if device.is_null() {
            return Err(Failure::invalid_value("the device pointer is null"));
        }
        let id = c_int::try_from(stream(s)?.device()).unwrap_or(c_int::MAX);
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(device, id, "the device pointer") }
    })
}

/// Writes the calling thread's device's priority range (OpenCL queues have no priorities:
/// (0, 0)).
///
/// # Safety
/// Each pointer must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetStreamPriorityRange(
    least: *mut c_int,
    greatest: *mut c_int,
) -> hipError_t {
    guard("hipDeviceGetStreamPriorityRange", || {
        let (l, g) = current_device()?.stream_priority_range()?;
        // SAFETY: null pointers are skipped, as HIP allows; others are valid per the caller.
        unsafe {
            if !least.is_null() {
                least.write_unaligned(l);
            }
            if !greatest.is_null() {
                greatest.write_unaligned(g);
            }
        }
        Ok(())
    })
}

/// `hipHostFn_t`: a host function run in stream order.
#[allow(non_camel_case_types)]
pub type hipHostFn_t = Option<unsafe extern "C" fn(user_data: *mut c_void)>;
/// `hipStreamCallback_t`: a stream callback, told the stream and the status of its earlier work.
#[allow(non_camel_case_types)]
pub type hipStreamCallback_t =
    Option<unsafe extern "C" fn(stream: hipStream_t, status: hipError_t, user_data: *mut c_void)>;

/// Runs `function(user_data)` on the host once the work enqueued before it on `stream` is done;
/// later work on the stream waits for it to return. It must not call HIP.
///
/// # Safety
/// `function` must be safe to call with `user_data` from another thread.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchHostFunc(
    s: hipStream_t,
    function: hipHostFn_t,
    user_data: *mut c_void,
) -> hipError_t {
    guard("hipLaunchHostFunc", || {
        let function =
            function.ok_or_else(|| Failure::invalid_value("the host function is null"))?;
        let target = stream(s)?;
        let call = HostCall::Function {
            function,
            user_data: user_data as usize,
        };
        ops::host_function(&target, call)
    })
}

/// Calls `callback(stream, status, user_data)` on the host in stream order, as
/// [`hipLaunchHostFunc`] does; `status` is `hipSuccess` unless earlier work on the stream failed.
/// `flags` must be 0.
///
/// # Safety
/// `callback` must be safe to call with these arguments from another thread.
#[no_mangle]
pub unsafe extern "C" fn hipStreamAddCallback(
    s: hipStream_t,
    callback: hipStreamCallback_t,
    user_data: *mut c_void,
    flags: c_uint,
) -> hipError_t {
    guard("hipStreamAddCallback", || {
        if flags != 0 {
            return Err(Failure::invalid_value(format!(
                "hipStreamAddCallback flags must be 0, got {flags}"
            )));
        }
        let callback = callback.ok_or_else(|| Failure::invalid_value("the callback is null"))?;
        let target = stream(s)?;
        let call = HostCall::Callback {
            callback,
            stream: s as usize,
            user_data: user_data as usize,
        };
        ops::host_function(&target, call)
    })
}
