//! Memory: allocation (`hipMalloc`, `hipMallocManaged`, `hipHostMalloc`, ...), copies and fills
//! (synchronous and on streams), `hipMemGetInfo`, `hipPointerGetAttributes`.

use std::ffi::{c_int, c_uint, c_void};

use super::{guard, hipError_t, hipStream_t, write_out};
use crate::device::runtime;
use crate::error::{Failure, HipResult};
use crate::managed;
use crate::memory::{self, Copy2d, PointerAttributes};

unsafe fn alloc_into(
    ptr: *mut *mut c_void,
    alloc: impl FnOnce() -> HipResult<*mut c_void>,
) -> HipResult<()> {
    if ptr.is_null() {
        return Err(Failure::invalid_value("the result pointer is null"));
    }
    let p = alloc()?;
    // SAFETY: checked non-null; valid per the caller.
    unsafe { write_out(ptr, p, "the result pointer") }
}

/// Allocates `size` bytes of device memory (256-byte aligned) into `*ptr`; 0 bytes gives null.
///
/// # Safety
/// `ptr` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> hipError_t {
    guard("hipMalloc", || {
        on_cuda!(_cu => unsafe { alloc_into(ptr, || crate::cuda::memory::malloc(size)) });
        unsafe { alloc_into(ptr, || memory::malloc(size)) }
    })
}

/// Allocates managed memory (host and device use the same pointer): USM shared memory.
/// `flags`: `hipMemAttachGlobal` (1) or `hipMemAttachHost` (2).
///
/// # Safety
/// `ptr` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipMallocManaged(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    guard("hipMallocManaged", || {
        if flags != 1 && flags != 2 {
            return Err(Failure::invalid_value(format!(
                "flags {flags:#x}: use hipMemAttachGlobal (1) or hipMemAttachHost (2)"
            )));
        }
        on_cuda!(_cu => unsafe {
            alloc_into(ptr, || crate::cuda::memory::malloc_managed(size, flags))
        });
        unsafe { alloc_into(ptr, || memory::malloc_managed(size)) }
    })
}

/// Allocates pinned host memory the device can access (USM host memory). The flags
/// (`hipHostMallocPortable`, `Mapped`, `WriteCombined`, `Coherent`, ...) change nothing on OpenCL
/// and are accepted.
///
/// # Safety
/// `ptr` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipHostMalloc(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    guard("hipHostMalloc", || {
        on_cuda!(_cu => unsafe {
            alloc_into(ptr, || crate::cuda::memory::host_malloc(size, flags))
        });
        unsafe { alloc_into(ptr, || memory::host_malloc(size)) }
    })
}

/// `hipHostMalloc` with default flags.
///
/// # Safety
/// `ptr` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipMallocHost(ptr: *mut *mut c_void, size: usize) -> hipError_t {
    guard("hipMallocHost", || {
        on_cuda!(_cu => unsafe { alloc_into(ptr, || crate::cuda::memory::host_malloc(size, 0)) });
        unsafe { alloc_into(ptr, || memory::host_malloc(size)) }
    })
}

/// Allocates `height` rows of `width` bytes with each row 256-byte aligned; writes the pitch.
///
/// # Safety
/// `ptr` and `pitch` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipMallocPitch(
    ptr: *mut *mut c_void,
    pitch: *mut usize,
    width: usize,
    height: usize,
) -> hipError_t {
    guard("hipMallocPitch", || {
        if pitch.is_null() {
            return Err(Failure::invalid_value("the pitch pointer is null"));
        }
        let (row, total) = memory::pitched_layout(width, height, 1)?;
        match crate::select::cuda()? {
            Some(cu) => {
                cu.current()?;
                unsafe { alloc_into(ptr, || crate::cuda::memory::malloc(total))? }
            }
            None => unsafe { alloc_into(ptr, || memory::malloc(total))? },
        };
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(pitch, row, "the pitch pointer") }
    })
}

/// HIP's `hipExtent`: width in bytes, height and depth in rows and slices.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extent {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
}

/// HIP's `hipPitchedPtr`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PitchedPtr {
    pub ptr: *mut c_void,
    pub pitch: usize,
    pub xsize: usize,
    pub ysize: usize,
}

