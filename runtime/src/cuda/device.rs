//! CUDA devices: discovery (`cuInit`, the devices `HIPMLIR_DEVICE` admits), each device's real
//! properties (`cuDeviceGetAttribute`), and its primary context, made current on the calling
//! thread by every call that needs it.

use std::cell::Cell;
use std::ffi::c_int;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::driver::{check, driver_present, error_name, sys};
use crate::backend::device_info::{filter_matches, Visibility};
use crate::backend::{DeviceInfo, DeviceSettings, Stream};
use crate::error::HipResult;
use crate::props::HipDeviceProp;

/// One GPU as a HIP device.
pub struct CudaDevice {
    /// Its HIP ordinal: the index among the devices `HIPMLIR_DEVICE` admits and HIP's
    /// visibility variables leave.
    pub index: usize,
    /// The driver's ordinal (`CUdevice`).
    pub ordinal: sys::CUdevice,
    pub name: String,
    /// Compute capability (major, minor).
    pub capability: (i32, i32),
    pub props: HipDeviceProp,
    /// The same facts in the OpenCL backend's terms, for the queries both backends answer alike.
    pub info: DeviceInfo,
    /// The most dynamic shared memory a block may opt in to.
    pub shared_optin: usize,
    /// The primary context (a `CUcontext`), retained on first use and again after a reset.
    context: Mutex<Option<usize>>,
    /// The null stream's object, made on first use.
    pub null_stream: OnceLock<Arc<Stream>>,
    /// What the program set that the driver does not keep (the shared-memory bank width).
    pub settings: DeviceSettings,
    /// Bumped by every `hipDeviceReset` of this device: each thread makes its context current
    /// again, and the streams and events of the old context are not destroyed twice (another
    /// device's reset leaves this device's alone).
    pub generation: AtomicUsize,
}

/// The CUDA backend's devices.
pub struct CudaRuntime {
    pub devices: Vec<CudaDevice>,
    /// `cuDriverGetVersion` (e.g. 13000).
    pub driver_version: i32,
}

