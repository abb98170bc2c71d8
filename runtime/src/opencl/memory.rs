//! Memory on OpenCL: device, managed and pinned host allocations, and copies and fills on
//! streams.
//!
//! Every live allocation is in its device's table (base → size and kind), so a pointer the program hands back
//! can be checked before OpenCL sees it: freeing something the runtime did not return, or copying
//! past the end of an allocation, is `hipErrorInvalidValue` with a message, not a crash in the
//! driver.
//!
//! Copies and fills are enqueued on a stream (see `stream`): the synchronous calls
//! (`hipMemcpy`, `hipMemset`, ...) use the null stream and wait for their own command; the `Async`
//! ones return at once when every host side is pinned (`hipHostMalloc`, `hipHostRegister`), which
//! the copy then reads or writes when it runs, so it must stay alive and untouched until the
//! stream is synchronized, as in HIP. A copy to or from pageable host memory is done before
//! the call returns, as in HIP and CUDA.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::MutexGuard;

use super::cl::OwnedEvent;
use super::device::Runtime;
use super::rect;
use super::staged_copy::{self, PageableSide};
use super::stream::{cl_failure, ClQueue};
use crate::backend::{
    Allocation, Copy2d, Copy3d, DeviceId, Fill, FreeKind, MemcpyKind, MemoryKind, MemoryType,
};
use crate::error::{Failure, HipError, HipResult};

/// What kind of memory an allocation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocKind {
    /// `hipMalloc`: device memory.
    Device,
    /// `hipMallocManaged`: USM shared memory, usable from host and device.
    Managed,
    /// `hipHostMalloc`: USM host memory (the device can access it).
    HostUsm,
    /// `hipHostMalloc` without USM: plain page-aligned host memory (copies only).
    HostPlain,
    /// A device variable (`__device__`/`__constant__`) of a built program, entered when its address
    /// is first needed (`variables`): device memory for copies, fills and kernels, but the program
    /// owns it, so it is never freed, listed as an allocation or counted as allocated.
    Variable,
    /// The device heap behind `malloc`/`new` in device code (`heap`): device memory the runtime
    /// owns, reachable by kernels through pointers they compute, never freed by `hipFree`.
    Heap,
    /// `hipHostRegister`: the program's own host memory, which the device reaches at the same
    /// address (the device has shared system memory); forgotten, never freed, by
    /// `hipHostUnregister`.
    Registered,
    /// Virtual memory (`hipMemMap`) this device was given access to (`hipMemSetAccess`; the
    /// entry's flags are the access): device memory for copies, fills and kernels, owned by
    /// `vmm`, so never freed, listed or counted here (see `virtual_memory`).
    Virtual,
}

impl AllocKind {
    /// Whether it is device memory (copies treat it as such; kernels use it).
    pub fn is_device(self) -> bool {
        matches!(
            self,
            AllocKind::Device
                | AllocKind::Managed
                | AllocKind::Variable
                | AllocKind::Heap
                | AllocKind::Virtual
        )
    }

    /// Whether the program allocated it (`hipMalloc`/`hipMallocManaged`): `hipFree` frees it, SVM
    /// launches list it, `hipMemGetInfo` counts it.
    pub fn is_device_allocation(self) -> bool {
        matches!(self, AllocKind::Device | AllocKind::Managed)
    }

    /// Device memory the runtime allocated: the program's allocations and the device heap.
    pub fn holds_device_memory(self) -> bool {
        self.is_device_allocation() || self == AllocKind::Heap
    }
}

/// One live allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub size: usize,
    pub kind: AllocKind,
    /// `hipHostMalloc` / `hipHostRegister` flags (host memory), the access of virtual memory
    /// (`hipMemAccessFlags`), else 0.
    pub flags: u32,
    /// Never reused within the process (`HIP_POINTER_ATTRIBUTE_BUFFER_ID`).
    pub id: u64,
    /// `HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS`: recorded only, every synchronous copy and fill here
    /// already waits for its own command.
    pub sync_memops: bool,
}

/// A buffer id (`HIP_POINTER_ATTRIBUTE_BUFFER_ID`), never reused within the process.
fn next_id() -> u64 {
    static NEXT_ID: AtomicU64 = AtomicU64::new(1);
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// Live allocations, keyed by base address.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct AllocationTable {
    allocations: BTreeMap<usize, Entry>,
}

/// Where an address range falls relative to the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeCheck {
    /// Entirely inside the allocation at `base`.
    Inside {
        base: usize,
        size: usize,
        kind: AllocKind,
    },
    /// Starts inside the allocation at `base` but runs past its end (or the range wraps).
    Overruns { base: usize, size: usize },
    /// Starts outside every allocation.
    Outside,
}

impl AllocationTable {
    pub const fn new() -> Self {
        AllocationTable {
            allocations: BTreeMap::new(),
        }
    }

    /// Records an allocation; `size` must be > 0. Returns false if `base` is already recorded.
    pub fn insert(&mut self, base: usize, size: usize, kind: AllocKind) -> bool {
        self.insert_with_flags(base, size, kind, 0)
    }

    /// [`AllocationTable::insert`] of host memory with its HIP flags.
    pub fn insert_with_flags(
        &mut self,
        base: usize,
        size: usize,
        kind: AllocKind,
        flags: u32,
    ) -> bool {
        if self.allocations.contains_key(&base) {
            return false;
        }
        let entry = Entry {
            size,
            kind,
            flags,
            id: next_id(),
            sync_memops: false,
        };
        self.allocations.insert(base, entry);
        true
    }