/// Allocates a 3-D array of `extent.depth` slices of `extent.height` rows, each row padded to a
/// 256-byte pitch. An extent whose size overflows is `hipErrorInvalidValue`; an empty one gives
/// null.
///
/// # Safety
/// `out` must be null or valid for writing a `hipPitchedPtr`.
#[no_mangle]
pub unsafe extern "C" fn hipMalloc3D(out: *mut PitchedPtr, extent: Extent) -> hipError_t {
    guard("hipMalloc3D", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the pitched pointer is null"));
        }
        let (pitch, total) = memory::pitched_layout(extent.width, extent.height, extent.depth)?;
        let ptr = match crate::select::cuda()? {
            Some(cu) => {
                cu.current()?;
                crate::cuda::memory::malloc(total)?
            }
            None => memory::malloc(total)?,
        };
        let result = PitchedPtr {
            ptr,
            pitch,
            xsize: extent.width,
            ysize: extent.height,
        };
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(out, result, "the pitched pointer") }
    })
}

/// Frees memory from `hipMalloc` or `hipMallocManaged`; null is a no-op. Waits for queued work.
///
/// # Safety
/// Always safe to call: pointers are checked against the allocation table.
#[no_mangle]
pub unsafe extern "C" fn hipFree(ptr: *mut c_void) -> hipError_t {
    guard("hipFree", || {
        on_cuda!(_cu => crate::cuda::memory::free(ptr));
        memory::free(ptr)
    })
}

/// Frees memory from `hipHostMalloc`/`hipMallocHost`; null is a no-op. Waits for queued work.
///
/// # Safety
/// Always safe to call: pointers are checked against the allocation table.
#[no_mangle]
pub unsafe extern "C" fn hipHostFree(ptr: *mut c_void) -> hipError_t {
    guard("hipHostFree", || {
        on_cuda!(_cu => crate::cuda::memory::host_free(ptr));
        memory::host_free(ptr)
    })
}

/// Deprecated spelling of `hipHostFree`.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipFreeHost(ptr: *mut c_void) -> hipError_t {
    guard("hipFreeHost", || {
        on_cuda!(_cu => crate::cuda::memory::host_free(ptr));
        memory::host_free(ptr)
    })
}

/// The device address of pinned host memory: the same pointer (USM host memory).
///
/// # Safety
/// `out` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipHostGetDevicePointer(
    out: *mut *mut c_void,
    host: *mut c_void,
    flags: c_uint,
) -> hipError_t {
    guard("hipHostGetDevicePointer", || {
        if flags != 0 {
            return Err(Failure::invalid_value("flags must be 0"));
        }
        on_cuda!(_cu => unsafe {
            write_out(out, crate::cuda::memory::host_device_pointer(host)?, "the result pointer")
        });
        match memory::find_allocation(host as usize) {
            Some((_, _, memory::AllocKind::HostUsm)) => unsafe {
                write_out(out, host, "the result pointer")
            },
            _ => Err(Failure::invalid_value(format!(
                "{host:p} is not device-accessible hipHostMalloc memory"
            ))),
        }
    })
}

/// Copies `size` bytes; `kind` is a `hipMemcpyKind` (4 = infer from the pointers). Synchronous.
///
/// # Safety
/// Host ranges must be valid for `size` bytes; device ranges are checked against the table.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipMemcpy", || {
        on_cuda!(_cu => crate::cuda::memory::memcpy(dst, src, size, kind));
        memory::memcpy(dst, src, size, kind)
    })
}

/// Enqueues a copy on `stream` and returns at once. Host memory must stay valid (and the
/// destination unread) until the stream is synchronized.
///
/// # Safety
/// As `hipMemcpy`, for as long as the copy is pending.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyAsync(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemcpyAsync", || {
        on_cuda!(_cu => crate::cuda::memory::memcpy_async(dst, src, size, kind, stream as usize));
        memory::memcpy_async(dst, src, size, kind, stream as usize)
    })
}

/// A copy ordered on `stream` that returns once it is done (what the stream held before it
/// included).
///
/// # Safety
/// As `hipMemcpyAsync`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyWithStream(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemcpyWithStream", || {
        on_cuda!(_cu => {
            crate::cuda::memory::memcpy_async(dst, src, size, kind, stream as usize)?;
            crate::cuda::stream::synchronize(stream as usize)
        });
        memory::memcpy_async(dst, src, size, kind, stream as usize)?;
        let target = crate::stream::resolve(stream as usize)?;
        crate::stream::synchronize(&target)
    })
}

