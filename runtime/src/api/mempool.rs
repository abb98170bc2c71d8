//! Stream-ordered allocation and memory pools from the C API: `hipMallocAsync`, `hipFreeAsync`,
//! `hipMallocFromPoolAsync`, `hipMemPool*`, `hipDeviceGetDefaultMemPool` /
//! `hipDeviceSetMemPool` / `hipDeviceGetMemPool` (see `mempool`). On a capturing stream,
//! `hipMallocAsync` and `hipFreeAsync` become graph allocation and free nodes.

use std::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;

use super::{
    backend, current_device, device_at, guard, hipError_t, hipStream_t, read_in, stream_or,
    write_out,
};
use crate::backend::{
    AccessFlags, Device, FreeKind, MemAccessDesc, MemLocation, MemPoolProps, PoolAttribute,
    PoolConfig, Stream, HANDLE_TYPE_POSIX_FD, MEM_LOCATION_DEVICE,
};
use crate::error::{Failure, HipError, HipResult};
use crate::graph::{capture, memory, AllocOp, Op};
use crate::mempool;

/// `hipMemPool_t`: a handle (see `mempool`).
#[allow(non_camel_case_types)]
pub type hipMemPool_t = *mut c_void;

/// The device a stream belongs to.
fn device_of(stream: &Stream) -> HipResult<&'static dyn Device> {
    backend()?.device(stream.device())
}

/// `size` bytes from `pool` ordered on `s`; on a capturing stream, a graph allocation node
/// (whose memory is the node's from now on).
///
/// # Safety
/// `out` must be null or valid for writing a pointer.
unsafe fn allocate_async(
    out: *mut *mut c_void,
    size: usize,
    pool: Option<Arc<dyn crate::backend::MemPool>>,
    s: hipStream_t,
) -> HipResult<()> {
    if out.is_null() {
        return Err(Failure::invalid_value("the result pointer is null"));
    }
    let target = stream_or(s, HipError::InvalidHandle)?;
    let device = device_of(&target)?;
    if size == 0 {
        // SAFETY: checked non-null.
        return unsafe { write_out(out, std::ptr::null_mut(), "the result pointer") };
    }
    let mut address = 0;
    let captured = capture::record(&target, || {
        let block = memory::reserve(device, size)?;
        address = block.address;
        Ok(Op::MemAlloc(AllocOp { block }))
    })?;
    let p = if captured.is_some() {
        address as *mut c_void
    } else {
        let pool = match pool {
            Some(pool) => pool,
            None => mempool::get(mempool::current_pool(device)?)?.pool.clone(),
        };
        if pool.device() != device.id() {
            return Err(Failure::invalid_value(format!(
                "the pool belongs to device {}, the stream to device {}",
                pool.device(),
                device.id()
            )));
        }
        mempool::allocate(&pool, size, &target)?
    };
    // SAFETY: checked non-null.
    unsafe { write_out(out, p, "the result pointer") }
}

/// Allocates `size` bytes from the device's current pool, usable by work queued on `stream`
/// after this call (memory freed earlier in stream order is reused).
///
/// # Safety
/// `out` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipMallocAsync(
    out: *mut *mut c_void,
    size: usize,
    s: hipStream_t,
) -> hipError_t {
    guard("hipMallocAsync", || unsafe {
        allocate_async(out, size, None, s)
    })
}

/// [`hipMallocAsync`] from a given pool.
///
/// # Safety
/// `out` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipMallocFromPoolAsync(
    out: *mut *mut c_void,
    size: usize,
    pool: hipMemPool_t,
    s: hipStream_t,
) -> hipError_t {
    guard("hipMallocFromPoolAsync", || unsafe {
        if out.is_null() {
            return Err(Failure::invalid_value("the result pointer is null"));
        }
        let entry = mempool::get(pool as usize)?;
        allocate_async(out, size, Some(entry.pool.clone()), s)
    })
}

