//! Memory: allocation (`hipMalloc`, `hipMallocManaged`, `hipHostMalloc`, ...), copies and fills
//! (synchronous and on streams), `hipMemGetInfo`, managed-memory hints and prefetches. Pointer
//! queries are in `pointer`, host registration in `host_memory`, the driver API's copies in
//! `driver_memory`, 2-D and 3-D fills in `memset`.

use std::ffi::{c_int, c_uint, c_void};

use super::{current_device, guard, hipError_t, hipStream_t, location, stream, write_out};
use crate::backend::{
    ops, pitched_layout, Copy2d, Copy3d, Extent, Fill, FreeKind, MemAdvice, MemcpyKind, MemoryKind,
    MemoryType, Pattern, PitchedPtr, RangeAttribute,
};
use crate::error::{Failure, HipResult};

/// `size` bytes of `kind` on the calling thread's device; 0 bytes gives null, as in HIP.
fn allocate(kind: MemoryKind, size: usize) -> HipResult<*mut c_void> {
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    crate::graph::capture::check_unsafe_call("allocating memory")?;
    current_device()?.allocate(kind, size)
}

/// Allocates into `*ptr` (null: `hipErrorInvalidValue`).
///
/// # Safety
/// `ptr` must be null or valid for writing a pointer.
pub(super) unsafe fn alloc_into(
    ptr: *mut *mut c_void,
    kind: MemoryKind,
    size: usize,
) -> HipResult<()> {
    if ptr.is_null() {
        return Err(Failure::invalid_value("the result pointer is null"));
    }
    let p = allocate(kind, size)?;
    // SAFETY: checked non-null; valid per the caller.
    unsafe { write_out(ptr, p, "the result pointer") }
}

/// Frees `p` (null: nothing) after the work queued before it.
fn free(p: *mut c_void, kind: FreeKind) -> HipResult<()> {
    if p.is_null() {
        return Ok(());
    }
    crate::graph::capture::check_unsafe_call("freeing memory")?;
    let device = current_device()?;
    // Graph allocations keep their memory (it is their node's); pool memory returns to its pool.
    if kind == FreeKind::Device
        && (crate::graph::memory::free_outside_graph(p)? || crate::mempool::free_sync(device, p)?)
    {
        return Ok(());
    }
    device.free(p, kind)
}

/// Allocates `size` bytes of device memory (256-byte aligned) into `*ptr`; 0 bytes gives null.
///
/// # Safety
/// `ptr` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> hipError_t {
    guard("hipMalloc", || unsafe {
        alloc_into(ptr, MemoryKind::Device, size)
    })
}

/// Allocates managed memory (host and device use the same pointer).
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
        unsafe { alloc_into(ptr, MemoryKind::Managed { flags }, size) }
    })
}

/// `hipHostMallocCoherent` and `hipHostMallocNonCoherent`, which exclude each other.
const HOST_MALLOC_COHERENT: c_uint = 0x4000_0000;
const HOST_MALLOC_NON_COHERENT: c_uint = 0x8000_0000;
/// Every `hipHostMalloc*` flag: portable, mapped, write-combined, uncached, NUMA user, coherent,
/// non-coherent.
const HOST_MALLOC_FLAGS: c_uint =
    0x1 | 0x2 | 0x4 | 0x1000_0000 | 0x2000_0000 | HOST_MALLOC_COHERENT | HOST_MALLOC_NON_COHERENT;

