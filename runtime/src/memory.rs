//! Device allocations: `hipMalloc`, `hipFree`, `hipMemcpy`, `hipMemset`.
//!
//! Every live allocation is in a table (base → size), so a pointer the program hands back can be
//! checked before OpenCL sees it: freeing something hipMalloc did not return, or copying past the
//! end of an allocation, is `hipErrorInvalidValue` with a message, not a crash in the driver.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard};

use crate::device::runtime;
use crate::error::{Failure, HipError, HipResult};

/// Live allocations, keyed by base address.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct AllocationTable {
    allocations: BTreeMap<usize, usize>,
}

/// Where an address range falls relative to the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeCheck {
    /// Entirely inside the allocation at `base`.
    Inside { base: usize, size: usize },
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
    pub fn insert(&mut self, base: usize, size: usize) -> bool {
        if self.allocations.contains_key(&base) {
            return false;
        }
        self.allocations.insert(base, size);
        true
    }

    /// Forgets the allocation starting exactly at `base`, returning its size.
    pub fn remove(&mut self, base: usize) -> Option<usize> {
        self.allocations.remove(&base)
    }

    /// The allocation containing `addr`, as `(base, size)`.
    pub fn containing(&self, addr: usize) -> Option<(usize, usize)> {
        let (&base, &size) = self.allocations.range(..=addr).next_back()?;
        (addr - base < size).then_some((base, size))
    }

    /// Classifies `[addr, addr + len)`. A zero-length range at an allocation's end counts as inside.
    pub fn check(&self, addr: usize, len: usize) -> RangeCheck {
        let found = self.allocations.range(..=addr).next_back();
        let Some((&base, &size)) = found else {
            return RangeCheck::Outside;
        };
        let offset = addr - base;
        if offset > size || (offset == size && len > 0) {
            return RangeCheck::Outside;
        }
        match offset.checked_add(len) {
            Some(end) if end <= size => RangeCheck::Inside { base, size },
            _ => RangeCheck::Overruns { base, size },
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.allocations.len()
    }

    /// Base addresses of all live allocations.
    pub fn bases(&self) -> Vec<*mut c_void> {
        self.allocations.keys().map(|&b| b as *mut c_void).collect()
    }
}

static TABLE: Mutex<AllocationTable> = Mutex::new(AllocationTable::new());

fn table() -> MutexGuard<'static, AllocationTable> {
    // A panic while holding the lock cannot leave the map half-updated (BTreeMap operations are
    // the only writes), so a poisoned lock is still consistent.
    TABLE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Base addresses of all live allocations (for backends that must list them at launch).
pub fn live_allocations() -> Vec<*mut c_void> {
    table().bases()
}

/// `hipMalloc`: `size` bytes of device memory, 256-byte aligned. Zero bytes gives null, as in HIP.
pub fn malloc(size: usize) -> HipResult<*mut c_void> {
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    let rt = runtime()?;
    let p = rt
        .memory
        .alloc(rt.context.get(), rt.device_id(), size)
        .map_err(|e| {
            Failure::new(
                HipError::OutOfMemory,
                format!("cannot allocate {size} bytes: {e}"),
            )
        })?;
    if !table().insert(p as usize, size) {
        return Err(Failure::new(
            HipError::Unknown,
            format!("the driver returned {p:p} twice"),
        ));
    }
    Ok(p)
}

/// `hipFree`: null is a no-op; anything but a live hipMalloc base is `hipErrorInvalidValue`.
/// Waits for queued work first (a kernel may still use the memory), as HIP's hipFree does.
pub fn free(p: *mut c_void) -> HipResult<()> {
    if p.is_null() {
        return Ok(());
    }
    let addr = p as usize;
    {
        let t = table();
        if !t.allocations.contains_key(&addr) {
            let why = match t.containing(addr) {
                Some((base, size)) => format!(
                    "{p:p} points {} bytes into the {size}-byte allocation at {base:#x}, not at its start",
                    addr - base
                ),
                None => format!("{p:p} was not returned by hipMalloc (or was already freed)"),
            };
            return Err(Failure::invalid_value(why));
        }
    }
    let rt = runtime()?;
    rt.finish()?;
    if table().remove(addr).is_none() {
        // Another thread freed it meanwhile.
        return Err(Failure::invalid_value(format!("{p:p} was already freed")));
    }
    // SAFETY: `p` was a live allocation of this context (it was in the table) and the queue is idle.
    unsafe { rt.memory.free(rt.context.get(), p) }
        .map_err(|e| Failure::new(HipError::Unknown, format!("freeing {p:p}: {e}")))
}

/// `hipMemcpyKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemcpyKind {
    HostToHost = 0,
    HostToDevice = 1,
    DeviceToHost = 2,
    DeviceToDevice = 3,
    Default = 4,
}

impl MemcpyKind {
    pub fn from_raw(kind: i32) -> Option<Self> {
        Some(match kind {
            0 => MemcpyKind::HostToHost,
            1 => MemcpyKind::HostToDevice,
            2 => MemcpyKind::DeviceToHost,
            3 => MemcpyKind::DeviceToDevice,
            4 => MemcpyKind::Default,
            _ => return None,
        })
    }

    /// Whether `(dst, src)` must be device memory per the declared kind (`None`: infer).
    fn declared(self) -> (Option<bool>, Option<bool>) {
        match self {
            MemcpyKind::HostToHost => (Some(false), Some(false)),
            MemcpyKind::HostToDevice => (Some(true), Some(false)),
            MemcpyKind::DeviceToHost => (Some(false), Some(true)),
            MemcpyKind::DeviceToDevice => (Some(true), Some(true)),
            MemcpyKind::Default => (None, None),
        }
    }
}