    /// Enters `[addr, addr + len)` as virtual memory with `access` (`hipMemAccessFlags`), or
    /// forgets it (`None`). Virtual entries the range cuts keep their parts outside it, and
    /// neighbours of the same access are joined: a copy across adjacent mappings is inside one
    /// entry.
    pub fn set_virtual(&mut self, addr: usize, len: usize, access: Option<u32>) {
        let end = addr + len;
        let cut: Vec<(usize, Entry)> = self
            .allocations
            .range(..end)
            .rev()
            .take_while(|(&base, e)| base + e.size > addr)
            .filter(|(_, e)| e.kind == AllocKind::Virtual)
            .map(|(&base, &e)| (base, e))
            .collect();
        for (base, e) in cut {
            self.allocations.remove(&base);
            if base < addr {
                let head = Entry {
                    size: addr - base,
                    ..e
                };
                self.allocations.insert(base, head);
            }
            if base + e.size > end {
                let tail = Entry {
                    size: base + e.size - end,
                    ..e
                };
                self.allocations.insert(end, tail);
            }
        }
        let Some(flags) = access else {
            return;
        };
        let joins = |e: &Entry| e.kind == AllocKind::Virtual && e.flags == flags;
        let mut entry = Entry {
            size: len,
            kind: AllocKind::Virtual,
            flags,
            id: next_id(),
            sync_memops: false,
        };
        let mut base = addr;
        if let Some((&before, &e)) = self.allocations.range(..addr).next_back() {
            if before + e.size == addr && joins(&e) {
                self.allocations.remove(&before);
                (base, entry.size, entry.id) = (before, entry.size + e.size, e.id);
            }
        }
        if let Some(e) = self.allocations.get(&end).copied().filter(joins) {
            self.allocations.remove(&end);
            entry.size += e.size;
        }
        self.allocations.insert(base, entry);
    }

    /// Forgets the allocation starting exactly at `base`, returning its size and kind.
    pub fn remove(&mut self, base: usize) -> Option<(usize, AllocKind)> {
        self.allocations.remove(&base).map(|e| (e.size, e.kind))
    }

    pub fn get(&self, base: usize) -> Option<(usize, AllocKind)> {
        self.allocations.get(&base).map(|e| (e.size, e.kind))
    }

    /// The allocation containing `addr`, as `(base, size, kind)`.
    pub fn containing(&self, addr: usize) -> Option<(usize, usize, AllocKind)> {
        self.entry(addr).map(|(base, e)| (base, e.size, e.kind))
    }

    /// The allocation containing `addr`, whole.
    pub fn entry(&self, addr: usize) -> Option<(usize, Entry)> {
        let (&base, &entry) = self.allocations.range(..=addr).next_back()?;
        (addr - base < entry.size).then_some((base, entry))
    }

    /// The allocation containing `addr`, to update.
    fn entry_mut(&mut self, addr: usize) -> Option<&mut Entry> {
        let (&base, entry) = self.allocations.range_mut(..=addr).next_back()?;
        (addr - base < entry.size).then_some(entry)
    }

    /// Whether any allocation overlaps `[addr, addr + len)` (`len` > 0).
    pub fn overlaps(&self, addr: usize, len: usize) -> bool {
        let end = addr.saturating_add(len);
        self.entry(addr).is_some() || self.allocations.range(addr..end).next().is_some()
    }

