//! Virtual memory management: physical allocations (`hipMemCreate`, `hipMemRelease`, export
//! and import as POSIX file descriptors), reserved address ranges (`hipMemAddressReserve`,
//! `hipMemAddressFree`), mappings (`hipMemMap`, `hipMemUnmap`) and access (`hipMemSetAccess`,
//! `hipMemGetAccess`). The arguments are checked here; the record of what is mapped where and
//! the checks against it are `vmm`'s, the mapping the backends'. Misuse is answered as HIP 6.2
//! answers it: `hipErrorInvalidValue` for bad arguments, handles and ranges, and
//! `hipErrorMemoryAllocation` for a reservation of a size or alignment that cannot be.

use std::ffi::{c_int, c_uint, c_void};

use super::{
    backend, current_device, device_at, guard, hipError_t, hipStream_t, read_in, stream, write_out,
};
use crate::backend::{AccessFlags, Device, MemAccessDesc, MemLocation, MEM_LOCATION_DEVICE};
use crate::error::{Failure, HipError, HipResult};
use crate::vmm::{self, POSIX_FD};

/// `hipMemGenericAllocationHandle_t`: a handle of `vmm`'s table.
#[allow(non_camel_case_types)]
pub type hipMemGenericAllocationHandle_t = *mut c_void;

/// `hipMemAllocationTypePinned`, the one allocation type.
const ALLOCATION_PINNED: c_int = 1;

/// HIP's `hipMemAllocationProp`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct MemAllocationProp {
    pub alloc_type: c_int,
    /// `hipMemAllocationHandleType` bits (`requestedHandleType(s)`).
    pub requested_handle_types: c_int,
    pub location: MemLocation,
    pub win32_handle_meta_data: *mut c_void,
    pub compression_type: u8,
    pub gpu_direct_rdma_capable: u8,
    pub usage: u16,
}

/// The device a description names: pinned memory on a device (anything else, or a device that
/// does not exist, is `hipErrorInvalidValue`).
fn device_of(prop: &MemAllocationProp) -> HipResult<&'static dyn Device> {
    if prop.alloc_type != ALLOCATION_PINNED {
        return Err(Failure::invalid_value(format!(
            "allocation type {}: the only one is hipMemAllocationTypePinned (1)",
            prop.alloc_type
        )));
    }
    located(&prop.location)
}

/// The device of a `hipMemLocation` (`hipMemLocationTypeDevice` only).
fn located(location: &MemLocation) -> HipResult<&'static dyn Device> {
    if location.kind != MEM_LOCATION_DEVICE {
        return Err(Failure::invalid_value(format!(
            "location type {}: virtual memory lives on devices (hipMemLocationTypeDevice, 1)",
            location.kind
        )));
    }
    device_at(location.id).map_err(|f| Failure::invalid_value(f.message))
}

/// The minimum (`option` 0) or recommended (1) granularity of sizes and addresses.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipMemGetAllocationGranularity(
    granularity: *mut usize,
    prop: *const MemAllocationProp,
    option: c_int,
) -> hipError_t {
    guard("hipMemGetAllocationGranularity", || {
        if granularity.is_null() {
            return Err(Failure::invalid_value("the granularity pointer is null"));
        }
        // SAFETY: per the caller.
        let device = device_of(&unsafe { read_in(prop, "the properties pointer") }?)?;
        let (minimum, recommended) = device.vmm_granularity()?;
        let value = match option {
            0 => minimum,
            1 => recommended,
            other => {
                return Err(Failure::invalid_value(format!(
                    "option {other}: hipMemAllocationGranularityMinimum (0) or Recommended (1)"
                )))
            }
        };
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(granularity, value, "the granularity pointer") }
    })
}

/// Physical memory of the device `prop` names: `size` bytes, a multiple of the granularity.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipMemCreate(
    handle: *mut hipMemGenericAllocationHandle_t,
    size: usize,
    prop: *const MemAllocationProp,
    flags: u64,
) -> hipError_t {
    guard("hipMemCreate", || {
        if handle.is_null() {
            return Err(Failure::invalid_value("the handle pointer is null"));
        }
        // SAFETY: per the caller.
        let prop = unsafe { read_in(prop, "the properties pointer") }?;
        if flags != 0 {
            return Err(Failure::invalid_value(format!(
                "flags {flags:#x}: must be 0"
            )));
        }
        let device = device_of(&prop)?;
        let handle_types = match prop.requested_handle_types {
            0 => 0,
            1 => POSIX_FD,
            other => {
                return Err(Failure::new(
                    HipError::NotSupported,
                    format!(
                        "not supported by hipmlir: shareable handle type {other} (only POSIX \
                         file descriptors, 1)"
                    ),
                ))
            }
        };
        let created = vmm::create(device, size, handle_types)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(handle, created as *mut c_void, "the handle pointer") }
    })
}

