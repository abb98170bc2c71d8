//! Memory on the CUDA backend: `cuMemAlloc` (device), `cuMemHostAlloc` (pinned, mapped),
//! `cuMemAllocManaged`; copies and fills through unified addressing (the driver tells host from
//! device pointers, so a copy's kind is checked but not needed); pointer attributes from the
//! driver.

use std::collections::BTreeMap;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Mutex;

use super::driver::{check, sys, HOST_ALLOC_MAPPED};
use super::stream::CudaQueue;
use crate::backend::{
    Allocation, Copy2d, Copy3d, Fill, MemAdvice, MemcpyKind, MemoryType, RangeAttribute,
};
use crate::error::{Failure, HipError, HipResult};

fn ptr(p: u64) -> *mut c_void {
    p as usize as *mut c_void
}

fn dptr(p: *const c_void) -> sys::CUdeviceptr {
    p as usize as u64
}

/// `hipMalloc`: 0 bytes gives null.
pub fn malloc(size: usize) -> HipResult<*mut c_void> {
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    let mut p = 0;
    // SAFETY: writes one device pointer.
    check("cuMemAlloc", unsafe { sys::cuMemAlloc_v2(&mut p, size) })
        .map_err(|f| Failure::new(f.code, format!("{size} bytes: {}", f.message)))?;
    Ok(ptr(p))
}

/// `hipMallocManaged`: `hipMemAttachGlobal` (1) and `hipMemAttachHost` (2) are the driver's.
pub fn malloc_managed(size: usize, flags: c_uint) -> HipResult<*mut c_void> {
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    let mut p = 0;
    // SAFETY: writes one pointer.
    check("cuMemAllocManaged", unsafe {
        sys::cuMemAllocManaged(&mut p, size, flags)
    })?;
    Ok(ptr(p))
}

/// `hipHostMalloc`: pinned host memory, always portable and mapped (the device reaches it at the
/// same address, as HIP programs expect); `hipHostMallocWriteCombined` (4) is kept.
pub fn host_malloc(size: usize, flags: c_uint) -> HipResult<*mut c_void> {
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    const WRITECOMBINED: c_uint = 4;
    let mut p: *mut c_void = std::ptr::null_mut();
    // SAFETY: writes one pointer.
    check("cuMemHostAlloc", unsafe {
        sys::cuMemHostAlloc(&mut p, size, HOST_ALLOC_MAPPED | (flags & WRITECOMBINED))
    })?;
    Ok(p)
}

fn memory_type(p: *const c_void) -> Option<sys::CUmemorytype> {
    let mut t: c_uint = 0;
    // SAFETY: MEMORY_TYPE is written as an unsigned int.
    let r = unsafe {
        sys::cuPointerGetAttribute(
            (&mut t as *mut c_uint).cast(),
            sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
            dptr(p),
        )
    };
    if r != sys::CUresult::CUDA_SUCCESS {
        return None;
    }
    Some(match t {
        1 => sys::CUmemorytype::CU_MEMORYTYPE_HOST,
        2 => sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        3 => sys::CUmemorytype::CU_MEMORYTYPE_ARRAY,
        _ => sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED,
    })
}

/// `hipFree`: device or managed memory (and, as HIP allows, pinned host memory); null is a no-op.
pub fn free(p: *mut c_void) -> HipResult<()> {
    if p.is_null() {
        return Ok(());
    }
    match memory_type(p) {
        // SAFETY: pinned memory the driver knows.
        Some(sys::CUmemorytype::CU_MEMORYTYPE_HOST) => {
            check("cuMemFreeHost", unsafe { sys::cuMemFreeHost(p) })
        }
        // SAFETY: device memory the driver knows; the driver rejects inner pointers.
        Some(_) => check("cuMemFree", unsafe { sys::cuMemFree_v2(dptr(p)) }),
        // HIP's answer (and the OpenCL backend's) for a pointer it never allocated.
        None => Err(Failure::invalid_value(format!(
            "{p:p} is not memory hipMalloc returned"
        ))),
    }
}

