//! Virtual memory management (`hipMemCreate`, `hipMemAddressReserve`, `hipMemMap`,
//! `hipMemSetAccess`, ...), the part both backends share: the physical allocations programs
//! hold handles to, the address ranges they reserved, what is mapped where and which devices
//! reach it. Every call is checked here against that record, so both backends answer misuse
//! with the same HIP codes; the backends only do the mapping (`Device::reserve_address`,
//! `PhysicalMemory::map`, `Device::set_access`, `Device::unmap`, ...).
//!
//! A physical allocation lives while the program holds it (`hipMemCreate`,
//! `hipMemRetainAllocationHandle`, each undone by `hipMemRelease`) or a mapping uses it: memory
//! released while mapped stays until it is unmapped, as in HIP. Its handle keeps one value for
//! its whole life (a retained handle equals the created one) and is never valid again after.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, OnceLock};

use crate::backend::{AccessFlags, Backend, Device, DeviceId, PhysicalMemory};
use crate::error::{Failure, HipError, HipResult};
use crate::handles::{HandleTable, Kind};

/// `hipMemHandleTypePosixFileDescriptor`, the one kind of shareable handle there is here.
pub const POSIX_FD: u32 = 1;

/// One physical allocation (`hipMemGenericAllocationHandle_t`).
pub struct Physical {
    memory: Box<dyn PhysicalMemory>,
    /// The device whose memory it is.
    pub device: DeviceId,
    /// The shareable handle types it may be exported as (`hipMemAllocationHandleType` bits).
    pub handle_types: u32,
    /// Its device's minimum granularity: offsets and sizes of its mappings are multiples of it.
    granularity: usize,
    handle: OnceLock<usize>,
    uses: Mutex<Uses>,
}

/// Who keeps a physical allocation alive.
#[derive(Default)]
struct Uses {
    /// References the program holds (each released by one `hipMemRelease`).
    held: usize,
    /// Mappings of it.
    mapped: usize,
}

impl Physical {
    fn handle(&self) -> usize {
        self.handle.get().copied().unwrap_or(0)
    }

    fn uses(&self) -> MutexGuard<'_, Uses> {
        self.uses.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Updates the uses; the last one gone frees the allocation (its table entry, then the
    /// memory once the last `Arc` drops).
    fn change(&self, update: impl FnOnce(&mut Uses) -> HipResult<()>) -> HipResult<()> {
        let mut uses = self.uses();
        update(&mut uses)?;
        if uses.held == 0 && uses.mapped == 0 {
            PHYSICAL.remove(self.handle());
        }
        Ok(())
    }
}

static PHYSICAL: LazyLock<HandleTable<Physical>> =
    LazyLock::new(|| HandleTable::new(Kind::PhysicalMemory));

/// A reserved address range and what is mapped in it, by address.
struct Reservation {
    size: usize,
    /// The device that reserved it (and frees it).
    device: DeviceId,
    mappings: BTreeMap<usize, Mapping>,
}

struct Mapping {
    size: usize,
    physical: Arc<Physical>,
    /// The devices `hipMemSetAccess` named, and their access (a device not listed has none).
    access: Vec<(DeviceId, AccessFlags)>,
}

/// Every reservation, by start address.
static RESERVATIONS: Mutex<BTreeMap<usize, Reservation>> = Mutex::new(BTreeMap::new());

/// How many reservations there are: copies of host memory ask [`overlaps_reservation`], which
/// answers at once while there are none.
static RESERVED: AtomicUsize = AtomicUsize::new(0);

fn reservations() -> MutexGuard<'static, BTreeMap<usize, Reservation>> {
    RESERVATIONS.lock().unwrap_or_else(|p| p.into_inner())
}

/// The live allocation a handle names, or `hipErrorInvalidValue`.
pub fn physical(handle: usize) -> HipResult<Arc<Physical>> {
    PHYSICAL.get(handle).ok_or_else(|| {
        Failure::invalid_value(format!(
            "{handle:#x} is not a live physical allocation handle (hipMemCreate), or it was \
             released"
        ))
    })
}

