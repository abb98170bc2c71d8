//! Devices: count, selection, properties, synchronization, versions.
//!
//! hipmlir exposes one device: the first OpenCL device that accepts SPIR-V (see `device`).

use std::cell::Cell;
use std::ffi::c_int;

use super::{guard, hipError_t, write_out};
use crate::device::{runtime, runtime_if_initialized};
use crate::error::{Failure, HipError, HipResult};
use crate::props::{HipDeviceProp, HIP_VERSION};

thread_local! {
    static CURRENT_DEVICE: Cell<c_int> = const { Cell::new(0) };
}

fn check_ordinal(device: c_int) -> Result<(), Failure> {
    runtime()?;
    if device != 0 {
        return Err(Failure::new(
            HipError::InvalidDevice,
            format!("device {device} does not exist (hipmlir has 1 device, ordinal 0)"),
        ));
    }
    Ok(())
}

/// Writes the number of devices (1, or 0 with `hipErrorNoDevice`).
///
/// # Safety
/// `count` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceCount(count: *mut c_int) -> hipError_t {
    guard("hipGetDeviceCount", || {
        if count.is_null() {
            return Err(Failure::invalid_value("the count pointer is null"));
        }
        match crate::select::cuda() {
            // SAFETY (both): checked non-null; valid per the caller.
            Ok(Some(cu)) => {
                return unsafe {
                    write_out(
                        count,
                        crate::cuda::api::device_count(cu),
                        "the count pointer",
                    )
                }
            }
            Ok(None) => {}
            Err(failure) => {
                unsafe { write_out(count, 0, "the count pointer")? };
                return Err(failure);
            }
        }
        let found = runtime().is_ok();
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(count, c_int::from(found), "the count pointer")? };
        if found {
            Ok(())
        } else {
            Err(Failure::quiet(HipError::NoDevice))
        }
    })
}

/// Selects the calling thread's device; only 0 exists.
#[no_mangle]
pub extern "C" fn hipSetDevice(device: c_int) -> hipError_t {
    guard("hipSetDevice", || {
        on_cuda!(unbound cu => cu.set_current(device));
        check_ordinal(device)?;
        let _ = CURRENT_DEVICE.try_with(|d| d.set(device));
        Ok(())
    })
}

/// Writes the calling thread's device.
///
/// # Safety
/// `device` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipGetDevice(device: *mut c_int) -> hipError_t {
    guard("hipGetDevice", || {
        if device.is_null() {
            return Err(Failure::invalid_value("the device pointer is null"));
        }
        on_cuda!(unbound cu => unsafe { write_out(device, cu.current_index() as c_int, "the device pointer") });
        runtime()?;
        let current = CURRENT_DEVICE.try_with(|d| d.get()).unwrap_or(0);
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(device, current, "the device pointer") }
    })
}

/// Fills `*prop` for device `device` (see `props` for how each field is obtained).
///
/// # Safety
/// `prop` must be null or valid for writing a `hipDeviceProp_t` as declared in
/// `headers/hip/hip_runtime_api.h`.
#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceProperties(
    prop: *mut HipDeviceProp,
    device: c_int,
) -> hipError_t {
    guard("hipGetDeviceProperties", || {
        if prop.is_null() {
            return Err(Failure::invalid_value("the properties pointer is null"));
        }
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(prop, properties(device)?, "the properties pointer") }
    })
}

/// The properties of `device` on the chosen backend (what `hipGetDeviceProperties` reports).
pub(super) fn properties(device: c_int) -> HipResult<HipDeviceProp> {
    if let Some(cu) = crate::select::cuda()? {
        return crate::cuda::api::properties(cu, device);
    }
    check_ordinal(device)?;
    Ok(HipDeviceProp::from_device(&runtime()?.info))
}

/// Waits for all queued work on every stream. A kernel that failed while running shows up here
/// as `hipErrorLaunchFailure`.
#[no_mangle]
pub extern "C" fn hipDeviceSynchronize() -> hipError_t {
    guard("hipDeviceSynchronize", || {
        on_cuda!(cu => crate::cuda::api::synchronize(cu));
        let rt = runtime()?;
        let result = rt.finish();
        crate::launch::reclaim_spills(rt, result.is_ok());
        result
    })
}

/// Waits for all work, then destroys every stream and event and frees every allocation. Loaded
/// modules and built programs stay (they are not per-context state on OpenCL).
#[no_mangle]
pub extern "C" fn hipDeviceReset() -> hipError_t {
    guard("hipDeviceReset", || {
        on_cuda!(cu => crate::cuda::api::reset(cu));
        let rt = runtime()?;
        let _ = rt.finish();
        crate::stream::destroy_all();
        crate::event::destroy_all();
        crate::launch::reclaim_spills(rt, true);
        crate::memory::free_all(rt);
        crate::heap::forget();
        // Device variables start again from their initial values, as in a new context.
        let modules = crate::registry::registry().modules();
        for module in modules {
            module.unbuild();
        }
        Ok(())
    })
}