    /// Classifies `[addr, addr + len)`. A zero-length range at an allocation's end counts as inside.
    pub fn check(&self, addr: usize, len: usize) -> RangeCheck {
        let found = self.allocations.range(..=addr).next_back();
        let Some((&base, &Entry { size, kind, .. })) = found else {
            return RangeCheck::Outside;
        };
        let offset = addr - base;
        if offset > size || (offset == size && len > 0) {
            return RangeCheck::Outside;
        }
        match offset.checked_add(len) {
            Some(end) if end <= size => RangeCheck::Inside { base, size, kind },
            _ => RangeCheck::Overruns { base, size },
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.allocations.len()
    }

    /// Base addresses of all live device-side allocations (device and managed, and the device
    /// heap, which kernels reach through the pointers malloc gives them).
    pub fn bases(&self) -> Vec<*mut c_void> {
        self.allocations
            .iter()
            .filter(|(_, e)| e.kind.holds_device_memory())
            .map(|(&b, _)| b as *mut c_void)
            .collect()
    }

    /// The bytes of device memory allocations hold: the program's and the device heap's.
    pub fn device_bytes(&self) -> u64 {
        self.allocations
            .values()
            .filter(|e| e.kind.holds_device_memory())
            .map(|e| e.size as u64)
            .sum()
    }

    /// Removes and returns every allocation; device variables and virtual memory stay (their
    /// programs and `vmm` own them).
    fn drain(&mut self) -> Vec<(usize, usize, AllocKind)> {
        let (variables, allocations): (BTreeMap<_, _>, BTreeMap<_, _>) =
            std::mem::take(&mut self.allocations)
                .into_iter()
                .partition(|(_, e)| matches!(e.kind, AllocKind::Variable | AllocKind::Virtual));
        self.allocations = variables;
        allocations
            .into_iter()
            .map(|(b, e)| (b, e.size, e.kind))
            .collect()
    }
}

/// The allocations of device `rt`.
fn table(rt: &Runtime) -> MutexGuard<'_, AllocationTable> {
    // A panic while holding the lock cannot leave the map half-updated (BTreeMap operations are
    // the only writes), so a poisoned lock is still consistent.
    rt.allocations
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Base addresses of all live device-side allocations of `rt` (for backends that must list them
/// at launch).
pub fn live_allocations(rt: &Runtime) -> Vec<*mut c_void> {
    table(rt).bases()
}

/// The device whose allocation contains `addr`, with the allocation, if any.
pub fn owner_of(addr: usize) -> Option<(DeviceId, usize, usize, AllocKind)> {
    super::device::all().iter().find_map(|rt| {
        table(rt)
            .containing(addr)
            .map(|(base, size, kind)| (rt.id, base, size, kind))
    })
}

/// The allocation containing `addr`, if any (on whichever device).
pub fn find_allocation(addr: usize) -> Option<(usize, usize, AllocKind)> {
    owner_of(addr).map(|(_, base, size, kind)| (base, size, kind))
}

/// Every live allocation a kernel may reach (all but plain host memory), on every device, as
/// (base, size) sorted by base: what the memory checker's table holds.
pub fn all_allocations() -> Vec<(usize, usize)> {
    let mut all: Vec<(usize, usize)> = super::device::all()
        .iter()
        .flat_map(|rt| {
            table(rt)
                .allocations
                .iter()
                .filter(|(_, e)| e.kind != AllocKind::HostPlain)
                .map(|(&b, e)| (b, e.size))
                .collect::<Vec<_>>()
        })
        .collect();
    all.sort_unstable();
    all
}

/// Bytes of device memory the program allocated on `rt`.
pub fn device_bytes_in_use(rt: &Runtime) -> u64 {
    table(rt).device_bytes()
}

/// Enters a device variable's storage (`[address, address + size)`) so copies, fills and
/// `hipPointerGetAttributes` accept it. A range already entered is left alone.
pub fn add_variable(rt: &Runtime, address: usize, size: usize) {
    if size == 0 {
        return;
    }
    let mut t = table(rt);
    if t.get(address) != Some((size, AllocKind::Variable))
        && !t.insert(address, size, AllocKind::Variable)
    {
        crate::hlog!(
            Warn,
            "device variable at {address:#x} ({size} bytes) overlaps a recorded allocation"
        );
    }
}

/// Enters (or, with `None`, forgets) virtual memory `rt` may access (see `virtual_memory`).
pub fn set_virtual(rt: &Runtime, address: usize, size: usize, access: Option<u32>) {
    table(rt).set_virtual(address, size, access);
}

/// Forgets a device variable's storage (its program is being released).
pub fn remove_variable(rt: &Runtime, address: usize) {
    let mut t = table(rt);
    if matches!(t.get(address), Some((_, AllocKind::Variable))) {
        t.remove(address);
    }
}

const PLAIN_HOST_ALIGN: usize = 4096;

fn record(rt: &Runtime, p: *mut c_void, size: usize, kind: AllocKind) -> HipResult<*mut c_void> {
    record_with_flags(rt, p, size, kind, 0)
}

fn record_with_flags(
    rt: &Runtime,
    p: *mut c_void,
    size: usize,
    kind: AllocKind,
    flags: u32,
) -> HipResult<*mut c_void> {
    if !table(rt).insert_with_flags(p as usize, size, kind, flags) {
        return Err(Failure::new(
            HipError::Unknown,
            format!("the driver returned {p:p} twice"),
        ));
    }
    Ok(p)
}

fn out_of_memory(size: usize, e: String) -> Failure {
    Failure::new(
        HipError::OutOfMemory,
        format!("cannot allocate {size} bytes: {e}"),
    )
}

/// The device heap's region (`heap`): `size` bytes of device memory, entered in the table as
/// [`AllocKind::Heap`]; `hipDeviceReset` releases it with the allocations.
pub fn alloc_heap(rt: &Runtime, size: usize) -> HipResult<*mut c_void> {
    let p = rt
        .memory
        .alloc(rt.context.get(), rt.device_id(), size)
        .map_err(|e| out_of_memory(size, e))?;
    record(rt, p, size, AllocKind::Heap)
}

/// `hipMalloc`: `size` bytes of device memory, 256-byte aligned. Zero bytes gives null, as in HIP.
pub fn malloc(rt: &Runtime, size: usize) -> HipResult<*mut c_void> {
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    let p = rt
        .memory
        .alloc(rt.context.get(), rt.device_id(), size)
        .map_err(|e| out_of_memory(size, e))?;
    record(rt, p, size, AllocKind::Device)
}

/// `hipMallocManaged`: memory the host and the device both use (USM shared allocations).
pub fn malloc_managed(rt: &Runtime, size: usize) -> HipResult<*mut c_void> {
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    let p = rt
        .memory
        .alloc_shared(rt.context.get(), rt.device_id(), size)
        .ok_or_else(|| {
            Failure::new(
                HipError::NotSupported,
                format!(
                    "hipMallocManaged needs USM shared allocations; the memory model is {}",
                    rt.memory.name()
                ),
            )
        })?
        .map_err(|e| out_of_memory(size, e))?;
    record(rt, p, size, AllocKind::Managed)
}

/// `hipHostMalloc`: pinned host memory. USM host memory when the device has it (kernels may then
/// use it), else page-aligned host memory (for copies). The flags are kept for
/// `hipHostGetFlags` and `hipPointerGetAttributes`.
pub fn host_malloc(rt: &Runtime, size: usize, flags: u32) -> HipResult<*mut c_void> {
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    match rt.memory.alloc_host(rt.context.get(), size) {
        Some(result) => {
            let p = result.map_err(|e| out_of_memory(size, e))?;
            record_with_flags(rt, p, size, AllocKind::HostUsm, flags)
        }
        None => {
            let layout = std::alloc::Layout::from_size_align(size, PLAIN_HOST_ALIGN)
                .map_err(|e| out_of_memory(size, e.to_string()))?;
            // SAFETY: size > 0.
            let p = unsafe { std::alloc::alloc_zeroed(layout) };
            if p.is_null() {
                return Err(out_of_memory(size, "the host is out of memory".into()));
            }
            record_with_flags(rt, p.cast(), size, AllocKind::HostPlain, flags)
        }
    }
}

fn unknown_pointer(t: &AllocationTable, p: *mut c_void, what: &str) -> Failure {
    let why = match t.containing(p as usize) {
        Some((base, size, _)) => format!(
            "{p:p} points {} bytes into the {size}-byte allocation at {base:#x}, not at its start",
            p as usize - base
        ),
        None => format!("{p:p} was not returned by {what} (or was already freed)"),
    };
    Failure::invalid_value(why)
}

/// Frees an allocation of the expected kinds, after all queued work (a kernel may still use it).
fn free_kind(rt: &Runtime, p: *mut c_void, host: bool) -> HipResult<()> {
    if p.is_null() {
        return Ok(());
    }
    let addr = p as usize;
    let (wanted, other) = if host {
        (
            "hipHostMalloc",
            "hipMalloc/hipMallocManaged memory: use hipFree",
        )
    } else {
        ("hipMalloc", "hipHostMalloc memory: use hipHostFree")
    };
    {
        let t = table(rt);
        match t.get(addr) {
            None => return Err(unknown_pointer(&t, p, wanted)),
            Some((_, AllocKind::Variable)) => {
                return Err(Failure::invalid_value(format!(
                    "{p:p} is a device variable (hipGetSymbolAddress), not an allocation"
                )));
            }
            Some((_, AllocKind::Heap)) => {
                return Err(Failure::invalid_value(format!(
                    "{p:p} is the device heap (memory from malloc in device code is freed by \
                     free in device code)"
                )));
            }
            Some((_, AllocKind::Registered)) => {
                return Err(Failure::invalid_value(format!(
                    "{p:p} is registered host memory: use hipHostUnregister"
                )));
            }
            Some((_, AllocKind::Virtual)) => {
                return Err(Failure::invalid_value(format!(
                    "{p:p} is virtual memory: use hipMemUnmap and hipMemRelease"
                )));
            }
            Some((_, kind)) if kind.is_device() == host => {
                return Err(Failure::invalid_value(format!("{p:p} is {other}")));
            }
            Some(_) => {}
        }
    }
    rt.finish()?;
    let Some((size, kind)) = table(rt).remove(addr) else {
        return Err(Failure::invalid_value(format!("{p:p} was already freed")));
    };
    crate::memcheck::freed(addr, size);
    release(rt, p, size, kind)
}

fn release(rt: &Runtime, p: *mut c_void, size: usize, kind: AllocKind) -> HipResult<()> {
    if kind == AllocKind::Managed {
        super::managed::forget(p as usize, size);
    }
    match kind {
        // The program owns registered memory; forgetting it is all there is to do.
        AllocKind::Registered => Ok(()),
        AllocKind::HostPlain => {
            // SAFETY: allocated by `host_malloc` with this layout (it was in the table).
            unsafe {
                std::alloc::dealloc(
                    p.cast(),
                    std::alloc::Layout::from_size_align_unchecked(size, PLAIN_HOST_ALIGN),
                )
            };
            Ok(())
        }
        // SAFETY: a live allocation of this context (it was in the table); the queues are idle.
        _ => unsafe { rt.memory.free(rt.context.get(), p) }
            .map_err(|e| Failure::new(HipError::Unknown, format!("freeing {p:p}: {e}"))),
    }
}

/// Frees device memory no queued work uses (a pool's block whose last use has completed),
/// without waiting for the device.
pub fn free_idle(rt: &Runtime, p: *mut c_void) -> HipResult<()> {
    let removed = {
        let mut t = table(rt);
        match t.get(p as usize) {
            Some((_, kind)) if kind.is_device_allocation() => t.remove(p as usize),
            _ => None,
        }
    };
    let (size, kind) = removed
        .ok_or_else(|| Failure::invalid_value(format!("{p:p} is not a live device allocation")))?;
    release(rt, p, size, kind)
}

/// Allocates `size` bytes of `kind`.
pub fn allocate(rt: &Runtime, kind: MemoryKind, size: usize) -> HipResult<*mut c_void> {
    match kind {
        MemoryKind::Device => malloc(rt, size),
        MemoryKind::Managed { .. } => malloc_managed(rt, size),
        // The flags (portable, mapped, write-combined, coherent) change nothing on OpenCL.
        MemoryKind::PinnedHost { flags } => host_malloc(rt, size, flags),
    }
}

/// `hipFree` / `hipHostFree`: null is a no-op; anything but a live allocation of the kind is
/// `hipErrorInvalidValue`. Waits for queued work first, as HIP's hipFree does.
pub fn free(rt: &Runtime, p: *mut c_void, kind: FreeKind) -> HipResult<()> {
    // Memory of another device is freed there, whichever device the caller's is (HIP's
    // unified addressing).
    let owner = match owner_of(p as usize) {
        Some((device, ..)) if device != rt.id => super::device::runtime_of(device)?,
        _ => rt,
    };
    free_kind(owner, p, kind == FreeKind::Host)
}

/// Frees everything (`hipDeviceReset`); the caller has synchronized.
pub fn free_all(rt: &Runtime) {
    let all = table(rt).drain();
    for (base, size, kind) in all {
        let _ = release(rt, base as *mut c_void, size, kind);
    }
}

/// Decides whether `[p, p+len)` is device memory. A range that starts in an allocation must fit in
/// it; a range declared device must start in a device-side or pinned allocation (both are device
/// accessible). Other host ranges are the caller's responsibility.
fn classify(
    t: &AllocationTable,
    p: usize,
    len: usize,
    must_be_device: bool,
    role: &str,
) -> HipResult<bool> {
    match t.check(p, len) {
        RangeCheck::Inside { kind, .. } => Ok(kind.is_device()),
        RangeCheck::Overruns { base, size } => Err(Failure::invalid_value(format!(
            "{role} range {p:#x}+{len} runs past the end of the {size}-byte {} at {base:#x} (offset {})",
            match t.get(base) {
                Some((_, AllocKind::Variable)) => "device variable",
                _ => "allocation",
            },
            p - base
        ))),
        RangeCheck::Outside if crate::vmm::overlaps_reservation(p, len.max(1)) => {
            Err(Failure::invalid_value(format!(
                "{role} {p:#x}+{len} is reserved virtual memory this device has no access to \
                 (hipMemMap, then hipMemSetAccess)"
            )))
        }
        RangeCheck::Outside if must_be_device => Err(Failure::invalid_value(format!(
            "{role} {p:#x} is not inside any hipMalloc allocation"
        ))),
        RangeCheck::Outside => Ok(false),
    }
}

/// Refuses a destination the device may only read (virtual memory with read access).
fn check_writable(t: &AllocationTable, p: usize) -> HipResult<()> {
    match t.entry(p) {
        Some((base, e)) if e.kind == AllocKind::Virtual && e.flags & 2 == 0 => {
            Err(Failure::invalid_value(format!(
                "destination {p:#x} is virtual memory at {base:#x} this device may only read \
                 (hipMemAccessFlagsProtRead)"
            )))
        }
        _ => Ok(()),
    }
}

/// Checks both ranges of a copy; returns whether each side is device memory.
fn check_copy(
    rt: &Runtime,
    dst: usize,
    dst_len: usize,
    src: usize,
    src_len: usize,
    kind: MemcpyKind,
) -> HipResult<(bool, bool)> {
    let (dst_declared, src_declared) = kind.declared();
    let t = table(rt);
    check_writable(&t, dst)?;
    Ok((
        classify(&t, dst, dst_len, dst_declared == Some(true), "destination")?,
        classify(&t, src, src_len, src_declared == Some(true), "source")?,
    ))
}

/// Waits for a synchronous operation's command.
fn wait(event: OwnedEvent, what: &str) -> HipResult<()> {
    event.wait().map_err(|e| cl_failure(what, e))
}

fn pitched_span(pitch: usize, width: usize, height: usize) -> HipResult<usize> {
    pitch
        .checked_mul(height - 1)
        .and_then(|v| v.checked_add(width))
        .ok_or_else(|| Failure::invalid_value("the 2-D copy's extent overflows"))
}

/// Enqueues one 2-D copy (`height` rows of `width` bytes; one command when both sides are
/// contiguous, else one per row) on `target` after checking its device ranges; returns the last
/// command's event. Rectangles the device reaches on both sides go to `rect` instead.
fn copy_plane(
    rt: &Runtime,
    target: &ClQueue,
    c: Copy2d,
    kind: MemcpyKind,
) -> HipResult<OwnedEvent> {
    let dst_span = pitched_span(c.dpitch, c.width, c.height)?;
    let src_span = pitched_span(c.spitch, c.width, c.height)?;
    check_copy(rt, c.dst as usize, dst_span, c.src as usize, src_span, kind)?;
    let contiguous = c.dpitch == c.width && c.spitch == c.width;
    target.enqueue(rt, &[], |queue, deps| {
        let rows = if contiguous { 1 } else { c.height };
        let row_len = if contiguous {
            c.width * c.height
        } else {
            c.width
        };
        let mut last: Option<OwnedEvent> = None;
        for r in 0..rows {
            let wait_on: &[cl3::types::cl_event] = if r == 0 { deps } else { &[] };
            // SAFETY: device sides were checked against the table; host sides are the caller's
            // (and must outlive the copy, per HIP's rules for asynchronous copies).
            let event = unsafe {
                rt.memory.copy(
                    queue,
                    c.dst.cast::<u8>().add(r * c.dpitch).cast(),
                    c.src.cast::<u8>().add(r * c.spitch).cast(),
                    row_len,
                    wait_on,
                )
            }
            .map_err(|e| cl_failure(&format!("copying {row_len} bytes"), e))?;
            last = OwnedEvent::from_raw(event);
        }
        last.ok_or_else(|| Failure::new(HipError::Unknown, "the copy returned no event"))
    })
}

/// Whether a kernel of this device reaches an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    Yes,
    /// Pageable host memory the device does not reach: a copy stages it (`staged_copy`).
    Pageable,
    /// Another device's memory (another context), or plain host memory out of reach.
    No,
}

/// Whether a kernel of this device reaches `p` at its address: this device's memory, and host
/// memory (pageable, plain or registered on any device) where the device reaches the host's
/// own memory.
fn reach(rt: &Runtime, p: usize) -> Reach {
    let host = |pageable| match (rt.system_memory, pageable) {
        (true, _) => Reach::Yes,
        (false, true) => Reach::Pageable,
        (false, false) => Reach::No,
    };
    match owner_of(p) {
        None => host(true),
        Some((_, _, _, AllocKind::HostPlain | AllocKind::Registered)) => host(false),
        Some((device, ..)) if device == rt.id => Reach::Yes,
        Some(_) => Reach::No,
    }
}

/// How a copy runs.
enum Route<'r> {
    /// One rectangle kernel: the device reaches both sides.
    Kernel(&'r rect::RectKernels),
    /// A rectangle kernel through a staging buffer for the pageable side.
    Staged(&'r rect::RectKernels, PageableSide),
    /// Commands: one per plane where it is linear, else one per row.
    Commands,
}

/// A copy that is no single linear command (more than one row or plane) goes to the rectangle
/// kernel where the device reaches both sides, or one side and the other is pageable.
fn route<'r>(rt: &'r Runtime, c: &Copy3d) -> Route<'r> {
    let mut planes = c.planes();
    let linear = match (planes.next(), planes.next()) {
        (Some(p), None) => p.height == 1 || (p.dpitch == p.width && p.spitch == p.width),
        _ => false,
    };
    if linear || c.is_empty() {
        return Route::Commands;
    }
    let side = match (reach(rt, c.dst as usize), reach(rt, c.src as usize)) {
        (Reach::Yes, Reach::Yes) => None,
        (Reach::Pageable, Reach::Yes) => Some(PageableSide::Destination),
        (Reach::Yes, Reach::Pageable) => Some(PageableSide::Source),
        _ => return Route::Commands,
    };
    match (rect::kernels(rt), side) {
        (None, _) => Route::Commands,
        (Some(k), None) => Route::Kernel(k),
        (Some(k), Some(side)) => Route::Staged(k, side),
    }
}