/// `hipHostFree`.
pub fn host_free(p: *mut c_void) -> HipResult<()> {
    if p.is_null() {
        return Ok(());
    }
    // SAFETY: the driver checks that it allocated `p`.
    check("cuMemFreeHost", unsafe { sys::cuMemFreeHost(p) })
}

/// Whether the host can read `p` directly (pinned or managed memory): a synchronous copy or fill
/// into it must have finished when the call returns, which the driver promises only for pageable
/// memory.
fn host_reads(p: *const c_void) -> bool {
    if matches!(memory_type(p), Some(sys::CUmemorytype::CU_MEMORYTYPE_HOST)) {
        return true;
    }
    let mut managed: c_int = 0;
    // SAFETY: IS_MANAGED is written as an int.
    let r = unsafe {
        sys::cuPointerGetAttribute(
            (&mut managed as *mut c_int).cast(),
            sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_IS_MANAGED,
            dptr(p),
        )
    };
    r == sys::CUresult::CUDA_SUCCESS && managed != 0
}

/// Waits for `q` after a synchronous operation that must be complete when its call returns.
/// Even the driver's blocking forms, used on the null stream, may return before the work is
/// done: a copy from pageable host memory once its bytes are staged (the DMA to the device
/// still running), a fill of device memory at once. A copy always waits, as HIP's hipMemcpy
/// returns only when the copy is complete (a program that then changes the memory's mapping or
/// access must not fault an unfinished copy); a fill waits only where the host can read the
/// result directly ([`fill_waits`]).
fn finish(q: &CudaQueue) -> HipResult<()> {
    // SAFETY: a valid stream, or the legacy default stream of the current context.
    check("cuStreamSynchronize", unsafe {
        sys::cuStreamSynchronize(q.raw())
    })
}

/// Whether a synchronous fill of `dst` on `q` waits for its completion ([`finish`]).
fn fill_waits(q: &CudaQueue, dst: *const c_void) -> bool {
    !q.is_null() || host_reads(dst)
}

fn plane_descriptor(c: &Copy2d) -> sys::CUDA_MEMCPY2D {
    sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED,
        srcHost: std::ptr::null(),
        srcDevice: dptr(c.src),
        srcArray: std::ptr::null_mut(),
        srcPitch: c.spitch,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED,
        dstHost: std::ptr::null_mut(),
        dstDevice: dptr(c.dst),
        dstArray: std::ptr::null_mut(),
        dstPitch: c.dpitch,
        WidthInBytes: c.width,
        Height: c.height,
    }
}

/// Refuses a range that starts in an allocation the driver knows and runs past its end. The
/// driver checks only that each row it writes is mapped: a region running past its allocation
/// into the next one would be written there, a silent corruption of another buffer (found
/// with tests running on several threads).
fn within_allocation(p: *const c_void, span: Option<usize>, role: &str) -> HipResult<()> {
    use sys::CUpointer_attribute::*;
    let Some(span) = span else {
        return Err(Failure::invalid_value(format!(
            "the {role} region's extent overflows"
        )));
    };
    if span == 0 {
        return Ok(());
    }
    let (Some(base), Some(size)) = (
        pointer_attribute(p, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR),
        pointer_attribute(p, CU_POINTER_ATTRIBUTE_RANGE_SIZE),
    ) else {
        // Memory the driver does not know (pageable host memory): the caller's to size.
        return Ok(());
    };
    let (start, end) = (base as usize, (base as usize).saturating_add(size as usize));
    if (p as usize).saturating_add(span) > end {
        return Err(Failure::invalid_value(format!(
            "{role} range {p:p}+{span} runs past the end of the {size}-byte allocation at \
             {start:#x} (offset {})",
            p as usize - start
        )));
    }
    Ok(())
}