/// Initializes the runtime (opens the device). `flags` must be 0.
#[no_mangle]
pub extern "C" fn hipInit(flags: std::ffi::c_uint) -> hipError_t {
    guard("hipInit", || {
        if flags != 0 {
            return Err(Failure::invalid_value("flags must be 0"));
        }
        on_cuda!(cu => cu.current().map(|_| ()));
        runtime().map(|_| ())
    })
}

/// Writes the device's name (truncated to `len - 1` bytes, NUL-terminated).
///
/// # Safety
/// `name` must be null or valid for writing `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetName(
    name: *mut std::ffi::c_char,
    len: c_int,
    device: c_int,
) -> hipError_t {
    guard("hipDeviceGetName", || {
        if name.is_null() || len <= 0 {
            return Err(Failure::invalid_value("the name buffer is null or empty"));
        }
        on_cuda!(unbound cu => {
            let text = crate::cuda::api::name(cu, device)?;
            // SAFETY: checked non-null and non-empty; valid for `len` bytes per the caller.
            unsafe { crate::cuda::api::write_name(name, len, &text) };
            Ok(())
        });
        check_ordinal(device)?;
        let rt = runtime()?;
        let text = rt.info.name.trim().as_bytes();
        let n = text.len().min(len as usize - 1);
        // SAFETY: valid for `len` bytes per the caller; n < len.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr().cast(), name, n);
            name.add(n).write(0);
        }
        Ok(())
    })
}

/// Writes the device's global memory size.
///
/// # Safety
/// `bytes` must be null or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceTotalMem(bytes: *mut usize, device: c_int) -> hipError_t {
    guard("hipDeviceTotalMem", || {
        on_cuda!(unbound cu => unsafe { write_out(bytes, cu.device(device)?.props.totalGlobalMem, "the size pointer") });
        check_ordinal(device)?;
        let total = usize::try_from(runtime()?.info.global_mem_size).unwrap_or(usize::MAX);
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { write_out(bytes, total, "the size pointer") }
    })
}

/// Writes (major, minor): the device's OpenCL version, as `hipDeviceProp_t` reports it.
///
/// # Safety
/// Both pointers must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceComputeCapability(
    major: *mut c_int,
    minor: *mut c_int,
    device: c_int,
) -> hipError_t {
    guard("hipDeviceComputeCapability", || {
        on_cuda!(unbound cu => {
            let (a, b) = cu.device(device)?.capability;
            // SAFETY: `write_out` checks null; valid per the caller.
            unsafe {
                write_out(major, a, "the major pointer")?;
                write_out(minor, b, "the minor pointer")
            }
        });
        check_ordinal(device)?;
        let (a, b) = runtime()?.info.opencl_version();
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe {
            write_out(major, a, "the major pointer")?;
            write_out(minor, b, "the minor pointer")
        }
    })
}

/// Writes one device attribute (`hipDeviceAttribute_t`, HIP 6 numbering, the AMD-specific ones
/// included); see `device_attribute` for the values. Unknown attributes are
/// `hipErrorInvalidValue`; the HDP register addresses `hipErrorNotSupported`.
///
/// # Safety
/// `value` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetAttribute(
    value: *mut c_int,
    attribute: c_int,
    device: c_int,
) -> hipError_t {
    guard("hipDeviceGetAttribute", || {
        if value.is_null() {
            return Err(Failure::invalid_value("the value pointer is null"));
        }
        on_cuda!(unbound cu => unsafe {
            write_out(value, crate::cuda::api::attribute(cu, attribute, device)?, "the value pointer")
        });
        check_ordinal(device)?;
        let rt = runtime()?;
        let props = HipDeviceProp::from_device(&rt.info);
        // HdpMemFlushCntl/HdpRegFlushCntl are an AMD GPU register's address, written as a
        // pointer over `value`: there is no such register, and writing 8 bytes into an int
        // would overrun callers that pass one.
        if matches!(attribute, 10005 | 10006) {
            return Err(Failure::new(
                HipError::NotSupported,
                format!("attribute {attribute} is an AMD GPU's HDP register address: none exists on OpenCL"),
            ));
        }
        let v = device_attribute(&props, &rt.info, attribute).ok_or_else(|| {
            Failure::invalid_value(format!(
                "{attribute} is not a hipDeviceAttribute_t hipmlir knows"
            ))
        })?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(value, v, "the value pointer") }
    })
}