fn register(
    memory: Box<dyn PhysicalMemory>,
    device: &dyn Device,
    handle_types: u32,
) -> HipResult<usize> {
    let (granularity, _) = device.vmm_granularity()?;
    let physical = Arc::new(Physical {
        memory,
        device: device.id(),
        handle_types,
        granularity,
        handle: OnceLock::new(),
        uses: Mutex::new(Uses { held: 1, mapped: 0 }),
    });
    let handle = PHYSICAL.insert(physical.clone());
    let _ = physical.handle.set(handle);
    Ok(handle)
}

/// The bytes of `device`'s memory that physical allocations hold (for `hipMemGetInfo`, which
/// counts them as used whether mapped or not, as the CUDA driver does).
pub fn physical_bytes(device: DeviceId) -> u64 {
    PHYSICAL
        .all()
        .iter()
        .filter(|(_, p)| p.device == device)
        .filter_map(|(_, p)| p.memory.size())
        .map(|size| size as u64)
        .sum()
}

/// `hipMemCreate`: `size` bytes of `device`'s memory (a multiple of its granularity), exportable
/// as the `handle_types` say (checked by the caller: none or a POSIX file descriptor).
pub fn create(device: &dyn Device, size: usize, handle_types: u32) -> HipResult<usize> {
    let (granularity, _) = device.vmm_granularity()?;
    if size == 0 || !size.is_multiple_of(granularity) {
        return Err(Failure::invalid_value(format!(
            "{size} bytes is not a positive multiple of the device's granularity ({granularity} \
             bytes, hipMemGetAllocationGranularity)"
        )));
    }
    let memory = device.create_physical(size, handle_types & POSIX_FD != 0)?;
    register(memory, device, handle_types)
}

/// `hipMemImportFromShareableHandle` of a POSIX file descriptor, as memory of `device`.
pub fn import(device: &dyn Device, fd: i32) -> HipResult<usize> {
    let memory = device.import_physical(fd)?;
    register(memory, device, POSIX_FD)
}

/// `hipMemRelease`: the program lets go of one reference.
pub fn release(handle: usize) -> HipResult<()> {
    physical(handle)?.change(|uses| {
        if uses.held == 0 {
            return Err(Failure::invalid_value(format!(
                "{handle:#x} was released already (it lives on only while mapped)"
            )));
        }
        uses.held -= 1;
        Ok(())
    })
}

/// `hipMemExportToShareableHandle`: a new file descriptor naming the allocation.
pub fn export(handle: usize, handle_type: u32) -> HipResult<i32> {
    let physical = physical(handle)?;
    if handle_type != POSIX_FD || physical.handle_types & handle_type == 0 {
        return Err(Failure::invalid_value(format!(
            "handle type {handle_type}: the allocation was created exportable as {} \
             (hipMemHandleTypePosixFileDescriptor is 1)",
            physical.handle_types
        )));
    }
    physical.memory.export_fd()
}

/// `hipMemAddressReserve`: `size` bytes of address space (a multiple of `device`'s
/// granularity), aligned to `alignment` (0: the granularity), at `hint` if it is free there.
/// HIP 6.2 answers a size or alignment it cannot reserve with `hipErrorMemoryAllocation`.
pub fn reserve(
    device: &dyn Device,
    size: usize,
    alignment: usize,
    hint: usize,
) -> HipResult<usize> {
    let (granularity, _) = device.vmm_granularity()?;
    if size == 0 || !size.is_multiple_of(granularity) {
        return Err(Failure::new(
            HipError::OutOfMemory,
            format!(
                "cannot reserve {size} bytes: not a positive multiple of the granularity \
                 ({granularity} bytes)"
            ),
        ));
    }
    if alignment != 0 && !alignment.is_power_of_two() {
        return Err(Failure::new(
            HipError::OutOfMemory,
            format!("cannot reserve at an alignment of {alignment}: not a power of two"),
        ));
    }
    let alignment = alignment.max(granularity);
    let hint = if hint.is_multiple_of(alignment) {
        hint
    } else {
        0
    };
    let address = device.reserve_address(size, alignment, hint)?;
    RESERVED.fetch_add(1, Ordering::Relaxed);
    reservations().insert(
        address,
        Reservation {
            size,
            device: device.id(),
            mappings: BTreeMap::new(),
        },
    );
    Ok(address)
}

