//! Memory on the CUDA backend: `cuMemAlloc` (device), `cuMemHostAlloc` (pinned, mapped),
//! `cuMemAllocManaged`; copies and fills through unified addressing (the driver tells host from
//! device pointers, so a copy's kind is checked but not needed); pointer attributes from the
//! driver.

use std::ffi::{c_int, c_uint, c_void};

use super::driver::{check, sys, HOST_ALLOC_MAPPED};
use super::stream::cu_stream;
use crate::error::{Failure, HipError, HipResult};
use crate::memory::{
    PointerAttributes, MEMORY_TYPE_DEVICE, MEMORY_TYPE_HOST, MEMORY_TYPE_MANAGED,
    MEMORY_TYPE_UNREGISTERED,
};

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
        None => Err(Failure::new(
            HipError::InvalidDevicePointer,
            format!("{p:p} is not memory hipMalloc returned"),
        )),
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

/// `hipHostGetDevicePointer`.
pub fn host_device_pointer(host: *mut c_void) -> HipResult<*mut c_void> {
    let mut p = 0;
    // SAFETY: writes one pointer.
    check("cuMemHostGetDevicePointer", unsafe {
        sys::cuMemHostGetDevicePointer_v2(&mut p, host, 0)
    })?;
    Ok(ptr(p))
}

fn check_kind(kind: c_int) -> HipResult<()> {
    if (0..=4).contains(&kind) {
        Ok(())
    } else {
        Err(Failure::new(
            HipError::InvalidMemcpyDirection,
            format!("{kind} is not a hipMemcpyKind"),
        ))
    }
}

fn check_pointers(dst: *const c_void, src: *const c_void, size: usize) -> HipResult<()> {
    if size > 0 && (dst.is_null() || src.is_null()) {
        return Err(Failure::invalid_value(format!(
            "a {size}-byte copy with a null pointer"
        )));
    }
    Ok(())
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

/// Waits for the null stream (after a synchronous call whose result the host may read).
fn wait_null_stream() -> HipResult<()> {
    // SAFETY: the legacy default stream of the current context.
    check("cuStreamSynchronize", unsafe {
        sys::cuStreamSynchronize(std::ptr::null_mut())
    })
}

/// `hipMemcpy`: ordered after earlier work on the null stream; returns when the copy is done,
/// as HIP's (blocking) copy does on every backend.
pub fn memcpy(dst: *mut c_void, src: *const c_void, size: usize, kind: c_int) -> HipResult<()> {
    check_kind(kind)?;
    check_pointers(dst, src, size)?;
    if size == 0 {
        return Ok(());
    }
    // SAFETY: unified addresses of at least `size` bytes, per the caller.
    check("cuMemcpy", unsafe {
        sys::cuMemcpy(dptr(dst), dptr(src), size)
    })?;
    if host_reads(dst) {
        wait_null_stream()?;
    }
    Ok(())
}

/// `hipMemcpyAsync`.
pub fn memcpy_async(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: c_int,
    stream: usize,
) -> HipResult<()> {
    check_kind(kind)?;
    check_pointers(dst, src, size)?;
    let s = cu_stream(stream)?;
    if size == 0 {
        return Ok(());
    }
    // SAFETY: unified addresses of at least `size` bytes, per the caller.
    check("cuMemcpyAsync", unsafe {
        sys::cuMemcpyAsync(dptr(dst), dptr(src), size, s)
    })
}

/// `hipMemcpy2D[Async]`: `stream` None for the synchronous form.
#[allow(clippy::too_many_arguments)]
pub fn memcpy_2d(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    stream: Option<usize>,
) -> HipResult<()> {
    check_kind(kind)?;
    check_pointers(dst, src, width * height)?;
    if width > dpitch || width > spitch {
        return Err(Failure::new(
            HipError::InvalidPitchValue,
            format!("width {width} exceeds a pitch (dst {dpitch}, src {spitch})"),
        ));
    }
    if width == 0 || height == 0 {
        return Ok(());
    }
    let c = sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED,
        srcHost: std::ptr::null(),
        srcDevice: dptr(src),
        srcArray: std::ptr::null_mut(),
        srcPitch: spitch,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED,
        dstHost: std::ptr::null_mut(),
        dstDevice: dptr(dst),
        dstArray: std::ptr::null_mut(),
        dstPitch: dpitch,
        WidthInBytes: width,
        Height: height,
    };
    match stream {
        // SAFETY: the descriptor describes ranges valid per the caller.
        None => {
            check("cuMemcpy2D", unsafe { sys::cuMemcpy2D_v2(&c) })?;
            if host_reads(dst) {
                wait_null_stream()?;
            }
            Ok(())
        }
        Some(s) => {
            let s = cu_stream(s)?;
            // SAFETY: as above.
            check("cuMemcpy2DAsync", unsafe { sys::cuMemcpy2DAsync_v2(&c, s) })
        }
    }
}