/// Decides whether `[p, p+len)` is device memory. A range that starts in an allocation must fit in
/// it; a range declared device must start in one. Host ranges are the caller's responsibility.
fn classify(
    t: &AllocationTable,
    p: usize,
    len: usize,
    must_be_device: bool,
    role: &str,
) -> HipResult<bool> {
    match t.check(p, len) {
        RangeCheck::Inside { .. } => Ok(true),
        RangeCheck::Overruns { base, size } => Err(Failure::invalid_value(format!(
            "{role} range {p:#x}+{len} runs past the end of the {size}-byte allocation at {base:#x} (offset {})",
            p - base
        ))),
        RangeCheck::Outside if must_be_device => Err(Failure::invalid_value(format!(
            "{role} {p:#x} is not inside any hipMalloc allocation"
        ))),
        RangeCheck::Outside => Ok(false),
    }
}

/// `hipMemcpy`: synchronous; waits for earlier work on the (in-order) queue.
pub fn memcpy(dst: *mut c_void, src: *const c_void, len: usize, kind: i32) -> HipResult<()> {
    let kind = MemcpyKind::from_raw(kind).ok_or_else(|| {
        Failure::new(
            HipError::InvalidMemcpyDirection,
            format!("{kind} is not a hipMemcpyKind (0..=4)"),
        )
    })?;
    if len == 0 {
        return Ok(());
    }
    if dst.is_null() || src.is_null() {
        return Err(Failure::invalid_value(format!(
            "null {} pointer for a {len}-byte copy",
            if dst.is_null() {
                "destination"
            } else {
                "source"
            }
        )));
    }
    let (dst_declared, src_declared) = kind.declared();
    let (dst_is_device, src_is_device) = {
        let t = table();
        (
            classify(
                &t,
                dst as usize,
                len,
                dst_declared == Some(true),
                "destination",
            )?,
            classify(&t, src as usize, len, src_declared == Some(true), "source")?,
        )
    };
    if !dst_is_device && !src_is_device {
        // SAFETY: both are host ranges the caller vouches for; `copy` allows overlap.
        unsafe { std::ptr::copy(src.cast::<u8>(), dst.cast::<u8>(), len) };
        return Ok(());
    }
    let rt = runtime()?;
    // SAFETY: device sides were checked against the table; host sides are the caller's.
    unsafe { rt.memory.copy(rt.queue.get(), dst, src, len) }
        .map_err(|e| Failure::new(HipError::LaunchFailure, format!("copying {len} bytes: {e}")))
}

/// `hipMemset`: fills `len` bytes of device memory with the low byte of `value`; synchronous.
pub fn memset(dst: *mut c_void, value: i32, len: usize) -> HipResult<()> {
    if len == 0 {
        return Ok(());
    }
    if dst.is_null() {
        return Err(Failure::invalid_value(format!(
            "null destination for a {len}-byte memset"
        )));
    }
    classify(&table(), dst as usize, len, true, "destination")?;
    let rt = runtime()?;
    // SAFETY: the range lies inside a live allocation.
    unsafe { rt.memory.fill(rt.queue.get(), dst, value as u8, len) }
        .map_err(|e| Failure::new(HipError::LaunchFailure, format!("filling {len} bytes: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> AllocationTable {
        let mut t = AllocationTable::new();
        assert!(t.insert(0x1000, 0x100));
        assert!(t.insert(0x2000, 0x10));
        t
    }

    #[test]
    fn insert_twice_is_refused() {
        let mut t = sample();
        assert!(!t.insert(0x1000, 8));
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn containing_finds_interior_pointers() {
        let t = sample();
        assert_eq!(t.containing(0x1000), Some((0x1000, 0x100)));
        assert_eq!(t.containing(0x10ff), Some((0x1000, 0x100)));
        assert_eq!(t.containing(0x1100), None);
        assert_eq!(t.containing(0xfff), None);
        assert_eq!(t.containing(0x200f), Some((0x2000, 0x10)));
        assert_eq!(t.containing(0), None);
        assert_eq!(t.containing(usize::MAX), None);
    }

    #[test]
    fn ranges_are_checked() {
        let t = sample();
        let inside = RangeCheck::Inside {
            base: 0x1000,
            size: 0x100,
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
        assert_eq!(t.remove(0x1000), Some(0x100));
        assert_eq!(t.remove(0x1000), None);
        assert_eq!(t.check(0x1000, 1), RangeCheck::Outside);
        assert_eq!(t.bases(), vec![0x2000 as *mut c_void]);
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
        let e = classify(&t, 0x2008, 9, false, "source").unwrap_err();
        assert_eq!(e.code, HipError::InvalidValue);
        assert!(e.message.contains("16-byte allocation"), "{}", e.message);
    }

    #[test]
    fn memcpy_kind_is_validated_before_anything_else() {
        let e = memcpy(std::ptr::null_mut(), std::ptr::null(), 4, 9).unwrap_err();
        assert_eq!(e.code, HipError::InvalidMemcpyDirection);
        assert_eq!(memcpy(std::ptr::null_mut(), std::ptr::null(), 0, 1), Ok(()));
        let e = memcpy(std::ptr::null_mut(), std::ptr::null(), 4, 1).unwrap_err();
        assert_eq!(e.code, HipError::InvalidValue);
    }

    #[test]
    fn host_to_host_needs_no_device() {
        let src = [1u8, 2, 3, 4];
        let mut dst = [0u8; 4];
        memcpy(
            dst.as_mut_ptr().cast(),
            src.as_ptr().cast(),
            4,
            MemcpyKind::HostToHost as i32,
        )
        .unwrap();
        assert_eq!(dst, src);
    }
}