/// The flags last set by `hipSetDeviceFlags`, for `hipGetDeviceFlags`.
static DEVICE_FLAGS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Device flags (hipDeviceScheduleAuto, ...) change nothing on OpenCL: accepted and kept.
#[no_mangle]
pub extern "C" fn hipSetDeviceFlags(flags: std::ffi::c_uint) -> hipError_t {
    guard("hipSetDeviceFlags", || {
        if flags & !0x1f != 0 {
            return Err(Failure::invalid_value(format!(
                "unknown device flags {flags:#x}"
            )));
        }
        DEVICE_FLAGS.store(flags, std::sync::atomic::Ordering::Relaxed);
        on_cuda!(cu => cu.current().map(|_| ()));
        runtime().map(|_| ())
    })
}

/// Writes the flags `hipSetDeviceFlags` set (0, hipDeviceScheduleAuto, unless it was called).
///
/// # Safety
/// `flags` must be null or valid for writing an `unsigned int`.
#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceFlags(flags: *mut std::ffi::c_uint) -> hipError_t {
    guard("hipGetDeviceFlags", || {
        let value = DEVICE_FLAGS.load(std::sync::atomic::Ordering::Relaxed);
        // SAFETY: checked non-null by write_out; valid per the caller.
        unsafe { write_out(flags, value, "the flags pointer") }
    })
}

/// Cache configuration is a hint OpenCL has no equivalent for: accepted.
#[no_mangle]
pub extern "C" fn hipDeviceSetCacheConfig(config: c_int) -> hipError_t {
    let _ = config;
    guard("hipDeviceSetCacheConfig", || Ok(()))
}

/// The value of `hipDeviceGetAttribute(attribute)`, if hipmlir knows the attribute.
pub fn device_attribute(
    p: &HipDeviceProp,
    info: &crate::device::DeviceInfo,
    attribute: c_int,
) -> Option<c_int> {
    let clamp = |v: usize| c_int::try_from(v).unwrap_or(c_int::MAX);
    Some(match attribute {
        0 => p.ECCEnabled, // EccEnabled
        1 | 4 | 7 | 10 | 11 | 14 | 15 | 20 | 21 | 22 | 62 | 66 | 70 | 73 | 80 | 86 | 88 | 89 => 0,
        2 => p.asyncEngineCount,          // AsyncEngineCount
        3 => p.canMapHostMemory,          // CanMapHostMemory
        5 => p.clockRate,                 // ClockRate
        6 => p.computeMode,               // ComputeMode
        8 => p.concurrentKernels,         // ConcurrentKernels
        9 | 13 => p.managedMemory,        // ConcurrentManagedAccess, DirectManaged...
        12 => p.deviceOverlap,            // DeviceOverlap
        16 => p.integrated,               // Integrated
        17 => p.isMultiGpuBoard,          // IsMultiGpuBoard
        18 => p.kernelExecTimeoutEnabled, // KernelExecTimeout
        19 => p.l2CacheSize,              // L2CacheSize
        23 => p.major,                    // ComputeCapabilityMajor
        24 => p.managedMemory,            // ManagedMemory
        25 => p.maxBlocksPerMultiProcessor,
        26 => p.maxThreadsDim[0],
        27 => p.maxThreadsDim[1],
        28 => p.maxThreadsDim[2],
        29 => p.maxGridSize[0],
        30 => p.maxGridSize[1],
        31 => p.maxGridSize[2],
        32..=54 => 0,             // surfaces and textures: none
        55 => p.maxThreadsDim[0], // MaxThreadsDim
        56 => p.maxThreadsPerBlock,
        57 => p.maxThreadsPerMultiProcessor,
        58 => clamp(p.memPitch),
        59 => p.memoryBusWidth,
        60 => p.memoryClockRate,
        61 => p.minor, // ComputeCapabilityMinor
        63 => p.multiProcessorCount,
        64 => 0,
        65 => i32::from(info.is_cpu), // PageableMemoryAccess
        67 => p.pciBusID,
        68 => p.pciDeviceID,
        69 => p.pciDomainID,
        71 | 72 => p.regsPerBlock, // MaxRegistersPerBlock/PerMultiprocessor
        74 | 75 => clamp(p.sharedMemPerBlock), // MaxSharedMemoryPerBlock, Optin
        76 => clamp(p.sharedMemPerMultiprocessor),
        77 => 2, // SingleToDoublePrecisionPerfRatio
        78 => 0, // StreamPrioritiesSupported
        79 | 81 | 82 => clamp(p.textureAlignment),
        83 => clamp(p.totalConstMem),
        84 => clamp(p.totalGlobalMem),
        85 => p.unifiedAddressing,
        87 => p.warpSize,
        90 => 0,  // HostRegisterSupported
        91 => 0,  // MemoryPoolSupportedHandleTypes: no memory pools
        92 => -1, // HostNumaId: OpenCL does not say
        // AMD-specific (hipDeviceAttributeAmdSpecificBegin = 10000).
        10000 => p.clockRate,       // ClockInstructionRate (kHz)
        10001 | 10003 | 10004 => 0, // Unused3..5
        10002 => clamp(p.maxSharedMemoryPerMultiProcessor), // MaxSharedMemoryPerMultiprocessor
        10007..=10010 => 0,         // CooperativeMultiDeviceUnmatched*: no cooperative launches
        10011 => i32::from(info.is_cpu || info.host_unified_memory), // IsLargeBar: host reaches it
        10012 => 0,                 // AsicRevision
        10013 => 0,                 // CanUseStreamWaitValue
        10014 => 0,                 // ImageSupport: no textures
        10015 => p.multiProcessorCount, // PhysicalMultiProcessorCount
        10016 => p.managedMemory,   // FineGrainSupport: USM is coherent
        10017 => 0,                 // WallClockRate: no wall clock
        _ => return None,
    })
}

