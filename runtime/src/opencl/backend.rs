//! The OpenCL device as the backend interface sees it: [`Device`] for the opened `Runtime`.

use std::ffi::c_void;
use std::sync::Arc;

use super::device::Runtime;
use super::{event, kernels, managed, memory, stream, variables, virtual_memory};
use crate::backend::attributes::{self, DeviceAttribute};
use crate::backend::{AccessFlags, MemPool, PhysicalMemory, PoolConfig};
use crate::backend::{
    Allocation, Device, DeviceId, DeviceSettings, Event, EventFlags, FreeKind, FuncAttribute,
    FuncAttributes, Limit, Location, MemAdvice, MemoryKind, Queue, RangeAttribute, Stream,
    StreamFlags,
};
use crate::error::{Failure, HipError, HipResult};
use crate::mempool::runtime_pool::RuntimePool;
use crate::props::HipDeviceProp;
use crate::registry::{KernelRef, Module};

impl Device for Runtime {
    fn id(&self) -> DeviceId {
        self.id
    }

    fn name(&self) -> &str {
        self.info.name.trim()
    }

    fn properties(&self) -> HipDeviceProp {
        let mut p = HipDeviceProp::from_device(&self.info);
        // The device may have USM while the memory model in use (HIPMLIR_MEMORY=svm) does not:
        // managed and mapped memory are what hipMallocManaged and hipHostMalloc give here.
        let shared = i32::from(self.memory.has_shared_and_host_allocations());
        p.managedMemory &= shared;
        p.concurrentManagedAccess &= shared;
        p.directManagedMemAccessFromHost &= shared;
        p.canMapHostMemory &= shared;
        // clock64 counts the device clock's ticks.
        p.clockInstructionRate = super::clock_rate::device_clock_khz(self);
        // A driver that states no clock frequency (Intel's CPU runtime says 0 MHz): the clock
        // clock64 reads is the one the device has. Programs turn clock64's ticks into time
        // with clockRate (as on NVIDIA GPUs, where it is the rate clock64 counts at).
        if p.clockRate == 0 {
            p.clockRate = p.clockInstructionRate;
        }
        p
    }