/// Each plane checked and enqueued as commands; the last one's event.
fn copy_planes(
    rt: &Runtime,
    target: &ClQueue,
    c: &Copy3d,
    kind: MemcpyKind,
) -> HipResult<Option<OwnedEvent>> {
    let mut last = None;
    for plane in c.planes() {
        last = Some(copy_plane(rt, target, plane, kind)?);
    }
    Ok(last)
}

/// A copy on `target` (checked for nulls and pitches by the caller), as `route` decides; with
/// `wait_done`, returns once it is done (the queue is in order; a staged copy always waits).
pub fn copy(
    rt: &Runtime,
    target: &ClQueue,
    c: &Copy3d,
    kind: MemcpyKind,
    wait_done: bool,
) -> HipResult<()> {
    if c.is_onto_itself() {
        // Nothing moves (the driver would refuse the overlap), but the stream's order and the
        // call's wait are kept.
        let overflow = || Failure::invalid_value("the copy's extent overflows");
        let span = c.dst_span().ok_or_else(overflow)?;
        check_copy(rt, c.dst as usize, span, c.src as usize, span, kind)?;
        let done = target.enqueue(rt, &[], super::stream::marker)?;
        return if wait_done {
            wait(done, "copying onto itself")
        } else {
            Ok(())
        };
    }
    let route = route(rt, c);
    if wait_done || matches!(route, Route::Staged(..)) {
        let waited = super::host_function::Waited::Stream(target);
        super::host_function::check_wait(rt, waited, "a synchronous copy")?;
    }
    if !matches!(route, Route::Commands) {
        let overflow = || Failure::invalid_value("the copy's extent overflows");
        let dst_span = c.dst_span().ok_or_else(overflow)?;
        let src_span = c.src_span().ok_or_else(overflow)?;
        check_copy(rt, c.dst as usize, dst_span, c.src as usize, src_span, kind)?;
    }
    let last = match route {
        Route::Kernel(kernels) => Some(target.enqueue(rt, &[], |queue, deps| {
            rect::copy(rt, kernels, queue, c, deps)
        })?),
        Route::Staged(kernels, side) => match staged_copy::copy(rt, target, kernels, c, side) {
            Some(done) => return done,
            None => copy_planes(rt, target, c, kind)?,
        },
        Route::Commands => copy_planes(rt, target, c, kind)?,
    };
    match last {
        Some(event) if wait_done => wait(event, &format!("copying {} bytes", c.width)),
        _ => {
            let _ = target.queue.flush();
            Ok(())
        }
    }
}