/// Frees `p` once the work queued on `stream` before it is done: pool memory goes back to its
/// pool for reuse; a graph allocation is freed (its memory stays its node's); memory from
/// `hipMalloc` is freed after the stream's work. On a capturing stream, a graph free node.
#[no_mangle]
pub extern "C" fn hipFreeAsync(p: *mut c_void, s: hipStream_t) -> hipError_t {
    guard("hipFreeAsync", || {
        if p.is_null() {
            return Err(Failure::invalid_value("the pointer to free is null"));
        }
        let target = stream_or(s, HipError::InvalidHandle)?;
        let captured = capture::record(&target, || {
            memory::block_at(p as usize).ok_or_else(|| {
                Failure::invalid_value(format!(
                    "{p:p}: a capture can free only memory allocated in its graph"
                ))
            })?;
            Ok(Op::MemFree {
                address: p as usize,
            })
        })?;
        if captured.is_some() || memory::free_outside_graph(p)? || mempool::free_async(p, &target)?
        {
            return Ok(());
        }
        let device = device_of(&target)?;
        if !device.allocation(p)?.is_some_and(|a| a.is_device_memory()) {
            return Err(Failure::invalid_value(format!(
                "{p:p} is not memory hipMallocAsync or hipMalloc returned (or was freed already)"
            )));
        }
        target.queue().synchronize()?;
        device.free(p, FreeKind::Device)
    })
}

/// Checks `hipMemPoolProps`: pinned device memory of an existing device, exportable at most as
/// POSIX file descriptors.
fn pool_config(props: &MemPoolProps) -> HipResult<(&'static dyn Device, PoolConfig)> {
    if props.alloc_type != 1 {
        return Err(Failure::invalid_value(
            "a pool's allocation type must be hipMemAllocationTypePinned",
        ));
    }
    if props.location.kind != MEM_LOCATION_DEVICE {
        return Err(Failure::invalid_value("a pool's location must be a device"));
    }
    let device = device_at(props.location.id).map_err(|f| Failure::invalid_value(f.message))?;
    if props.handle_types & !HANDLE_TYPE_POSIX_FD != 0 {
        return Err(Failure::invalid_value(format!(
            "handle types {:#x}: only hipMemHandleTypePosixFileDescriptor exists here",
            props.handle_types
        )));
    }
    Ok((
        device,
        PoolConfig {
            max_size: props.max_size,
            handle_types: props.handle_types,
        },
    ))
}

/// Creates a memory pool.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipMemPoolCreate(
    out: *mut hipMemPool_t,
    props: *const MemPoolProps,
) -> hipError_t {
    guard("hipMemPoolCreate", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the pool pointer is null"));
        }
        // SAFETY: per the caller.
        let props = unsafe { read_in(props, "the pool properties") }?;
        let (device, config) = pool_config(&props)?;
        let handle = mempool::insert(device.create_mem_pool(&config)?);
        // SAFETY: checked non-null.
        unsafe { write_out(out, handle as hipMemPool_t, "the pool pointer") }
    })
}

/// Destroys a created pool (a default pool cannot be); its allocations not yet freed keep it
/// until they are.
#[no_mangle]
pub extern "C" fn hipMemPoolDestroy(pool: hipMemPool_t) -> hipError_t {
    guard("hipMemPoolDestroy", || mempool::destroy(pool as usize))
}

/// Gives memory back until the pool reserves at most `keep` bytes (as far as memory is free
/// and no queued work uses it).
#[no_mangle]
pub extern "C" fn hipMemPoolTrimTo(pool: hipMemPool_t, keep: usize) -> hipError_t {
    guard("hipMemPoolTrimTo", || {
        mempool::get(pool as usize)?.pool.trim_to(keep)
    })
}