/// `hipMemset*`: `pattern` is 1, 2 or 4 bytes, written `count` times; `stream` None for the
/// synchronous forms (which run on the null stream).
pub fn memset(
    dst: *mut c_void,
    pattern: &[u8],
    count: usize,
    stream: Option<usize>,
) -> HipResult<()> {
    if count == 0 {
        if let Some(s) = stream {
            cu_stream(s)?;
        }
        return Ok(());
    }
    if dst.is_null() {
        return Err(Failure::invalid_value("the destination is null"));
    }
    let d = dptr(dst);
    let s = match stream {
        Some(s) => Some(cu_stream(s)?),
        None => None,
    };
    // SAFETY (all): `dst` holds `count` elements of the pattern's size, per the caller.
    let r = unsafe {
        match (pattern, s) {
            ([b], None) => sys::cuMemsetD8_v2(d, *b, count),
            ([b], Some(s)) => sys::cuMemsetD8Async(d, *b, count, s),
            (&[a, b], None) => sys::cuMemsetD16_v2(d, u16::from_ne_bytes([a, b]), count),
            (&[a, b], Some(s)) => sys::cuMemsetD16Async(d, u16::from_ne_bytes([a, b]), count, s),
            (&[a, b, c, e], None) => {
                sys::cuMemsetD32_v2(d, u32::from_ne_bytes([a, b, c, e]), count)
            }
            (&[a, b, c, e], Some(s)) => {
                sys::cuMemsetD32Async(d, u32::from_ne_bytes([a, b, c, e]), count, s)
            }
            _ => return Err(Failure::invalid_value("a fill pattern of 1, 2 or 4 bytes")),
        }
    };
    check("cuMemset", r)?;
    if stream.is_none() && host_reads(dst) {
        wait_null_stream()?;
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

/// `hipPointerGetAttributes`: memory the driver does not know is `hipMemoryTypeUnregistered`.
pub fn pointer_attributes(p: *const c_void, device_of: impl Fn(i32) -> i32) -> PointerAttributes {
    let mut a = PointerAttributes {
        r#type: MEMORY_TYPE_UNREGISTERED,
        device: 0,
        devicePointer: std::ptr::null_mut(),
        hostPointer: std::ptr::null_mut(),
        isManaged: 0,
        allocationFlags: 0,
    };
    let Some(kind) = memory_type(p) else {
        return a;
    };
    let get = |attribute: sys::CUpointer_attribute, out: *mut c_void| {
        // SAFETY: `out` is sized for the attribute by each caller below.
        unsafe {
            sys::cuPointerGetAttribute(out, attribute, dptr(p)) == sys::CUresult::CUDA_SUCCESS
        }
    };
    let mut managed: c_int = 0;
    let _ = get(
        sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_IS_MANAGED,
        (&mut managed as *mut c_int).cast(),
    );
    let mut ordinal: c_int = 0;
    let _ = get(
        sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        (&mut ordinal as *mut c_int).cast(),
    );
    let mut device_pointer: u64 = 0;
    let _ = get(
        sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
        (&mut device_pointer as *mut u64).cast(),
    );
    let mut host_pointer: *mut c_void = std::ptr::null_mut();
    let _ = get(
        sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_HOST_POINTER,
        (&mut host_pointer as *mut *mut c_void).cast(),
    );
    a.isManaged = i32::from(managed != 0);
    a.r#type = if managed != 0 {
        MEMORY_TYPE_MANAGED
    } else if kind == sys::CUmemorytype::CU_MEMORYTYPE_HOST {
        MEMORY_TYPE_HOST
    } else {
        MEMORY_TYPE_DEVICE
    };
    a.device = device_of(ordinal);
    a.devicePointer = ptr(device_pointer);
    a.hostPointer = host_pointer;
    a
}

/// `hipMemPrefetchAsync`: `hipCpuDeviceId` (-1) is `CU_DEVICE_CPU`.
pub fn prefetch(
    p: *const c_void,
    count: usize,
    device: sys::CUdevice,
    stream: usize,
) -> HipResult<()> {
    let s = cu_stream(stream)?;
    // SAFETY: plain driver call; the driver checks the range.
    check("cuMemPrefetchAsync", unsafe {
        sys::cuMemPrefetchAsync(dptr(p), count, device, s)
    })
}

/// `hipMemAdvise`: HIP's advice values 1..=6 are the driver's.
pub fn advise(
    p: *const c_void,
    count: usize,
    advice: c_int,
    device: sys::CUdevice,
) -> HipResult<()> {
    use sys::CUmem_advise::*;
    let advice = match advice {
        1 => CU_MEM_ADVISE_SET_READ_MOSTLY,
        2 => CU_MEM_ADVISE_UNSET_READ_MOSTLY,
        3 => CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
        4 => CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION,
        5 => CU_MEM_ADVISE_SET_ACCESSED_BY,
        6 => CU_MEM_ADVISE_UNSET_ACCESSED_BY,
        other => {
            return Err(Failure::new(
                HipError::NotSupported,
                format!("memory advice {other} has no CUDA equivalent"),
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
    data: *mut c_void,
    data_size: usize,
    attribute: c_int,
    p: *const c_void,
    count: usize,
) -> HipResult<()> {
    use sys::CUmem_range_attribute::*;
    if data.is_null() {
        return Err(Failure::invalid_value("the data pointer is null"));
    }
    let which = match attribute {
        1 => CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
        2 => CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
        3 => CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
        4 => CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
        other => {
            return Err(Failure::new(
                HipError::NotSupported,
                format!("memory range attribute {other} has no CUDA equivalent"),
            ))
        }
    };
    // SAFETY: `data` holds `data_size` bytes, per the caller; the driver checks the range.
    check("cuMemRangeGetAttribute", unsafe {
        sys::cuMemRangeGetAttribute(data, data_size, which, dptr(p), count)
    })
}

/// `hipHostRegister`: pins `bytes` at `p`, portable and mapped (HIP's flags 1, 2 and 4 —
/// portable, mapped, IO memory — are the driver's); the device reaches it at the same address.
pub fn host_register(p: *mut c_void, bytes: usize, flags: c_uint) -> HipResult<()> {
    if p.is_null() || bytes == 0 {
        return Err(Failure::invalid_value("a null or empty range"));
    }
    // SAFETY: the caller's memory; the driver checks it.
    check("cuMemHostRegister", unsafe {
        sys::cuMemHostRegister_v2(p, bytes, 1 | 2 | (flags & 4))
    })
}

/// `hipHostUnregister`.
pub fn host_unregister(p: *mut c_void) -> HipResult<()> {
    // SAFETY: the driver checks that `p` was registered.
    check("cuMemHostUnregister", unsafe {
        sys::cuMemHostUnregister(p)
    })
}
