//! How device memory is allocated, copied and handed to kernels: Intel unified shared memory (USM)
//! device allocations when the device has `cl_intel_unified_shared_memory`, else coarse-grained SVM.
//!
//! Both give real device addresses that host code can offset and pass back (HIP's model: a device
//! pointer is a number), unlike `cl_mem` buffers. `HIPMLIR_MEMORY=usm|svm` forces one (tests use it
//! to cover the SVM path on a device that has both).

use std::ffi::c_void;
use std::ptr;

use cl3::types::{
    cl_bool, cl_command_queue, cl_context, cl_device_id, cl_event, cl_int, cl_kernel,
    cl_platform_id, cl_uint, CL_FALSE, CL_TRUE,
};
use opencl3::device::Device;

use super::cl::{error_name, extension_function};
use crate::backend::allocation_span;

/// Alignment of every allocation, HIP's guarantee for `hipMalloc` (and CUDA's). SVM devices may cap
/// it at 128 bytes (see [`MemoryBackend::alloc`]).
const ALLOCATION_ALIGNMENT: cl_uint = crate::backend::ALLOCATION_ALIGNMENT as cl_uint;

type DeviceMemAllocIntel = unsafe extern "C" fn(
    context: cl_context,
    device: cl_device_id,
    properties: *const u64,
    size: usize,
    alignment: cl_uint,
    errcode_ret: *mut cl_int,
) -> *mut c_void;
type HostMemAllocIntel = unsafe extern "C" fn(
    context: cl_context,
    properties: *const u64,
    size: usize,
    alignment: cl_uint,
    errcode_ret: *mut cl_int,
) -> *mut c_void;
type MemFreeIntel = unsafe extern "C" fn(context: cl_context, ptr: *mut c_void) -> cl_int;
type EnqueueMemcpyIntel = unsafe extern "C" fn(
    queue: cl_command_queue,
    blocking: cl_bool,
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int;
type EnqueueMemFillIntel = unsafe extern "C" fn(
    queue: cl_command_queue,
    dst: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    num_events: cl_uint,
    wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int;
type SetKernelArgMemPointerIntel =
    unsafe extern "C" fn(kernel: cl_kernel, index: cl_uint, value: *const c_void) -> cl_int;

/// An OpenCL wait list: count and pointer (null when empty).
fn wait_list(wait: &[cl_event]) -> (cl_uint, *const cl_event) {
    if wait.is_empty() {
        (0, ptr::null())
    } else {
        (wait.len() as cl_uint, wait.as_ptr())
    }
}

/// The `cl_intel_unified_shared_memory` entry points, fetched from the platform.
#[derive(Debug, Clone, Copy)]
pub struct UsmFunctions {
    device_mem_alloc: DeviceMemAllocIntel,
    /// `clSharedMemAllocINTEL` (same signature as the device allocator); hipMallocManaged.
    shared_mem_alloc: Option<DeviceMemAllocIntel>,
    /// `clHostMemAllocINTEL`; hipHostMalloc.
    host_mem_alloc: Option<HostMemAllocIntel>,
    mem_free: MemFreeIntel,
    enqueue_memcpy: EnqueueMemcpyIntel,
    enqueue_mem_fill: EnqueueMemFillIntel,
    set_kernel_arg_mem_pointer: SetKernelArgMemPointerIntel,
}

impl UsmFunctions {
    fn load(platform: cl_platform_id) -> Result<Self, String> {
        let get = |name: &str| {
            extension_function(platform, name)
                .ok_or_else(|| format!("the platform does not provide {name}"))
        };
        // SAFETY: each address is the platform's implementation of the named function, whose C
        // signature (from cl_ext.h) is the type it is transmuted to.
        unsafe {
            Ok(UsmFunctions {
                device_mem_alloc: std::mem::transmute::<*mut c_void, DeviceMemAllocIntel>(get(
                    "clDeviceMemAllocINTEL",
                )?),
                shared_mem_alloc: extension_function(platform, "clSharedMemAllocINTEL")
                    .map(|f| std::mem::transmute::<*mut c_void, DeviceMemAllocIntel>(f)),
                host_mem_alloc: extension_function(platform, "clHostMemAllocINTEL")
                    .map(|f| std::mem::transmute::<*mut c_void, HostMemAllocIntel>(f)),
                mem_free: std::mem::transmute::<*mut c_void, MemFreeIntel>(get("clMemFreeINTEL")?),
                enqueue_memcpy: std::mem::transmute::<*mut c_void, EnqueueMemcpyIntel>(get(
                    "clEnqueueMemcpyINTEL",
                )?),
                enqueue_mem_fill: std::mem::transmute::<*mut c_void, EnqueueMemFillIntel>(get(
                    "clEnqueueMemFillINTEL",
                )?),
                set_kernel_arg_mem_pointer: std::mem::transmute::<
                    *mut c_void,
                    SetKernelArgMemPointerIntel,
                >(get(
                    "clSetKernelArgMemPointerINTEL",
                )?),
            })
        }
    }
}

/// The memory model in use for the selected device.
#[derive(Debug, Clone, Copy)]
pub enum MemoryBackend {
    /// `clDeviceMemAllocINTEL` device allocations.
    Usm(UsmFunctions),
    /// `clSVMAlloc` coarse-grained buffers.
    Svm,
}

/// Which backend `HIPMLIR_MEMORY` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryPreference {
    Auto,
    Usm,
    Svm,
}

impl MemoryPreference {
    pub fn from_env() -> Result<Self, String> {
        match std::env::var("HIPMLIR_MEMORY") {
            Err(_) => Ok(MemoryPreference::Auto),
            Ok(v) => match v.trim().to_ascii_lowercase().as_str() {
                "" | "auto" => Ok(MemoryPreference::Auto),
                "usm" => Ok(MemoryPreference::Usm),
                "svm" => Ok(MemoryPreference::Svm),
                other => Err(format!(
                    "HIPMLIR_MEMORY={other} is not one of auto, usm, svm"
                )),
            },
        }
    }
}

impl MemoryBackend {
    /// Picks USM if the device has `cl_intel_unified_shared_memory` and the platform provides its
    /// functions, else coarse-grained SVM if the device supports it.
    pub fn select(
        platform: cl_platform_id,
        device: &Device,
        preference: MemoryPreference,
    ) -> Result<Self, String> {
        let extensions = device.extensions().unwrap_or_default();
        let has_usm = extensions
            .split_whitespace()
            .any(|e| e == "cl_intel_unified_shared_memory");
        let has_svm =
            device.svm_mem_capability() & cl3::device::CL_DEVICE_SVM_COARSE_GRAIN_BUFFER != 0;
        let usm = || -> Result<Self, String> {
            if !has_usm {
                return Err("the device lacks cl_intel_unified_shared_memory".into());
            }
            UsmFunctions::load(platform).map(MemoryBackend::Usm)
        };
        let svm = || -> Result<Self, String> {
            if has_svm {
                Ok(MemoryBackend::Svm)
            } else {
                Err("the device lacks coarse-grained SVM".into())
            }
        };
        match preference {
            MemoryPreference::Usm => usm(),
            MemoryPreference::Svm => svm(),
            MemoryPreference::Auto => usm().or_else(|usm_error| {
                svm().map_err(|svm_error| format!("{usm_error}, and {svm_error}"))
            }),
        }
    }

    /// Whether kernels and copies may use the host's own memory (`malloc`, the stack) at its
    /// address: USM's shared system memory access (`CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL`)
    /// or fine-grained system SVM. `hipHostRegister` needs it.
    pub fn reaches_system_memory(&self, device: &Device) -> bool {
        /// `CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL` and its access bit.
        const SHARED_SYSTEM_CAPABILITIES: cl_uint = 0x4194;
        const ACCESS: u64 = 1;
        match self {
            MemoryBackend::Usm(_) => device
                .get_data(SHARED_SYSTEM_CAPABILITIES)
                .ok()
                .and_then(|bytes| bytes.get(..8)?.try_into().ok())
                .is_some_and(|raw| u64::from_ne_bytes(raw) & ACCESS != 0),
            MemoryBackend::Svm => {
                device.svm_mem_capability() & cl3::device::CL_DEVICE_SVM_FINE_GRAIN_SYSTEM != 0
            }
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            MemoryBackend::Usm(_) => "USM device allocations (cl_intel_unified_shared_memory)",
            MemoryBackend::Svm => "coarse-grained SVM",
        }
    }

    /// Whether `hipMallocManaged` and mapped host memory work: USM shared and host
    /// allocations (`alloc_shared`, `alloc_host`); SVM has neither.
    pub fn has_shared_and_host_allocations(&self) -> bool {
        matches!(self, MemoryBackend::Usm(_))
    }

    /// Allocates `size` (> 0) bytes of device memory (and the slack of `allocation_span`).
    pub fn alloc(
        &self,
        context: cl_context,
        device: cl_device_id,
        size: usize,
    ) -> Result<*mut c_void, String> {
        let size = allocation_span(size);
        match self {
            MemoryBackend::Usm(f) => {
                let mut status: cl_int = 0;
                // SAFETY: valid context/device; no properties; status is a valid out-pointer.
                let p = unsafe {
                    (f.device_mem_alloc)(
                        context,
                        device,
                        ptr::null(),
                        size,
                        ALLOCATION_ALIGNMENT,
                        &mut status,
                    )
                };
                usm_allocation(p, status, "clDeviceMemAllocINTEL")
            }
            MemoryBackend::Svm => {
                // clSVMAlloc caps the alignment at the largest OpenCL type (128 bytes for long16),
                // so 256 may be refused: then take the default, which is that largest alignment.
                [ALLOCATION_ALIGNMENT, 0]
                    .iter()
                    .find_map(|&alignment| {
                        // SAFETY: valid context and flags.
                        unsafe {
                            cl3::memory::svm_alloc(
                                context,
                                cl3::memory::CL_MEM_READ_WRITE,
                                size,
                                alignment,
                            )
                        }
                        .ok()
                    })
                    .ok_or_else(|| format!("clSVMAlloc failed for {size} bytes"))
            }
        }
    }

    /// Frees an allocation. The caller has finished the queue, so nothing still uses it.
    ///
    /// # Safety
    /// `p` must be a live allocation from [`MemoryBackend::alloc`] with this context.
    pub unsafe fn free(&self, context: cl_context, p: *mut c_void) -> Result<(), String> {
        match self {
            MemoryBackend::Usm(f) => match unsafe { (f.mem_free)(context, p) } {
                0 => Ok(()),
                e => Err(format!("clMemFreeINTEL: {}", error_name(e))),
            },
            MemoryBackend::Svm => unsafe { cl3::memory::svm_free(context, p) }
                .map_err(|e| format!("clSVMFree: {}", error_name(e))),
        }
    }

    /// Allocates `size` (> 0) bytes the host and the device can both use (`hipMallocManaged`):
    /// USM shared memory. `None` when the backend has no such memory (coarse-grained SVM needs
    /// map/unmap for host access).
    pub fn alloc_shared(
        &self,
        context: cl_context,
        device: cl_device_id,
        size: usize,
    ) -> Option<Result<*mut c_void, String>> {
        let MemoryBackend::Usm(f) = self else {
            return None;
        };
        let alloc = f.shared_mem_alloc?;
        let size = allocation_span(size);
        let mut status: cl_int = 0;
        // SAFETY: valid context/device; no properties; status is a valid out-pointer.
        let p = unsafe {
            alloc(
                context,
                device,
                ptr::null(),
                size,
                ALLOCATION_ALIGNMENT,
                &mut status,
            )
        };
        Some(usm_allocation(p, status, "clSharedMemAllocINTEL"))
    }

    /// Allocates `size` (> 0) bytes of host memory the device can access (`hipHostMalloc`): USM
    /// host memory. `None` when the backend has none (the caller then uses plain host memory).
    pub fn alloc_host(
        &self,
        context: cl_context,
        size: usize,
    ) -> Option<Result<*mut c_void, String>> {
        let MemoryBackend::Usm(f) = self else {
            return None;
        };
        let alloc = f.host_mem_alloc?;
        let size = allocation_span(size);
        let mut status: cl_int = 0;
        // SAFETY: valid context; no properties; status is a valid out-pointer.
        let p = unsafe {
            alloc(
                context,
                ptr::null(),
                size,
                ALLOCATION_ALIGNMENT,
                &mut status,
            )
        };
        Some(usm_allocation(p, status, "clHostMemAllocINTEL"))
    }

    /// Enqueues a copy of `size` bytes (either side host or device memory) after `wait`, without
    /// blocking; returns its event.
    ///
    /// # Safety
    /// Both ranges must stay valid for `size` bytes until the copy completes.
    pub unsafe fn copy(
        &self,
        queue: cl_command_queue,
        dst: *mut c_void,
        src: *const c_void,
        size: usize,
        wait: &[cl_event],
    ) -> Result<cl_event, cl_int> {
        let (n, list) = wait_list(wait);
        match self {
            MemoryBackend::Usm(f) => {
                let mut event: cl_event = ptr::null_mut();
                let status = unsafe {
                    (f.enqueue_memcpy)(queue, CL_FALSE, dst, src, size, n, list, &mut event)
                };
                match status {
                    0 => Ok(event),
                    e => Err(e),
                }
            }
            MemoryBackend::Svm => unsafe {
                cl3::command_queue::enqueue_svm_mem_cpy(queue, CL_FALSE, dst, src, size, n, list)
            },
        }
    }

    /// Enqueues a fill of `size` bytes at `dst` with the repeated `pattern` (1, 2 or 4 bytes;
    /// `size` a multiple of it) after `wait`, without blocking; returns its event.
    ///
    /// # Safety
    /// `dst` must be a device range valid for `size` bytes.
    pub unsafe fn fill(
        &self,
        queue: cl_command_queue,
        dst: *mut c_void,
        pattern: &[u8],
        size: usize,
        wait: &[cl_event],
    ) -> Result<cl_event, cl_int> {
        let (n, list) = wait_list(wait);
        match self {
            MemoryBackend::Usm(f) => {
                let mut event: cl_event = ptr::null_mut();
                let status = unsafe {
                    (f.enqueue_mem_fill)(
                        queue,
                        dst,
                        pattern.as_ptr().cast(),
                        pattern.len(),
                        size,
                        n,
                        list,
                        &mut event,
                    )
                };
                match status {
                    0 => Ok(event),
                    e => Err(e),
                }
            }
            MemoryBackend::Svm => unsafe {
                cl3::command_queue::enqueue_svm_mem_fill(
                    queue,
                    dst,
                    pattern.as_ptr().cast(),
                    pattern.len(),
                    size,
                    n,
                    list,
                )
            },
        }
    }

    /// Sets pointer argument `index` of `kernel` to `value` (which may point inside an allocation,
    /// or be null).
    ///
    /// # Safety
    /// `kernel` must be valid and not in use by another thread.
    pub unsafe fn set_pointer_arg(
        &self,
        kernel: cl_kernel,
        index: u32,
        value: *const c_void,
    ) -> Result<(), String> {
        match self {
            MemoryBackend::Usm(f) => {
                match unsafe { (f.set_kernel_arg_mem_pointer)(kernel, index, value) } {
                    0 => Ok(()),
                    e => Err(format!("clSetKernelArgMemPointerINTEL: {}", error_name(e))),
                }
            }
            MemoryBackend::Svm => {
                unsafe { cl3::kernel::set_kernel_arg_svm_pointer(kernel, index, value) }
                    .map_err(|e| format!("clSetKernelArgSVMPointer: {}", error_name(e)))
            }
        }
    }

    /// Lets `kernel` dereference device pointers it did not receive as pointer arguments
    /// (pointers inside by-value structs, pointers loaded from memory). USM has a per-kernel switch
    /// (set once, when the kernel is created: `live` is ignored); SVM needs the list of
    /// allocations at each launch.
    ///
    /// # Safety
    /// `kernel` must be valid and not in use by another thread.
    pub unsafe fn allow_indirect_access(
        &self,
        kernel: cl_kernel,
        live: &[*mut c_void],
    ) -> Result<(), String> {
        match self {
            MemoryBackend::Usm(_) => {
                let enable: cl_bool = CL_TRUE;
                // Device access is needed; host and shared access (hipHostMalloc and
                // hipMallocManaged memory reached through pointers in memory) are best effort.
                for (flag, required) in [
                    (
                        cl3::ext::CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL,
                        true,
                    ),
                    (
                        cl3::ext::CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL,
                        false,
                    ),
                    (
                        cl3::ext::CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL,
                        false,
                    ),
                ] {
                    let result = unsafe {
                        cl3::kernel::set_kernel_exec_info(
                            kernel,
                            flag,
                            std::mem::size_of::<cl_bool>(),
                            (&enable as *const cl_bool).cast(),
                        )
                    };
                    if let (Err(e), true) = (result, required) {
                        return Err(format!(
                            "clSetKernelExecInfo(INDIRECT_DEVICE_ACCESS_INTEL): {}",
                            error_name(e)
                        ));
                    }
                }
                Ok(())
            }
            MemoryBackend::Svm => {
                if live.is_empty() {
                    return Ok(());
                }
                unsafe {
                    cl3::kernel::set_kernel_exec_info(
                        kernel,
                        cl3::kernel::CL_KERNEL_EXEC_INFO_SVM_PTRS,
                        std::mem::size_of_val(live),
                        live.as_ptr().cast(),
                    )
                }
                .map_err(|e| format!("clSetKernelExecInfo(SVM_PTRS): {}", error_name(e)))
            }
        }
    }

    /// Whether [`MemoryBackend::allow_indirect_access`] must be called at every launch.
    pub fn needs_pointer_list_per_launch(&self) -> bool {
        matches!(self, MemoryBackend::Svm)
    }
}

/// A USM allocation's result: the pointer, or the call's error.
fn usm_allocation(p: *mut c_void, status: cl_int, call: &str) -> Result<*mut c_void, String> {
    if p.is_null() || status != 0 {
        Err(format!("{call}: {}", error_name(status)))
    } else {
        Ok(p)
    }
}