/// A copy on `q` (the kind was checked by the caller: with unified addressing the driver tells
/// host from device memory). Synchronous copies on the null stream use the driver's blocking
/// forms (`cuMemcpy`, `cuMemcpy2D`), ordered after earlier work on the null stream.
pub fn copy(q: &CudaQueue, c: &Copy3d, _kind: MemcpyKind, wait: bool) -> HipResult<()> {
    within_allocation(c.src, c.src_span(), "source")?;
    within_allocation(c.dst, c.dst_span(), "destination")?;
    if wait {
        q.check_wait("a synchronous copy")?;
    }
    let blocking = wait && q.is_null();
    if c.is_linear() {
        // SAFETY: unified addresses of at least `width` bytes, per the caller.
        if blocking {
            check("cuMemcpy", unsafe {
                sys::cuMemcpy(dptr(c.dst), dptr(c.src), c.width)
            })?;
        } else {
            check("cuMemcpyAsync", unsafe {
                sys::cuMemcpyAsync(dptr(c.dst), dptr(c.src), c.width, q.raw())
            })?;
        }
    } else {
        for plane in c.planes() {
            let desc = plane_descriptor(&plane);
            // SAFETY: the descriptor describes ranges valid per the caller.
            if blocking {
                check("cuMemcpy2D", unsafe { sys::cuMemcpy2D_v2(&desc) })?;
            } else {
                check("cuMemcpy2DAsync", unsafe {
                    sys::cuMemcpy2DAsync_v2(&desc, q.raw())
                })?;
            }
        }
    }
    if wait {
        finish(q)?;
    }
    Ok(())
}

/// One row of `count` values (`cuMemsetD8/16/32`), or `height` rows `pitch` bytes apart
/// (`cuMemsetD2D8/16/32`); the blocking forms when `blocking`, else on `stream`.
fn fill_plane(
    dst: *mut c_void,
    pattern: &[u8],
    count: usize,
    pitch: usize,
    height: usize,
    blocking: bool,
    stream: sys::CUstream,
) -> HipResult<()> {
    let d = dptr(dst);
    let s = (!blocking).then_some(stream);
    let rows = height > 1;
    // SAFETY (all): `dst` holds the rows of `count` elements of the pattern's size, per the
    // caller.
    let r = unsafe {
        match (pattern, s, rows) {
            ([b], None, false) => sys::cuMemsetD8_v2(d, *b, count),
            ([b], Some(s), false) => sys::cuMemsetD8Async(d, *b, count, s),
            ([b], None, true) => sys::cuMemsetD2D8_v2(d, pitch, *b, count, height),
            ([b], Some(s), true) => sys::cuMemsetD2D8Async(d, pitch, *b, count, height, s),
            (&[a, b], s, rows) => {
                let v = u16::from_ne_bytes([a, b]);
                match (s, rows) {
                    (None, false) => sys::cuMemsetD16_v2(d, v, count),
                    (Some(s), false) => sys::cuMemsetD16Async(d, v, count, s),
                    (None, true) => sys::cuMemsetD2D16_v2(d, pitch, v, count, height),
                    (Some(s), true) => sys::cuMemsetD2D16Async(d, pitch, v, count, height, s),
                }
            }
            (&[a, b, c, e], s, rows) => {
                let v = u32::from_ne_bytes([a, b, c, e]);
                match (s, rows) {
                    (None, false) => sys::cuMemsetD32_v2(d, v, count),
                    (Some(s), false) => sys::cuMemsetD32Async(d, v, count, s),
                    (None, true) => sys::cuMemsetD2D32_v2(d, pitch, v, count, height),
                    (Some(s), true) => sys::cuMemsetD2D32Async(d, pitch, v, count, height, s),
                }
            }
            _ => return Err(Failure::invalid_value("a fill pattern of 1, 2 or 4 bytes")),
        }
    };
    check("cuMemset", r)
}

/// A fill on `q` (checked by the caller): one driver call per slice.
pub fn fill(q: &CudaQueue, f: &Fill, wait: bool) -> HipResult<()> {
    within_allocation(f.dst, f.span(), "fill")?;
    let waits = wait && fill_waits(q, f.dst);
    if waits {
        q.check_wait("a synchronous fill")?;
    }
    let blocking = wait && q.is_null();
    let pattern = f.pattern.as_bytes();
    for z in 0..f.depth {
        let dst = (f.dst as usize + z * f.slice) as *mut c_void;
        fill_plane(dst, pattern, f.count, f.pitch, f.height, blocking, q.raw())?;
    }
    if waits {
        finish(q)?;
    }
    Ok(())
}