/// Pinned host memory with HIP's flags (checked: unknown bits, or coherent with non-coherent,
/// are `hipErrorInvalidValue`), for `hipHostMalloc` and its other spellings.
///
/// # Safety
/// `ptr` must be null or valid for writing a pointer.
pub(super) unsafe fn host_alloc_into(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> HipResult<()> {
    if flags & !HOST_MALLOC_FLAGS != 0 {
        return Err(Failure::invalid_value(format!(
            "host allocation flags {flags:#x} include bits that are no hipHostMalloc flag"
        )));
    }
    let both = HOST_MALLOC_COHERENT | HOST_MALLOC_NON_COHERENT;
    if flags & both == both {
        return Err(Failure::invalid_value(
            "hipHostMallocCoherent and hipHostMallocNonCoherent exclude each other",
        ));
    }
    // SAFETY: per the caller.
    unsafe { alloc_into(ptr, MemoryKind::PinnedHost { flags }, size) }
}

/// Allocates pinned host memory the device can access. The flags (`hipHostMallocPortable`,
/// `Mapped`, `WriteCombined`, `Coherent`, ...) are the backend's to honour (OpenCL: kept for
/// `hipHostGetFlags`).
///
/// # Safety
/// `ptr` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipHostMalloc(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    guard("hipHostMalloc", || unsafe {
        host_alloc_into(ptr, size, flags)
    })
}

/// `hipHostMalloc` with default flags.
///
/// # Safety
/// `ptr` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipMallocHost(ptr: *mut *mut c_void, size: usize) -> hipError_t {
    guard("hipMallocHost", || unsafe {
        alloc_into(ptr, MemoryKind::PinnedHost { flags: 0 }, size)
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
        let (row, total) = pitched_layout(width, height, 1)?;
        unsafe { alloc_into(ptr, MemoryKind::Device, total)? };
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(pitch, row, "the pitch pointer") }
    })
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
        let (pitch, total) = pitched_layout(extent.width, extent.height, extent.depth)?;
        let result = PitchedPtr {
            ptr: allocate(MemoryKind::Device, total)?,
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
/// Always safe to call: pointers are checked (against the allocation table, or by the driver).
#[no_mangle]
pub unsafe extern "C" fn hipFree(ptr: *mut c_void) -> hipError_t {
    guard("hipFree", || free(ptr, FreeKind::Device))
}

/// Frees memory from `hipHostMalloc`/`hipMallocHost`; null is a no-op. Waits for queued work.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipHostFree(ptr: *mut c_void) -> hipError_t {
    guard("hipHostFree", || free(ptr, FreeKind::Host))
}

/// Deprecated spelling of `hipHostFree`.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipFreeHost(ptr: *mut c_void) -> hipError_t {
    guard("hipFreeHost", || free(ptr, FreeKind::Host))
}

/// A synchronous copy: on the calling thread's device's null stream (after earlier work on
/// blocking streams), returning once it is done. A host-to-host copy before any device is open
/// has nothing to be ordered with and touches no device.
/// Whether a synchronous fill of `dst` returns only once it is done. AMD's HIP (as CUDA) leaves
/// the host free when `dst` is device memory (the stream keeps the order, and the host cannot
/// read such memory itself), unless the program asked for synchronous memory operations on it
/// (`HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS`); pinned, registered and managed memory are waited for.
/// Synchronous copies always wait: AMD's hipMemcpy does, device to device too, and programs
/// written for AMD GPUs may count on it (CUDA's does not there).
pub(super) fn synchronous_fill_waits(dst: *const c_void) -> HipResult<bool> {
    Ok(!matches!(
        current_device()?.allocation(dst)?,
        Some(a) if a.memory == MemoryType::Device && !a.sync_memops
    ))
}

fn copy_sync(copy: Copy3d, kind: c_int) -> HipResult<()> {
    let kind = MemcpyKind::parse(kind)?;
    if copy.is_empty() {
        return Ok(());
    }
    copy.check()?;
    let host_only = matches!(kind, MemcpyKind::HostToHost | MemcpyKind::Default);
    if host_only && copy.is_linear() && crate::select::backend_if_initialized().is_none() {
        // SAFETY: both are host ranges the caller vouches for; `copy` allows overlap.
        unsafe { std::ptr::copy(copy.src.cast::<u8>(), copy.dst.cast::<u8>(), copy.width) };
        return Ok(());
    }
    ops::copy(&current_device()?.null_stream(), &copy, kind, true)
}

