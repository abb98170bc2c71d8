//! Arrays through the driver API and the copies that reach them byte by byte:
//! `hipArrayCreate`, `hipArray3DCreate`, `hipArrayDestroy`, their descriptors, `hipMemcpyHtoA`,
//! `hipMemcpyAtoH` (and `Async`), `hipMemcpyAtoD`, `hipMemcpyDtoA`, `hipMemcpyAtoA` and
//! `hipMemcpy2DArrayToArray`. An array's byte offset counts its rows one after the other (across
//! slices), as `hipMemcpyToArray` reads them.

use std::ffi::c_void;

use super::texture::target;
use super::{current_device, guard, hipError_t, hipStream_t, read_in, write_out};
use crate::arrays::{self, Array3DDescriptor, ArrayDescriptor, Linear, Place, Side};
use crate::backend::MemcpyKind;
use crate::error::{Failure, HipResult};

/// Creates the array a driver API description names, into `*out`.
///
/// # Safety
/// `out` must be null or valid for writing a handle.
unsafe fn create(out: *mut usize, d: &Array3DDescriptor) -> HipResult<()> {
    if out.is_null() {
        return Err(Failure::invalid_value("the array pointer is null"));
    }
    let (desc, extent) = d.to_runtime()?;
    let handle = arrays::allocate(current_device()?, &desc, extent, d.Flags)?;
    // SAFETY: checked non-null; valid per the caller.
    unsafe { write_out(out, handle, "the array pointer") }
}

/// Creates a 1-D (`Height` 0) or 2-D array of `NumChannels` (1, 2 or 4) channels of `Format`.
///
/// # Safety
/// `array` must be null or valid for writing a handle; `desc` null or valid for reading.
#[no_mangle]
pub unsafe extern "C" fn hipArrayCreate(
    array: *mut usize,
    desc: *const ArrayDescriptor,
) -> hipError_t {
    guard("hipArrayCreate", || {
        // SAFETY: per the caller.
        let d = unsafe { read_in(desc, "the array description") }?;
        let d3 = Array3DDescriptor {
            Width: d.Width,
            Height: d.Height,
            Depth: 0,
            Format: d.Format,
            NumChannels: d.NumChannels,
            Flags: 0,
        };
        // SAFETY: per the caller.
        unsafe { create(array, &d3) }
    })
}

/// Creates a 1-D, 2-D, 3-D or layered (`hipArrayLayered` in `Flags`) array.
///
/// # Safety
/// As `hipArrayCreate`.
#[no_mangle]
pub unsafe extern "C" fn hipArray3DCreate(
    array: *mut usize,
    desc: *const Array3DDescriptor,
) -> hipError_t {
    guard("hipArray3DCreate", || {
        // SAFETY: per the caller.
        let d = unsafe { read_in(desc, "the array description") }?;
        // SAFETY: per the caller.
        unsafe { create(array, &d) }
    })
}

/// Frees an array, as `hipFreeArray` does.
#[no_mangle]
pub extern "C" fn hipArrayDestroy(array: usize) -> hipError_t {
    guard("hipArrayDestroy", || arrays::free(current_device()?, array))
}

/// The driver API's description of a 1-D or 2-D array.
///
/// # Safety
/// `desc` must be null or valid for writing a `HIP_ARRAY_DESCRIPTOR`.
#[no_mangle]
pub unsafe extern "C" fn hipArrayGetDescriptor(
    desc: *mut ArrayDescriptor,
    array: usize,
) -> hipError_t {
    guard("hipArrayGetDescriptor", || {
        let a = arrays::get(array)?;
        let d = Array3DDescriptor::of(&a);
        let d2 = ArrayDescriptor {
            Width: d.Width,
            Height: d.Height,
            Format: d.Format,
            NumChannels: d.NumChannels,
        };
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { write_out(desc, d2, "the description pointer") }
    })
}

/// The driver API's description of any array.
///
/// # Safety
/// `desc` must be null or valid for writing a `HIP_ARRAY3D_DESCRIPTOR`.
#[no_mangle]
pub unsafe extern "C" fn hipArray3DGetDescriptor(
    desc: *mut Array3DDescriptor,
    array: usize,
) -> hipError_t {
    guard("hipArray3DGetDescriptor", || {
        let a = arrays::get(array)?;
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { write_out(desc, Array3DDescriptor::of(&a), "the description pointer") }
    })
}

/// A linear copy on `s` (`None`: synchronous).
fn linear(
    s: Option<hipStream_t>,
    dst: Linear,
    src: Linear,
    count: usize,
    kind: MemcpyKind,
) -> HipResult<()> {
    let (device, on) = target(s)?;
    arrays::copy_linear(device, on.as_deref(), dst, src, count, kind)
}

/// The array of a host-to-array or array-to-host copy (hipMemcpyHtoA, hipMemcpyAtoH): a null one
/// is `hipErrorInvalidValue`, as AMD's runtime answers (a handle that is not an array's stays
/// `hipErrorInvalidHandle`).
fn not_null(handle: usize) -> HipResult<()> {
    if handle == 0 {
        return Err(Failure::invalid_value("the array is null"));
    }
    Ok(())
}