/// `hipMemAddressFree`: the whole reservation at `address`, with nothing mapped in it.
pub fn free(backend: &dyn Backend, address: usize, size: usize) -> HipResult<()> {
    let mut all = reservations();
    let Some(r) = all.get(&address) else {
        return Err(Failure::invalid_value(format!(
            "{address:#x} is not the start of a reserved range (hipMemAddressReserve)"
        )));
    };
    if r.size != size {
        return Err(Failure::invalid_value(format!(
            "the range at {address:#x} is {} bytes, not {size}: a reservation is freed whole",
            r.size
        )));
    }
    if !r.mappings.is_empty() {
        return Err(Failure::invalid_value(format!(
            "the range at {address:#x} still has {} mapping(s): hipMemUnmap them first",
            r.mappings.len()
        )));
    }
    backend.device(r.device)?.free_address(address, size)?;
    all.remove(&address);
    RESERVED.fetch_sub(1, Ordering::Relaxed);
    Ok(())
}

/// The reservation holding all of `[address, address + size)`.
fn reservation_of(
    all: &mut BTreeMap<usize, Reservation>,
    address: usize,
    size: usize,
) -> HipResult<&mut Reservation> {
    all.range_mut(..=address)
        .next_back()
        .filter(|(&base, r)| {
            address
                .checked_add(size)
                .is_some_and(|end| end <= base + r.size)
        })
        .map(|(_, r)| r)
        .ok_or_else(|| {
            Failure::invalid_value(format!(
                "{address:#x}+{size} does not lie inside one reserved range (hipMemAddressReserve)"
            ))
        })
}

/// `hipMemMap`: `[offset, offset + size)` of the allocation at `address`, inside a reservation,
/// where nothing is mapped; no device may access it until `hipMemSetAccess`. The offset must
/// be 0, as HIP and the CUDA driver require (both backends answer alike).
pub fn map(address: usize, size: usize, offset: usize, handle: usize) -> HipResult<()> {
    if offset != 0 {
        return Err(Failure::invalid_value(format!(
            "offset {offset}: hipMemMap maps an allocation from its start (the offset must be 0, \
             as in HIP and CUDA)"
        )));
    }
    let physical = physical(handle)?;
    let g = physical.granularity;
    if size == 0
        || !size.is_multiple_of(g)
        || !offset.is_multiple_of(g)
        || !address.is_multiple_of(g)
    {
        return Err(Failure::invalid_value(format!(
            "address {address:#x}, size {size} and offset {offset} must be multiples of the \
             granularity ({g} bytes), the size not 0"
        )));
    }
    if let Some(total) = physical.memory.size() {
        if offset.checked_add(size).is_none_or(|end| end > total) {
            return Err(Failure::invalid_value(format!(
                "{size} bytes at offset {offset} run past the {total}-byte allocation"
            )));
        }
    }
    let mut all = reservations();
    let r = reservation_of(&mut all, address, size)?;
    if let Some((&at, m)) = r.mappings.range(..address + size).next_back() {
        if at + m.size > address {
            return Err(Failure::invalid_value(format!(
                "{address:#x}+{size} overlaps the mapping at {at:#x} ({} bytes): unmap it first",
                m.size
            )));
        }
    }
    physical.memory.map(address, size, offset)?;
    physical.change(|uses| {
        uses.mapped += 1;
        Ok(())
    })?;
    r.mappings.insert(
        address,
        Mapping {
            size,
            physical,
            access: Vec::new(),
        },
    );
    Ok(())
}

