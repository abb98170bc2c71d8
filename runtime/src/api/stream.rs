//! Streams: `hipStreamCreate*`, `hipStreamDestroy`, `hipStreamSynchronize`, `hipStreamQuery`,
//! `hipStreamWaitEvent`, flags and priorities, host functions (`hipLaunchHostFunc`,
//! `hipStreamAddCallback`).

use std::ffi::{c_int, c_uint, c_void};

use super::{guard, hipError_t, hipEvent_t, hipStream_t, write_out};
use crate::device::runtime;
use crate::error::{Failure, HipError};
use crate::{event, stream};

unsafe fn create_into(
    out: *mut hipStream_t,
    flags: c_uint,
    priority: c_int,
) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::invalid_value("the stream pointer is null"));
    }
    let handle = match crate::select::cuda()? {
        Some(cu) => {
            cu.current()?;
            crate::cuda::stream::create(flags, priority)?
        }
        None => stream::create(flags, priority)?,
    };
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

/// Creates a stream with a priority. OpenCL queues have no priorities: the value is kept and
/// reported back, and clamped to `hipDeviceGetStreamPriorityRange` (0..0).
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
        let priority = match crate::select::cuda()? {
            // CUDA's priorities are real: numerically lower is higher, clamped to the range.
            Some(_) => priority,
            None => priority.clamp(0, 0),
        };
        create_into(out, flags, priority)
    })
}

/// Destroys a stream; work already queued on it still completes.
#[no_mangle]
pub extern "C" fn hipStreamDestroy(s: hipStream_t) -> hipError_t {
    guard("hipStreamDestroy", || {
        on_cuda!(_cu => crate::cuda::stream::destroy(s as usize));
        stream::destroy(s as usize)
    })
}

/// Waits for all work on the stream (the null stream: also for blocking streams).
#[no_mangle]
pub extern "C" fn hipStreamSynchronize(s: hipStream_t) -> hipError_t {
    guard("hipStreamSynchronize", || {
        on_cuda!(_cu => crate::cuda::stream::synchronize(s as usize));
        let target = stream::resolve(s as usize)?;
        stream::synchronize(&target)
    })
}

/// `hipSuccess` when all work on the stream is done, else `hipErrorNotReady`.
#[no_mangle]
pub extern "C" fn hipStreamQuery(s: hipStream_t) -> hipError_t {
    guard("hipStreamQuery", || {
        on_cuda!(_cu => if crate::cuda::stream::query(s as usize)? { Ok(()) } else { Err(Failure::quiet(HipError::NotReady)) });
        let target = stream::resolve(s as usize)?;
        if stream::query(&target)? {
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
        on_cuda!(_cu => crate::cuda::stream::wait_event(s as usize, e as usize));
        let target = stream::resolve(s as usize)?;
        let ev = event::get(e as usize)?;
        let Some(marker) = ev.marker() else {
            return Ok(());
        };
        let rt = runtime()?;
        stream::enqueue_marker(rt, &target, &[marker])?;
        let _ = target.queue.flush();
        Ok(())
    })
}

/// Writes the stream's flags.
///
/// # Safety
/// `flags` must be null or valid for writing an `unsigned int`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetFlags(s: hipStream_t, flags: *mut c_uint) -> hipError_t {
    guard("hipStreamGetFlags", || {
        on_cuda!(_cu => unsafe { write_out(flags, crate::cuda::stream::flags(s as usize)?, "the flags pointer") });
        let target = stream::resolve(s as usize)?;
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { write_out(flags, target.flags, "the flags pointer") }
    })
}

/// Writes the stream's priority.
///
/// # Safety
/// `priority` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetPriority(s: hipStream_t, priority: *mut c_int) -> hipError_t {
    guard("hipStreamGetPriority", || {
        on_cuda!(_cu => unsafe { write_out(priority, crate::cuda::stream::priority(s as usize)?, "the priority pointer") });
        let target = stream::resolve(s as usize)?;
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { write_out(priority, target.priority, "the priority pointer") }
    })
}

/// Writes the priority range: (0, 0), OpenCL queues have no priorities.
///
/// # Safety
/// Each pointer must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetStreamPriorityRange(
    least: *mut c_int,
    greatest: *mut c_int,
) -> hipError_t {
    guard("hipDeviceGetStreamPriorityRange", || {
        let (l, g) = match crate::select::cuda()? {
            Some(cu) => {
                cu.current()?;
                crate::cuda::stream::priority_range()?
            }
            None => (0, 0),
        };
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

/// The caller's pointer, carried to the thread that runs the host function (HIP's contract:
/// the function may use it there).
struct UserData(*mut c_void);
// SAFETY: an opaque pointer handed back to the caller's own function, as HIP specifies.
unsafe impl Send for UserData {}

/// Runs `function(user_data)` on the host once the work enqueued before it on `stream` is done;
/// later work on the stream waits for it to return. It must not call HIP.
///
/// # Safety
/// `function` must be safe to call with `user_data` from another thread.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchHostFunc(
    stream: hipStream_t,
    function: hipHostFn_t,
    user_data: *mut c_void,
) -> hipError_t {
    guard("hipLaunchHostFunc", || {
        let function =
            function.ok_or_else(|| Failure::invalid_value("the host function is null"))?;
        on_cuda!(_cu => crate::cuda::stream::launch_host_func(stream as usize, function, user_data));
        let data = UserData(user_data);
        crate::host_function::enqueue(
            stream as usize,
            Box::new(move |_status| {
                let data = data;
                // SAFETY: per the caller.
                unsafe { function(data.0) }
            }),
        )
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
    stream: hipStream_t,
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
        on_cuda!(_cu => crate::cuda::stream::add_callback(stream as usize, callback, user_data));
        let data = UserData(user_data);
        let handle = UserData(stream.cast());
        crate::host_function::enqueue(
            stream as usize,
            Box::new(move |status| {
                let (data, handle) = (data, handle);
                // SAFETY: per the caller; `status` is a HIP error code.
                unsafe { callback(handle.0.cast(), status, data.0) }
            }),
        )
    })
}
