//! The CUDA devices as the backend interface sees them: [`Device`] for [`CudaDevice`]. Every
//! method makes the device's primary context current on the calling thread first.

use std::cell::RefCell;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;

use super::device::CudaDevice;
use super::driver::{check, sys};
use super::mempool::CudaMemPool;
use super::stream::{check_wait, CudaEvent, CudaQueue};
use super::{memory as mem, module, virtual_memory as vm};
use crate::backend::attributes::{self, DeviceAttribute};
use crate::backend::host_function::Waited;
use crate::backend::{AccessFlags, MemPool, PhysicalMemory, PoolConfig};
use crate::backend::{
    Allocation, CacheConfig, Device, DeviceFlags, DeviceId, DeviceSettings, Event, EventFlags,
    FreeKind, FuncAttribute, FuncAttributes, IpcHandle, Limit, Location, MemAdvice, MemoryKind,
    P2pAttribute, Queue, RangeAttribute, Stream, StreamFlags,
};
use crate::error::{Failure, HipError, HipResult};
use crate::props::HipDeviceProp;
use crate::registry::{KernelRef, Module};

thread_local! {
    /// The calling thread's `hipStreamPerThread` objects, one per device used.
    static PER_THREAD: RefCell<Vec<Arc<Stream>>> = const { RefCell::new(Vec::new()) };
}

impl CudaDevice {
    /// The kernel as loaded on this device (its context current).
    fn function_of(&self, kernel: &KernelRef) -> HipResult<module::Function> {
        self.bind()?;
        module::function(&kernel.module, kernel.index(), self)
    }

    /// The driver's ordinal of a location (`CU_DEVICE_CPU` for the host).
    fn ordinal_of(location: Location) -> HipResult<sys::CUdevice> {
        Ok(match location {
            Location::Host => -1,
            Location::Device(d) => super::device_at(d)?.ordinal,
        })
    }

    /// A limit the driver keeps; the heap's size is hipmlir's own (its allocator is device
    /// code), kept beside the OpenCL one.
    fn driver_limit(limit: Limit) -> Option<sys::CUlimit> {
        match limit {
            Limit::StackSize => Some(sys::CUlimit::CU_LIMIT_STACK_SIZE),
            Limit::PrintfFifoSize => Some(sys::CUlimit::CU_LIMIT_PRINTF_FIFO_SIZE),
            Limit::MallocHeapSize => None,
        }
    }
}

fn function_attribute(f: &module::Function, which: sys::CUfunction_attribute) -> HipResult<c_int> {
    let mut v = 0;
    // SAFETY: writes one int.
    check("cuFuncGetAttribute", unsafe {
        sys::cuFuncGetAttribute(&mut v, which, f.raw())
    })?;
    Ok(v)
}

impl Device for CudaDevice {
    fn id(&self) -> DeviceId {
        self.index
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn properties(&self) -> HipDeviceProp {
        self.props
    }

    fn memory_model(&self) -> &'static str {
        "CUDA unified addressing"
    }