/// Lets go of a handle: the memory is freed once it is not mapped either.
#[no_mangle]
pub extern "C" fn hipMemRelease(handle: hipMemGenericAllocationHandle_t) -> hipError_t {
    guard("hipMemRelease", || {
        if handle.is_null() {
            return Err(Failure::invalid_value("the handle is null"));
        }
        vmm::release(handle as usize)
    })
}

/// What `handle` was created with.
///
/// # Safety
/// `prop` must be null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hipMemGetAllocationPropertiesFromHandle(
    prop: *mut MemAllocationProp,
    handle: hipMemGenericAllocationHandle_t,
) -> hipError_t {
    guard("hipMemGetAllocationPropertiesFromHandle", || {
        if prop.is_null() || handle.is_null() {
            return Err(Failure::invalid_value(
                "the properties pointer or the handle is null",
            ));
        }
        let physical = vmm::physical(handle as usize)?;
        let value = MemAllocationProp {
            alloc_type: ALLOCATION_PINNED,
            requested_handle_types: physical.handle_types as c_int,
            location: MemLocation {
                kind: MEM_LOCATION_DEVICE,
                id: physical.device as c_int,
            },
            win32_handle_meta_data: std::ptr::null_mut(),
            compression_type: 0,
            gpu_direct_rdma_capable: 0,
            usage: 0,
        };
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(prop, value, "the properties pointer") }
    })
}

/// Reserves `size` bytes of address space aligned to `alignment` (0: the granularity), at
/// `addr` if that range is free; `flags` must be 0.
///
/// # Safety
/// `ptr` must be null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hipMemAddressReserve(
    ptr: *mut *mut c_void,
    size: usize,
    alignment: usize,
    addr: *mut c_void,
    flags: u64,
) -> hipError_t {
    guard("hipMemAddressReserve", || {
        if ptr.is_null() {
            return Err(Failure::invalid_value("the address pointer is null"));
        }
        if flags != 0 {
            return Err(Failure::invalid_value(format!(
                "flags {flags:#x}: must be 0"
            )));
        }
        let address = vmm::reserve(current_device()?, size, alignment, addr as usize)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(ptr, address as *mut c_void, "the address pointer") }
    })
}

/// Frees a whole reservation with nothing mapped in it.
#[no_mangle]
pub extern "C" fn hipMemAddressFree(ptr: *mut c_void, size: usize) -> hipError_t {
    guard("hipMemAddressFree", || {
        if ptr.is_null() || size == 0 {
            return Err(Failure::invalid_value("a null address or a size of 0"));
        }
        vmm::free(backend()?, ptr as usize, size)
    })
}

/// Maps `[offset, offset + size)` of `handle`'s memory at `ptr`, inside a reservation where
/// nothing is mapped; no device may access it before `hipMemSetAccess`.
#[no_mangle]
pub extern "C" fn hipMemMap(
    ptr: *mut c_void,
    size: usize,
    offset: usize,
    handle: hipMemGenericAllocationHandle_t,
    flags: u64,
) -> hipError_t {
    guard("hipMemMap", || {
        if ptr.is_null() || handle.is_null() || size == 0 || flags != 0 {
            return Err(Failure::invalid_value(
                "a null address or handle, a size of 0 or flags other than 0",
            ));
        }
        vmm::map(ptr as usize, size, offset, handle as usize)
    })
}

/// Unmaps whole mappings, once the work that may use them is done.
#[no_mangle]
pub extern "C" fn hipMemUnmap(ptr: *mut c_void, size: usize) -> hipError_t {
    guard("hipMemUnmap", || {
        if ptr.is_null() || size == 0 {
            return Err(Failure::invalid_value("a null address or a size of 0"));
        }
        vmm::unmap(backend()?, ptr as usize, size)
    })
}

