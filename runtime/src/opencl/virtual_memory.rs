//! Virtual memory management on OpenCL devices that reach the host's own memory
//! (`Runtime::system_memory`: USM shared system access or fine-grained system SVM), where
//! device memory can be any pages of the process:
//!
//! * a physical allocation is a memfd (`memfd_create`, `ftruncate`): pages of no address yet;
//! * a reservation is an inaccessible (`PROT_NONE`, `MAP_NORESERVE`) anonymous range, aligned
//!   to the granularity (the page size, or the alignment asked for);
//! * `hipMemMap` maps the memfd shared over part of a reservation (`MAP_FIXED`), still
//!   inaccessible; the same memfd mapped twice is the same pages at two addresses;
//! * `hipMemSetAccess` sets the pages' protection and enters the range in each device's
//!   allocation table as device memory ([`AllocKind::Virtual`]), so copies, fills and kernels
//!   use it; a device without access finds nothing there;
//! * `hipMemUnmap` forgets the range and puts the inaccessible reservation back;
//! * an exported allocation is a duplicate of the memfd, which another process maps just the
//!   same.
//!
//! Where the device does not reach the host's memory every call is `hipErrorNotSupported`,
//! and `hipDeviceAttributeVirtualMemoryManagementSupported` says 0.

use std::ffi::c_void;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::device::{all, Runtime};
use super::memory::set_virtual;
use crate::backend::{not_supported, AccessFlags, DeviceId, PhysicalMemory};
use crate::error::{Failure, HipError, HipResult};

/// What `hipMemGetAllocationGranularity` recommends: 2 MiB, the size of a huge page, which
/// the kernel may use for shared memory of that size.
const RECOMMENDED: usize = 2 << 20;

/// An anonymous range nothing may touch: a reservation, or its pages once unmapped.
const RESERVED: libc::c_int = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(page).unwrap_or(4096)
}

/// The last OS error of `what` as a HIP failure.
fn os_failure(code: HipError, what: &str) -> Failure {
    Failure::new(code, format!("{what}: {}", std::io::Error::last_os_error()))
}

/// (minimum, recommended) granularity, or why the device cannot have virtual memory here.
pub fn granularity(rt: &Runtime) -> HipResult<(usize, usize)> {
    if !rt.system_memory {
        return Err(not_supported(&format!(
            "virtual memory management: the OpenCL device '{}' cannot reach the host's own \
             memory (no shared system memory access in {}), where hipmlir maps physical memory",
            rt.info.name.trim(),
            rt.memory.name()
        )));
    }
    let page = page_size();
    Ok((page, RECOMMENDED.max(page)))
}

/// A memfd: physical memory that can be mapped anywhere, any number of times.
pub struct Memfd {
    fd: OwnedFd,
    size: usize,
}

impl PhysicalMemory for Memfd {
    fn size(&self) -> Option<usize> {
        Some(self.size)
    }

    fn map(&self, address: usize, size: usize, offset: usize) -> HipResult<()> {
        let offset = libc::off_t::try_from(offset)
            .map_err(|_| Failure::invalid_value(format!("offset {offset} is too large")))?;
        // SAFETY: the range lies in a reservation of ours with nothing mapped (checked by
        // `vmm`), so MAP_FIXED replaces only our own inaccessible pages.
        let p = unsafe {
            libc::mmap(
                address as *mut c_void,
                size,
                libc::PROT_NONE,
                libc::MAP_SHARED | libc::MAP_FIXED,
                self.fd.as_raw_fd(),
                offset,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(os_failure(HipError::OutOfMemory, "mapping the memfd"));
        }
        Ok(())
    }

    fn export_fd(&self) -> HipResult<i32> {
        // SAFETY: duplicates a descriptor we own; the copy is the caller's (inheritable, so it
        // can be handed to a child process too).
        let fd = unsafe { libc::dup(self.fd.as_raw_fd()) };
        if fd < 0 {
            return Err(os_failure(HipError::OutOfMemory, "duplicating the memfd"));
        }
        Ok(fd)
    }
}

/// `hipMemCreate`: a memfd of `size` bytes (zeroed pages, allocated when first touched).
pub fn create(rt: &Runtime, size: usize) -> HipResult<Box<dyn PhysicalMemory>> {
    granularity(rt)?;
    let length = libc::off_t::try_from(size)
        .map_err(|_| Failure::new(HipError::OutOfMemory, format!("{size} bytes is too large")))?;
    // SAFETY: a NUL-terminated name and valid flags.
    let raw = unsafe { libc::memfd_create(c"hipmlir-vmm".as_ptr(), libc::MFD_CLOEXEC) };
    if raw < 0 {
        return Err(os_failure(HipError::OutOfMemory, "memfd_create"));
    }
    // SAFETY: a new descriptor nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    // SAFETY: a descriptor we own.
    if unsafe { libc::ftruncate(fd.as_raw_fd(), length) } != 0 {
        return Err(os_failure(
            HipError::OutOfMemory,
            &format!("sizing the memfd to {size} bytes"),
        ));
    }
    Ok(Box::new(Memfd { fd, size }))
}

/// `hipMemImportFromShareableHandle`: the memory file `fd` names (left open for the caller).
pub fn import(rt: &Runtime, fd: i32) -> HipResult<Box<dyn PhysicalMemory>> {
    granularity(rt)?;
    // SAFETY: fstat writes one struct stat; a bad descriptor is an error, not undefined.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::fstat(fd, &mut stat) } != 0 {
        return Err(Failure::invalid_value(format!(
            "{fd} is not an open file descriptor: {}",
            std::io::Error::last_os_error()
        )));
    }
    let size = usize::try_from(stat.st_size).unwrap_or(0);
    if stat.st_mode & libc::S_IFMT != libc::S_IFREG || size == 0 {
        return Err(Failure::invalid_value(format!(
            "file descriptor {fd} does not name exported memory (hipMemExportToShareableHandle)"
        )));
    }
    // SAFETY: duplicates the caller's descriptor; ours is closed with the allocation.
    let raw = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if raw < 0 {
        return Err(os_failure(
            HipError::OutOfMemory,
            "duplicating the descriptor",
        ));
    }
    // SAFETY: a new descriptor nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    Ok(Box::new(Memfd { fd, size }))
}

