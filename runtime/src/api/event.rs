//! Events: `hipEventCreate*`, `hipEventRecord`, `hipEventSynchronize`, `hipEventQuery`,
//! `hipEventElapsedTime`, `hipEventDestroy`.

use std::ffi::c_uint;

use super::{guard, hipError_t, hipEvent_t, hipStream_t, write_out};
use crate::error::{Failure, HipError};
use crate::event;

/// Creates an event with `flags` (`hipEventDefault`, `hipEventBlockingSync`,
/// `hipEventDisableTiming`; `hipEventInterprocess` is not supported).
///
/// # Safety
/// `out` must be null or valid for writing a `hipEvent_t`.
#[no_mangle]
pub unsafe extern "C" fn hipEventCreateWithFlags(
    out: *mut hipEvent_t,
    flags: c_uint,
) -> hipError_t {
    guard("hipEventCreateWithFlags", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the event pointer is null"));
        }
        on_cuda!(_cu => {
            let handle = crate::cuda::stream::create_event(flags)?;
            // SAFETY: checked non-null; valid per the caller.
            unsafe { write_out(out, handle as hipEvent_t, "the event pointer") }
        });
        let handle = event::create(flags)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(out, handle as hipEvent_t, "the event pointer") }
    })
}

/// Creates an event with default flags.
///
/// # Safety
/// `out` must be null or valid for writing a `hipEvent_t`.
#[no_mangle]
pub unsafe extern "C" fn hipEventCreate(out: *mut hipEvent_t) -> hipError_t {
    // SAFETY: per the caller.
    unsafe { hipEventCreateWithFlags(out, 0) }
}

/// Records the event on a stream: it completes when all work queued before it has.
#[no_mangle]
pub extern "C" fn hipEventRecord(e: hipEvent_t, s: hipStream_t) -> hipError_t {
    guard("hipEventRecord", || {
        on_cuda!(cu => crate::cuda::stream::record(e as usize, s as usize));
        event::get(e as usize)?.record(s as usize)
    })
}

/// Waits for the event (an event never recorded is complete).
#[no_mangle]
pub extern "C" fn hipEventSynchronize(e: hipEvent_t) -> hipError_t {
    guard("hipEventSynchronize", || {
        on_cuda!(cu => crate::cuda::stream::synchronize_event(e as usize));
        event::get(e as usize)?.synchronize()
    })
}

/// `hipSuccess` if the event completed (or was never recorded), else `hipErrorNotReady`.
#[no_mangle]
pub extern "C" fn hipEventQuery(e: hipEvent_t) -> hipError_t {
    guard("hipEventQuery", || {
        on_cuda!(cu => if crate::cuda::stream::query_event(e as usize)? { Ok(()) } else { Err(Failure::quiet(HipError::NotReady)) });
        if event::get(e as usize)?.is_complete()? {
            Ok(())
        } else {
            Err(Failure::quiet(HipError::NotReady))
        }
    })
}

/// Milliseconds between two completed events' device timestamps.
///
/// # Safety
/// `ms` must be null or valid for writing a `float`.
#[no_mangle]
pub unsafe extern "C" fn hipEventElapsedTime(
    ms: *mut f32,
    start: hipEvent_t,
    stop: hipEvent_t,
) -> hipError_t {
    guard("hipEventElapsedTime", || {
        if ms.is_null() {
            return Err(Failure::invalid_value("the result pointer is null"));
        }
        on_cuda!(_cu => {
            let elapsed = crate::cuda::stream::elapsed_ms(start as usize, stop as usize)?;
            // SAFETY: checked non-null; valid per the caller.
            unsafe { write_out(ms, elapsed, "the result pointer") }
        });
        let (a, b) = (event::get(start as usize)?, event::get(stop as usize)?);
        let elapsed = event::elapsed_ms(&a, &b)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(ms, elapsed, "the result pointer") }
    })
}

/// Destroys an event.
#[no_mangle]
pub extern "C" fn hipEventDestroy(e: hipEvent_t) -> hipError_t {
    guard("hipEventDestroy", || {
        on_cuda!(_cu => crate::cuda::stream::destroy_event(e as usize));
        event::destroy(e as usize)
    })
}