/// Gives each device `desc` names its access to the whole mappings of `[ptr, ptr + size)`.
///
/// # Safety
/// `desc` must be null or valid for `count` descriptors.
#[no_mangle]
pub unsafe extern "C" fn hipMemSetAccess(
    ptr: *mut c_void,
    size: usize,
    desc: *const MemAccessDesc,
    count: usize,
) -> hipError_t {
    guard("hipMemSetAccess", || {
        if ptr.is_null() || size == 0 || desc.is_null() || count == 0 {
            return Err(Failure::invalid_value(
                "a null address or descriptor list, or a size or count of 0",
            ));
        }
        let mut access = Vec::with_capacity(count);
        for i in 0..count {
            // SAFETY: per the caller.
            let d = unsafe { desc.add(i).read_unaligned() };
            access.push((located(&d.location)?.id(), AccessFlags::parse(d.flags)?));
        }
        vmm::set_access(backend()?, ptr as usize, size, &access)
    })
}

/// How the device `location` names may access the mapping holding `ptr`.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipMemGetAccess(
    flags: *mut u64,
    location: *const MemLocation,
    ptr: *mut c_void,
) -> hipError_t {
    guard("hipMemGetAccess", || {
        if flags.is_null() || ptr.is_null() {
            return Err(Failure::invalid_value(
                "the flags pointer or the address is null",
            ));
        }
        // SAFETY: per the caller.
        let device = located(&unsafe { read_in(location, "the location") }?)?;
        let access = vmm::access(ptr as usize, device.id())?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(flags, access as u64, "the flags pointer") }
    })
}

/// The handle of the memory mapped at `addr`, with a reference the program releases.
///
/// # Safety
/// `handle` must be null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hipMemRetainAllocationHandle(
    handle: *mut hipMemGenericAllocationHandle_t,
    addr: *mut c_void,
) -> hipError_t {
    guard("hipMemRetainAllocationHandle", || {
        if handle.is_null() || addr.is_null() {
            return Err(Failure::invalid_value(
                "the handle pointer or the address is null",
            ));
        }
        let retained = vmm::retain(addr as usize)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(handle, retained as *mut c_void, "the handle pointer") }
    })
}

/// Writes a new POSIX file descriptor (an `int`) naming `handle`'s memory into
/// `shareable_handle`; the allocation must have been created exportable as one.
///
/// # Safety
/// `shareable_handle` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipMemExportToShareableHandle(
    shareable_handle: *mut c_void,
    handle: hipMemGenericAllocationHandle_t,
    handle_type: c_int,
    flags: u64,
) -> hipError_t {
    guard("hipMemExportToShareableHandle", || {
        if shareable_handle.is_null() || handle.is_null() || flags != 0 {
            return Err(Failure::invalid_value(
                "a null handle or output pointer, or flags other than 0",
            ));
        }
        let fd = vmm::export(handle as usize, handle_type as u32)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(shareable_handle.cast::<c_int>(), fd, "the output pointer") }
    })
}

/// The memory a POSIX file descriptor exported by `hipMemExportToShareableHandle` names (the
/// descriptor's value is passed in the pointer), as memory of the calling thread's device.
///
/// # Safety
/// `handle` must be null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hipMemImportFromShareableHandle(
    handle: *mut hipMemGenericAllocationHandle_t,
    os_handle: *mut c_void,
    handle_type: c_int,
) -> hipError_t {
    guard("hipMemImportFromShareableHandle", || {
        if handle.is_null() || os_handle.is_null() {
            return Err(Failure::invalid_value(
                "the handle pointer or the OS handle is null",
            ));
        }
        if handle_type as u32 != POSIX_FD {
            return Err(Failure::new(
                HipError::NotSupported,
                format!(
                    "not supported by hipmlir: shareable handle type {handle_type} (only POSIX \
                     file descriptors, 1)"
                ),
            ));
        }
        let fd = i32::try_from(os_handle as usize).map_err(|_| {
            Failure::invalid_value(format!("{os_handle:p} is not a file descriptor"))
        })?;
        let imported = vmm::import(current_device()?, fd)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(handle, imported as *mut c_void, "the handle pointer") }
    })
}

/// Mapping memory into sparse arrays: refused with the reason (arrays here are pitched linear
/// memory, never sparse driver arrays), after HIP's argument checks.
#[no_mangle]
pub extern "C" fn hipMemMapArrayAsync(
    map_info_list: *mut c_void,
    count: c_uint,
    stream_handle: hipStream_t,
) -> hipError_t {
    guard("hipMemMapArrayAsync", || {
        if map_info_list.is_null() || count == 0 {
            return Err(Failure::invalid_value("a null list or a count of 0"));
        }
        stream(stream_handle)?;
        Err(Failure::new(
            HipError::NotSupported,
            "not supported by hipmlir: sparse arrays (hipmlir's arrays are pitched linear memory \
             on both backends, never sparse driver arrays, so no memory can be mapped into them)",
        ))
    })
}