/// An asynchronous copy whose source alone is pageable host memory, on a device that reaches
/// host memory: the source's bytes are copied into a snapshot now, as HIP and CUDA stage such a
/// source at the call (the program may reuse it at once), and the device copies from the snapshot
/// in stream order while the call returns. The snapshot is kept until the copy is done.
pub fn copy_from_snapshot(
    rt: &Runtime,
    target: &ClQueue,
    c: &Copy3d,
    kind: MemcpyKind,
) -> HipResult<()> {
    let overflow = || Failure::invalid_value("the copy's extent overflows");
    let span = c.src_span().ok_or_else(overflow)?;
    let dst_span = c.dst_span().ok_or_else(overflow)?;
    check_copy(rt, c.dst as usize, dst_span, c.src as usize, span, kind)?;
    // SAFETY: the program vouches for its source region, whose span this is.
    let snapshot: Box<[u8]> =
        unsafe { std::slice::from_raw_parts(c.src.cast::<u8>(), span) }.into();
    let from_snapshot = Copy3d {
        src: snapshot.as_ptr().cast(),
        ..*c
    };
    super::held::release_finished(rt, false);
    let last = match route(rt, &from_snapshot) {
        Route::Kernel(kernels) => Some(target.enqueue(rt, &[], |queue, deps| {
            rect::copy(rt, kernels, queue, &from_snapshot, deps)
        })?),
        // Not a device that reads host memory: the caller waits instead.
        Route::Staged(..) => {
            return Err(Failure::new(
                HipError::Unknown,
                "a snapshot copy on a device without host memory access",
            ))
        }
        Route::Commands => copy_planes(rt, target, &from_snapshot, kind)?,
    };
    let _ = target.queue.flush();
    if let Some(event) = last {
        super::held::hold(rt, event, vec![super::held::Held::Host(snapshot)]);
    }
    Ok(())
}

