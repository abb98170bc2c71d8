//! The backend interface: what a device does, whichever driver serves it. `api/` checks and
//! converts the C arguments once and calls these traits; `opencl/` and `cuda/` implement them;
//! `select` picks one backend per process. Nothing here knows a backend (see `tests/layers.rs`).
//!
//! * [`Backend`]: the devices of one driver (`device(i)`; a `DeviceId` is a HIP ordinal).
//! * [`Device`]: one device and its primary context: properties and attributes, limits, memory
//!   (allocation, free, allocation queries, managed-memory hints), streams and events it creates,
//!   kernel queries, device variables, synchronization and reset.
//! * [`Queue`]: a backend's stream: stream-ordered launches, copies, fills, prefetches, event
//!   waits and host functions, synchronize and query. The runtime's stream object, with the
//!   handle programs see, is [`stream::Stream`]; it owns a `Queue`.
//! * [`Event`]: a backend's event: record on a queue, synchronize, query, timing.
//! * Modules and kernels are the registry's (`registry::Module`, `registry::KernelRef`): what a
//!   backend builds or loads for one is its [`ModuleState`], kept in the module's slot.
//!
//! Every stream-ordered operation reaches its queue through one function of [`ops`] per kind,
//! the place where stream capture will record instead of run.

pub mod attributes;
pub mod device_config;
pub mod device_info;
pub mod host_function;
pub mod occupancy;
pub mod ops;
pub mod stream;
pub mod types;

use std::any::Any;
use std::ffi::c_void;
use std::sync::Arc;

use crate::error::{Failure, HipError, HipResult};
use crate::props::HipDeviceProp;
use crate::registry::{KernelRef, Module};

pub use attributes::DeviceAttribute;
pub use device_config::*;
pub use device_info::DeviceInfo;
pub use stream::Stream;
pub use types::*;

/// A HIP device ordinal: an index into the backend's devices.
pub type DeviceId = usize;

/// Which driver a backend is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendKind {
    OpenCl,
    Cuda,
}

impl BackendKind {
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::OpenCl => "OpenCL",
            BackendKind::Cuda => "CUDA",
        }
    }
}

/// The devices of one driver.
pub trait Backend: Send + Sync {
    fn kind(&self) -> BackendKind;

    /// How many HIP devices this backend shows.
    fn device_count(&self) -> usize;

    /// Device `id`, or `hipErrorInvalidDevice`.
    fn device(&self, id: DeviceId) -> HipResult<&dyn Device>;
}

/// One device with its primary context. Methods that need a driver context make the device's
/// current on the calling thread themselves.
pub trait Device: Send + Sync {
    fn id(&self) -> DeviceId;

    /// The device's name (`hipDeviceGetName`).
    fn name(&self) -> &str;

    /// What `hipGetDeviceProperties` reports.
    fn properties(&self) -> HipDeviceProp;

    /// How device memory is provided, in words (for logs and tests).
    fn memory_model(&self) -> &'static str;

    /// `hipDeviceGetAttribute`.
    fn attribute(&self, attribute: DeviceAttribute) -> HipResult<i32>;

    fn limit(&self, limit: Limit) -> HipResult<usize>;
    fn set_limit(&self, limit: Limit, value: usize) -> HipResult<()>;

    /// (least, greatest) stream priority.
    fn stream_priority_range(&self) -> HipResult<(i32, i32)>;

    /// Makes the device usable from the calling thread (`hipSetDevice`, `hipInit`).
    fn make_current(&self) -> HipResult<()>;

    /// Waits for all work of the device (`hipDeviceSynchronize`).
    fn synchronize(&self) -> HipResult<()>;

    /// `hipDeviceReset`, after the runtime dropped every stream and event handle: frees every
    /// allocation; built or loaded modules are dropped (`ModuleState::reset`), their variables
    /// back at their initial values on next use.
    fn reset(&self) -> HipResult<()>;

    // ---- memory -------------------------------------------------------------------------------

    /// `size` (> 0) bytes of `kind`.
    fn allocate(&self, kind: MemoryKind, size: usize) -> HipResult<*mut c_void>;

    /// Frees `p` (not null) after the work queued before it: `hipFree` or `hipHostFree`.
    fn free(&self, p: *mut c_void, kind: FreeKind) -> HipResult<()>;

