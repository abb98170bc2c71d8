//! Streams and events on the CUDA backend: a `hipStream_t` is a `CUstream` and a `hipEvent_t` a
//! `CUevent`. HIP's special stream values are the driver's: null is the legacy default stream,
//! 1 `hipStreamLegacy` (`CU_STREAM_LEGACY`), 2 `hipStreamPerThread` (`CU_STREAM_PER_THREAD`).
//! Handles this backend created are remembered, so a destroyed or made-up one is
//! `hipErrorInvalidHandle` rather than a driver crash.

use std::collections::HashSet;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::{Mutex, MutexGuard};

use super::driver::{check, sys};
use crate::error::{Failure, HipError, HipResult};

static STREAMS: Mutex<Option<HashSet<usize>>> = Mutex::new(None);
static EVENTS: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

fn table(t: &'static Mutex<Option<HashSet<usize>>>) -> MutexGuard<'static, Option<HashSet<usize>>> {
    t.lock().unwrap_or_else(|p| p.into_inner())
}

fn known(t: &'static Mutex<Option<HashSet<usize>>>, handle: usize) -> bool {
    table(t).as_ref().is_some_and(|s| s.contains(&handle))
}

/// The `CUstream` of a `hipStream_t` value.
pub fn cu_stream(handle: usize) -> HipResult<sys::CUstream> {
    if handle <= 2 || known(&STREAMS, handle) {
        Ok(handle as sys::CUstream)
    } else {
        Err(Failure::new(
            HipError::InvalidHandle,
            format!("{handle:#x} is not a stream (destroyed, or never created)"),
        ))
    }
}

/// The `CUevent` of a `hipEvent_t` value.
pub fn cu_event(handle: usize) -> HipResult<sys::CUevent> {
    if handle != 0 && known(&EVENTS, handle) {
        Ok(handle as sys::CUevent)
    } else {
        Err(Failure::new(
            HipError::InvalidHandle,
            format!("{handle:#x} is not an event (destroyed, or never created)"),
        ))
    }
}

/// `hipStreamCreateWithPriority`: `hipStreamNonBlocking` (1) is `CU_STREAM_NON_BLOCKING`.
pub fn create(flags: c_uint, priority: c_int) -> HipResult<usize> {
    if flags & !1 != 0 {
        return Err(Failure::invalid_value(format!(
            "unknown stream flags {flags:#x}"
        )));
    }
    let mut s: sys::CUstream = std::ptr::null_mut();
    // SAFETY: writes one handle.
    check("cuStreamCreateWithPriority", unsafe {
        sys::cuStreamCreateWithPriority(&mut s, flags, priority)
    })?;
    table(&STREAMS)
        .get_or_insert_with(HashSet::new)
        .insert(s as usize);
    Ok(s as usize)
}

/// `hipStreamDestroy`: work already queued still runs (as in CUDA).
pub fn destroy(handle: usize) -> HipResult<()> {
    if handle <= 2 {
        return Err(Failure::new(
            HipError::InvalidHandle,
            "the default stream cannot be destroyed",
        ));
    }
    let s = cu_stream(handle)?;
    table(&STREAMS)
        .get_or_insert_with(HashSet::new)
        .remove(&handle);
    // SAFETY: a stream this backend created, forgotten above.
    check("cuStreamDestroy", unsafe { sys::cuStreamDestroy_v2(s) })
}

pub fn synchronize(handle: usize) -> HipResult<()> {
    let s = cu_stream(handle)?;
    // SAFETY: a valid stream.
    check("cuStreamSynchronize", unsafe {
        sys::cuStreamSynchronize(s)
    })
}

/// `Ok(true)` when everything queued on the stream has finished.
pub fn query(handle: usize) -> HipResult<bool> {
    let s = cu_stream(handle)?;
    // SAFETY: a valid stream.
    match unsafe { sys::cuStreamQuery(s) } {
        sys::CUresult::CUDA_SUCCESS => Ok(true),
        sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        r => check("cuStreamQuery", r).map(|()| true),
    }
}

pub fn wait_event(stream: usize, event: usize) -> HipResult<()> {
    let (s, e) = (cu_stream(stream)?, cu_event(event)?);
    // SAFETY: valid handles.
    check("cuStreamWaitEvent", unsafe {
        sys::cuStreamWaitEvent(s, e, 0)
    })
}

pub fn flags(handle: usize) -> HipResult<c_uint> {
    let s = cu_stream(handle)?;
    let mut f = 0;
    // SAFETY: writes one uint.
    check("cuStreamGetFlags", unsafe {
        sys::cuStreamGetFlags(s, &mut f)
    })?;
    Ok(f)
}

pub fn priority(handle: usize) -> HipResult<c_int> {
    let s = cu_stream(handle)?;
    let mut p = 0;
    // SAFETY: writes one int.
    check("cuStreamGetPriority", unsafe {
        sys::cuStreamGetPriority(s, &mut p)
    })?;
    Ok(p)
}

/// (least, greatest) stream priority of the current context.
pub fn priority_range() -> HipResult<(c_int, c_int)> {
    let (mut least, mut greatest) = (0, 0);
    // SAFETY: writes two ints.
    check("cuCtxGetStreamPriorityRange", unsafe {
        sys::cuCtxGetStreamPriorityRange(&mut least, &mut greatest)
    })?;
    Ok((least, greatest))
}

/// `hipLaunchHostFunc`: the driver calls `function(user_data)` in stream order.
pub fn launch_host_func(
    stream: usize,
    function: unsafe extern "C" fn(*mut c_void),
    user_data: *mut c_void,
) -> HipResult<()> {
    let s = cu_stream(stream)?;
    // SAFETY: a valid stream; the function and its data are the caller's.
    check("cuLaunchHostFunc", unsafe {
        sys::cuLaunchHostFunc(s, Some(function), user_data)
    })
}

/// `hipStreamAddCallback`: HIP's callback type is CUDA's (a stream handle, a status code that
/// is 0 on success in both APIs, the user's pointer).
pub fn add_callback(
    stream: usize,
    callback: unsafe extern "C" fn(*mut c_void, c_int, *mut c_void),
    user_data: *mut c_void,
) -> HipResult<()> {
    let s = cu_stream(stream)?;
    // SAFETY: the two function types have the same C ABI (pointer, enum-sized int, pointer).
    let callback: unsafe extern "C" fn(sys::CUstream, sys::CUresult, *mut c_void) =
        unsafe { std::mem::transmute(callback) };
    // SAFETY: a valid stream; the callback and its data are the caller's.
    check("cuStreamAddCallback", unsafe {
        sys::cuStreamAddCallback(s, Some(callback), user_data, 0)
    })
}

/// `hipEventCreateWithFlags`: `hipEventBlockingSync` (1), `DisableTiming` (2) and
/// `Interprocess` (4) are the driver's values.
pub fn create_event(flags: c_uint) -> HipResult<usize> {
    if flags & !7 != 0 {
        return Err(Failure::invalid_value(format!(
            "unknown event flags {flags:#x}"
        )));
    }
    let mut e: sys::CUevent = std::ptr::null_mut();
    // SAFETY: writes one handle.
    check("cuEventCreate", unsafe {
        sys::cuEventCreate(&mut e, flags)
    })?;
    table(&EVENTS)
        .get_or_insert_with(HashSet::new)
        .insert(e as usize);
    Ok(e as usize)
}

pub fn destroy_event(handle: usize) -> HipResult<()> {
    let e = cu_event(handle)?;
    table(&EVENTS)
        .get_or_insert_with(HashSet::new)
        .remove(&handle);
    // SAFETY: an event this backend created, forgotten above.
    check("cuEventDestroy", unsafe { sys::cuEventDestroy_v2(e) })
}

pub fn record(event: usize, stream: usize) -> HipResult<()> {
    let (e, s) = (cu_event(event)?, cu_stream(stream)?);
    // SAFETY: valid handles.
    check("cuEventRecord", unsafe { sys::cuEventRecord(e, s) })
}

pub fn synchronize_event(event: usize) -> HipResult<()> {
    let e = cu_event(event)?;
    // SAFETY: a valid event.
    check("cuEventSynchronize", unsafe { sys::cuEventSynchronize(e) })
}

pub fn query_event(event: usize) -> HipResult<bool> {
    let e = cu_event(event)?;
    // SAFETY: a valid event.
    match unsafe { sys::cuEventQuery(e) } {
        sys::CUresult::CUDA_SUCCESS => Ok(true),
        sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        r => check("cuEventQuery", r).map(|()| true),
    }
}

pub fn elapsed_ms(start: usize, stop: usize) -> HipResult<f32> {
    let (a, b) = (cu_event(start)?, cu_event(stop)?);
    let mut ms = 0f32;
    // SAFETY: valid events; writes one float.
    check("cuEventElapsedTime", unsafe {
        sys::cuEventElapsedTime(&mut ms, a, b)
    })?;
    Ok(ms)
}

/// Forgets every stream and event (`hipDeviceReset`: they died with the context).
pub fn forget_all() {
    *table(&STREAMS) = None;
    *table(&EVENTS) = None;
}
