//! Arrays, 3-D copies and texture objects: `hipMallocArray`, `hipMalloc3DArray`, `hipFreeArray`,
//! `hipArrayGetInfo`, `hipGetChannelDesc`, the copies to and from arrays, `hipMemcpy3D[Async]`,
//! `hipCreateChannelDesc`, `hipCreateTextureObject`, `hipDestroyTextureObject` and the texture
//! object queries. The logic is backend-neutral (`arrays`, `texture`); each backend serves it
//! through its own allocation and region copy (the backend interface).

use std::ffi::{c_int, c_uint, c_void};

use std::sync::Arc;

use super::{current_device, guard, hipError_t, hipStream_t, read_in, stream, write_out};
use crate::arrays::{self, ChannelFormatDesc, Memcpy3DParms};
use crate::backend::{Device, Extent, MemcpyKind, Stream};
use crate::error::{Failure, HipResult};
use crate::texture::{self, ResourceDesc, ResourceViewDesc, TextureDesc};

/// Where a copy runs: the calling thread's device, and the stream `s` names (`None`: the
/// synchronous form, on the device's null stream).
fn target(s: Option<hipStream_t>) -> HipResult<(&'static dyn Device, Option<Arc<Stream>>)> {
    let device = current_device()?;
    let on = s.map(stream).transpose()?;
    Ok((device, on))
}

/// A channel format: `x`, `y`, `z`, `w` bits and the kind.
#[no_mangle]
pub extern "C" fn hipCreateChannelDesc(
    x: c_int,
    y: c_int,
    z: c_int,
    w: c_int,
    f: c_int,
) -> ChannelFormatDesc {
    ChannelFormatDesc { x, y, z, w, f }
}

/// Allocates a 1-D (`height` 0) or 2-D array of `width` x `height` texels.
///
/// # Safety
/// `array` must be null or valid for writing a handle; `desc` null or valid for reading.
#[no_mangle]
pub unsafe extern "C" fn hipMallocArray(
    array: *mut usize,
    desc: *const ChannelFormatDesc,
    width: usize,
    height: usize,
    flags: c_uint,
) -> hipError_t {
    guard("hipMallocArray", || {
        if array.is_null() {
            return Err(Failure::invalid_value("the array pointer is null"));
        }
        let desc = unsafe { read_in(desc, "the channel format")? };
        let extent = Extent {
            width,
            height,
            depth: 0,
        };
        let handle = arrays::allocate(current_device()?, &desc, extent, flags)?;
        unsafe { write_out(array, handle, "the array pointer") }
    })
}

/// Allocates a 1-D, 2-D, 3-D or layered (`hipArrayLayered`, layers in `extent.depth`) array;
/// `extent` counts texels.
///
/// # Safety
/// As `hipMallocArray`.
#[no_mangle]
pub unsafe extern "C" fn hipMalloc3DArray(
    array: *mut usize,
    desc: *const ChannelFormatDesc,
    extent: Extent,
    flags: c_uint,
) -> hipError_t {
    guard("hipMalloc3DArray", || {
        if array.is_null() {
            return Err(Failure::invalid_value("the array pointer is null"));
        }
        let desc = unsafe { read_in(desc, "the channel format")? };
        let handle = arrays::allocate(current_device()?, &desc, extent, flags)?;
        unsafe { write_out(array, handle, "the array pointer") }
    })
}

/// Frees an array (after the work queued before); null is a no-op.
#[no_mangle]
pub extern "C" fn hipFreeArray(array: usize) -> hipError_t {
    guard("hipFreeArray", || arrays::free(current_device()?, array))
}