/// Whether `p` is pageable host memory: memory no table knows (not hipHostMalloc'd, registered,
/// device or managed memory).
pub fn is_pageable(p: *const c_void) -> bool {
    entry_of(p as usize).is_none()
}

/// Whether a program's copy must be done before its call returns: a side in pageable host
/// memory, as HIP and CUDA do, since the program may read the destination or reuse the source
/// at once (an asynchronous copy from a pageable source alone takes `copy_from_snapshot`).
pub fn touches_pageable_memory(c: &Copy3d) -> bool {
    is_pageable(c.src) || is_pageable(c.dst.cast_const())
}

/// A fill on `target` (checked by the caller): its whole span must lie in one device
/// allocation; one command when the rows are contiguous, else one kernel (`rect`), else (no
/// kernel, or pitches that are no whole patterns) one command per row.
pub fn fill(rt: &Runtime, target: &ClQueue, f: &Fill, wait_done: bool) -> HipResult<()> {
    if wait_done {
        let waited = super::host_function::Waited::Stream(target);
        super::host_function::check_wait(rt, waited, "a synchronous fill")?;
    }
    let pattern = f.pattern.as_bytes();
    let row = f.count * pattern.len();
    let span = f
        .slice
        .checked_mul(f.depth - 1)
        .and_then(|v| v.checked_add(f.pitch.checked_mul(f.height - 1)?))
        .and_then(|v| v.checked_add(row))
        .ok_or_else(|| Failure::invalid_value("the fill's extent overflows"))?;
    {
        let t = table(rt);
        classify(&t, f.dst as usize, span, true, "destination")?;
        check_writable(&t, f.dst as usize)?;
    }
    if let Some((_, _, AllocKind::HostPlain)) = find_allocation(f.dst as usize) {
        return Err(Failure::invalid_value(format!(
            "{:p} is host memory the device cannot reach ({}): fill it on the host",
            f.dst,
            rt.memory.name()
        )));
    }
    let kernels = f.rows().nth(1).and_then(|_| rect::kernels(rt));
    let event = target.enqueue(rt, &[], |queue, deps| {
        if let Some(kernels) = kernels {
            if let Some(event) = rect::fill(rt, kernels, queue, f, deps)? {
                return Ok(event);
            }
        }
        let mut last: Option<OwnedEvent> = None;
        for (i, (dst, len)) in f.rows().enumerate() {
            let wait_on: &[cl3::types::cl_event] = if i == 0 { deps } else { &[] };
            // SAFETY: the range lies inside a live allocation.
            let event = unsafe { rt.memory.fill(queue, dst, pattern, len, wait_on) }
                .map_err(|e| cl_failure(&format!("filling {len} bytes"), e))?;
            last = OwnedEvent::from_raw(event);
        }
        last.ok_or_else(|| Failure::new(HipError::Unknown, "the fill returned no event"))
    })?;
    if wait_done {
        wait(event, &format!("filling {span} bytes"))
    } else {
        let _ = target.queue.flush();
        Ok(())
    }
}