/// Driver-API copies: host to device, device to host, device to device. Synchronous.
///
/// # Safety
/// As `hipMemcpy`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoD(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
) -> hipError_t {
    guard("hipMemcpyHtoD", || {
        on_cuda!(_cu => crate::cuda::memory::memcpy(dst, src, size, 1));
        memory::memcpy(dst, src, size, 1)
    })
}

/// # Safety
/// As `hipMemcpy`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoH(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
) -> hipError_t {
    guard("hipMemcpyDtoH", || {
        on_cuda!(_cu => crate::cuda::memory::memcpy(dst, src, size, 2));
        memory::memcpy(dst, src, size, 2)
    })
}

/// # Safety
/// As `hipMemcpy`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoD(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
) -> hipError_t {
    guard("hipMemcpyDtoD", || {
        on_cuda!(_cu => crate::cuda::memory::memcpy(dst, src, size, 3));
        memory::memcpy(dst, src, size, 3)
    })
}

/// Copies `height` rows of `width` bytes between pitched ranges. Synchronous.
///
/// # Safety
/// Host ranges must be valid for `pitch * (height - 1) + width` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy2D(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipMemcpy2D", || {
        on_cuda!(_cu => crate::cuda::memory::memcpy_2d(dst, dpitch, src, spitch, width, height, kind, None));
        let c = Copy2d {
            dst,
            dpitch,
            src,
            spitch,
            width,
            height,
        };
        memory::memcpy_2d(c, kind, 0, true)
    })
}

/// `hipMemcpy2D` on a stream, returning at once.
///
/// # Safety
/// As `hipMemcpy2D`, for as long as the copy is pending.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipMemcpy2DAsync(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemcpy2DAsync", || {
        on_cuda!(_cu => crate::cuda::memory::memcpy_2d(
            dst, dpitch, src, spitch, width, height, kind, Some(stream as usize)
        ));
        let c = Copy2d {
            dst,
            dpitch,
            src,
            spitch,
            width,
            height,
        };
        memory::memcpy_2d(c, kind, stream as usize, false)
    })
}

/// Sets `size` bytes of device memory to the byte `value`. Synchronous.
///
/// # Safety
/// Always safe to call: the range is checked against the allocation table.
#[no_mangle]
pub unsafe extern "C" fn hipMemset(dst: *mut c_void, value: c_int, size: usize) -> hipError_t {
    guard("hipMemset", || {
        on_cuda!(_cu => crate::cuda::memory::memset(dst, &[value as u8], size, None));
        memory::memset(dst, &[value as u8], size, 0, true)
    })
}

/// `hipMemset` on a stream.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipMemsetAsync(
    dst: *mut c_void,
    value: c_int,
    size: usize,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemsetAsync", || {
        on_cuda!(_cu => crate::cuda::memory::memset(dst, &[value as u8], size, Some(stream as usize)));
        memory::memset(dst, &[value as u8], size, stream as usize, false)
    })
}

/// Sets `count` bytes. Synchronous.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipMemsetD8(dst: *mut c_void, value: u8, count: usize) -> hipError_t {
    guard("hipMemsetD8", || {
        on_cuda!(_cu => crate::cuda::memory::memset(dst, &[value], count, None));
        memory::memset(dst, &[value], count, 0, true)
    })
}

/// Sets `count` 16-bit values. Synchronous.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipMemsetD16(dst: *mut c_void, value: u16, count: usize) -> hipError_t {
    guard("hipMemsetD16", || {
        on_cuda!(_cu => crate::cuda::memory::memset(dst, &value.to_ne_bytes(), count, None));
        memory::memset(dst, &value.to_ne_bytes(), count, 0, true)
    })
}

/// Sets `count` 32-bit values. Synchronous.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipMemsetD32(dst: *mut c_void, value: c_int, count: usize) -> hipError_t {
    guard("hipMemsetD32", || {
        on_cuda!(_cu => crate::cuda::memory::memset(dst, &value.to_ne_bytes(), count, None));
        memory::memset(dst, &value.to_ne_bytes(), count, 0, true)
    })
}