/// An array's channel format, extent (as created: 0 for a dimension it lacks) and flags; each
/// result pointer may be null.
///
/// # Safety
/// Each pointer must be null or valid for writing its value.
#[no_mangle]
pub unsafe extern "C" fn hipArrayGetInfo(
    desc: *mut ChannelFormatDesc,
    extent: *mut Extent,
    flags: *mut c_uint,
    array: usize,
) -> hipError_t {
    guard("hipArrayGetInfo", || {
        let a = arrays::get(array)?;
        // SAFETY: each is checked non-null; valid per the caller.
        unsafe {
            if !desc.is_null() {
                write_out(desc, a.desc, "desc")?;
            }
            if !extent.is_null() {
                let e = Extent {
                    width: a.width,
                    height: a.height,
                    depth: a.depth,
                };
                write_out(extent, e, "extent")?;
            }
            if !flags.is_null() {
                write_out(flags, a.flags, "flags")?;
            }
        }
        Ok(())
    })
}

/// An array's channel format.
///
/// # Safety
/// `desc` must be null or valid for writing a `hipChannelFormatDesc`.
#[no_mangle]
pub unsafe extern "C" fn hipGetChannelDesc(
    desc: *mut ChannelFormatDesc,
    array: usize,
) -> hipError_t {
    guard("hipGetChannelDesc", || {
        let a = arrays::get(array)?;
        unsafe { write_out(desc, a.desc, "desc") }
    })
}

/// Copies `height` rows of `width` bytes from pitched memory into an array, `w_offset` bytes and
/// `h_offset` rows in. Synchronous.
///
/// # Safety
/// Host ranges must be valid for `spitch * (height - 1) + width` bytes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipMemcpy2DToArray(
    dst: usize,
    w_offset: usize,
    h_offset: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipMemcpy2DToArray", || {
        let (device, on) = target(None)?;
        arrays::copy_2d(
            device,
            on.as_deref(),
            dst,
            w_offset,
            h_offset,
            src as *mut c_void,
            spitch,
            width,
            height,
            MemcpyKind::parse(kind)?,
            true,
        )
    })
}

/// `hipMemcpy2DToArray` on a stream.
///
/// # Safety
/// As `hipMemcpy2DToArray`, for as long as the copy is pending.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipMemcpy2DToArrayAsync(
    dst: usize,
    w_offset: usize,
    h_offset: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemcpy2DToArrayAsync", || {
        let (device, on) = target(Some(stream))?;
        arrays::copy_2d(
            device,
            on.as_deref(),
            dst,
            w_offset,
            h_offset,
            src as *mut c_void,
            spitch,
            width,
            height,
            MemcpyKind::parse(kind)?,
            true,
        )
    })
}

/// Copies `height` rows of `width` bytes out of an array into pitched memory. Synchronous.
///
/// # Safety
/// Host ranges must be valid for `dpitch * (height - 1) + width` bytes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipMemcpy2DFromArray(
    dst: *mut c_void,
    dpitch: usize,
    src: usize,
    w_offset: usize,
    h_offset: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipMemcpy2DFromArray", || {
        let (device, on) = target(None)?;
        arrays::copy_2d(
            device,
            on.as_deref(),
            src,
            w_offset,
            h_offset,
            dst,
            dpitch,
            width,
            height,
            MemcpyKind::parse(kind)?,
            false,
        )
    })
}

/// `hipMemcpy2DFromArray` on a stream.
///
/// # Safety
/// As `hipMemcpy2DFromArray`, for as long as the copy is pending.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipMemcpy2DFromArrayAsync(
    dst: *mut c_void,
    dpitch: usize,
    src: usize,
    w_offset: usize,
    h_offset: usize,
    width: usize,
    height: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemcpy2DFromArrayAsync", || {
        let (device, on) = target(Some(stream))?;
        arrays::copy_2d(
            device,
            on.as_deref(),
            src,
            w_offset,
            h_offset,
            dst,
            dpitch,
            width,
            height,
            MemcpyKind::parse(kind)?,
            false,
        )
    })
}