/// The entry holding `addr` in whichever device's table has it, with that device.
fn entry_of(addr: usize) -> Option<(DeviceId, usize, Entry)> {
    super::device::all()
        .iter()
        .find_map(|rt| table(rt).entry(addr).map(|(base, e)| (rt.id, base, e)))
}

/// The allocation holding `p`, as `Device::allocation` reports it, on whichever device holds it.
pub fn allocation(p: *const c_void) -> Option<Allocation> {
    let (device, base, e) = entry_of(p as usize)?;
    let (memory, device_base, host_base) = match e.kind {
        AllocKind::Device | AllocKind::Variable | AllocKind::Heap | AllocKind::Virtual => {
            (MemoryType::Device, Some(base), None)
        }
        AllocKind::Managed => (MemoryType::Managed, Some(base), Some(base)),
        AllocKind::HostUsm | AllocKind::Registered => (MemoryType::Host, Some(base), Some(base)),
        AllocKind::HostPlain => (MemoryType::Host, None, Some(base)),
    };
    Some(Allocation {
        base,
        size: e.size,
        memory,
        registered: e.kind == AllocKind::Registered,
        device,
        flags: if e.kind == AllocKind::Virtual {
            0
        } else {
            e.flags
        },
        buffer_id: e.id,
        device_base,
        host_base,
        sync_memops: e.sync_memops,
    })
}

/// `hipPointerSetAttribute(HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS)`.
pub fn set_sync_memops(p: *const c_void, on: bool) -> HipResult<()> {
    for rt in super::device::all() {
        if let Some(entry) = table(rt).entry_mut(p as usize) {
            entry.sync_memops = on;
            return Ok(());
        }
    }
    Err(Failure::new(
        HipError::InvalidDevicePointer,
        format!("{p:p} is not memory the runtime allocated or registered"),
    ))
}

/// `hipHostRegister` on a device that reaches the host's own memory (`Runtime::system_memory`):
/// the range is entered as registered host memory, usable by copies, fills and kernels at its
/// own address. A range that is not wholly mapped is `hipErrorInvalidValue`; one overlapping
/// memory already known `hipErrorHostMemoryAlreadyRegistered`.
pub fn host_register(rt: &Runtime, p: *mut c_void, bytes: usize, flags: u32) -> HipResult<()> {
    if !rt.system_memory {
        return Err(crate::backend::not_supported(&format!(
            "registering host memory: the OpenCL device '{}' cannot reach the host's own memory \
             (no shared system memory access in {})",
            rt.info.name.trim(),
            rt.memory.name()
        )));
    }
    if !crate::probe::is_mapped(p as usize, bytes) {
        return Err(Failure::invalid_value(format!(
            "{p:p}+{bytes} is not mapped host memory of this process"
        )));
    }
    // Memory is one address space across the devices: no device's table may hold the range,
    // and no reservation of virtual memory.
    let known = crate::vmm::overlaps_reservation(p as usize, bytes)
        || super::device::all()
            .iter()
            .any(|other| table(other).overlaps(p as usize, bytes));
    let mut t = table(rt);
    if known || t.overlaps(p as usize, bytes) {
        return Err(Failure::new(
            HipError::HostMemoryAlreadyRegistered,
            format!("{p:p}+{bytes} overlaps memory already allocated or registered"),
        ));
    }
    t.insert_with_flags(p as usize, bytes, AllocKind::Registered, flags);
    Ok(())
}