thread_local! {
    /// The context made current on this thread last and its device's reset generation ((0, 0):
    /// none yet).
    static BOUND: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

fn attribute(device: sys::CUdevice, which: sys::CUdevice_attribute) -> i32 {
    let mut v = 0;
    // SAFETY: writes one int; a failure leaves 0, which every use below tolerates.
    let _ = unsafe { sys::cuDeviceGetAttribute(&mut v, which, device) };
    v
}

impl CudaDevice {
    fn query(index: usize, ordinal: sys::CUdevice) -> Result<CudaDevice, String> {
        use sys::CUdevice_attribute::*;
        let mut name = [0 as std::ffi::c_char; 256];
        // SAFETY: the buffer holds 256 bytes.
        check("cuDeviceGetName", unsafe {
            sys::cuDeviceGetName(name.as_mut_ptr(), name.len() as c_int, ordinal)
        })
        .map_err(|f| f.message)?;
        // SAFETY: NUL-terminated by the driver (and the buffer was zeroed).
        let name = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        let mut total = 0usize;
        // SAFETY: writes one size_t.
        let _ = unsafe { sys::cuDeviceTotalMem_v2(&mut total, ordinal) };
        let a = |w| attribute(ordinal, w);
        let capability = (
            a(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
            a(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
        );
        let as_usize = |v: i32| usize::try_from(v).unwrap_or(0);
        let info = DeviceInfo {
            name: name.clone(),
            vendor: "NVIDIA Corporation".into(),
            version: format!("CUDA {}.{}", capability.0, capability.1),
            global_mem_size: total as u64,
            local_mem_size: as_usize(a(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)) as u64,
            max_constant_buffer_size: as_usize(a(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY)) as u64,
            global_mem_cache_size: as_usize(a(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)) as u64,
            max_compute_units: a(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).max(1) as u32,
            max_clock_frequency: (a(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000).max(0) as u32,
            max_work_group_size: as_usize(a(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)),
            max_work_item_sizes: [
                as_usize(a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)),
                as_usize(a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)),
                as_usize(a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)),
            ],
            max_parameter_size: 4096,
            max_mem_alloc_size: total as u64,
            printf_buffer_size: 1 << 20,
            address_bits: 64,
            host_unified_memory: a(CU_DEVICE_ATTRIBUTE_INTEGRATED) != 0,
            is_cpu: false,
            sub_group_sizes: vec![as_usize(a(CU_DEVICE_ATTRIBUTE_WARP_SIZE)).max(1)],
            ..DeviceInfo::default()
        };
        let mut p = HipDeviceProp::from_device(&info);
        (p.major, p.minor) = capability;
        crate::props::set_arch_name(&mut p, &format!("sm_{}{}", capability.0, capability.1));
        p.regsPerBlock = a(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
        p.warpSize = a(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
        p.memPitch = as_usize(a(CU_DEVICE_ATTRIBUTE_MAX_PITCH));
        p.maxGridSize = [
            a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
            a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
            a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z),
        ];
        p.clockRate = a(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
        // clock64 reads %clock64, the SM's cycle counter.
        p.clockInstructionRate = p.clockRate;
        p.textureAlignment = as_usize(a(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT));
        p.texturePitchAlignment = as_usize(a(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT));
        p.surfaceAlignment = as_usize(a(CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT));
        p.deviceOverlap = a(CU_DEVICE_ATTRIBUTE_GPU_OVERLAP);
        p.kernelExecTimeoutEnabled = a(CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT);
        p.integrated = a(CU_DEVICE_ATTRIBUTE_INTEGRATED);
        p.canMapHostMemory = a(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
        p.computeMode = a(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE);
        p.concurrentKernels = a(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
        p.ECCEnabled = a(CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
        p.pciBusID = a(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
        p.pciDeviceID = a(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
        p.pciDomainID = a(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
        p.asyncEngineCount = a(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
        p.unifiedAddressing = a(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
        p.memoryClockRate = a(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
        p.memoryBusWidth = a(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
        p.l2CacheSize = a(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
        p.maxThreadsPerMultiProcessor = a(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
        let per_sm = as_usize(a(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
        p.sharedMemPerMultiprocessor = per_sm;
        p.maxSharedMemoryPerMultiProcessor = per_sm;
        p.managedMemory = a(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
        p.isMultiGpuBoard = a(CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD);
        // The property and hipDeviceAttributeSharedMemPerBlockOptin give the driver's answer.
        let shared_optin = as_usize(a(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
        p.sharedMemPerBlockOptin = shared_optin.max(p.sharedMemPerBlock);
        Ok(CudaDevice {
            index,
            ordinal,
            name,
            capability,
            props: p,
            info,
            shared_optin,
            context: Mutex::new(None),
            null_stream: OnceLock::new(),
            settings: DeviceSettings::default(),
            generation: AtomicUsize::new(1),
        })
    }

    /// One attribute of this device, straight from the driver.
    pub fn driver_attribute(&self, which: sys::CUdevice_attribute) -> i32 {
        attribute(self.ordinal, which)
    }

    /// The device's primary context, retained the first time (and after a reset).
    pub fn context(&self) -> HipResult<sys::CUcontext> {
        let mut slot = self.context.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(ctx) = *slot {
            return Ok(ctx as sys::CUcontext);
        }
        let mut ctx: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: writes one handle.
        check("cuDevicePrimaryCtxRetain", unsafe {
            sys::cuDevicePrimaryCtxRetain(&mut ctx, self.ordinal)
        })?;
        *slot = Some(ctx as usize);
        drop(slot);
        if let Ok(device) = super::device_at(self.index) {
            super::module::preload(device);
        }
        Ok(ctx)
    }

    /// Makes the device's context current on the calling thread (a no-op when it already is).
    pub fn bind(&self) -> HipResult<()> {
        let ctx = self.context()?;
        let wanted = (ctx as usize, self.generation.load(Ordering::Acquire));
        if BOUND.with(|b| b.get()) != wanted {
            // SAFETY: a retained context, never released.
            check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(ctx) })?;
            BOUND.with(|b| b.set(wanted));
        }
        Ok(())
    }

    /// `hipDeviceReset`: the primary context loses every allocation, stream, event and module;
    /// it is retained and made current again on next use, by every thread.
    pub fn reset_context(&self) -> HipResult<()> {
        let mut slot = self.context.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: the caller waited for the device and forgot every handle of the context.
        let r = check("cuDevicePrimaryCtxReset", unsafe {
            sys::cuDevicePrimaryCtxReset_v2(self.ordinal)
        });
        *slot = None;
        self.generation.fetch_add(1, Ordering::AcqRel);
        super::memcheck::forget_device(self.index);
        r
    }
}

/// Whether AddressSanitizer's runtime is in the process.
fn under_address_sanitizer() -> bool {
    // SAFETY: a symbol lookup by a NUL-terminated name.
    !unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__asan_init".as_ptr()) }.is_null()
}

/// Opens the CUDA backend: `Ok(None)` when there is no driver or no GPU (not an error: OpenCL is
/// used then); `Err` when the driver is there but fails. `filter` is `HIPMLIR_DEVICE`.
pub fn open(filter: Option<&str>) -> Result<Option<CudaRuntime>, String> {
    if !driver_present() {
        return Ok(None);
    }
    // SAFETY: plain driver calls with out-parameters.
    let r = unsafe { sys::cuInit(0) };
    if r == sys::CUresult::CUDA_ERROR_NO_DEVICE {
        return Ok(None);
    }
    if r == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY && under_address_sanitizer() {
        return Err(format!(
            "cuInit: {}: the program runs under AddressSanitizer, whose protected shadow gap \
             holds addresses the driver maps (ASAN_OPTIONS=protect_shadow_gap=0, which \
             hipmlir's links of sanitized programs set by default)",
            error_name(r)
        ));
    }
    check("cuInit", r).map_err(|f| f.message)?;
    let mut count = 0;
    // SAFETY: writes one int.
    check("cuDeviceGetCount", unsafe {
        sys::cuDeviceGetCount(&mut count)
    })
    .map_err(|f| f.message)?;
    let mut driver_version = 0;
    // SAFETY: writes one int.
    let _ = unsafe { sys::cuDriverGetVersion(&mut driver_version) };
    let mut devices = Vec::new();
    for i in 0..count {
        let mut ordinal = 0;
        // SAFETY: writes one int.
        let r = unsafe { sys::cuDeviceGet(&mut ordinal, i) };
        if r != sys::CUresult::CUDA_SUCCESS {
            return Err(format!("cuDeviceGet({i}): {}", error_name(r)));
        }
        let device = CudaDevice::query(devices.len(), ordinal)?;
        if filter.is_none_or(|f| filter_matches(f, i as usize, &device.name)) {
            devices.push(device);
        }
    }
    if devices.is_empty() {
        return Ok(None);
    }
    // HIP's visibility variables hide some of them (maybe all: then there is no HIP device, see
    // `select`); the rest are renumbered.
    let visible = Visibility::from_env(true).apply(devices.len());
    let mut all: Vec<Option<CudaDevice>> = devices.into_iter().map(Some).collect();
    let devices: Vec<CudaDevice> = visible
        .into_iter()
        .filter_map(|i| all[i].take())
        .enumerate()
        .map(|(index, device)| CudaDevice { index, ..device })
        .collect();
    Ok(Some(CudaRuntime {
        devices,
        driver_version,
    }))
}
