//! Mipmapped arrays (`mipmaps`): `hipMallocMipmappedArray`, `hipGetMipmappedArrayLevel`,
//! `hipFreeMipmappedArray`, and the driver API's `hipMipmappedArrayCreate`, `Destroy` and
//! `GetLevel`.

use std::ffi::c_uint;

use super::{current_device, guard, hipError_t, read_in, write_out};
use crate::arrays::{Array3DDescriptor, ChannelFormatDesc};
use crate::backend::Extent;
use crate::error::{Failure, HipError, HipResult};
use crate::mipmaps;

/// Makes a mipmapped array into `*out`.
///
/// # Safety
/// `out` must be null or valid for writing a handle.
unsafe fn make(
    out: *mut usize,
    desc: &ChannelFormatDesc,
    extent: Extent,
    levels: c_uint,
    flags: c_uint,
) -> HipResult<()> {
    if out.is_null() {
        return Err(Failure::invalid_value(
            "the mipmapped array pointer is null",
        ));
    }
    let handle = mipmaps::allocate(current_device()?, desc, extent, levels, flags)?;
    // SAFETY: checked non-null; valid per the caller.
    unsafe { write_out(out, handle, "the mipmapped array pointer") }
}

/// Writes level `level`'s array into `*out`.
///
/// # Safety
/// `out` must be null or valid for writing a handle.
unsafe fn level_into(out: *mut usize, mipmap: usize, level: c_uint) -> HipResult<()> {
    if out.is_null() {
        return Err(Failure::invalid_value("the array pointer is null"));
    }
    let array = mipmaps::level(mipmap, level)?;
    // SAFETY: checked non-null; valid per the caller.
    unsafe { write_out(out, array, "the array pointer") }
}

/// Allocates `levels` levels (0 means 1) of an `extent`-texel array, each half the previous one
/// (1-D, 2-D, 3-D or layered).
///
/// # Safety
/// `out` must be null or valid for writing a handle; `desc` null or valid for reading.
#[no_mangle]
pub unsafe extern "C" fn hipMallocMipmappedArray(
    out: *mut usize,
    desc: *const ChannelFormatDesc,
    extent: Extent,
    levels: c_uint,
    flags: c_uint,
) -> hipError_t {
    guard("hipMallocMipmappedArray", || {
        // SAFETY: per the caller.
        let desc = unsafe { read_in(desc, "the channel format") }?;
        // SAFETY: per the caller.
        unsafe { make(out, &desc, extent, levels, flags) }
    })
}

/// The array of level `level`: an array like any other for copies and queries, freed with the
/// mipmapped array.
///
/// # Safety
/// `out` must be null or valid for writing a handle.
#[no_mangle]
pub unsafe extern "C" fn hipGetMipmappedArrayLevel(
    out: *mut usize,
    mipmap: usize,
    level: c_uint,
) -> hipError_t {
    guard("hipGetMipmappedArrayLevel", || unsafe {
        level_into(out, mipmap, level)
    })
}

/// Frees a mipmapped array and its levels (after the work queued before).
#[no_mangle]
pub extern "C" fn hipFreeMipmappedArray(mipmap: usize) -> hipError_t {
    guard("hipFreeMipmappedArray", || {
        mipmaps::free(current_device()?, mipmap)
    })
}

/// The driver API's `hipMallocMipmappedArray`.
///
/// # Safety
/// `out` must be null or valid for writing a handle; `desc` null or valid for reading.
#[no_mangle]
pub unsafe extern "C" fn hipMipmappedArrayCreate(
    out: *mut usize,
    desc: *const Array3DDescriptor,
    levels: c_uint,
) -> hipError_t {
    guard("hipMipmappedArrayCreate", || {
        // SAFETY: per the caller.
        let d = unsafe { read_in(desc, "the array description") }?;
        let (channels, extent) = d.to_runtime()?;
        // SAFETY: per the caller.
        unsafe { make(out, &channels, extent, levels, d.Flags) }
    })
}

/// The driver API's `hipFreeMipmappedArray`.
#[no_mangle]
pub extern "C" fn hipMipmappedArrayDestroy(mipmap: usize) -> hipError_t {
    guard("hipMipmappedArrayDestroy", || {
        // The driver API answers a null handle as a bad handle (hipFreeMipmappedArray: value).
        if mipmap == 0 {
            return Err(Failure::new(
                HipError::InvalidHandle,
                "the mipmapped array is null",
            ));
        }
        mipmaps::free(current_device()?, mipmap)
    })
}

/// The driver API's `hipGetMipmappedArrayLevel`.
///
/// # Safety
/// `out` must be null or valid for writing a handle.
#[no_mangle]
pub unsafe extern "C" fn hipMipmappedArrayGetLevel(
    out: *mut usize,
    mipmap: usize,
    level: c_uint,
) -> hipError_t {
    guard("hipMipmappedArrayGetLevel", || unsafe {
        level_into(out, mipmap, level)
    })
}