/// Copies `count` bytes into an array's rows, one after the other, from `w_offset` bytes into
/// row `h_offset`. Synchronous.
///
/// # Safety
/// A host `src` must be valid for `count` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyToArray(
    dst: usize,
    w_offset: usize,
    h_offset: usize,
    src: *const c_void,
    count: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipMemcpyToArray", || {
        arrays::copy_linear(
            current_device()?,
            dst,
            w_offset,
            h_offset,
            src as *mut c_void,
            count,
            MemcpyKind::parse(kind)?,
            true,
        )
    })
}

/// Copies `count` bytes out of an array's rows. Synchronous.
///
/// # Safety
/// A host `dst` must be valid for `count` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyFromArray(
    dst: *mut c_void,
    src: usize,
    w_offset: usize,
    h_offset: usize,
    count: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipMemcpyFromArray", || {
        arrays::copy_linear(
            current_device()?,
            src,
            w_offset,
            h_offset,
            dst,
            count,
            MemcpyKind::parse(kind)?,
            false,
        )
    })
}

/// A 3-D copy between arrays and pitched pointers (host or device). Synchronous.
///
/// # Safety
/// `p` must be null or valid for reading; its host ranges must be valid for the copy.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy3D(p: *const Memcpy3DParms) -> hipError_t {
    guard("hipMemcpy3D", || {
        let p = unsafe { read_in(p, "the copy's parameters")? };
        let (device, _) = target(None)?;
        arrays::copy_3d(device, None, &p, MemcpyKind::parse(p.kind)?)
    })
}

/// `hipMemcpy3D` on a stream.
///
/// # Safety
/// As `hipMemcpy3D`, for as long as the copy is pending.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy3DAsync(
    p: *const Memcpy3DParms,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemcpy3DAsync", || {
        let p = unsafe { read_in(p, "the copy's parameters")? };
        let (device, on) = target(Some(stream))?;
        arrays::copy_3d(device, on.as_deref(), &p, MemcpyKind::parse(p.kind)?)
    })
}

/// Creates a texture object over an array, a linear buffer or pitched 2-D memory.
///
/// # Safety
/// `out` must be null or valid for writing; the descriptions null or valid for reading.
#[no_mangle]
pub unsafe extern "C" fn hipCreateTextureObject(
    out: *mut usize,
    res: *const ResourceDesc,
    tex: *const TextureDesc,
    view: *const ResourceViewDesc,
) -> hipError_t {
    guard("hipCreateTextureObject", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the texture object pointer is null"));
        }
        let res = unsafe { read_in(res, "the resource description")? };
        let tex = unsafe { read_in(tex, "the texture description")? };
        let view = (!view.is_null())
            .then(|| unsafe { read_in(view, "the resource view") })
            .transpose()?;
        let object = texture::create(current_device()?, &res, &tex, view.as_ref())?;
        unsafe { write_out(out, object, "the texture object pointer") }
    })
}

/// Destroys a texture object (after the work queued before); null is a no-op.
#[no_mangle]
pub extern "C" fn hipDestroyTextureObject(object: usize) -> hipError_t {
    guard("hipDestroyTextureObject", || {
        texture::destroy(current_device()?, object)
    })
}

/// The resource description a texture object was created with.
///
/// # Safety
/// `out` must be null or valid for writing a `hipResourceDesc`.
#[no_mangle]
pub unsafe extern "C" fn hipGetTextureObjectResourceDesc(
    out: *mut ResourceDesc,
    object: usize,
) -> hipError_t {
    guard("hipGetTextureObjectResourceDesc", || {
        let (res, _) = texture::descriptions(object)?;
        unsafe { write_out(out, res, "the resource description pointer") }
    })
}

/// The texture description a texture object was created with.
///
/// # Safety
/// `out` must be null or valid for writing a `hipTextureDesc`.
#[no_mangle]
pub unsafe extern "C" fn hipGetTextureObjectTextureDesc(
    out: *mut TextureDesc,
    object: usize,
) -> hipError_t {
    guard("hipGetTextureObjectTextureDesc", || {
        let (_, tex) = texture::descriptions(object)?;
        unsafe { write_out(out, tex, "the texture description pointer") }
    })
}