    fn attribute(&self, attribute: DeviceAttribute) -> HipResult<i32> {
        use sys::CUdevice_attribute::*;
        use DeviceAttribute as A;
        // Those the driver answers better than the properties.
        let direct = match attribute {
            A::ConcurrentManagedAccess => Some(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS),
            A::DirectManagedMemAccessFromHost => {
                Some(CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST)
            }
            A::MaxBlocksPerMultiProcessor => {
                Some(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)
            }
            A::PageableMemoryAccess => Some(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS),
            A::MaxRegistersPerMultiprocessor => {
                Some(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)
            }
            A::SharedMemPerBlockOptin => {
                Some(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            }
            A::StreamPrioritiesSupported => Some(CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED),
            A::HostRegisterSupported => Some(CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED),
            A::PhysicalMultiProcessorCount => Some(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
            // Pools are the driver's (rt-graphs).
            A::MemoryPoolsSupported => Some(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED),
            A::MemoryPoolSupportedHandleTypes => {
                Some(CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES)
            }
            // Virtual memory management is the driver's (rt-vmm).
            A::VirtualMemoryManagementSupported => {
                Some(CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED)
            }
            _ => None,
        };
        if let Some(which) = direct {
            return Ok(self.driver_attribute(which));
        }
        if attribute == A::WallClockRate {
            // wall_clock64 reads %globaltimer, a nanosecond clock: 1 GHz, in kHz.
            return Ok(GLOBAL_TIMER_KHZ);
        }
        attributes::from_properties(&self.props, &self.info, attribute).ok_or_else(|| {
            Failure::new(
                HipError::NotSupported,
                format!(
                    "attribute {} is an AMD GPU's HDP register address",
                    attribute.raw()
                ),
            )
        })
    }

    fn limit(&self, limit: Limit) -> HipResult<usize> {
        self.bind()?;
        let Some(which) = Self::driver_limit(limit) else {
            return Ok(crate::heap::limit());
        };
        let mut v = 0;
        // SAFETY: writes one size_t.
        check("cuCtxGetLimit", unsafe {
            sys::cuCtxGetLimit(&mut v, which)
        })?;
        Ok(v)
    }

    fn set_limit(&self, limit: Limit, value: usize) -> HipResult<()> {
        self.bind()?;
        let Some(which) = Self::driver_limit(limit) else {
            return crate::heap::set_limit(value);
        };
        // SAFETY: plain driver call.
        check("cuCtxSetLimit", unsafe { sys::cuCtxSetLimit(which, value) })
    }

    fn stream_priority_range(&self) -> HipResult<(i32, i32)> {
        self.bind()?;
        let (mut least, mut greatest) = (0, 0);
        // SAFETY: writes two ints.
        check("cuCtxGetStreamPriorityRange", unsafe {
            sys::cuCtxGetStreamPriorityRange(&mut least, &mut greatest)
        })?;
        Ok((least, greatest))
    }

    fn make_current(&self) -> HipResult<()> {
        self.bind()
    }

    fn synchronize(&self) -> HipResult<()> {
        self.bind()?;
        check_wait(self.index, Waited::Device, "a device-wide wait")?;
        // SAFETY: a context is current.
        check("cuCtxSynchronize", unsafe { sys::cuCtxSynchronize() })
    }

    /// The primary context is reset: every allocation, stream, event and loaded module goes
    /// with it; modules load again on their next launch, their variables initialized anew.
    fn reset(&self) -> HipResult<()> {
        self.bind()?;
        // SAFETY: a context is current; waiting before the reset.
        let _ = unsafe { sys::cuCtxSynchronize() };
        self.reset_context()
    }

    fn allocate(&self, kind: MemoryKind, size: usize) -> HipResult<*mut c_void> {
        self.bind()?;
        let p = match kind {
            MemoryKind::Device => mem::malloc(size),
            MemoryKind::Managed { flags } => mem::malloc_managed(size, flags),
            MemoryKind::PinnedHost { flags } => mem::host_malloc(size, flags),
        }?;
        super::memcheck::allocated(p, size, Some(self.index));
        Ok(p)
    }

    fn free(&self, p: *mut c_void, kind: FreeKind) -> HipResult<()> {
        self.bind()?;
        // The driver waits for the device before it frees.
        check_wait(self.index, Waited::Device, "freeing memory")?;
        match kind {
            FreeKind::Device => mem::free(p),
            FreeKind::Host => mem::host_free(p),
        }?;
        super::memcheck::released(p, true);
        Ok(())
    }

    fn memory_info(&self) -> HipResult<(usize, usize)> {
        self.bind()?;
        mem::info()
    }

    fn allocation(&self, p: *const c_void) -> HipResult<Option<Allocation>> {
        self.bind()?;
        // HIP ordinals are indices into the backend's devices (HIPMLIR_DEVICE may hide some).
        let device_of = |ordinal: i32| {
            super::devices()
                .iter()
                .position(|d| d.ordinal == ordinal)
                .unwrap_or(self.index)
        };
        Ok(mem::allocation(p, device_of))
    }

    fn set_sync_memops(&self, p: *const c_void, on: bool) -> HipResult<()> {
        self.bind()?;
        mem::set_sync_memops(p, on)
    }

    /// `cuDevicePrimaryCtxSetFlags`: HIP's scheduling flags are the driver's.
    fn set_context_flags(&self, flags: u32) -> HipResult<()> {
        // SAFETY: plain driver call.
        check("cuDevicePrimaryCtxSetFlags", unsafe {
            sys::cuDevicePrimaryCtxSetFlags_v2(self.ordinal, flags)
        })
    }

    fn host_register(&self, p: *mut c_void, bytes: usize, flags: c_uint) -> HipResult<()> {
        self.bind()?;
        mem::host_register(p, bytes, flags)?;
        super::memcheck::allocated(p, bytes, Some(self.index));
        Ok(())
    }

    fn host_unregister(&self, p: *mut c_void) -> HipResult<()> {
        self.bind()?;
        mem::host_unregister(p)?;
        super::memcheck::released(p, false);
        Ok(())
    }

    fn advise(
        &self,
        p: *const c_void,
        count: usize,
        advice: MemAdvice,
        location: Option<Location>,
    ) -> HipResult<()> {
        let target = match location {
            Some(l) => Self::ordinal_of(l)?,
            // The driver ignores the device for this advice.
            None => self.ordinal,
        };
        self.bind()?;
        mem::advise(p, count, advice, target)
    }

    fn range_attribute(
        &self,
        attribute: RangeAttribute,
        p: *const c_void,
        count: usize,
        out: &mut [u8],
    ) -> HipResult<()> {
        self.bind()?;
        mem::range_attribute(out, attribute, p, count)
    }

    fn null_stream(&self) -> Arc<Stream> {
        self.null_stream
            .get_or_init(|| {
                Arc::new(Stream::null(
                    self.index,
                    Arc::new(CudaQueue::null(self.index)),
                ))
            })
            .clone()
    }

    fn per_thread_stream(&self) -> HipResult<Arc<Stream>> {
        PER_THREAD
            .try_with(|cell| {
                let mut streams = cell.borrow_mut();
                if let Some(s) = streams.iter().find(|s| s.device() == self.index) {
                    return s.clone();
                }
                let queue = Arc::new(CudaQueue::per_thread(self.index));
                let stream = Arc::new(Stream::new(self.index, queue));
                streams.push(stream.clone());
                stream
            })
            .map_err(|_| Failure::new(HipError::InvalidHandle, "the thread is exiting"))
    }

    fn create_stream(&self, flags: StreamFlags, priority: i32) -> HipResult<Arc<dyn Queue>> {
        Ok(Arc::new(CudaQueue::create(self, flags, priority)?))
    }

    fn create_event(&self, flags: EventFlags) -> HipResult<Box<dyn Event>> {
        Ok(Box::new(CudaEvent::create(self, flags)?))
    }

    fn func_attributes(&self, kernel: &KernelRef) -> HipResult<FuncAttributes> {
        use sys::CUfunction_attribute::*;
        let f = self.function_of(kernel)?;
        let get = |w| function_attribute(&f, w);
        let to_usize = |v: c_int| usize::try_from(v).unwrap_or(0);
        // At most the kernel's __launch_bounds__, which every launch enforces.
        let max_threads = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?.min(
            kernel
                .info()
                .max_threads_per_block
                .map_or(c_int::MAX, |most| {
                    c_int::try_from(most).unwrap_or(c_int::MAX)
                }),
        );
        Ok(FuncAttributes {
            binaryVersion: get(CU_FUNC_ATTRIBUTE_BINARY_VERSION)?,
            cacheModeCA: get(CU_FUNC_ATTRIBUTE_CACHE_MODE_CA)?,
            constSizeBytes: to_usize(get(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)?),
            localSizeBytes: to_usize(get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?),
            maxDynamicSharedSizeBytes: get(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?,
            maxThreadsPerBlock: max_threads,
            numRegs: get(CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            preferredShmemCarveout: get(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)?,
            ptxVersion: get(CU_FUNC_ATTRIBUTE_PTX_VERSION)?,
            sharedSizeBytes: to_usize(get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?),
        })
    }

    /// The driver's own attributes: max dynamic shared memory, carveout.
    fn set_func_attribute(
        &self,
        kernel: &KernelRef,
        attribute: FuncAttribute,
        value: i32,
    ) -> HipResult<()> {
        use sys::CUfunction_attribute::*;
        let which = match attribute {
            FuncAttribute::MaxDynamicSharedMemorySize => {
                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            }
            FuncAttribute::PreferredSharedMemoryCarveout => {
                CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
            }
        };
        let f = self.function_of(kernel)?;
        // SAFETY: a function of a loaded module.
        check("cuFuncSetAttribute", unsafe {
            sys::cuFuncSetAttribute(f.raw(), which, value)
        })?;
        match attribute {
            FuncAttribute::MaxDynamicSharedMemorySize => {
                kernel.update_settings(|s| s.max_dynamic_shared = Some(value));
                module::note_shared_allowed(
                    &kernel.module,
                    kernel.index(),
                    self,
                    value.max(0) as usize,
                );
            }
            FuncAttribute::PreferredSharedMemoryCarveout => {
                kernel.update_settings(|s| s.carveout = Some(value))
            }
        }
        Ok(())
    }

    fn max_potential_block_size(
        &self,
        kernel: &KernelRef,
        dynamic_shared: usize,
        block_limit: i32,
    ) -> HipResult<(i32, i32)> {
        let f = self.function_of(kernel)?;
        let (mut grid, mut block) = (0, 0);
        // SAFETY: writes two ints; no per-block-size callback.
        check("cuOccupancyMaxPotentialBlockSize", unsafe {
            sys::cuOccupancyMaxPotentialBlockSize(
                &mut grid,
                &mut block,
                f.raw(),
                None,
                dynamic_shared,
                block_limit.max(0),
            )
        })?;
        Ok((grid, block))
    }

    fn max_active_blocks(
        &self,
        kernel: &KernelRef,
        block_size: i32,
        dynamic_shared: usize,
        flags: u32,
    ) -> HipResult<i32> {
        let f = self.function_of(kernel)?;
        let mut n = 0;
        // SAFETY: writes one int.
        check(
            "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
            unsafe {
                sys::cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                    &mut n,
                    f.raw(),
                    block_size,
                    dynamic_shared,
                    flags,
                )
            },
        )?;
        Ok(n)
    }

    fn variable(&self, module: &Arc<Module>, index: usize) -> HipResult<(usize, usize)> {
        self.bind()?;
        let (address, size) = module::variable(module, index, self)?;
        Ok((address as usize, size))
    }

    // ---- stream-ordered allocation and memory pools (rt-graphs) ----

    fn default_mem_pool(&self) -> HipResult<Arc<dyn MemPool>> {
        Ok(Arc::new(CudaMemPool::default_of(self)?))
    }

    fn create_mem_pool(&self, config: &PoolConfig) -> HipResult<Arc<dyn MemPool>> {
        Ok(Arc::new(CudaMemPool::create(self, config)?))
    }

    fn import_mem_pool(
        &self,
        handle: *mut c_void,
        handle_type: u32,
    ) -> HipResult<Arc<dyn MemPool>> {
        Ok(Arc::new(CudaMemPool::import(self, handle, handle_type)?))
    }

    fn can_access_peer(&self, peer: DeviceId) -> bool {
        super::peer::can_access_peer(self, peer)
    }

    fn settings(&self) -> &DeviceSettings {
        &self.settings
    }

    // ---- virtual memory management (rt-vmm): the driver's, see `virtual_memory` ----

    fn vmm_granularity(&self) -> HipResult<(usize, usize)> {
        vm::granularity(self)
    }

    fn create_physical(&self, size: usize, exportable: bool) -> HipResult<Box<dyn PhysicalMemory>> {
        vm::create(self, size, exportable)
    }

    fn import_physical(&self, fd: i32) -> HipResult<Box<dyn PhysicalMemory>> {
        vm::import(self, fd)
    }

    fn reserve_address(&self, size: usize, alignment: usize, hint: usize) -> HipResult<usize> {
        vm::reserve(self, size, alignment, hint)
    }

    fn free_address(&self, address: usize, size: usize) -> HipResult<()> {
        vm::free(self, address, size)
    }

    fn unmap(&self, address: usize, size: usize) -> HipResult<()> {
        vm::unmap(self, address, size)?;
        super::memcheck::released(address as *const c_void, false);
        Ok(())
    }

    fn set_access(
        &self,
        address: usize,
        size: usize,
        access: &[(DeviceId, AccessFlags)],
    ) -> HipResult<()> {
        vm::set_access(self, address, size, access)
    }

    fn p2p_attribute(&self, peer: DeviceId, attribute: P2pAttribute) -> HipResult<i32> {
        super::peer::p2p_attribute(self, peer, attribute)
    }

    fn enable_peer_access(&self, peer: DeviceId) -> HipResult<()> {
        super::peer::enable_peer_access(self, peer)
    }

    fn disable_peer_access(&self, peer: DeviceId) -> HipResult<()> {
        super::peer::disable_peer_access(self, peer)
    }

    fn ipc_memory_handle(&self, p: *mut c_void) -> HipResult<IpcHandle> {
        super::peer::memory_handle(self, p)
    }

    fn ipc_open_memory(&self, handle: &IpcHandle, flags: u32) -> HipResult<*mut c_void> {
        super::peer::open_memory(self, handle, flags)
    }

    fn ipc_close_memory(&self, p: *mut c_void) -> HipResult<()> {
        super::peer::close_memory(self, p)
    }

    fn ipc_open_event(&self, handle: &IpcHandle) -> HipResult<Box<dyn Event>> {
        Ok(Box::new(super::peer::open_event(self, handle)?))
    }

    fn uuid(&self) -> HipResult<[u8; 16]> {
        let mut uuid = sys::CUuuid { bytes: [0; 16] };
        // SAFETY: writes 16 bytes.
        check("cuDeviceGetUuid", unsafe {
            sys::cuDeviceGetUuid_v2(&mut uuid, self.ordinal)
        })?;
        Ok(uuid.bytes.map(|b| b as u8))
    }

    /// The primary context's (`cuCtxGetCacheConfig`).
    fn cache_config(&self) -> HipResult<CacheConfig> {
        self.bind()?;
        let mut config = sys::CUfunc_cache::CU_FUNC_CACHE_PREFER_NONE;
        // SAFETY: writes one enum value.
        check("cuCtxGetCacheConfig", unsafe {
            sys::cuCtxGetCacheConfig(&mut config)
        })?;
        CacheConfig::parse(config as c_int)
    }

    /// `cuCtxSetCacheConfig`: HIP's `hipFuncCache_t` numbers are the driver's.
    fn set_cache_config(&self, config: CacheConfig) -> HipResult<()> {
        self.bind()?;
        // SAFETY: plain driver call.
        check("cuCtxSetCacheConfig", unsafe {
            sys::cuCtxSetCacheConfig(func_cache(config))
        })
    }

    /// The primary context's flags (`cuDevicePrimaryCtxGetState`): HIP's `hipDeviceSchedule*`,
    /// `hipDeviceMapHost` and `hipDeviceLmemResizeToMax` are the driver's `CU_CTX_*` bits.
    fn device_flags(&self) -> HipResult<DeviceFlags> {
        let (mut flags, mut active) = (0, 0);
        // SAFETY: writes one uint and one int.
        check("cuDevicePrimaryCtxGetState", unsafe {
            sys::cuDevicePrimaryCtxGetState(self.ordinal, &mut flags, &mut active)
        })?;
        DeviceFlags::parse(
            flags
                & (DeviceFlags::SCHEDULE_MASK
                    | DeviceFlags::MAP_HOST
                    | DeviceFlags::LMEM_RESIZE_TO_MAX),
        )
    }

    fn set_device_flags(&self, flags: DeviceFlags) -> HipResult<()> {
        // hipDeviceMapHost is always in effect with unified addressing, and the driver refuses
        // CU_CTX_MAP_HOST for a primary context (CUDA_ERROR_INVALID_VALUE on an H200).
        let driver_flags = flags.raw() & !DeviceFlags::MAP_HOST;
        // SAFETY: plain driver call.
        check("cuDevicePrimaryCtxSetFlags", unsafe {
            sys::cuDevicePrimaryCtxSetFlags_v2(self.ordinal, driver_flags)
        })
    }

    /// `cuFuncSetCacheConfig` on this device's copy of the kernel.
    fn set_func_cache_config(&self, kernel: &KernelRef, config: CacheConfig) -> HipResult<()> {
        let f = self.function_of(kernel)?;
        // SAFETY: a function of a loaded module.
        check("cuFuncSetCacheConfig", unsafe {
            sys::cuFuncSetCacheConfig(f.raw(), func_cache(config))
        })
    }

    /// `cuProfilerStart`/`cuProfilerStop`: the switch of an attached profiler (Nsight).
    fn set_profiling(&self, on: bool) -> HipResult<()> {
        self.bind()?;
        // SAFETY: plain driver calls.
        if on {
            check("cuProfilerStart", unsafe { sys::cuProfilerStart() })
        } else {
            check("cuProfilerStop", unsafe { sys::cuProfilerStop() })
        }
    }
}

/// The rate of `%globaltimer`, the clock `wall_clock64` reads on NVIDIA GPUs (nanoseconds), in
/// kHz (`hipDeviceAttributeWallClockRate`).
const GLOBAL_TIMER_KHZ: i32 = 1_000_000;

/// The driver's `CUfunc_cache` for HIP's `hipFuncCache_t` (the same numbers).
fn func_cache(config: CacheConfig) -> sys::CUfunc_cache {
    use sys::CUfunc_cache::*;
    match config {
        CacheConfig::PreferNone => CU_FUNC_CACHE_PREFER_NONE,
        CacheConfig::PreferShared => CU_FUNC_CACHE_PREFER_SHARED,
        CacheConfig::PreferL1 => CU_FUNC_CACHE_PREFER_L1,
        CacheConfig::PreferEqual => CU_FUNC_CACHE_PREFER_EQUAL,
    }
}