    /// (free, total) bytes of device memory.
    fn memory_info(&self) -> HipResult<(usize, usize)>;

    /// `hipHostRegister`: pins existing host memory for the device (`flags` checked by the
    /// caller: `hipHostRegisterPortable`, `Mapped`, `IoMemory`, `ReadOnly`).
    fn host_register(&self, _p: *mut c_void, _bytes: usize, _flags: u32) -> HipResult<()> {
        Err(not_supported(
            "registering existing host memory has no equivalent on this backend",
        ))
    }

    /// Undoes [`Device::host_register`].
    fn host_unregister(&self, _p: *mut c_void) -> HipResult<()> {
        Err(not_supported(
            "registering existing host memory has no equivalent on this backend",
        ))
    }

    /// `hipMemAdvise` on managed memory (`location`: where the advice takes one).
    fn advise(
        &self,
        p: *const c_void,
        count: usize,
        advice: MemAdvice,
        location: Option<Location>,
    ) -> HipResult<()>;

    /// `hipMemRangeGetAttribute`: the attribute's value for the range, written into `out`.
    fn range_attribute(
        &self,
        attribute: RangeAttribute,
        p: *const c_void,
        count: usize,
        out: &mut [u8],
    ) -> HipResult<()>;

    // ---- memory queries, contexts, cooperative launches (rt-memory: driver API and memory) ---

    /// The allocation holding `p` (device, managed, pinned or registered host memory; interior
    /// pointers included), or `None` for memory the backend does not know.
    fn allocation(&self, p: *const c_void) -> HipResult<Option<Allocation>>;

    /// `hipPointerSetAttribute(HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS)` on the allocation holding `p`
    /// (unknown memory: `hipErrorInvalidDevicePointer`).
    fn set_sync_memops(&self, p: *const c_void, on: bool) -> HipResult<()>;

    /// `hipDevicePrimaryCtxSetFlags`: the primary context's scheduling flags (checked by the
    /// caller). A backend without such a choice keeps them as a record only.
    fn set_context_flags(&self, _flags: u32) -> HipResult<()> {
        Ok(())
    }

    /// Whether this device can reach `peer`'s memory (`hipDeviceCanAccessPeer`; `peer` is
    /// another device of the backend): the backend answers per pair.
    fn can_access_peer(&self, _peer: DeviceId) -> bool {
        false
    }

    // ---- streams and events -------------------------------------------------------------------

    /// The null stream (HIP's legacy default stream).
    fn null_stream(&self) -> Arc<Stream>;

    /// `hipStreamPerThread` for the calling thread.
    fn per_thread_stream(&self) -> HipResult<Arc<Stream>>;

    /// A new stream (`flags` checked by the caller).
    fn create_stream(&self, flags: StreamFlags, priority: i32) -> HipResult<Arc<dyn Queue>>;

    /// A new event (`flags` checked by the caller; a backend may refuse some).
    fn create_event(&self, flags: EventFlags) -> HipResult<Box<dyn Event>>;

    // ---- kernels and device variables ---------------------------------------------------------

    fn func_attributes(&self, kernel: &KernelRef) -> HipResult<FuncAttributes>;
    fn set_func_attribute(
        &self,
        kernel: &KernelRef,
        attribute: FuncAttribute,
        value: i32,
    ) -> HipResult<()>;

    /// (grid, block) of `hipOccupancyMaxPotentialBlockSize`.
    fn max_potential_block_size(
        &self,
        kernel: &KernelRef,
        dynamic_shared: usize,
        block_limit: i32,
    ) -> HipResult<(i32, i32)>;

    /// `hipOccupancyMaxActiveBlocksPerMultiprocessor[WithFlags]`.
    fn max_active_blocks(
        &self,
        kernel: &KernelRef,
        block_size: i32,
        dynamic_shared: usize,
        flags: u32,
    ) -> HipResult<i32>;

    /// The device address and size of variable `index` of `module` (building or loading the
    /// module on this device first).
    fn variable(&self, module: &Arc<Module>, index: usize) -> HipResult<(usize, usize)>;

    // ---- several devices, peers, IPC and the device's settings (rt-devices) -------------------

    /// The settings a program sets and reads back (cache and shared-memory configurations,
    /// device flags) where the backend keeps them itself.
    fn settings(&self) -> &DeviceSettings;