/// A copy on `s`; with `wait`, returns once it is done.
pub(super) fn copy_on(s: hipStream_t, copy: Copy3d, kind: c_int, wait: bool) -> HipResult<()> {
    let kind = MemcpyKind::parse(kind)?;
    ops::copy(&*stream(s)?, &copy, kind, wait)
}

/// Copies `size` bytes; `kind` is a `hipMemcpyKind` (4 = infer from the pointers). Synchronous.
///
/// # Safety
/// Host ranges must be valid for `size` bytes; device ranges are checked.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipMemcpy", || {
        copy_sync(Copy3d::linear(dst, src, size), kind)
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
        copy_on(stream, Copy3d::linear(dst, src, size), kind, false)
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
        copy_on(stream, Copy3d::linear(dst, src, size), kind, true)
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
        copy_sync(
            Copy3d::linear(dst, src, size),
            MemcpyKind::HostToDevice as c_int,
        )
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
        copy_sync(
            Copy3d::linear(dst, src, size),
            MemcpyKind::DeviceToHost as c_int,
        )
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
        copy_sync(
            Copy3d::linear(dst, src, size),
            MemcpyKind::DeviceToDevice as c_int,
        )
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
        let c = Copy2d {
            dst,
            dpitch,
            src,
            spitch,
            width,
            height,
        };
        copy_sync(Copy3d::planar(c), kind)
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
        let c = Copy2d {
            dst,
            dpitch,
            src,
            spitch,
            width,
            height,
        };
        copy_on(stream, Copy3d::planar(c), kind, false)
    })
}

/// A fill of `count` values from `dst` on: synchronous on the null stream (`stream` `None`),
/// else on that stream.
fn fill(
    dst: *mut c_void,
    pattern: Pattern,
    count: usize,
    on: Option<hipStream_t>,
) -> HipResult<()> {
    let f = Fill::linear(dst, pattern, count);
    match on {
        None => ops::fill(
            &current_device()?.null_stream(),
            &f,
            synchronous_fill_waits(f.dst)?,
        ),
        Some(s) => ops::fill(&*stream(s)?, &f, false),
    }
}

/// Sets `size` bytes of device memory to the byte `value`. Synchronous.
///
/// # Safety
/// Always safe to call: the range is checked (against the allocation table, or by the driver).
#[no_mangle]
pub unsafe extern "C" fn hipMemset(dst: *mut c_void, value: c_int, size: usize) -> hipError_t {
    guard("hipMemset", || {
        fill(dst, Pattern::u8(value as u8), size, None)
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
        fill(dst, Pattern::u8(value as u8), size, Some(stream))
    })
}

/// Sets `count` bytes. Synchronous.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipMemsetD8(dst: *mut c_void, value: u8, count: usize) -> hipError_t {
    guard("hipMemsetD8", || fill(dst, Pattern::u8(value), count, None))
}

/// Sets `count` 16-bit values. Synchronous.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipMemsetD16(dst: *mut c_void, value: u16, count: usize) -> hipError_t {
    guard("hipMemsetD16", || {
        fill(dst, Pattern::u16(value), count, None)
    })
}

/// Sets `count` 32-bit values. Synchronous.
///
/// # Safety
/// Always safe to call.
#[no_mangle]
pub unsafe extern "C" fn hipMemsetD32(dst: *mut c_void, value: c_int, count: usize) -> hipError_t {
    guard("hipMemsetD32", || {
        fill(dst, Pattern::u32(value as u32), count, None)
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
        fill(dst, Pattern::u8(value), count, Some(stream))
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
        fill(dst, Pattern::u16(value), count, Some(stream))
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
        fill(dst, Pattern::u32(value as u32), count, Some(stream))
    })
}