/// Copies `count` bytes of host memory into an array, from byte `offset` on. Synchronous.
///
/// # Safety
/// `src` must be valid for `count` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoA(
    dst: usize,
    offset: usize,
    src: *const c_void,
    count: usize,
) -> hipError_t {
    guard("hipMemcpyHtoA", || {
        not_null(dst)?;
        let dst = Linear::Array {
            handle: dst,
            offset,
        };
        let src = Linear::Memory(src as *mut c_void);
        linear(None, dst, src, count, MemcpyKind::HostToDevice)
    })
}

/// `hipMemcpyHtoA` on a stream.
///
/// # Safety
/// As `hipMemcpyHtoA`, for as long as the copy is pending.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoAAsync(
    dst: usize,
    offset: usize,
    src: *const c_void,
    count: usize,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemcpyHtoAAsync", || {
        not_null(dst)?;
        let dst = Linear::Array {
            handle: dst,
            offset,
        };
        let src = Linear::Memory(src as *mut c_void);
        linear(Some(stream), dst, src, count, MemcpyKind::HostToDevice)
    })
}

/// Copies `count` bytes of an array, from byte `offset` on, into host memory. Synchronous.
///
/// # Safety
/// `dst` must be valid for `count` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyAtoH(
    dst: *mut c_void,
    src: usize,
    offset: usize,
    count: usize,
) -> hipError_t {
    guard("hipMemcpyAtoH", || {
        not_null(src)?;
        let src = Linear::Array {
            handle: src,
            offset,
        };
        linear(
            None,
            Linear::Memory(dst),
            src,
            count,
            MemcpyKind::DeviceToHost,
        )
    })
}

/// `hipMemcpyAtoH` on a stream.
///
/// # Safety
/// As `hipMemcpyAtoH`, for as long as the copy is pending.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyAtoHAsync(
    dst: *mut c_void,
    src: usize,
    offset: usize,
    count: usize,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemcpyAtoHAsync", || {
        not_null(src)?;
        let src = Linear::Array {
            handle: src,
            offset,
        };
        let dst = Linear::Memory(dst);
        linear(Some(stream), dst, src, count, MemcpyKind::DeviceToHost)
    })
}

/// Copies `count` bytes of an array, from byte `offset` on, into device memory. Synchronous.
#[no_mangle]
pub extern "C" fn hipMemcpyAtoD(
    dst: *mut c_void,
    src: usize,
    offset: usize,
    count: usize,
) -> hipError_t {
    guard("hipMemcpyAtoD", || {
        let src = Linear::Array {
            handle: src,
            offset,
        };
        linear(
            None,
            Linear::Memory(dst),
            src,
            count,
            MemcpyKind::DeviceToDevice,
        )
    })
}

/// Copies `count` bytes of device memory into an array, from byte `offset` on. Synchronous.
#[no_mangle]
pub extern "C" fn hipMemcpyDtoA(
    dst: usize,
    offset: usize,
    src: *const c_void,
    count: usize,
) -> hipError_t {
    guard("hipMemcpyDtoA", || {
        let dst = Linear::Array {
            handle: dst,
            offset,
        };
        let src = Linear::Memory(src as *mut c_void);
        linear(None, dst, src, count, MemcpyKind::DeviceToDevice)
    })
}

/// Copies `count` bytes between two arrays, each from its own byte offset on. Synchronous.
#[no_mangle]
pub extern "C" fn hipMemcpyAtoA(
    dst: usize,
    dst_offset: usize,
    src: usize,
    src_offset: usize,
    count: usize,
) -> hipError_t {
    guard("hipMemcpyAtoA", || {
        let dst = Linear::Array {
            handle: dst,
            offset: dst_offset,
        };
        let src = Linear::Array {
            handle: src,
            offset: src_offset,
        };
        linear(None, dst, src, count, MemcpyKind::DeviceToDevice)
    })
}

/// Copies `height` rows of `width` bytes between the first slices of two arrays, each at its own
/// byte and row offset. Synchronous; `kind` must be a `hipMemcpyKind` (arrays are device memory
/// whatever it says).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn hipMemcpy2DArrayToArray(
    dst: usize,
    w_offset_dst: usize,
    h_offset_dst: usize,
    src: usize,
    w_offset_src: usize,
    h_offset_src: usize,
    width: usize,
    height: usize,
    kind: std::ffi::c_int,
) -> hipError_t {
    guard("hipMemcpy2DArrayToArray", || {
        MemcpyKind::parse(kind)?;
        let dst = Side::at(Place::array(dst)?, w_offset_dst, h_offset_dst, 0);
        let src = Side::at(Place::array(src)?, w_offset_src, h_offset_src, 0);
        let device = current_device()?;
        arrays::copy_region(
            device,
            None,
            &dst,
            &src,
            width,
            height,
            1,
            MemcpyKind::DeviceToDevice,
        )
    })
}