    /// `hipDeviceGetP2PAttribute` with this device as the source and `peer` (another device of
    /// the backend) as the destination: by default access as [`Device::can_access_peer`] says,
    /// no native atomics or array access over the link, rank 0.
    fn p2p_attribute(&self, peer: DeviceId, attribute: P2pAttribute) -> HipResult<i32> {
        Ok(match attribute {
            P2pAttribute::AccessSupported => i32::from(self.can_access_peer(peer)),
            P2pAttribute::PerformanceRank
            | P2pAttribute::NativeAtomicSupported
            | P2pAttribute::ArrayAccessSupported => 0,
        })
    }

    /// `hipDeviceEnablePeerAccess`: this device's kernels may reach `peer`'s memory (the caller
    /// checked [`Device::can_access_peer`]); twice is `hipErrorPeerAccessAlreadyEnabled`.
    fn enable_peer_access(&self, _peer: DeviceId) -> HipResult<()> {
        Err(Failure::new(
            HipError::PeerAccessUnsupported,
            "this backend's devices cannot reach each other's memory",
        ))
    }

    /// `hipDeviceDisablePeerAccess`; not enabled is `hipErrorPeerAccessNotEnabled`.
    fn disable_peer_access(&self, _peer: DeviceId) -> HipResult<()> {
        Err(Failure::new(
            HipError::PeerAccessNotEnabled,
            "peer access was never enabled on this backend",
        ))
    }

    /// `hipIpcGetMemHandle`: a handle another process opens to reach the allocation `p` is in.
    fn ipc_memory_handle(&self, _p: *mut c_void) -> HipResult<IpcHandle> {
        Err(not_supported(IPC_UNSUPPORTED))
    }

    /// `hipIpcOpenMemHandle`: maps another process's allocation into this one.
    fn ipc_open_memory(&self, _handle: &IpcHandle, _flags: u32) -> HipResult<*mut c_void> {
        Err(not_supported(IPC_UNSUPPORTED))
    }

    /// `hipIpcCloseMemHandle`: unmaps what [`Device::ipc_open_memory`] mapped.
    fn ipc_close_memory(&self, _p: *mut c_void) -> HipResult<()> {
        Err(not_supported(IPC_UNSUPPORTED))
    }

    /// `hipIpcOpenEventHandle`: another process's event, as an event of this device.
    fn ipc_open_event(&self, _handle: &IpcHandle) -> HipResult<Box<dyn Event>> {
        Err(not_supported(IPC_UNSUPPORTED))
    }

    /// `hipDeviceGetUuid`: the device's 16-byte UUID.
    fn uuid(&self) -> HipResult<[u8; 16]>;

    /// `hipDeviceGetCacheConfig`.
    fn cache_config(&self) -> HipResult<CacheConfig> {
        Ok(self.settings().cache_config())
    }

    /// `hipDeviceSetCacheConfig`: a preference; by default kept and reported back.
    fn set_cache_config(&self, config: CacheConfig) -> HipResult<()> {
        self.settings().set_cache_config(config);
        Ok(())
    }

    /// `hipDeviceGetSharedMemConfig`: four-byte banks until set (as HIP reports).
    fn shared_mem_config(&self) -> HipResult<SharedMemConfig> {
        Ok(self.settings().shared_mem_config())
    }

    /// `hipDeviceSetSharedMemConfig`: the bank width; by default kept and reported back.
    fn set_shared_mem_config(&self, config: SharedMemConfig) -> HipResult<()> {
        self.settings().set_shared_mem_config(config);
        Ok(())
    }

    /// `hipGetDeviceFlags`.
    fn device_flags(&self) -> HipResult<DeviceFlags> {
        Ok(self.settings().device_flags())
    }

    /// `hipSetDeviceFlags`: by default kept and reported back.
    fn set_device_flags(&self, flags: DeviceFlags) -> HipResult<()> {
        self.settings().set_device_flags(flags);
        Ok(())
    }

    /// `hipFuncSetCacheConfig`: the kernel's own preference (recorded in its settings by the
    /// caller; a backend with such a control applies it).
    fn set_func_cache_config(&self, _kernel: &KernelRef, _config: CacheConfig) -> HipResult<()> {
        Ok(())
    }

    /// `hipFuncSetSharedMemConfig` (recorded in the kernel's settings by the caller).
    fn set_func_shared_mem_config(
        &self,
        _kernel: &KernelRef,
        _config: SharedMemConfig,
    ) -> HipResult<()> {
        Ok(())
    }