    fn memory_model(&self) -> &'static str {
        self.memory.name()
    }

    fn attribute(&self, attribute: DeviceAttribute) -> HipResult<i32> {
        // Registered host memory is used at its own address, where the device reaches it.
        // So is virtual memory: memfds mapped where the program reserved addresses.
        if matches!(
            attribute,
            DeviceAttribute::HostRegisterSupported
                | DeviceAttribute::CanUseHostPointerForRegisteredMem
                | DeviceAttribute::VirtualMemoryManagementSupported
        ) {
            return Ok(i32::from(self.system_memory));
        }
        // wall_clock64 reads the device clock too.
        if attribute == DeviceAttribute::WallClockRate {
            return Ok(super::clock_rate::device_clock_khz(self));
        }
        attributes::from_properties(&self.properties(), &self.info, attribute).ok_or_else(|| {
            Failure::new(
                HipError::NotSupported,
                format!(
                    "attribute {} is an AMD GPU's HDP register address: none exists on OpenCL",
                    attribute.raw()
                ),
            )
        })
    }

    /// The stack size (the last one set: OpenCL sizes each kernel's private memory itself, so
    /// any size is honoured), the printf buffer (`CL_DEVICE_PRINTF_BUFFER_SIZE`), the device
    /// heap's size (see `heap`).
    fn limit(&self, limit: Limit) -> HipResult<usize> {
        Ok(match limit {
            Limit::StackSize => self.settings.stack_size(),
            Limit::PrintfFifoSize => self.info.printf_buffer_size,
            Limit::MallocHeapSize => crate::heap::limit(),
        })
    }

    /// Any stack size (the device compiler sizes private memory itself), a printf buffer up to
    /// the device's, the device heap's size before the heap exists; a larger printf buffer is
    /// `hipErrorNotSupported`, never silently ignored.
    fn set_limit(&self, limit: Limit, value: usize) -> HipResult<()> {
        match limit {
            Limit::StackSize => {
                self.settings.set_stack_size(value);
                Ok(())
            }
            Limit::PrintfFifoSize if value <= self.info.printf_buffer_size => Ok(()),
            Limit::PrintfFifoSize => Err(Failure::new(
                HipError::NotSupported,
                format!(
                    "a printf buffer of {value} bytes: the OpenCL device's is fixed at {} bytes",
                    self.info.printf_buffer_size
                ),
            )),
            Limit::MallocHeapSize => crate::heap::set_limit(value),
        }
    }

    /// OpenCL queues have no priorities.
    fn stream_priority_range(&self) -> HipResult<(i32, i32)> {
        Ok((0, 0))
    }

    fn make_current(&self) -> HipResult<()> {
        Ok(())
    }

    fn synchronize(&self) -> HipResult<()> {
        let result = self.finish();
        super::held::release_finished(self, result.is_ok());
        result
    }

    /// Waits for all work, then frees every allocation. Built programs were dropped by the
    /// modules' reset; they are built again on next use.
    fn reset(&self) -> HipResult<()> {
        let _ = self.finish();
        super::held::release_finished(self, true);
        memory::free_all(self);
        Ok(())
    }

    fn allocate(&self, kind: MemoryKind, size: usize) -> HipResult<*mut c_void> {
        memory::allocate(self, kind, size)
    }

    fn free(&self, p: *mut c_void, kind: FreeKind) -> HipResult<()> {
        memory::free(self, p, kind)
    }

    /// OpenCL tells only the total (`CL_DEVICE_GLOBAL_MEM_SIZE`); free is the total less what
    /// this process has allocated.
    fn memory_info(&self) -> HipResult<(usize, usize)> {
        let all = self.info.global_mem_size;
        // What allocations, the device heap and physical allocations of virtual memory hold.
        let used = memory::device_bytes_in_use(self) + crate::vmm::physical_bytes(self.id);
        let available = all.saturating_sub(used);
        let size = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        Ok((size(available), size(all)))
    }

    /// Host memory the device reaches at its own address (`Runtime::system_memory`).
    fn host_register(&self, p: *mut c_void, bytes: usize, flags: u32) -> HipResult<()> {
        memory::host_register(self, p, bytes, flags)
    }

    fn host_unregister(&self, p: *mut c_void) -> HipResult<()> {
        memory::host_unregister(p)
    }

    fn advise(
        &self,
        p: *const c_void,
        count: usize,
        advice: MemAdvice,
        location: Option<Location>,
    ) -> HipResult<()> {
        managed::advise(p as usize, count, advice, location)
    }

    fn range_attribute(
        &self,
        attribute: RangeAttribute,
        p: *const c_void,
        count: usize,
        out: &mut [u8],
    ) -> HipResult<()> {
        let values = managed::range_attribute(attribute, out.len(), p as usize, count)?;
        for (chunk, v) in out.chunks_exact_mut(4).zip(values) {
            chunk.copy_from_slice(&v.to_ne_bytes());
        }
        Ok(())
    }

    fn allocation(&self, p: *const c_void) -> HipResult<Option<Allocation>> {
        Ok(memory::allocation(p))
    }

    fn set_sync_memops(&self, p: *const c_void, on: bool) -> HipResult<()> {
        memory::set_sync_memops(p, on)
    }

    fn null_stream(&self) -> Arc<Stream> {
        self.null_stream.clone()
    }

    fn per_thread_stream(&self) -> HipResult<Arc<Stream>> {
        stream::per_thread_stream(self)
    }

    fn create_stream(&self, flags: StreamFlags, priority: i32) -> HipResult<Arc<dyn Queue>> {
        Ok(stream::create(self, flags, priority)?)
    }

    fn create_event(&self, flags: EventFlags) -> HipResult<Box<dyn Event>> {
        Ok(Box::new(event::create(self.id, flags)))
    }

    fn func_attributes(&self, kernel: &KernelRef) -> HipResult<FuncAttributes> {
        kernels::attributes(self, kernel)
    }

    fn set_func_attribute(
        &self,
        kernel: &KernelRef,
        attribute: FuncAttribute,
        value: i32,
    ) -> HipResult<()> {
        kernels::set_attribute(self, kernel, attribute, value)
    }

    fn max_potential_block_size(
        &self,
        kernel: &KernelRef,
        dynamic_shared: usize,
        block_limit: i32,
    ) -> HipResult<(i32, i32)> {
        kernels::max_potential_block_size(self, kernel, dynamic_shared, block_limit)
    }

    /// The flags (`hipOccupancyDisableCachingOverride`) change nothing here.
    fn max_active_blocks(
        &self,
        kernel: &KernelRef,
        block_size: i32,
        dynamic_shared: usize,
        _flags: u32,
    ) -> HipResult<i32> {
        kernels::max_active_blocks(self, kernel, block_size, dynamic_shared)
    }

    fn variable(&self, module: &Arc<Module>, index: usize) -> HipResult<(usize, usize)> {
        let address = variables::address_of(self, module, index)?;
        let size = usize::try_from(module.global(index).size).unwrap_or(usize::MAX);
        Ok((address, size))
    }

    // ---- stream-ordered allocation and memory pools (rt-graphs) ----

    /// OpenCL has no pools: the runtime's (`mempool::runtime_pool`).
    fn default_mem_pool(&self) -> HipResult<Arc<dyn MemPool>> {
        self.create_mem_pool(&PoolConfig {
            max_size: 0,
            handle_types: 0,
        })
    }

    fn create_mem_pool(&self, config: &PoolConfig) -> HipResult<Arc<dyn MemPool>> {
        if config.handle_types != 0 {
            return Err(Failure::new(
                HipError::NotSupported,
                "not supported by hipmlir: an exportable memory pool (OpenCL memory cannot be \
                 shared with another process)",
            ));
        }
        Ok(Arc::new(RuntimePool::new(
            super::device::runtime_of(self.id())?,
            *config,
        )))
    }

    fn free_idle(&self, p: *mut c_void) -> HipResult<()> {
        memory::free_idle(self, p)
    }

    fn settings(&self) -> &DeviceSettings {
        &self.settings
    }

    // ---- virtual memory management (rt-vmm): see `virtual_memory` ----

    fn vmm_granularity(&self) -> HipResult<(usize, usize)> {
        virtual_memory::granularity(self)
    }

    /// Every memfd can be exported.
    fn create_physical(
        &self,
        size: usize,
        _exportable: bool,
    ) -> HipResult<Box<dyn PhysicalMemory>> {
        virtual_memory::create(self, size)
    }

    fn import_physical(&self, fd: i32) -> HipResult<Box<dyn PhysicalMemory>> {
        virtual_memory::import(self, fd)
    }

    fn reserve_address(&self, size: usize, alignment: usize, hint: usize) -> HipResult<usize> {
        virtual_memory::granularity(self)?;
        virtual_memory::reserve(size, alignment, hint)
    }

    fn free_address(&self, address: usize, size: usize) -> HipResult<()> {
        virtual_memory::free(address, size)
    }

    fn unmap(&self, address: usize, size: usize) -> HipResult<()> {
        virtual_memory::unmap(address, size)
    }

    fn set_access(
        &self,
        address: usize,
        size: usize,
        access: &[(DeviceId, AccessFlags)],
    ) -> HipResult<()> {
        virtual_memory::set_access(address, size, access)
    }

    /// `CL_DEVICE_UUID_KHR` where the device has `cl_khr_device_uuid`; else a name-based UUID
    /// (RFC 4122 version 5 style: a SHA-256 of what identifies the device: vendor, name, driver
    /// and platform), the same for the same device in every process.
    fn uuid(&self) -> HipResult<[u8; 16]> {
        if let Some(uuid) = self.uuid {
            return Ok(uuid);
        }
        use sha2::{Digest, Sha256};
        let i = &self.info;
        let digest = Sha256::new()
            .chain_update(i.vendor.as_bytes())
            .chain_update([0])
            .chain_update(i.name.as_bytes())
            .chain_update([0])
            .chain_update(i.driver_version.as_bytes())
            .chain_update([0])
            .chain_update(self.platform_version.as_bytes())
            .finalize();
        let mut uuid = [0u8; 16];
        uuid.copy_from_slice(&digest[..16]);
        uuid[6] = (uuid[6] & 0x0f) | 0x50;
        uuid[8] = (uuid[8] & 0x3f) | 0x80;
        Ok(uuid)
    }
}