/// Sets a pool attribute (`hipMemPoolAttr`; the reuse rules take an `int`, the rest a
/// `uint64_t`; the high marks can only be reset to 0; the current sizes are read-only).
///
/// # Safety
/// `value` must be null or valid for reading the attribute's type.
#[no_mangle]
pub unsafe extern "C" fn hipMemPoolSetAttribute(
    pool: hipMemPool_t,
    attr: c_int,
    value: *mut c_void,
) -> hipError_t {
    guard("hipMemPoolSetAttribute", || {
        let entry = mempool::get(pool as usize)?;
        let attr = PoolAttribute::parse(attr)?;
        // SAFETY: per the caller.
        let v = unsafe {
            if attr.is_flag() {
                u64::from(read_in(value.cast::<c_int>(), "the value pointer")? != 0)
            } else {
                read_in(value.cast::<u64>(), "the value pointer")?
            }
        };
        entry.pool.set_attribute(attr, v)
    })
}

/// Reads a pool attribute (an `int` for the reuse rules, else a `uint64_t`).
///
/// # Safety
/// `value` must be null or valid for writing the attribute's type.
#[no_mangle]
pub unsafe extern "C" fn hipMemPoolGetAttribute(
    pool: hipMemPool_t,
    attr: c_int,
    value: *mut c_void,
) -> hipError_t {
    guard("hipMemPoolGetAttribute", || {
        let entry = mempool::get(pool as usize)?;
        let attr = PoolAttribute::parse(attr)?;
        if value.is_null() {
            return Err(Failure::invalid_value("the value pointer is null"));
        }
        let v = entry.pool.attribute(attr)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe {
            if attr.is_flag() {
                write_out(
                    value.cast::<c_int>(),
                    c_int::from(v != 0),
                    "the value pointer",
                )
            } else {
                write_out(value.cast::<u64>(), v, "the value pointer")
            }
        }
    })
}

/// Gives devices access to the pool's memory (`hipMemAccessDesc` list; the pool's own device
/// always has read-write access).
///
/// # Safety
/// `descs` must be null or hold `count` descriptors.
#[no_mangle]
pub unsafe extern "C" fn hipMemPoolSetAccess(
    pool: hipMemPool_t,
    descs: *const MemAccessDesc,
    count: usize,
) -> hipError_t {
    guard("hipMemPoolSetAccess", || {
        let entry = mempool::get(pool as usize)?;
        if count > 0 && descs.is_null() {
            return Err(Failure::invalid_value("the descriptor list is null"));
        }
        let devices = backend()?.device_count();
        if count > devices {
            return Err(Failure::new(
                HipError::InvalidDevice,
                format!("{count} descriptors for {devices} device(s)"),
            ));
        }
        for i in 0..count {
            // SAFETY: per the caller.
            let d = unsafe { descs.add(i).read_unaligned() };
            if d.location.kind != MEM_LOCATION_DEVICE {
                return Err(Failure::invalid_value(
                    "a pool's access can be given to devices only",
                ));
            }
            let accessor = device_at(d.location.id)?;
            entry
                .pool
                .set_access(accessor.id(), AccessFlags::parse(d.flags)?)?;
        }
        Ok(())
    })
}

/// How a device may access the pool's memory.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipMemPoolGetAccess(
    flags: *mut c_int,
    pool: hipMemPool_t,
    location: *mut MemLocation,
) -> hipError_t {
    guard("hipMemPoolGetAccess", || {
        let entry = mempool::get(pool as usize)?;
        if flags.is_null() {
            return Err(Failure::invalid_value("the flags pointer is null"));
        }
        // SAFETY: per the caller.
        let at = unsafe { read_in(location, "the location") }?;
        if at.kind != MEM_LOCATION_DEVICE {
            return Err(Failure::invalid_value("the location must be a device"));
        }
        let accessor = device_at(at.id).map_err(|f| Failure::invalid_value(f.message))?;
        let access = entry.pool.access(accessor.id())?;
        // SAFETY: checked non-null.
        unsafe { write_out(flags, access as c_int, "the flags pointer") }
    })
}

/// The device's default pool.
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetDefaultMemPool(
    out: *mut hipMemPool_t,
    device: c_int,
) -> hipError_t {
    guard("hipDeviceGetDefaultMemPool", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the pool pointer is null"));
        }
        let h = mempool::default_pool(device_at(device)?)?;
        // SAFETY: checked non-null.
        unsafe { write_out(out, h as hipMemPool_t, "the pool pointer") }
    })
}