/// Free and total device memory (on OpenCL, which tells only the total, free is the total less
/// what this process has allocated).
///
/// # Safety
/// Each pointer must be null or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn hipMemGetInfo(free: *mut usize, total: *mut usize) -> hipError_t {
    guard("hipMemGetInfo", || {
        if free.is_null() || total.is_null() {
            return Err(Failure::invalid_value("a result pointer is null"));
        }
        let (f, t) = current_device()?.memory_info()?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe {
            write_out(total, t, "total")?;
            write_out(free, f, "free")
        }
    })
}

/// Prefetches managed memory to a device or the host (`hipCpuDeviceId`) in stream order (on
/// OpenCL a marker: USM shared memory is coherent; the destination is reported by
/// `hipMemRangeGetAttribute`). A null pointer or an empty range is `hipErrorInvalidValue`,
/// whatever the device.
///
/// # Safety
/// Always safe to call: the range is checked.
#[no_mangle]
pub unsafe extern "C" fn hipMemPrefetchAsync(
    ptr: *const c_void,
    count: usize,
    device: c_int,
    s: hipStream_t,
) -> hipError_t {
    guard("hipMemPrefetchAsync", || {
        // The range is checked before the device, as HIP does.
        if ptr.is_null() || count == 0 {
            return Err(Failure::invalid_value(format!(
                "prefetching {count} bytes at {ptr:p}: a null pointer or an empty range"
            )));
        }
        let to = location(device)?;
        ops::prefetch(&*stream(s)?, ptr, count, to)
    })
}