/// `hipMemGetInfo`: (free, total) of the current device.
pub fn info() -> HipResult<(usize, usize)> {
    let (mut free, mut total) = (0, 0);
    // SAFETY: writes two size_t.
    check("cuMemGetInfo", unsafe {
        sys::cuMemGetInfo_v2(&mut free, &mut total)
    })?;
    Ok((free, total))
}

/// One pointer attribute of `p` as 8 zeroed bytes the driver fills (every attribute asked for
/// here is at most that wide); `None` when the driver does not know `p`.
fn pointer_attribute(p: *const c_void, which: sys::CUpointer_attribute) -> Option<u64> {
    let mut v: u64 = 0;
    // SAFETY: the driver writes at most 8 bytes for the attributes asked for below.
    let r = unsafe { sys::cuPointerGetAttribute((&mut v as *mut u64).cast(), which, dptr(p)) };
    (r == sys::CUresult::CUDA_SUCCESS).then_some(v)
}

/// Ranges registered with `hipHostRegister`: base → (bytes, HIP flags). The driver cannot tell
/// registered memory from `cuMemHostAlloc`'s, nor keeps the flags HIP was given.
static REGISTERED: Mutex<BTreeMap<usize, (usize, c_uint)>> = Mutex::new(BTreeMap::new());

fn registered() -> std::sync::MutexGuard<'static, BTreeMap<usize, (usize, c_uint)>> {
    REGISTERED.lock().unwrap_or_else(|p| p.into_inner())
}

/// The allocation holding `p` as the driver knows it; `device_of` turns the driver's ordinal
/// into a HIP device.
pub fn allocation(p: *const c_void, device_of: impl Fn(i32) -> usize) -> Option<Allocation> {
    use sys::CUpointer_attribute::*;
    let kind = memory_type(p)?;
    let get = |which| pointer_attribute(p, which).unwrap_or(0);
    let base = get(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR) as usize;
    let size = get(CU_POINTER_ATTRIBUTE_RANGE_SIZE) as usize;
    let managed = get(CU_POINTER_ATTRIBUTE_IS_MANAGED) & 0xff != 0;
    let host = kind == sys::CUmemorytype::CU_MEMORYTYPE_HOST;
    let memory = match (managed, host) {
        (true, _) => MemoryType::Managed,
        (false, true) => MemoryType::Host,
        (false, false) => MemoryType::Device,
    };
    let registration = registered().get(&base).copied();
    let flags = match (host, registration) {
        (true, Some((_, flags))) => flags,
        (true, None) => {
            let mut f: c_uint = 0;
            // SAFETY: writes one unsigned int; pinned memory of the driver.
            let _ = unsafe { sys::cuMemHostGetFlags(&mut f, base as *mut c_void) };
            f
        }
        (false, _) => 0,
    };
    // The attributes name `p`'s own addresses: the allocation's are those less the offset.
    let offset = (p as usize).wrapping_sub(base);
    let at_base = |v: u64| (v != 0).then(|| (v as usize).wrapping_sub(offset));
    Some(Allocation {
        base,
        size,
        memory,
        registered: registration.is_some(),
        device: device_of(get(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) as i32),
        flags,
        buffer_id: get(CU_POINTER_ATTRIBUTE_BUFFER_ID),
        device_base: at_base(get(CU_POINTER_ATTRIBUTE_DEVICE_POINTER)),
        host_base: at_base(get(CU_POINTER_ATTRIBUTE_HOST_POINTER)),
        sync_memops: get(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS) & 0xff != 0,
    })
}

/// `hipPointerSetAttribute(HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS)`: the driver's own.
pub fn set_sync_memops(p: *const c_void, on: bool) -> HipResult<()> {
    if memory_type(p).is_none() {
        return Err(Failure::new(
            HipError::InvalidDevicePointer,
            format!("{p:p} is not memory the driver allocated or registered"),
        ));
    }
    let value: c_uint = c_uint::from(on);
    // SAFETY: SYNC_MEMOPS takes an unsigned int.
    check("cuPointerSetAttribute", unsafe {
        sys::cuPointerSetAttribute(
            (&value as *const c_uint).cast(),
            sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
            dptr(p),
        )
    })
}