/// `hipMemsetD8` on a stream.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipMemsetD8Async(
    dst: *mut c_void,
    value: u8,
    count: usize,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemsetD8Async", || {
        on_cuda!(_cu => crate::cuda::memory::memset(dst, &[value], count, Some(stream as usize)));
        memory::memset(dst, &[value], count, stream as usize, false)
    })
}

/// `hipMemsetD16` on a stream.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipMemsetD16Async(
    dst: *mut c_void,
    value: u16,
    count: usize,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemsetD16Async", || {
        on_cuda!(_cu => crate::cuda::memory::memset(dst, &value.to_ne_bytes(), count, Some(stream as usize)));
        memory::memset(dst, &value.to_ne_bytes(), count, stream as usize, false)
    })
}

/// `hipMemsetD32` on a stream.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipMemsetD32Async(
    dst: *mut c_void,
    value: c_int,
    count: usize,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemsetD32Async", || {
        on_cuda!(_cu => crate::cuda::memory::memset(dst, &value.to_ne_bytes(), count, Some(stream as usize)));
        memory::memset(dst, &value.to_ne_bytes(), count, stream as usize, false)
    })
}

/// Free and total device memory. OpenCL tells only the total (CL_DEVICE_GLOBAL_MEM_SIZE); free
/// is the total less what this process has allocated.
///
/// # Safety
/// Each pointer must be null or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn hipMemGetInfo(free: *mut usize, total: *mut usize) -> hipError_t {
    guard("hipMemGetInfo", || {
        if free.is_null() || total.is_null() {
            return Err(Failure::invalid_value("a result pointer is null"));
        }
        on_cuda!(_cu => {
            let (f, t) = crate::cuda::memory::info()?;
            // SAFETY: checked non-null; valid per the caller.
            unsafe {
                write_out(total, t, "total")?;
                write_out(free, f, "free")
            }
        });
        let rt = runtime()?;
        let all = rt.info.global_mem_size;
        let available = all.saturating_sub(memory::device_bytes_in_use());
        // SAFETY: checked non-null; valid per the caller.
        unsafe {
            write_out(total, usize::try_from(all).unwrap_or(usize::MAX), "total")?;
            write_out(
                free,
                usize::try_from(available).unwrap_or(usize::MAX),
                "free",
            )
        }
    })
}

/// What the runtime knows about a pointer: device, managed or pinned host memory (interior
/// pointers included); other pointers are `hipMemoryTypeUnregistered`.
///
/// # Safety
/// `attributes` must be null or valid for writing a `hipPointerAttribute_t`.
#[no_mangle]
pub unsafe extern "C" fn hipPointerGetAttributes(
    attributes: *mut PointerAttributes,
    ptr: *const c_void,
) -> hipError_t {
    guard("hipPointerGetAttributes", || {
        if attributes.is_null() || ptr.is_null() {
            return Err(Failure::invalid_value(
                "the attributes pointer or the pointer is null",
            ));
        }
        on_cuda!(cu => {
            // HIP ordinals are indices into the backend's devices (HIPMLIR_DEVICE may hide some).
            let device_of = |ordinal: i32| {
                cu.devices.iter().position(|d| d.ordinal == ordinal).map_or(-1, |i| i as i32)
            };
            let a = crate::cuda::memory::pointer_attributes(ptr, device_of);
            // SAFETY: checked non-null; valid per the caller.
            unsafe { write_out(attributes, a, "the attributes pointer") }
        });
        // SAFETY: checked non-null; valid per the caller.
        unsafe {
            write_out(
                attributes,
                memory::pointer_attributes(ptr),
                "the attributes pointer",
            )
        }
    })
}

/// Prefetches managed memory to the device (0) or the host (`hipCpuDeviceId`) in stream order.
/// USM shared memory is coherent for both, and on a CPU device both are the same memory, so no
/// data moves (Intel's CPU runtime refuses `clEnqueueMigrateMemINTEL` on shared allocations); a
/// marker on `stream` keeps HIP's ordering (work and synchronizes after it wait for it), and the
/// destination is reported by `hipMemRangeGetAttribute`.
///
/// # Safety
/// Always safe to call: the range is checked against the allocation table.
#[no_mangle]
pub unsafe extern "C" fn hipMemPrefetchAsync(
    ptr: *const c_void,
    count: usize,
    device: c_int,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemPrefetchAsync", || {
        on_cuda!(cu => {
            let target = if device < 0 { device } else { cu.device(device)?.ordinal };
            crate::cuda::memory::prefetch(ptr, count, target, stream as usize)
        });
        let target = crate::stream::resolve(stream as usize)?;
        managed::note_prefetch(ptr as usize, count, device)?;
        let rt = runtime()?;
        crate::stream::enqueue_marker(rt, &target, &[])?;
        let _ = target.queue.flush();
        Ok(())
    })
}

