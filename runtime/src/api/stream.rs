//! Streams: `hipStreamCreate*`, `hipStreamDestroy`, `hipStreamSynchronize`, `hipStreamQuery`,
//! `hipStreamWaitEvent`, flags and priorities.

use std::ffi::{c_int, c_uint};

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
    let handle = stream::create(flags, priority)?;
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
        create_into(out, flags, priority.clamp(0, 0))
    })
}

/// Destroys a stream; work already queued on it still completes.
#[no_mangle]
pub extern "C" fn hipStreamDestroy(s: hipStream_t) -> hipError_t {
    guard("hipStreamDestroy", || stream::destroy(s as usize))
}

/// Waits for all work on the stream (the null stream: also for blocking streams).
#[no_mangle]
pub extern "C" fn hipStreamSynchronize(s: hipStream_t) -> hipError_t {
    guard("hipStreamSynchronize", || {
        let target = stream::resolve(s as usize)?;
        stream::synchronize(&target)
    })
}

/// `hipSuccess` when all work on the stream is done, else `hipErrorNotReady`.
#[no_mangle]
pub extern "C" fn hipStreamQuery(s: hipStream_t) -> hipError_t {
    guard("hipStreamQuery", || {
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
        // SAFETY: null pointers are skipped, as HIP allows; others are valid per the caller.
        unsafe {
            if !least.is_null() {
                least.write_unaligned(0);
            }
            if !greatest.is_null() {
                greatest.write_unaligned(0);
            }
        }
        Ok(())
    })
}
