//! 2-D and 3-D fills: `hipMemset2D`, `hipMemset3D` and their `Async` forms, as the interface's
//! [`Fill`] of strided rows and slices.

use std::ffi::{c_int, c_void};

use super::{current_device, guard, hipError_t, hipStream_t, stream};
use crate::backend::{ops, Extent, Fill, Pattern, PitchedPtr};
use crate::error::{Failure, HipResult};

/// Runs `f` on the null stream, returning once done (`on` `None`), or on the stream `on` names.
fn run(f: &Fill, on: Option<hipStream_t>) -> HipResult<()> {
    match on {
        None => ops::fill(
            &current_device()?.null_stream(),
            f,
            super::memory::synchronous_fill_waits(f.dst)?,
        ),
        Some(s) => ops::fill(&*stream(s)?, f, false),
    }
}

/// The fill of `depth` slices (`slice` bytes apart) of `height` rows (`pitch` bytes apart) of
/// `width` bytes at `dst`, checked as HIP checks memsets: an empty region is nothing to do
/// (whatever `dst` is), a null destination, rows wider than the pitch, or a region whose extent
/// overflows are `hipErrorInvalidValue`.
fn region(
    dst: *mut c_void,
    value: c_int,
    width: usize,
    pitch: usize,
    height: usize,
    slice: usize,
    depth: usize,
) -> HipResult<Option<Fill>> {
    if width == 0 || height == 0 || depth == 0 {
        return Ok(None);
    }
    if dst.is_null() {
        return Err(Failure::invalid_value("the destination is null"));
    }
    if width > pitch {
        return Err(Failure::invalid_value(format!(
            "rows of {width} bytes do not fit the pitch of {pitch} bytes"
        )));
    }
    let span = slice
        .checked_mul(depth - 1)
        .and_then(|v| v.checked_add(pitch.checked_mul(height - 1)?))
        .and_then(|v| v.checked_add(width))
        .and_then(|v| v.checked_add(dst as usize));
    if span.is_none() {
        return Err(Failure::invalid_value(format!(
            "a {width} x {height} x {depth} fill with pitch {pitch} overflows the address space"
        )));
    }
    Ok(Some(Fill {
        dst,
        pattern: Pattern::u8(value as u8),
        count: width,
        pitch,
        height,
        slice,
        depth,
    }))
}

fn memset_2d(
    dst: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
    on: Option<hipStream_t>,
) -> HipResult<()> {
    let slice = pitch.saturating_mul(height);
    match region(dst, value, width, pitch, height, slice, 1)? {
        Some(f) => run(&f, on),
        None => Ok(()),
    }
}

/// A 3-D fill of `extent` (width in bytes) in the pitched allocation `p`: slices are
/// `p.pitch * p.ysize` bytes apart, so a fill of several slices needs `p.ysize` rows per slice
/// at least as many as it fills.
fn memset_3d(
    p: PitchedPtr,
    value: c_int,
    extent: Extent,
    on: Option<hipStream_t>,
) -> HipResult<()> {
    if extent.depth > 1 && p.ysize < extent.height {
        return Err(Failure::invalid_value(format!(
            "slices of {} rows (ysize) cannot hold {} rows of fill",
            p.ysize, extent.height
        )));
    }
    let rows = p.ysize.max(extent.height);
    let slice = p.pitch.saturating_mul(rows);
    let fill = region(
        p.ptr,
        value,
        extent.width,
        p.pitch,
        extent.height,
        slice,
        extent.depth,
    )?;
    match fill {
        Some(f) => run(&f, on),
        None => Ok(()),
    }
}

/// Sets `height` rows of `width` bytes, `pitch` bytes apart, to the byte `value`. Synchronous.
///
/// # Safety
/// Always safe to call: the range is checked (against the allocation table, or by the driver).
#[no_mangle]
pub unsafe extern "C" fn hipMemset2D(
    dst: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
) -> hipError_t {
    guard("hipMemset2D", || {
        memset_2d(dst, pitch, value, width, height, None)
    })
}

/// `hipMemset2D` on a stream.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipMemset2DAsync(
    dst: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemset2DAsync", || {
        memset_2d(dst, pitch, value, width, height, Some(stream))
    })
}

/// Sets `extent` (width in bytes, rows, slices) of a pitched allocation (`hipMalloc3D`) to the
/// byte `value`. Synchronous.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipMemset3D(p: PitchedPtr, value: c_int, extent: Extent) -> hipError_t {
    guard("hipMemset3D", || memset_3d(p, value, extent, None))
}

/// `hipMemset3D` on a stream.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipMemset3DAsync(
    p: PitchedPtr,
    value: c_int,
    extent: Extent,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemset3DAsync", || {
        memset_3d(p, value, extent, Some(stream))
    })
}