/// Records a hint (`hipMemoryAdvise`) for a managed range; `hipMemRangeGetAttribute` reads it
/// back. Unknown advice is `hipErrorInvalidValue`, a device other than 0 or `hipCpuDeviceId`
/// `hipErrorInvalidDevice`.
///
/// # Safety
/// Always safe to call: the range is checked against the allocation table.
#[no_mangle]
pub unsafe extern "C" fn hipMemAdvise(
    ptr: *const c_void,
    count: usize,
    advice: c_int,
    device: c_int,
) -> hipError_t {
    guard("hipMemAdvise", || {
        on_cuda!(cu => {
            let target = if device < 0 { device } else { cu.device(device)?.ordinal };
            crate::cuda::memory::advise(ptr, count, advice, target)
        });
        managed::advise(ptr as usize, count, advice, device)
    })
}

/// Writes one attribute (`hipMemRangeAttribute`) of a managed range into `data` (`data_size`
/// bytes: 4, or for `hipMemRangeAttributeAccessedBy` a multiple of 4).
///
/// # Safety
/// `data` must be null or valid for writing `data_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipMemRangeGetAttribute(
    data: *mut c_void,
    data_size: usize,
    attribute: c_int,
    ptr: *const c_void,
    count: usize,
) -> hipError_t {
    guard("hipMemRangeGetAttribute", || {
        on_cuda!(_cu => crate::cuda::memory::range_attribute(data, data_size, attribute, ptr, count));
        unsafe { range_attribute_into(data, data_size, attribute, ptr, count) }
    })
}

/// [`hipMemRangeGetAttribute`] for several attributes at once.
///
/// # Safety
/// The three arrays must be null or hold `num_attributes` entries; each `data[i]` must be null or
/// valid for writing `data_sizes[i]` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipMemRangeGetAttributes(
    data: *mut *mut c_void,
    data_sizes: *mut usize,
    attributes: *mut c_int,
    num_attributes: usize,
    ptr: *const c_void,
    count: usize,
) -> hipError_t {
    guard("hipMemRangeGetAttributes", || {
        if data.is_null() || data_sizes.is_null() || attributes.is_null() || num_attributes == 0 {
            return Err(Failure::invalid_value(
                "the data, sizes and attributes arrays must be non-null and non-empty",
            ));
        }
        let cuda = crate::select::cuda()?;
        if let Some(cu) = cuda {
            cu.current()?;
        }
        for i in 0..num_attributes {
            // SAFETY: per the caller, each array holds `num_attributes` entries.
            if cuda.is_some() {
                unsafe {
                    crate::cuda::memory::range_attribute(
                        *data.add(i),
                        *data_sizes.add(i),
                        *attributes.add(i),
                        ptr,
                        count,
                    )?;
                }
                continue;
            }
            unsafe {
                range_attribute_into(
                    *data.add(i),
                    *data_sizes.add(i),
                    *attributes.add(i),
                    ptr,
                    count,
                )?;
            }
        }
        Ok(())
    })
}

/// # Safety
/// `data` must be null or valid for writing `data_size` bytes.
unsafe fn range_attribute_into(
    data: *mut c_void,
    data_size: usize,
    attribute: c_int,
    ptr: *const c_void,
    count: usize,
) -> HipResult<()> {
    if data.is_null() {
        return Err(Failure::invalid_value("the data pointer is null"));
    }
    let values = managed::range_attribute(attribute, data_size, ptr as usize, count)?;
    // SAFETY: `values` holds `data_size / 4` ints and `data` is valid for `data_size` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(
            values.as_ptr().cast::<u8>(),
            data.cast::<u8>(),
            values.len() * 4,
        )
    };
    Ok(())
}