/// Writes the driver version: the HIP API level hipmlir implements (`HIP_VERSION`).
///
/// # Safety
/// `version` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipDriverGetVersion(version: *mut c_int) -> hipError_t {
    // SAFETY: `write_out` checks null; valid per the caller.
    guard("hipDriverGetVersion", || unsafe {
        write_out(version, HIP_VERSION, "the version pointer")
    })
}

/// Writes the runtime version: the HIP API level hipmlir implements (`HIP_VERSION`).
///
/// # Safety
/// `version` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipRuntimeGetVersion(version: *mut c_int) -> hipError_t {
    // SAFETY: `write_out` checks null; valid per the caller.
    guard("hipRuntimeGetVersion", || unsafe {
        write_out(version, HIP_VERSION, "the version pointer")
    })
}

/// Whether the device has been opened (for tests that must not trigger discovery).
pub fn device_opened() -> bool {
    runtime_if_initialized().is_some()
}

/// `hipLimit_t`: the device limits HIP programs query and set.
const LIMIT_STACK_SIZE: c_int = 0;
const LIMIT_PRINTF_FIFO_SIZE: c_int = 1;
const LIMIT_MALLOC_HEAP_SIZE: c_int = 2;
/// The per-thread stack hipmlir reports: OpenCL sizes private memory itself, and inlined device
/// code has no call stack to speak of.
const REPORTED_STACK_SIZE: usize = 1024;

/// Reads a device limit: the stack size (what OpenCL gives each work-item, reported as 1 KiB),
/// the printf buffer (`CL_DEVICE_PRINTF_BUFFER_SIZE`), the device heap's size (see `heap`).
///
/// # Safety
/// `value` must be null or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetLimit(value: *mut usize, limit: c_int) -> hipError_t {
    guard("hipDeviceGetLimit", || {
        on_cuda!(cu => unsafe { write_out(value, crate::cuda::api::get_limit(cu, limit)?, "the limit pointer") });
        let rt = runtime()?;
        let v = match limit {
            LIMIT_STACK_SIZE => REPORTED_STACK_SIZE,
            LIMIT_PRINTF_FIFO_SIZE => rt.info.printf_buffer_size,
            LIMIT_MALLOC_HEAP_SIZE => crate::heap::limit(),
            other => return Err(Failure::invalid_value(format!("unknown limit {other}"))),
        };
        // SAFETY: per the caller.
        unsafe { write_out(value, v, "the limit pointer") }
    })
}

/// Sets a device limit where OpenCL can honour it: any stack size (the device compiler sizes
/// private memory itself), a printf buffer up to the device's, the device heap's size before the
/// heap exists; a larger printf buffer is `hipErrorNotSupported`, never silently ignored.
#[no_mangle]
pub extern "C" fn hipDeviceSetLimit(limit: c_int, value: usize) -> hipError_t {
    guard("hipDeviceSetLimit", || {
        on_cuda!(cu => crate::cuda::api::set_limit(cu, limit, value));
        let rt = runtime()?;
        match limit {
            LIMIT_STACK_SIZE => Ok(()),
            LIMIT_PRINTF_FIFO_SIZE if value <= rt.info.printf_buffer_size => Ok(()),
            LIMIT_PRINTF_FIFO_SIZE => Err(Failure::new(
                HipError::NotSupported,
                format!(
                    "a printf buffer of {value} bytes: the OpenCL device's is fixed at {} bytes",
                    rt.info.printf_buffer_size
                ),
            )),
            LIMIT_MALLOC_HEAP_SIZE => crate::heap::set_limit(value),
            other => Err(Failure::invalid_value(format!("unknown limit {other}"))),
        }
    })
}