    /// `hipProfilerStart`/`hipProfilerStop`: a backend with an external profiler's switch
    /// turns it; by default there is none to turn.
    fn set_profiling(&self, _on: bool) -> HipResult<()> {
        Err(not_supported(
            "no profiler to start or stop: the OpenCL backend has no profiling switch",
        ))
    }

    // ---- stream-ordered allocation and memory pools (rt-graphs) ----

    /// The device's default memory pool (`hipDeviceGetDefaultMemPool`), made on first use.
    fn default_mem_pool(&self) -> HipResult<Arc<dyn MemPool>>;

    /// `hipMemPoolCreate` on this device.
    fn create_mem_pool(&self, config: &PoolConfig) -> HipResult<Arc<dyn MemPool>>;

    /// `hipMemPoolImportFromShareableHandle`.
    fn import_mem_pool(
        &self,
        _handle: *mut c_void,
        _handle_type: u32,
    ) -> HipResult<Arc<dyn MemPool>> {
        Err(not_supported(
            "memory pools cannot be shared between processes on this backend",
        ))
    }

    /// Frees device memory the caller knows no queued work uses, without waiting for the
    /// device (a pool giving back memory whose last use has completed).
    fn free_idle(&self, p: *mut c_void) -> HipResult<()> {
        self.free(p, FreeKind::Device)
    }

    // ---- virtual memory management (rt-vmm; the bookkeeping and checks are `vmm`'s) ----

    /// (minimum, recommended) granularity of physical allocations, reservations and mappings,
    /// or `hipErrorNotSupported` where the device has no virtual memory management.
    fn vmm_granularity(&self) -> HipResult<(usize, usize)> {
        Err(not_supported(VMM_UNSUPPORTED))
    }

    /// `hipMemCreate`: `size` bytes (a multiple of the granularity) of physical memory of this
    /// device; `exportable`: it may be exported as a POSIX file descriptor.
    fn create_physical(
        &self,
        _size: usize,
        _exportable: bool,
    ) -> HipResult<Box<dyn PhysicalMemory>> {
        Err(not_supported(VMM_UNSUPPORTED))
    }

    /// `hipMemImportFromShareableHandle`: the physical memory a POSIX file descriptor
    /// (exported by [`PhysicalMemory::export_fd`], here or in another process) names.
    fn import_physical(&self, _fd: i32) -> HipResult<Box<dyn PhysicalMemory>> {
        Err(not_supported(VMM_UNSUPPORTED))
    }

    /// `hipMemAddressReserve`: `size` bytes of address space aligned to `alignment` (both
    /// multiples of the granularity, checked by the caller), at `hint` if that range is free.
    fn reserve_address(&self, _size: usize, _alignment: usize, _hint: usize) -> HipResult<usize> {
        Err(not_supported(VMM_UNSUPPORTED))
    }

    /// `hipMemAddressFree` of a whole reservation with nothing mapped in it.
    fn free_address(&self, _address: usize, _size: usize) -> HipResult<()> {
        Err(not_supported(VMM_UNSUPPORTED))
    }

    /// `hipMemUnmap` of one whole mapping of this device's physical memory (no work uses it).
    fn unmap(&self, _address: usize, _size: usize) -> HipResult<()> {
        Err(not_supported(VMM_UNSUPPORTED))
    }

    /// `hipMemSetAccess` of one whole mapping of this device's physical memory: `access` is
    /// the access of every device the program named so far (devices not listed have none).
    fn set_access(
        &self,
        _address: usize,
        _size: usize,
        _access: &[(DeviceId, AccessFlags)],
    ) -> HipResult<()> {
        Err(not_supported(VMM_UNSUPPORTED))
    }
}

// ---- virtual memory management (rt-vmm) ----

/// Physical memory of `hipMemCreate` (a `hipMemGenericAllocationHandle_t` holds one): freed
/// when dropped, which `vmm` does once no handle and no mapping uses it.
pub trait PhysicalMemory: Send + Sync {
    /// Its size in bytes, where the backend knows it (an imported allocation's may not be).
    fn size(&self) -> Option<usize>;