/// Makes `pool` the device's current pool (the one `hipMallocAsync` uses).
#[no_mangle]
pub extern "C" fn hipDeviceSetMemPool(device: c_int, pool: hipMemPool_t) -> hipError_t {
    guard("hipDeviceSetMemPool", || {
        if pool.is_null() {
            return Err(Failure::invalid_value("the pool is null"));
        }
        let d = device_at(device).map_err(|f| Failure::invalid_value(f.message))?;
        mempool::set_current_pool(d, pool as usize)
    })
}

/// The device's current pool.
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetMemPool(out: *mut hipMemPool_t, device: c_int) -> hipError_t {
    guard("hipDeviceGetMemPool", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the pool pointer is null"));
        }
        let d = device_at(device).map_err(|f| Failure::invalid_value(f.message))?;
        let h = mempool::current_pool(d)?;
        // SAFETY: checked non-null.
        unsafe { write_out(out, h as hipMemPool_t, "the pool pointer") }
    })
}

/// Exports a pool for another process (a POSIX file descriptor, where the pool was created
/// exportable and the backend can share memory; OpenCL cannot: `hipErrorNotSupported`).
#[no_mangle]
pub extern "C" fn hipMemPoolExportToShareableHandle(
    shared: *mut c_void,
    pool: hipMemPool_t,
    handle_type: c_uint,
    flags: c_uint,
) -> hipError_t {
    guard("hipMemPoolExportToShareableHandle", || {
        let entry = mempool::get(pool as usize)?;
        if flags != 0 {
            return Err(Failure::invalid_value("flags must be 0"));
        }
        entry.pool.export_handle(handle_type, shared)
    })
}

/// Opens a pool another process exported.
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipMemPoolImportFromShareableHandle(
    out: *mut hipMemPool_t,
    shared: *mut c_void,
    handle_type: c_uint,
    flags: c_uint,
) -> hipError_t {
    guard("hipMemPoolImportFromShareableHandle", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the pool pointer is null"));
        }
        if flags != 0 {
            return Err(Failure::invalid_value("flags must be 0"));
        }
        let pool = current_device()?.import_mem_pool(shared, handle_type)?;
        let h = mempool::insert(pool);
        // SAFETY: checked non-null.
        unsafe { write_out(out, h as hipMemPool_t, "the pool pointer") }
    })
}

/// HIP's `hipMemPoolPtrExportData`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PtrExportData {
    pub reserved: [u8; 64],
}

/// Names a pool allocation for another process that imported its pool.
///
/// # Safety
/// `out` must be null or valid for writing 64 bytes.
#[no_mangle]
pub unsafe extern "C" fn hipMemPoolExportPointer(
    out: *mut PtrExportData,
    p: *mut c_void,
) -> hipError_t {
    guard("hipMemPoolExportPointer", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the export data pointer is null"));
        }
        let pool = mempool::pool_of(p).ok_or_else(|| {
            Failure::invalid_value(format!("{p:p} is not a live pool allocation"))
        })?;
        let reserved = pool.export_pointer(p)?;
        // SAFETY: checked non-null.
        unsafe { write_out(out, PtrExportData { reserved }, "the export data pointer") }
    })
}

/// Opens an allocation another process exported from a pool this process imported.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipMemPoolImportPointer(
    out: *mut *mut c_void,
    pool: hipMemPool_t,
    data: *mut PtrExportData,
) -> hipError_t {
    guard("hipMemPoolImportPointer", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the result pointer is null"));
        }
        let entry = mempool::get(pool as usize)?;
        // SAFETY: per the caller.
        let data = unsafe { read_in(data, "the export data") }?;
        let p = entry.pool.import_pointer(&data.reserved)?;
        mempool::adopt(p, &entry.pool);
        // SAFETY: checked non-null.
        unsafe { write_out(out, p, "the result pointer") }
    })
}
