//! Virtual memory management on the CUDA driver: `cuMemCreate`, `cuMemAddressReserve`,
//! `cuMemMap`, `cuMemSetAccess`, `cuMemUnmap` and the rest, as `vmm` asks for them after its
//! checks. Devices are named by the driver's ordinals; the granularity is the driver's.

use std::ffi::{c_int, c_void};

use super::device::CudaDevice;
use super::driver::{check, sys};
use crate::backend::{not_supported, AccessFlags, DeviceId, PhysicalMemory};
use crate::error::HipResult;

use sys::CUmemAllocationHandleType as HandleType;

/// The driver's description of pinned memory of `device`.
fn properties(device: &CudaDevice, exportable: bool) -> sys::CUmemAllocationProp {
    // SAFETY: a plain C struct; all zeros is its "nothing asked" value.
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device.ordinal;
    if exportable {
        prop.requestedHandleTypes = HandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    }
    prop
}

/// (minimum, recommended) granularity, where the device has virtual memory management.
pub fn granularity(device: &CudaDevice) -> HipResult<(usize, usize)> {
    let supported = device.driver_attribute(
        sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED,
    );
    if supported == 0 {
        return Err(not_supported(&format!(
            "virtual memory management: the driver says {} has none",
            device.name
        )));
    }
    device.bind()?;
    let prop = properties(device, false);
    let mut sizes = [0usize; 2];
    for (size, option) in sizes.iter_mut().zip([
        sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
        sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED,
    ]) {
        // SAFETY: writes one size_t; `prop` is a valid description.
        check("cuMemGetAllocationGranularity", unsafe {
            sys::cuMemGetAllocationGranularity(size, &prop, option)
        })?;
    }
    Ok((sizes[0], sizes[1]))
}

/// Physical memory of the driver (`CUmemGenericAllocationHandle`), released when dropped.
pub struct CudaPhysical {
    handle: sys::CUmemGenericAllocationHandle,
    size: Option<usize>,
}

impl Drop for CudaPhysical {
    fn drop(&mut self) {
        // SAFETY: a handle of ours, released once; the driver keeps mapped memory until unmapped.
        let _ = unsafe { sys::cuMemRelease(self.handle) };
    }
}

impl PhysicalMemory for CudaPhysical {
    fn size(&self) -> Option<usize> {
        self.size
    }

    fn map(&self, address: usize, size: usize, offset: usize) -> HipResult<()> {
        // SAFETY: a reserved range and a live handle (checked by `vmm`).
        check("cuMemMap", unsafe {
            sys::cuMemMap(address as u64, size, offset, self.handle, 0)
        })?;
        // A mapping outlives a device's reset only as far as the program keeps it: no owner.
        super::memcheck::allocated(address as *const c_void, size, None);
        Ok(())
    }

    fn export_fd(&self) -> HipResult<i32> {
        let mut fd: c_int = -1;
        // SAFETY: a POSIX file descriptor is written as an int.
        check("cuMemExportToShareableHandle", unsafe {
            sys::cuMemExportToShareableHandle(
                (&mut fd as *mut c_int).cast(),
                self.handle,
                HandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                0,
            )
        })?;
        Ok(fd)
    }
}

/// `hipMemCreate` on `device`.
pub fn create(
    device: &CudaDevice,
    size: usize,
    exportable: bool,
) -> HipResult<Box<dyn PhysicalMemory>> {
    device.bind()?;
    let prop = properties(device, exportable);
    let mut handle = 0;
    // SAFETY: writes one handle; `prop` is a valid description.
    check("cuMemCreate", unsafe {
        sys::cuMemCreate(&mut handle, size, &prop, 0)
    })?;
    Ok(Box::new(CudaPhysical {
        handle,
        size: Some(size),
    }))
}

/// `hipMemImportFromShareableHandle` of a POSIX file descriptor (its size is the driver's).
pub fn import(device: &CudaDevice, fd: i32) -> HipResult<Box<dyn PhysicalMemory>> {
    device.bind()?;
    let mut handle = 0;
    // SAFETY: the descriptor is passed by value in the pointer, as the driver takes it.
    check("cuMemImportFromShareableHandle", unsafe {
        sys::cuMemImportFromShareableHandle(
            &mut handle,
            fd as isize as *mut c_void,
            HandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
        )
    })?;
    Ok(Box::new(CudaPhysical { handle, size: None }))
}

/// `hipMemAddressReserve`.
pub fn reserve(
    device: &CudaDevice,
    size: usize,
    alignment: usize,
    hint: usize,
) -> HipResult<usize> {
    device.bind()?;
    let mut address = 0;
    // SAFETY: writes one device pointer.
    check("cuMemAddressReserve", unsafe {
        sys::cuMemAddressReserve(&mut address, size, alignment, hint as u64, 0)
    })?;
    Ok(address as usize)
}

/// `hipMemAddressFree`.
pub fn free(device: &CudaDevice, address: usize, size: usize) -> HipResult<()> {
    device.bind()?;
    // SAFETY: a reservation of ours with nothing mapped (checked by `vmm`).
    check("cuMemAddressFree", unsafe {
        sys::cuMemAddressFree(address as u64, size)
    })
}

/// `hipMemUnmap` of one mapping.
pub fn unmap(device: &CudaDevice, address: usize, size: usize) -> HipResult<()> {
    device.bind()?;
    // SAFETY: one mapping of ours (checked by `vmm`).
    check("cuMemUnmap", unsafe {
        sys::cuMemUnmap(address as u64, size)
    })
}

/// `hipMemSetAccess` of one mapping: the access of every device the program named.
pub fn set_access(
    device: &CudaDevice,
    address: usize,
    size: usize,
    access: &[(DeviceId, AccessFlags)],
) -> HipResult<()> {
    device.bind()?;
    let mut descriptors = Vec::with_capacity(access.len());
    for &(id, flags) in access {
        // SAFETY: a plain C struct, filled in below.
        let mut desc: sys::CUmemAccessDesc = unsafe { std::mem::zeroed() };
        desc.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        desc.location.id = super::device_at(id)?.ordinal;
        desc.flags = match flags {
            AccessFlags::None => sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_NONE,
            AccessFlags::Read => sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READ,
            AccessFlags::ReadWrite => sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        descriptors.push(desc);
    }
    // SAFETY: one mapping of ours and `descriptors.len()` descriptors.
    check("cuMemSetAccess", unsafe {
        sys::cuMemSetAccess(
            address as u64,
            size,
            descriptors.as_ptr(),
            descriptors.len(),
        )
    })
}
