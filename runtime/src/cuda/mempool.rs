//! Memory pools on the CUDA backend: the driver's own (`CUmemoryPool`). Allocations and frees
//! are ordered on the stream by the driver (`cuMemAllocFromPoolAsync`, `cuMemFreeAsync`), which
//! applies the reuse rules, the release threshold and the statistics itself; HIP's attribute,
//! access-flag and handle-type numbers are the driver's. Pools can be shared with other
//! processes through POSIX file descriptors where they were created for it.

use std::ffi::{c_int, c_void};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::device::CudaDevice;
use super::driver::{check, sys};
use super::stream::CudaQueue;
use crate::backend::{downcast, AccessFlags, DeviceId, MemPool, PoolAttribute, PoolConfig, Stream};
use crate::error::{Failure, HipError, HipResult};

/// One driver pool of one device.
pub struct CudaMemPool {
    /// The device's index among the backend's devices.
    device: usize,
    raw: usize,
    /// The context generation of a pool this backend created (destroyed with its handle);
    /// `None` for the device's default pool, which the driver owns.
    created_in: Option<usize>,
}

fn location(ordinal: sys::CUdevice) -> sys::CUmemLocation {
    sys::CUmemLocation {
        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
        id: ordinal,
    }
}

fn driver_attribute(attribute: PoolAttribute) -> sys::CUmemPool_attribute {
    use sys::CUmemPool_attribute::*;
    match attribute {
        PoolAttribute::ReuseFollowEventDependencies => {
            CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES
        }
        PoolAttribute::ReuseAllowOpportunistic => CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,
        PoolAttribute::ReuseAllowInternalDependencies => {
            CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES
        }
        PoolAttribute::ReleaseThreshold => CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
        PoolAttribute::ReservedMemCurrent => CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
        PoolAttribute::ReservedMemHigh => CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH,
        PoolAttribute::UsedMemCurrent => CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
        PoolAttribute::UsedMemHigh => CU_MEMPOOL_ATTR_USED_MEM_HIGH,
    }
}

fn access_flags(flags: AccessFlags) -> sys::CUmemAccess_flags {
    use sys::CUmemAccess_flags::*;
    match flags {
        AccessFlags::None => CU_MEM_ACCESS_FLAGS_PROT_NONE,
        AccessFlags::Read => CU_MEM_ACCESS_FLAGS_PROT_READ,
        AccessFlags::ReadWrite => CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    }
}

impl CudaMemPool {
    /// The device's default pool (`cuDeviceGetDefaultMemPool`).
    pub fn default_of(device: &CudaDevice) -> HipResult<Self> {
        device.bind()?;
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        // SAFETY: writes one handle.
        check("cuDeviceGetDefaultMemPool", unsafe {
            sys::cuDeviceGetDefaultMemPool(&mut pool, device.ordinal)
        })?;
        Ok(CudaMemPool {
            device: device.index,
            raw: pool as usize,
            created_in: None,
        })
    }

    /// `hipMemPoolCreate`: pinned device memory of `device`.
    pub fn create(device: &CudaDevice, config: &PoolConfig) -> HipResult<Self> {
        device.bind()?;
        // SAFETY: all-zero is a valid `CUmemPoolProps` (invalid enums are 0); set below.
        let mut props: sys::CUmemPoolProps = unsafe { std::mem::zeroed() };
        props.allocType = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        props.handleTypes = sys::CUmemAllocationHandleType(config.handle_types);
        props.location = location(device.ordinal);
        props.maxSize = config.max_size;
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        // SAFETY: valid properties; writes one handle.
        check("cuMemPoolCreate", unsafe {
            sys::cuMemPoolCreate(&mut pool, &props)
        })?;
        Ok(CudaMemPool {
            device: device.index,
            raw: pool as usize,
            created_in: Some(device.generation.load(Ordering::Acquire)),
        })
    }

    /// `hipMemPoolImportFromShareableHandle`.
    pub fn import(device: &CudaDevice, handle: *mut c_void, handle_type: u32) -> HipResult<Self> {
        device.bind()?;
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        // SAFETY: the handle is the caller's (a file descriptor passed by value as a pointer).
        check("cuMemPoolImportFromShareableHandle", unsafe {
            sys::cuMemPoolImportFromShareableHandle(
                &mut pool,
                handle,
                sys::CUmemAllocationHandleType(handle_type),
                0,
            )
        })?;
        Ok(CudaMemPool {
            device: device.index,
            raw: pool as usize,
            created_in: Some(device.generation.load(Ordering::Acquire)),
        })
    }

    fn raw(&self) -> sys::CUmemoryPool {
        self.raw as sys::CUmemoryPool
    }

    fn bind(&self) -> HipResult<&'static CudaDevice> {
        let device = super::device_at(self.device)?;
        device.bind()?;
        Ok(device)
    }

    fn stream_of(stream: &Stream) -> HipResult<sys::CUstream> {
        let queue: &CudaQueue = downcast(stream.queue().as_any(), "a stream")?;
        Ok(queue.raw())
    }
}

impl Drop for CudaMemPool {
    fn drop(&mut self) {
        let live = super::device_at(self.device)
            .is_ok_and(|d| self.created_in == Some(d.generation.load(Ordering::Acquire)));
        if live && self.bind().is_ok() {
            // SAFETY: a pool this backend created in the live context; the driver releases its
            // memory once its outstanding allocations are freed.
            let _ = unsafe { sys::cuMemPoolDestroy(self.raw()) };
        }
    }
}

impl MemPool for CudaMemPool {
    fn device(&self) -> DeviceId {
        self.device
    }