/// `hipMemPrefetchAsync`: `hipCpuDeviceId` (-1) is `CU_DEVICE_CPU`.
pub fn prefetch(
    p: *const c_void,
    count: usize,
    device: sys::CUdevice,
    stream: sys::CUstream,
) -> HipResult<()> {
    // SAFETY: plain driver call; the driver checks the range.
    check("cuMemPrefetchAsync", unsafe {
        sys::cuMemPrefetchAsync(dptr(p), count, device, stream)
    })
}

/// `hipMemAdvise`: HIP's advice values 1..=6 are the driver's.
pub fn advise(
    p: *const c_void,
    count: usize,
    advice: MemAdvice,
    device: sys::CUdevice,
) -> HipResult<()> {
    use sys::CUmem_advise::*;
    let advice = match advice {
        MemAdvice::SetReadMostly => CU_MEM_ADVISE_SET_READ_MOSTLY,
        MemAdvice::UnsetReadMostly => CU_MEM_ADVISE_UNSET_READ_MOSTLY,
        MemAdvice::SetPreferredLocation => CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
        MemAdvice::UnsetPreferredLocation => CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION,
        MemAdvice::SetAccessedBy => CU_MEM_ADVISE_SET_ACCESSED_BY,
        MemAdvice::UnsetAccessedBy => CU_MEM_ADVISE_UNSET_ACCESSED_BY,
        other @ (MemAdvice::SetCoarseGrain | MemAdvice::UnsetCoarseGrain) => {
            return Err(Failure::new(
                HipError::NotSupported,
                format!("memory advice {other:?} has no CUDA equivalent"),
            ))
        }
    };
    // SAFETY: plain driver call; the driver checks the range.
    check("cuMemAdvise", unsafe {
        sys::cuMemAdvise(dptr(p), count, advice, device)
    })
}

/// `hipMemRangeGetAttribute`: HIP's attributes 1..=4 (read-mostly, preferred location, accessed
/// by, last prefetch location) are the driver's; locations are the driver's device ordinals.
pub fn range_attribute(
    out: &mut [u8],
    attribute: RangeAttribute,
    p: *const c_void,
    count: usize,
) -> HipResult<()> {
    use sys::CUmem_range_attribute::*;
    let which =
        match attribute {
            RangeAttribute::ReadMostly => CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
            RangeAttribute::PreferredLocation => CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
            RangeAttribute::AccessedBy => CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
            RangeAttribute::LastPrefetchLocation => CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
            RangeAttribute::CoherencyMode => return Err(Failure::new(
                HipError::NotSupported,
                "memory range attribute hipMemRangeAttributeCoherencyMode has no CUDA equivalent",
            )),
        };
    // SAFETY: `out` is writable for its length; the driver checks the range.
    check("cuMemRangeGetAttribute", unsafe {
        sys::cuMemRangeGetAttribute(out.as_mut_ptr().cast(), out.len(), which, dptr(p), count)
    })
}

/// `hipHostRegister`: pins `bytes` at `p`, portable and mapped, so every device reaches it at
/// the same address, as HIP programs expect; HIP's `IoMemory` (4) and `ReadOnly` (8) are the
/// driver's own flags. The HIP flags are kept for `hipHostGetFlags`.
pub fn host_register(p: *mut c_void, bytes: usize, flags: c_uint) -> HipResult<()> {
    const IO_MEMORY_AND_READ_ONLY: c_uint = 4 | 8;
    // SAFETY: the caller's memory; the driver checks it.
    check("cuMemHostRegister", unsafe {
        sys::cuMemHostRegister_v2(
            p,
            bytes,
            HOST_ALLOC_MAPPED | (flags & IO_MEMORY_AND_READ_ONLY),
        )
    })?;
    registered().insert(p as usize, (bytes, flags));
    Ok(())
}

/// `hipHostUnregister`.
pub fn host_unregister(p: *mut c_void) -> HipResult<()> {
    // SAFETY: the driver checks that `p` was registered.
    check("cuMemHostUnregister", unsafe {
        sys::cuMemHostUnregister(p)
    })?;
    registered().remove(&(p as usize));
    Ok(())
}