/// `hipMemAddressReserve`: an inaccessible range of `size` bytes aligned to `alignment` (a
/// power of two, at least the page size), at `hint` when that range is free.
pub fn reserve(size: usize, alignment: usize, hint: usize) -> HipResult<usize> {
    let anonymous = |at: usize, len: usize, extra: libc::c_int| {
        // SAFETY: a new anonymous mapping; MAP_FIXED_NOREPLACE (the only fixed flag passed
        // here) never replaces an existing one.
        unsafe {
            libc::mmap(
                at as *mut c_void,
                len,
                libc::PROT_NONE,
                RESERVED | extra,
                -1,
                0,
            )
        }
    };
    if hint != 0 {
        let p = anonymous(hint, size, libc::MAP_FIXED_NOREPLACE);
        if p as usize == hint {
            return Ok(hint);
        }
        if p != libc::MAP_FAILED {
            // SAFETY: the mapping just made (a kernel that ignores the flag put it elsewhere).
            unsafe { libc::munmap(p, size) };
        }
    }
    let span = size
        .checked_add(alignment - page_size().min(alignment))
        .ok_or_else(|| Failure::new(HipError::OutOfMemory, format!("{size} bytes is too large")))?;
    let p = anonymous(0, span, 0);
    if p == libc::MAP_FAILED {
        return Err(os_failure(
            HipError::OutOfMemory,
            &format!("reserving {size} bytes of address space"),
        ));
    }
    let base = p as usize;
    let start = base.next_multiple_of(alignment);
    // SAFETY: the head and tail of the range just mapped, outside the part kept.
    unsafe {
        if start > base {
            libc::munmap(p, start - base);
        }
        if base + span > start + size {
            libc::munmap((start + size) as *mut c_void, base + span - start - size);
        }
    }
    Ok(start)
}

/// `hipMemAddressFree` of a reservation with nothing mapped in it.
pub fn free(address: usize, size: usize) -> HipResult<()> {
    // SAFETY: a reservation of ours (checked by `vmm`).
    if unsafe { libc::munmap(address as *mut c_void, size) } != 0 {
        return Err(os_failure(HipError::Unknown, "freeing the reserved range"));
    }
    Ok(())
}

/// `hipMemUnmap` of one mapping: no device finds it any more, and the reservation's
/// inaccessible pages are back (the memfd's pages live on in other mappings and the memfd).
pub fn unmap(address: usize, size: usize) -> HipResult<()> {
    for rt in all() {
        set_virtual(rt, address, size, None);
    }
    // SAFETY: replaces one mapping of ours (checked by `vmm`) with inaccessible pages.
    let p = unsafe {
        libc::mmap(
            address as *mut c_void,
            size,
            libc::PROT_NONE,
            RESERVED | libc::MAP_FIXED,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(os_failure(HipError::Unknown, "unmapping the memfd"));
    }
    Ok(())
}

/// `hipMemSetAccess` of one mapping: the pages' protection is the most any device has, and
/// each device's table holds the range with its own access (or not at all).
pub fn set_access(
    address: usize,
    size: usize,
    access: &[(DeviceId, AccessFlags)],
) -> HipResult<()> {
    let of = |rt: &Runtime| {
        access
            .iter()
            .find(|&&(d, _)| d == rt.id)
            .map(|&(_, flags)| flags as u32)
    };
    let prot = access.iter().fold(libc::PROT_NONE, |prot, &(_, flags)| {
        prot | match flags {
            AccessFlags::None => libc::PROT_NONE,
            AccessFlags::Read => libc::PROT_READ,
            AccessFlags::ReadWrite => libc::PROT_READ | libc::PROT_WRITE,
        }
    });
    // Forgotten before the protection changes and entered after it: no copy is let into
    // pages it may not touch.
    for rt in all() {
        set_virtual(rt, address, size, None);
    }
    // SAFETY: one mapping of ours (checked by `vmm`).
    if unsafe { libc::mprotect(address as *mut c_void, size, prot) } != 0 {
        return Err(os_failure(
            HipError::Unknown,
            "changing the mapping's protection",
        ));
    }
    for rt in all() {
        set_virtual(rt, address, size, of(rt));
    }
    Ok(())
}