    /// Maps `[offset, offset + size)` of it at `address`, inside a reservation, where nothing
    /// is mapped (checked by the caller); no device has access yet.
    fn map(&self, address: usize, size: usize, offset: usize) -> HipResult<()>;

    /// A new POSIX file descriptor naming it (`hipMemExportToShareableHandle`).
    fn export_fd(&self) -> HipResult<i32>;
}

/// Why virtual memory management is refused where a backend has none.
const VMM_UNSUPPORTED: &str = "virtual memory management on this device";

// ---- stream-ordered allocation and memory pools (rt-graphs) ----

/// A memory pool (`hipMemPool_t`) of one device: allocations and frees ordered on streams,
/// memory freed in stream order kept for reuse (see `mempool`).
pub trait MemPool: Any + Send + Sync {
    fn device(&self) -> DeviceId;

    /// `size` (> 0) bytes, usable by work queued on `stream` after this call.
    fn allocate(&self, size: usize, stream: &Arc<Stream>) -> HipResult<*mut c_void>;

    /// Frees `p` (an allocation of this pool) once the work queued on `stream` before it is done.
    fn free(&self, p: *mut c_void, stream: &Arc<Stream>) -> HipResult<()>;

    /// Gives memory back to the device until the pool reserves at most `keep` bytes, as far as
    /// memory is free and no queued work uses it (`hipMemPoolTrimTo`).
    fn trim_to(&self, keep: usize) -> HipResult<()>;

    fn set_attribute(&self, attribute: PoolAttribute, value: u64) -> HipResult<()>;
    fn attribute(&self, attribute: PoolAttribute) -> HipResult<u64>;

    /// `hipMemPoolSetAccess` for one device (checked by the caller).
    fn set_access(&self, accessor: DeviceId, flags: AccessFlags) -> HipResult<()>;
    fn access(&self, accessor: DeviceId) -> HipResult<AccessFlags>;

    /// After a synchronization: memory above the release threshold goes back to the device.
    fn after_synchronize(&self) {}

    /// `hipMemPoolExportToShareableHandle`: writes the handle into `out`.
    fn export_handle(&self, _handle_type: u32, _out: *mut c_void) -> HipResult<()> {
        Err(not_supported(
            "memory pools cannot be shared between processes on this backend",
        ))
    }

    /// `hipMemPoolExportPointer`: 64 bytes naming allocation `p` for another process.
    fn export_pointer(&self, _p: *mut c_void) -> HipResult<[u8; 64]> {
        Err(not_supported(
            "pool allocations cannot be shared between processes on this backend",
        ))
    }

    /// `hipMemPoolImportPointer`.
    fn import_pointer(&self, _data: &[u8; 64]) -> HipResult<*mut c_void> {
        Err(not_supported(
            "pool allocations cannot be shared between processes on this backend",
        ))
    }
}

/// Why inter-process sharing is refused where a backend has none.
const IPC_UNSUPPORTED: &str = "sharing memory and events between processes: OpenCL has no \
     inter-process handles for its allocations or events (USM and SVM pointers live in one \
     process's context)";

/// A backend's stream: an ordered queue of work on one device.
pub trait Queue: Any + Send + Sync {
    /// Launches `kernel` (`cfg.stream` is this queue's stream). Asynchronous.
    fn launch(&self, kernel: &KernelRef, cfg: &LaunchConfig) -> HipResult<()>;

    /// Copies a region (checked for nulls and pitches by the caller); with `wait`, returns once
    /// the copy is done.
    fn copy(&self, copy: &Copy3d, kind: MemcpyKind, wait: bool) -> HipResult<()>;

    /// Fills a region; with `wait`, returns once it is done.
    fn fill(&self, fill: &Fill, wait: bool) -> HipResult<()>;

    /// `hipMemPrefetchAsync` of managed memory to `to`, in stream order.
    fn prefetch(&self, p: *const c_void, count: usize, to: Location) -> HipResult<()>;

    /// Later work waits for `event` (an event never recorded is complete).
    fn wait_event(&self, event: &dyn Event) -> HipResult<()>;

    /// Runs `function` on the host once the work before it is done; later work waits for it.
    /// The function receives `hipSuccess`, or a failure code when earlier work failed.
    fn host_function(&self, function: HostFunction) -> HipResult<()>;

    /// Waits for everything queued so far (and, by HIP's null-stream rules, what it depends on).
    fn synchronize(&self) -> HipResult<()>;