/// The starts of the mappings that make up exactly `[address, address + size)`.
fn whole_mappings(r: &Reservation, address: usize, size: usize) -> HipResult<Vec<usize>> {
    let mut starts = Vec::new();
    let mut at = address;
    let end = address + size;
    while at < end {
        match r.mappings.get(&at) {
            Some(m) if at + m.size <= end => {
                starts.push(at);
                at += m.size;
            }
            _ => {
                return Err(Failure::invalid_value(format!(
                    "{address:#x}+{size} is not made of whole mappings (nothing is mapped at \
                     {at:#x}, or a mapping there runs past the range's end)"
                )))
            }
        }
    }
    Ok(starts)
}

/// `hipMemUnmap` of whole mappings, once the work of every device that may use them is done.
pub fn unmap(backend: &dyn Backend, address: usize, size: usize) -> HipResult<()> {
    let users = {
        let mut all = reservations();
        let r = reservation_of(&mut all, address, size)?;
        let mut users: Vec<DeviceId> = Vec::new();
        for start in whole_mappings(r, address, size)? {
            let m = &r.mappings[&start];
            users.extend(m.access.iter().map(|&(d, _)| d));
            users.push(m.physical.device);
        }
        users.sort_unstable();
        users.dedup();
        users
    };
    for device in users {
        backend.device(device)?.synchronize()?;
    }
    let mut all = reservations();
    let r = reservation_of(&mut all, address, size)?;
    for start in whole_mappings(r, address, size)? {
        let m = &r.mappings[&start];
        backend.device(m.physical.device)?.unmap(start, m.size)?;
        if let Some(m) = r.mappings.remove(&start) {
            m.physical.change(|uses| {
                uses.mapped -= 1;
                Ok(())
            })?;
        }
    }
    Ok(())
}

/// `hipMemSetAccess` on whole mappings: each listed device's access becomes the one given.
pub fn set_access(
    backend: &dyn Backend,
    address: usize,
    size: usize,
    access: &[(DeviceId, AccessFlags)],
) -> HipResult<()> {
    for &(device, _) in access {
        backend.device(device)?.vmm_granularity()?;
    }
    let mut all = reservations();
    let r = reservation_of(&mut all, address, size)?;
    for start in whole_mappings(r, address, size)? {
        let Some(m) = r.mappings.get_mut(&start) else {
            continue;
        };
        let mut merged = m.access.clone();
        for &(device, flags) in access {
            merged.retain(|&(d, _)| d != device);
            merged.push((device, flags));
        }
        backend
            .device(m.physical.device)?
            .set_access(start, m.size, &merged)?;
        m.access = merged;
    }
    Ok(())
}

/// The mapping holding `address`.
fn mapping_at(all: &mut BTreeMap<usize, Reservation>, address: usize) -> HipResult<&Mapping> {
    reservation_of(all, address, 1)
        .ok()
        .and_then(|r| {
            let (&at, m) = r.mappings.range(..=address).next_back()?;
            (address < at + m.size).then_some(m)
        })
        .ok_or_else(|| {
            Failure::invalid_value(format!("nothing is mapped at {address:#x} (hipMemMap)"))
        })
}

/// `hipMemGetAccess`: how `device` may access the mapping holding `address`.
pub fn access(address: usize, device: DeviceId) -> HipResult<AccessFlags> {
    let mut all = reservations();
    let m = mapping_at(&mut all, address)?;
    Ok(m.access
        .iter()
        .find(|&&(d, _)| d == device)
        .map_or(AccessFlags::None, |&(_, f)| f))
}

/// `hipMemRetainAllocationHandle`: the handle of the allocation mapped at `address`, with one
/// more reference the program releases.
pub fn retain(address: usize) -> HipResult<usize> {
    let mut all = reservations();
    let physical = mapping_at(&mut all, address)?.physical.clone();
    physical.change(|uses| {
        uses.held += 1;
        Ok(())
    })?;
    Ok(physical.handle())
}

/// Whether any reservation overlaps `[address, address + len)` (memory the runtime owns).
pub fn overlaps_reservation(address: usize, len: usize) -> bool {
    if RESERVED.load(Ordering::Relaxed) == 0 {
        return false;
    }
    let end = address.saturating_add(len);
    reservations()
        .range(..end)
        .next_back()
        .is_some_and(|(&base, r)| base + r.size > address)
}