/// `hipHostUnregister`: `p` must be the start of a registered range. Waits for queued work,
/// which may still read or write it.
pub fn host_unregister(p: *mut c_void) -> HipResult<()> {
    let owner = super::device::all()
        .iter()
        .find(|rt| matches!(table(rt).get(p as usize), Some((_, AllocKind::Registered))));
    let Some(rt) = owner else {
        return Err(Failure::new(
            HipError::HostMemoryNotRegistered,
            format!("{p:p} is not the start of a range registered with hipHostRegister"),
        ));
    };
    rt.finish()?;
    table(rt).remove(p as usize);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> AllocationTable {
        let mut t = AllocationTable::new();
        assert!(t.insert(0x1000, 0x100, AllocKind::Device));
        assert!(t.insert(0x2000, 0x10, AllocKind::Device));
        assert!(t.insert(0x3000, 0x20, AllocKind::HostUsm));
        t
    }

    #[test]
    fn insert_twice_is_refused() {
        let mut t = sample();
        assert!(!t.insert(0x1000, 8, AllocKind::Managed));
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn containing_finds_interior_pointers() {
        let t = sample();
        assert_eq!(
            t.containing(0x1000),
            Some((0x1000, 0x100, AllocKind::Device))
        );
        assert_eq!(
            t.containing(0x10ff),
            Some((0x1000, 0x100, AllocKind::Device))
        );
        assert_eq!(t.containing(0x1100), None);
        assert_eq!(t.containing(0xfff), None);
        assert_eq!(
            t.containing(0x200f),
            Some((0x2000, 0x10, AllocKind::Device))
        );
        assert_eq!(t.containing(0), None);
        assert_eq!(t.containing(usize::MAX), None);
    }

    #[test]
    fn ranges_are_checked() {
        let t = sample();
        let inside = RangeCheck::Inside {
            base: 0x1000,
            size: 0x100,
            kind: AllocKind::Device,
        };
        let overruns = RangeCheck::Overruns {
            base: 0x1000,
            size: 0x100,
        };
        assert_eq!(t.check(0x1000, 0x100), inside);
        assert_eq!(t.check(0x1080, 0x80), inside);
        assert_eq!(t.check(0x1080, 0x81), overruns);
        assert_eq!(t.check(0x1000, usize::MAX), overruns);
        assert_eq!(t.check(0x10ff, usize::MAX), overruns);
        assert_eq!(t.check(0x1100, 0), inside); // empty range at the end
        assert_eq!(t.check(0x1100, 1), RangeCheck::Outside);
        assert_eq!(t.check(0x1800, 4), RangeCheck::Outside);
        assert_eq!(t.check(0x10, 4), RangeCheck::Outside);
    }

    #[test]
    fn remove_only_exact_bases() {
        let mut t = sample();
        assert_eq!(t.remove(0x1008), None);
        assert_eq!(t.remove(0x1000), Some((0x100, AllocKind::Device)));
        assert_eq!(t.remove(0x1000), None);
        assert_eq!(t.check(0x1000, 1), RangeCheck::Outside);
        assert_eq!(t.bases(), vec![0x2000 as *mut c_void]);
        assert_eq!(t.device_bytes(), 0x10);
    }

    #[test]
    fn variables_are_device_memory_but_not_allocations() {
        let mut t = sample();
        assert!(t.insert(0x5000, 0x40, AllocKind::Variable));
        assert_eq!(classify(&t, 0x5010, 0x30, true, "d"), Ok(true));
        assert!(classify(&t, 0x5010, 0x31, true, "d").is_err());
        // Not listed for SVM launches, not counted as allocated, kept by a reset.
        assert!(!t.bases().contains(&(0x5000 as *mut c_void)));
        assert_eq!(t.device_bytes(), 0x110);
        let freed: Vec<usize> = t.drain().into_iter().map(|(b, _, _)| b).collect();
        assert_eq!(freed, vec![0x1000, 0x2000, 0x3000]);
        assert_eq!(t.get(0x5000), Some((0x40, AllocKind::Variable)));
    }

    #[test]
    fn virtual_ranges_join_split_and_go() {
        let mut t = AllocationTable::new();
        let rw = Some(3);
        // Three adjacent mappings given access one by one are one range.
        for at in [0x10000, 0x11000, 0x12000] {
            t.set_virtual(at, 0x1000, rw);
        }
        let whole = RangeCheck::Inside {
            base: 0x10000,
            size: 0x3000,
            kind: AllocKind::Virtual,
        };
        assert_eq!(t.check(0x10800, 0x2000), whole);
        assert_eq!(t.len(), 1);
        // The middle one read-only: three entries, the neighbours' parts kept.
        t.set_virtual(0x11000, 0x1000, Some(1));
        assert_eq!(t.len(), 3);
        assert_eq!(
            t.entry(0x11800).map(|(b, e)| (b, e.flags)),
            Some((0x11000, 1))
        );
        assert_eq!(t.get(0x12000), Some((0x1000, AllocKind::Virtual)));
        assert!(matches!(
            t.check(0x10800, 0x1000),
            RangeCheck::Overruns { .. }
        ));
        assert!(check_writable(&t, 0x11000).is_err() && check_writable(&t, 0x12000).is_ok());
        // Read-write again joins all three; forgetting the middle splits them.
        t.set_virtual(0x11000, 0x1000, rw);
        assert_eq!(t.len(), 1);
        t.set_virtual(0x11000, 0x1000, None);
        assert_eq!(t.get(0x10000), Some((0x1000, AllocKind::Virtual)));
        assert_eq!(t.get(0x12000), Some((0x1000, AllocKind::Virtual)));
        assert_eq!(t.check(0x11000, 1), RangeCheck::Outside);
        // Virtual memory is device memory, never listed, counted or drained.
        assert!(t.bases().is_empty() && t.device_bytes() == 0);
        assert!(t.drain().is_empty() && t.len() == 2);
    }

    #[test]
    fn classify_follows_declared_kinds() {
        let t = sample();
        assert_eq!(classify(&t, 0x1000, 8, true, "d"), Ok(true));
        assert_eq!(classify(&t, 0x1000, 8, false, "d"), Ok(true));
        assert_eq!(classify(&t, 0x9000, 8, false, "d"), Ok(false));
        let e = classify(&t, 0x9000, 8, true, "destination").unwrap_err();
        assert_eq!(e.code, HipError::InvalidValue);
        assert!(e.message.contains("destination 0x9000"), "{}", e.message);
        // Pinned host memory is host memory, and its bounds are checked too.
        assert_eq!(classify(&t, 0x3000, 8, true, "d"), Ok(false));
        assert!(classify(&t, 0x3010, 0x11, false, "d").is_err());
        let e = classify(&t, 0x2008, 9, false, "source").unwrap_err();
        assert_eq!(e.code, HipError::InvalidValue);
        assert!(e.message.contains("16-byte allocation"), "{}", e.message);
    }
}