/// Records a hint (`hipMemoryAdvise`) for a managed range; `hipMemRangeGetAttribute` reads it
/// back. Unknown advice is `hipErrorInvalidValue`; a location that is neither a device nor
/// `hipCpuDeviceId` `hipErrorInvalidDevice` (for every advice but `hipMemAdviseSetReadMostly`,
/// which names none).
///
/// # Safety
/// Always safe to call: the range is checked.
#[no_mangle]
pub unsafe extern "C" fn hipMemAdvise(
    ptr: *const c_void,
    count: usize,
    advice: c_int,
    device: c_int,
) -> hipError_t {
    guard("hipMemAdvise", || {
        let advice = MemAdvice::parse(advice)?;
        // Every advice but read-mostly names a device or the host, checked even where the
        // advice does not keep it (as HIP checks it); read-mostly ignores the device argument
        // (setting and unsetting alike, as CUDA documents).
        let at = match advice {
            MemAdvice::SetReadMostly | MemAdvice::UnsetReadMostly => None,
            _ => Some(location(device)?),
        };
        let at = at.filter(|_| advice.takes_location());
        current_device()?.advise(ptr, count, advice, at)
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
    guard("hipMemRangeGetAttribute", || unsafe {
        range_attribute_into(data, data_size, attribute, ptr, count)
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
        for i in 0..num_attributes {
            // SAFETY: per the caller, each array holds `num_attributes` entries.
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
    let attribute = RangeAttribute::parse(attribute)?;
    let device = current_device()?;
    // SAFETY: valid for `data_size` bytes per the caller.
    let out = unsafe { std::slice::from_raw_parts_mut(data.cast::<u8>(), data_size) };
    device.range_attribute(attribute, ptr, count, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::HipError;

    #[test]
    fn memcpy_kind_is_validated_before_anything_else() {
        let copy = |size| Copy3d::linear(std::ptr::null_mut(), std::ptr::null(), size);
        let e = copy_sync(copy(4), 9).unwrap_err();
        assert_eq!(e.code, HipError::InvalidMemcpyDirection);
        assert_eq!(copy_sync(copy(0), 1), Ok(()));
        let e = copy_sync(copy(4), 1).unwrap_err();
        assert_eq!(e.code, HipError::InvalidValue);
    }

    /// Strided fills and copies (2-D rows, 3-D slices with gaps between them) through the
    /// backend interface on the real device, on the null stream and on a created stream, every
    /// byte compared with a host reference.
    #[test]
    fn region_fills_and_copies_on_the_device() {
        use crate::backend::{Stream, StreamFlags};

        const SIZE: usize = 1024;
        let device = current_device().expect("a device");
        let base = device.allocate(MemoryKind::Device, SIZE).unwrap();
        let null = device.null_stream();
        let queue = device.create_stream(StreamFlags::default(), 0).unwrap();
        let created = Stream::new(device.id(), queue);
        let read_back = || {
            let mut out = vec![0u8; SIZE];
            let all = Copy3d::linear(out.as_mut_ptr().cast(), base, SIZE);
            ops::copy(&null, &all, MemcpyKind::DeviceToHost, true).unwrap();
            out
        };
        let mut expected = vec![0xabu8; SIZE];
        ops::fill(&null, &Fill::linear(base, Pattern::u8(0xab), SIZE), true).unwrap();
        assert_eq!(read_back(), expected);

        // 10 u16 values per row, rows 64 bytes apart, 3 rows per slice, slices 256 bytes apart
        // (a gap after each slice's rows), 2 slices, from byte 32 on.
        let at = |offset: usize| (base as usize + offset) as *mut c_void;
        let fill = Fill {
            dst: at(32),
            pattern: Pattern::u16(0x1234),
            count: 10,
            pitch: 64,
            height: 3,
            slice: 256,
            depth: 2,
        };
        ops::fill(&created, &fill, false).unwrap();
        created.queue().synchronize().unwrap();
        for z in 0..2 {
            for y in 0..3 {
                for x in 0..10 {
                    let o = 32 + z * 256 + y * 64 + 2 * x;
                    expected[o..o + 2].copy_from_slice(&0x1234u16.to_ne_bytes());
                }
            }
        }
        assert_eq!(read_back(), expected);

        // A packed host box of 2 slices of 4 rows of 24 bytes into rows 40 bytes apart, slices
        // 512 bytes apart, from byte 8 on; then out again into a host box with gaps.
        let host: Vec<u8> = (0..2 * 4 * 24).map(|i| (i * 7 + 1) as u8).collect();
        let into = Copy3d {
            dst: at(8),
            dst_pitch: 40,
            dst_slice: 512,
            src: host.as_ptr().cast(),
            src_pitch: 24,
            src_slice: 96,
            width: 24,
            height: 4,
            depth: 2,
        };
        ops::copy(&null, &into, MemcpyKind::HostToDevice, true).unwrap();
        for z in 0..2 {
            for y in 0..4 {
                let (o, h) = (8 + z * 512 + y * 40, z * 96 + y * 24);
                expected[o..o + 24].copy_from_slice(&host[h..h + 24]);
            }
        }
        assert_eq!(read_back(), expected);
        let mut out = vec![0u8; 2 * 5 * 32];
        let back = Copy3d {
            dst: out.as_mut_ptr().cast(),
            dst_pitch: 32,
            dst_slice: 160,
            src: at(8),
            src_pitch: 40,
            src_slice: 512,
            width: 24,
            height: 4,
            depth: 2,
        };
        ops::copy(&created, &back, MemcpyKind::DeviceToHost, false).unwrap();
        created.queue().synchronize().unwrap();
        for z in 0..2 {
            for y in 0..4 {
                let (o, h) = (z * 160 + y * 32, z * 96 + y * 24);
                assert_eq!(out[o..o + 24], host[h..h + 24], "slice {z} row {y}");
            }
        }
        assert!(out[24..32].iter().all(|&b| b == 0), "bytes past the width");
        device.free(base, FreeKind::Device).unwrap();
    }

    #[test]
    fn host_to_host_needs_no_device() {
        let src = [1u8, 2, 3, 4];
        let mut dst = [0u8; 4];
        let copy = Copy3d::linear(dst.as_mut_ptr().cast(), src.as_ptr().cast(), 4);
        copy_sync(copy, MemcpyKind::HostToHost as c_int).unwrap();
        assert_eq!(dst, src);
    }
}