    fn allocate(&self, size: usize, stream: &Arc<Stream>) -> HipResult<*mut c_void> {
        self.bind()?;
        let s = Self::stream_of(stream)?;
        let mut p: sys::CUdeviceptr = 0;
        // SAFETY: a live pool and stream; writes one pointer.
        check("cuMemAllocFromPoolAsync", unsafe {
            sys::cuMemAllocFromPoolAsync(&mut p, size, self.raw(), s)
        })
        .map_err(|f| Failure::new(f.code, format!("{size} bytes: {}", f.message)))?;
        let p = p as usize as *mut c_void;
        super::memcheck::allocated(p, size, Some(self.device));
        Ok(p)
    }

    fn free(&self, p: *mut c_void, stream: &Arc<Stream>) -> HipResult<()> {
        self.bind()?;
        let s = Self::stream_of(stream)?;
        // SAFETY: an allocation of this pool (checked by the caller's registry).
        check("cuMemFreeAsync", unsafe {
            sys::cuMemFreeAsync(p as usize as sys::CUdeviceptr, s)
        })?;
        super::memcheck::released(p, true);
        Ok(())
    }

    fn trim_to(&self, keep: usize) -> HipResult<()> {
        self.bind()?;
        // SAFETY: a live pool.
        check("cuMemPoolTrimTo", unsafe {
            sys::cuMemPoolTrimTo(self.raw(), keep)
        })
    }

    fn set_attribute(&self, attribute: PoolAttribute, value: u64) -> HipResult<()> {
        self.bind()?;
        let which = driver_attribute(attribute);
        let mut flag: c_int = c_int::from(value != 0);
        let mut wide: u64 = value;
        let at: *mut c_void = if attribute.is_flag() {
            (&mut flag as *mut c_int).cast()
        } else {
            (&mut wide as *mut u64).cast()
        };
        // SAFETY: `at` holds the attribute's type (int for the reuse rules, else cuuint64_t).
        check("cuMemPoolSetAttribute", unsafe {
            sys::cuMemPoolSetAttribute(self.raw(), which, at)
        })
    }

    fn attribute(&self, attribute: PoolAttribute) -> HipResult<u64> {
        self.bind()?;
        let which = driver_attribute(attribute);
        let mut flag: c_int = 0;
        let mut wide: u64 = 0;
        let at: *mut c_void = if attribute.is_flag() {
            (&mut flag as *mut c_int).cast()
        } else {
            (&mut wide as *mut u64).cast()
        };
        // SAFETY: as in `set_attribute`.
        check("cuMemPoolGetAttribute", unsafe {
            sys::cuMemPoolGetAttribute(self.raw(), which, at)
        })?;
        Ok(if attribute.is_flag() {
            u64::from(flag != 0)
        } else {
            wide
        })
    }

    fn set_access(&self, accessor: DeviceId, flags: AccessFlags) -> HipResult<()> {
        self.bind()?;
        let desc = sys::CUmemAccessDesc {
            location: location(super::device_at(accessor)?.ordinal),
            flags: access_flags(flags),
        };
        // SAFETY: one descriptor.
        check("cuMemPoolSetAccess", unsafe {
            sys::cuMemPoolSetAccess(self.raw(), &desc, 1)
        })
    }

    fn access(&self, accessor: DeviceId) -> HipResult<AccessFlags> {
        self.bind()?;
        let mut at = location(super::device_at(accessor)?.ordinal);
        let mut flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_NONE;
        // SAFETY: writes one flags value.
        check("cuMemPoolGetAccess", unsafe {
            sys::cuMemPoolGetAccess(&mut flags, self.raw(), &mut at)
        })?;
        use sys::CUmemAccess_flags::*;
        Ok(match flags {
            CU_MEM_ACCESS_FLAGS_PROT_READ => AccessFlags::Read,
            CU_MEM_ACCESS_FLAGS_PROT_READWRITE => AccessFlags::ReadWrite,
            _ => AccessFlags::None,
        })
    }

    fn export_handle(&self, handle_type: u32, out: *mut c_void) -> HipResult<()> {
        self.bind()?;
        if out.is_null() {
            return Err(Failure::invalid_value("the handle pointer is null"));
        }
        // SAFETY: `out` holds the handle type's handle (an int for a file descriptor).
        check("cuMemPoolExportToShareableHandle", unsafe {
            sys::cuMemPoolExportToShareableHandle(
                out,
                self.raw(),
                sys::CUmemAllocationHandleType(handle_type),
                0,
            )
        })
    }

    fn export_pointer(&self, p: *mut c_void) -> HipResult<[u8; 64]> {
        self.bind()?;
        let mut data = sys::CUmemPoolPtrExportData { reserved: [0; 64] };
        // SAFETY: writes 64 bytes.
        check("cuMemPoolExportPointer", unsafe {
            sys::cuMemPoolExportPointer(&mut data, p as usize as sys::CUdeviceptr)
        })?;
        Ok(data.reserved)
    }

    fn import_pointer(&self, bytes: &[u8; 64]) -> HipResult<*mut c_void> {
        self.bind()?;
        let mut data = sys::CUmemPoolPtrExportData { reserved: *bytes };
        let mut p: sys::CUdeviceptr = 0;
        // SAFETY: reads the 64 bytes, writes one pointer.
        check("cuMemPoolImportPointer", unsafe {
            sys::cuMemPoolImportPointer(&mut p, self.raw(), &mut data)
        })?;
        if p == 0 {
            return Err(Failure::new(
                HipError::InvalidValue,
                "the driver gave no pointer",
            ));
        }
        Ok(p as usize as *mut c_void)
    }
}