    /// `Ok(true)` when all its work is done.
    fn is_idle(&self) -> HipResult<bool>;

    fn flags(&self) -> HipResult<u32>;
    fn priority(&self) -> HipResult<i32>;

    fn as_any(&self) -> &dyn Any;

    // ---- cooperative launches (rt-memory: driver API) ----------------------------------------

    /// A launch whose blocks all run at once (`grid_group::sync()`), or `hipErrorNotSupported`
    /// where the backend cannot promise that for this grid.
    fn launch_cooperative(&self, _kernel: &KernelRef, _cfg: &LaunchConfig) -> HipResult<()> {
        Err(not_supported(
            "cooperative launches (every block resident at once) on this backend",
        ))
    }

    // ---- several devices and stream memory operations (rt-devices) --------------------------

    /// Copies between this queue's device and another's memory (`hipMemcpyPeer[Async]`): `dst`
    /// lies on device `dst_device`, `src` on `src_device`, one of them this queue's. Ordered on
    /// this queue; with `wait`, returns once done.
    fn copy_peer(
        &self,
        copy: &Copy3d,
        dst_device: DeviceId,
        src_device: DeviceId,
        wait: bool,
    ) -> HipResult<()>;

    /// `hipStreamWriteValue32/64`: writes the word in stream order.
    fn write_value(&self, write: &ValueWrite) -> HipResult<()>;

    /// `hipStreamWaitValue32/64`: later work on the stream waits until the word meets the
    /// condition.
    fn wait_value(&self, wait: &ValueWait) -> HipResult<()>;

    // ---- managed memory attached to a stream (rt-vmm) ----

    /// `hipStreamAttachMemAsync` (checked by the caller): which streams will use the managed
    /// memory. By default nothing to do: the backend's managed memory is coherent for every
    /// stream.
    fn attach_memory(&self, _p: *mut c_void, _length: usize, _flags: u32) -> HipResult<()> {
        Ok(())
    }
}

/// A backend's event.
pub trait Event: Any + Send + Sync {
    /// `hipEventRecord` on `queue`.
    fn record(&self, queue: &dyn Queue) -> HipResult<()>;

    /// Waits until the event completed (never recorded: at once).
    fn synchronize(&self) -> HipResult<()>;

    /// `Ok(true)` when complete or never recorded.
    fn is_complete(&self) -> HipResult<bool>;

    /// Milliseconds from this event to `stop`.
    fn elapsed_ms(&self, stop: &dyn Event) -> HipResult<f32>;

    fn as_any(&self) -> &dyn Any;

    // ---- devices and inter-process events (rt-devices) ---------------------------------------

    /// The device the event was created on.
    fn device(&self) -> DeviceId;

    /// The flags it was created with.
    fn flags(&self) -> EventFlags;

    /// `hipIpcGetEventHandle` (the event was created with `hipEventInterprocess`).
    fn ipc_handle(&self) -> HipResult<IpcHandle> {
        Err(not_supported(IPC_UNSUPPORTED))
    }
}

/// What a backend built or loaded for one registry module, kept in the module (see
/// `registry::Module::state`).
pub trait ModuleState: Any + Send + Sync + std::fmt::Debug {
    /// Drops what the device built or loaded (`hipDeviceReset`); built again on next use.
    fn reset(&self);

    fn as_any(&self) -> &dyn Any;

    // ---- several devices (rt-devices) ---------------------------------------------------------

    /// Drops what one device built or loaded (`hipDeviceReset` of that device); the others keep
    /// theirs. By default, as [`ModuleState::reset`].
    fn reset_device(&self, _device: DeviceId) {
        self.reset();
    }
}

/// A backend's object of a type it expects, or `hipErrorInvalidHandle` (an object of another
/// backend cannot reach here in one process; the check keeps a mistake from being undefined).
pub fn downcast<'a, T: 'static>(object: &'a dyn Any, what: &str) -> HipResult<&'a T> {
    object.downcast_ref::<T>().ok_or_else(|| {
        Failure::new(
            HipError::InvalidHandle,
            format!("{what} of another backend"),
        )
    })
}

/// `hipErrorNotSupported` with the reason.
pub fn not_supported(why: &str) -> Failure {
    Failure::new(
        HipError::NotSupported,
        format!("not supported by hipmlir: {why}"),
    )
}
