//! Events: `hipEventCreate*`, `hipEventRecord`, `hipEventSynchronize`, `hipEventQuery`,
//! `hipEventElapsedTime`, `hipEventDestroy`.

use std::ffi::c_uint;

use super::{current_device, event, guard, hipError_t, hipEvent_t, hipStream_t, stream, write_out};
use crate::backend::{ops, EventFlags};
use crate::error::{Failure, HipError};
use crate::graph::capture;

/// Creates an event of the calling thread's device with `flags`: `hipEventDefault`,
/// `hipEventBlockingSync`, `hipEventDisableTiming` (no timestamps: `hipEventElapsedTime` is then
/// `hipErrorInvalidHandle`), `hipEventInterprocess` (with `hipEventDisableTiming`; shared through
/// `hipIpcGetEventHandle`), `hipEventDisableSystemFence`, and one of `hipEventReleaseToDevice` /
/// `hipEventReleaseToSystem` (the scope of the fence a record releases on AMD GPUs: kept; OpenCL
/// markers and CUDA events order memory for the whole system). Anything else is
/// `hipErrorInvalidValue`.
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
        let flags = EventFlags::parse(flags)?;
        let created = current_device()?.create_event(flags)?;
        let handle = crate::backend::stream::insert_event(created);
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

/// Records the event on a stream: it completes when all work queued before it has. The stream
/// must be of the event's device (`hipErrorInvalidHandle`, as in HIP; another device's stream
/// waits for it with `hipStreamWaitEvent`).
#[no_mangle]
pub extern "C" fn hipEventRecord(e: hipEvent_t, s: hipStream_t) -> hipError_t {
    guard("hipEventRecord", || {
        let ev = event(e)?;
        let target = stream(s)?;
        if target.device() != ev.device() {
            return Err(Failure::new(
                HipError::InvalidHandle,
                format!(
                    "the event belongs to device {}, the stream to device {}",
                    ev.device(),
                    target.device()
                ),
            ));
        }
        ops::record(&ev, &target)
    })
}

/// Waits for the event (an event never recorded is complete).
#[no_mangle]
pub extern "C" fn hipEventSynchronize(e: hipEvent_t) -> hipError_t {
    guard("hipEventSynchronize", || {
        let ev = event(e)?;
        capture::check_event_usable(&ev)?;
        capture::check_unsafe_call("hipEventSynchronize")?;
        ev.synchronize()?;
        crate::mempool::after_synchronize();
        Ok(())
    })
}

/// `hipSuccess` if the event completed (or was never recorded), else `hipErrorNotReady`.
#[no_mangle]
pub extern "C" fn hipEventQuery(e: hipEvent_t) -> hipError_t {
    guard("hipEventQuery", || {
        let ev = event(e)?;
        capture::check_event_usable(&ev)?;
        if ev.is_complete()? {
            Ok(())
        } else {
            Err(Failure::quiet(HipError::NotReady))
        }
    })
}

/// Milliseconds between two completed events' device timestamps. Null events, events created
/// with `hipEventDisableTiming`, events never recorded, and events of two devices are
/// `hipErrorInvalidHandle`; one not yet complete is `hipErrorNotReady`.
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
        let (a, b) = (event(start)?, event(stop)?);
        capture::check_event_usable(&a)?;
        capture::check_event_usable(&b)?;
        if a.flags().disable_timing || b.flags().disable_timing {
            return Err(Failure::new(
                HipError::InvalidHandle,
                "an event created with hipEventDisableTiming has no timestamps",
            ));
        }
        if a.device() != b.device() {
            return Err(Failure::new(
                HipError::InvalidHandle,
                format!(
                    "the events belong to devices {} and {}: their clocks are apart",
                    a.device(),
                    b.device()
                ),
            ));
        }
        let elapsed = a.elapsed_ms(&*b)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(ms, elapsed, "the result pointer") }
    })
}

/// Destroys an event.
#[no_mangle]
pub extern "C" fn hipEventDestroy(e: hipEvent_t) -> hipError_t {
    guard("hipEventDestroy", || {
        crate::backend::stream::remove_event(e as usize)
    })
}
