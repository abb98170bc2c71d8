//! The memory checker's runtime side (`-fsanitize=address`; the compiler's side is
//! dialect-passes' `memcheck`, the words both read are `hipmlir_device_image::memcheck`'s),
//! shared by both backends.
//!
//! A checked module gets, on each device, a state before its first launch (`bind`): memory the
//! device reads (the table's address, the error word, the report's address, scratch words) and
//! a report the host reads even after the kernel trapped. Each backend provides that memory
//! ([`CheckerMemory`]): host memory the device reaches at its own address on OpenCL
//! ([`HostMemory`]), device memory with a pinned report on CUDA. Before each launch of a
//! checked kernel the device's table is brought up to date with the runtime's live allocations
//! (`before_launch`); a table that changed is written anew, the one it replaces kept readable
//! until the device is idle (`idle`: kernels still running may read it).
//!
//! A raised report is seen by the first HIP call made after the kernel wrote it (`after_call`,
//! from the API's `guard`, whatever the call's own result: on CUDA the kernel's trap also
//! fails it): that call fails with `hipErrorIllegalAddress` and the report; every call after it
//! fails so too (the error is sticky, as a GPU's) until `hipDeviceReset`, and a program that
//! exits without resetting exits with status 1.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use hipmlir_device_image::memcheck::{
    table_words, ObjectKind, Site, REPORT_ADDRESS, REPORT_BASE, REPORT_BLOCK, REPORT_RAISED,
    REPORT_SIZE, REPORT_THREAD, REPORT_WORDS, STATE_DYNAMIC_SHARED, STATE_REPORT, STATE_TABLE,
    STATE_WORDS,
};

use hipmlir_device_image::KernelInfo;

use crate::backend::DeviceId;
use crate::error::{Failure, HipError, HipResult};

/// Whether any checked module was registered: without one, nothing here runs.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The memory of one checked module on one device, as its backend provides it.
pub trait CheckerMemory: Send {
    /// The state's address on the device (for the module's variable).
    fn state(&self) -> u64;
    /// Word `index` of the report, as the device left it.
    fn report(&self, index: u64) -> u64;
    /// Gives the device a table of `words` and points the state at it, ordered before the next
    /// launch on `queue` (the backend's queue handle). The table it replaces stays readable
    /// until `release_retired`.
    fn set_table(&mut self, words: &[u64], queue: usize) -> HipResult<()>;
    /// Sets word `index` of the state, ordered before the next launch on `queue`.
    fn set_word(&mut self, index: u64, value: u64, queue: usize) -> HipResult<()>;
    /// Every kernel of the device finished: the tables replaced before may go.
    fn release_retired(&mut self);
}

/// A checker's memory in host memory that the device reaches at its own address (OpenCL's
/// devices with system memory): the state and report in one block of words, the tables too.
pub struct HostMemory {
    words: Box<[AtomicU64]>,
    table: Option<Box<[AtomicU64]>>,
    retired: Vec<Box<[AtomicU64]>>,
}

impl HostMemory {
    pub fn new() -> HostMemory {
        let words = words(STATE_WORDS + REPORT_WORDS);
        let report = words.as_ptr() as u64 + STATE_WORDS * 8;
        words[STATE_REPORT as usize].store(report, Ordering::Release);
        HostMemory {
            words,
            table: None,
            retired: Vec::new(),
        }
    }
}

impl Default for HostMemory {
    fn default() -> Self {
        HostMemory::new()
    }
}

impl CheckerMemory for HostMemory {
    fn state(&self) -> u64 {
        self.words.as_ptr() as u64
    }

    fn report(&self, index: u64) -> u64 {
        self.words[(STATE_WORDS + index) as usize].load(Ordering::Acquire)
    }

    fn set_table(&mut self, table: &[u64], _queue: usize) -> HipResult<()> {
        let table: Box<[AtomicU64]> = table.iter().map(|&w| AtomicU64::new(w)).collect();
        self.words[STATE_TABLE as usize].store(table.as_ptr() as u64, Ordering::Release);
        if let Some(old) = self.table.replace(table) {
            self.retired.push(old);
        }
        Ok(())
    }

    fn set_word(&mut self, index: u64, value: u64, _queue: usize) -> HipResult<()> {
        self.words[index as usize].store(value, Ordering::Release);
        Ok(())
    }

    fn release_retired(&mut self) {
        self.retired.clear();
    }
}

/// A module's state on one device, with what its report is read against.
struct Binding {
    id: u64,
    device: DeviceId,
    memory: Box<dyn CheckerMemory>,
    sites: Arc<Vec<Site>>,
    /// The version of the ranges its table holds.
    version: u64,
    /// The dynamic shared memory the state gives (`STATE_DYNAMIC_SHARED`), and whether
    /// launches with it may still run (then a launch with less keeps the larger: a launch's
    /// accesses are never reported for lying beyond a smaller one's).
    dynamic_shared: u64,
    running: bool,
}

#[derive(Default)]
struct Checker {
    bindings: Vec<Binding>,
    next_id: u64,
    /// The live allocations the tables hold, and their version (bumped on each change).
    ranges: Vec<(u64, u64)>,
    version: u64,
    /// Recently freed allocations (base, size), newest last: what a report names.
    freed: VecDeque<(usize, usize)>,
    /// The report of the first bad access, until `hipDeviceReset`.
    sticky: Option<String>,
    exit_hook: bool,
}

/// Beyond this many bytes from every allocation, an address is reported as wild.
const FAR: u64 = 1 << 20;

/// Freed allocations remembered for reports.
const FREED_KEPT: usize = 4096;

static CHECKER: Mutex<Option<Checker>> = Mutex::new(None);

fn checker() -> MutexGuard<'static, Option<Checker>> {
    CHECKER.lock().unwrap_or_else(|p| p.into_inner())
}

fn words(n: u64) -> Box<[AtomicU64]> {
    (0..n).map(|_| AtomicU64::new(0)).collect()
}

/// Binds a checked module on `device` whose sites are `sites` to `memory` (whose state the
/// backend then puts in the module's variable): the binding's id, for `before_launch`.
pub fn bind(device: DeviceId, sites: Vec<Site>, memory: Box<dyn CheckerMemory>) -> u64 {
    let mut guard = checker();
    let c = guard.get_or_insert_with(Checker::default);
    c.next_id += 1;
    let id = c.next_id;
    c.bindings.push(Binding {
        id,
        device,
        memory,
        sites: Arc::new(sites),
        version: u64::MAX,
        dynamic_shared: 0,
        running: false,
    });
    ACTIVE.store(true, Ordering::Release);
    id
}

/// Brings binding `id`'s table up to date with `ranges` (the live allocations a kernel may
/// reach, as (start, end) sorted by start), and its dynamic shared memory with the launch's
/// `dynamic_shared` bytes, before a launch on `queue` of `kernel` with argument block `block`.
/// Returns the launch's extents (see [`extents`]). An id no longer bound (the device was reset
/// meanwhile) is an internal error the backend avoids by binding anew.
pub fn before_launch(
    id: u64,
    ranges: Vec<(u64, u64)>,
    dynamic_shared: u64,
    queue: usize,
    (kernel, block): (&KernelInfo, &[u8]),
) -> HipResult<Vec<u64>> {
    let extents = extents(kernel, block, &ranges);
    let mut guard = checker();
    let Some(c) = guard.as_mut() else {
        return Ok(extents);
    };
    if ranges != c.ranges || c.version == 0 {
        c.ranges = ranges;
        c.version += 1;
    }
    let version = c.version;
    let table = table_words(&c.ranges);
    let Some(b) = c.bindings.iter_mut().find(|b| b.id == id) else {
        return Err(Failure::new(
            HipError::Unknown,
            "memory checker: a module's state is gone (internal)",
        ));
    };
    if b.version != version {
        b.memory.set_table(&table, queue)?;
        b.version = version;
    }
    let shared = if b.running {
        b.dynamic_shared.max(dynamic_shared)
    } else {
        dynamic_shared
    };
    if shared != b.dynamic_shared {
        b.memory.set_word(STATE_DYNAMIC_SHARED, shared, queue)?;
        b.dynamic_shared = shared;
    }
    b.running = true;
    Ok(extents)
}

/// The hidden parameters a checked kernel takes after its arguments
/// (`KernelInfo::memcheck_extents`) for a launch with argument block `block`: for each
/// argument named there, the bytes from the pointer it holds to the end of the allocation of
/// `ranges` (start, end; sorted by start) that holds it, or 0 (in none, or no pointer).
pub fn extents(kernel: &KernelInfo, block: &[u8], ranges: &[(u64, u64)]) -> Vec<u64> {
    kernel
        .memcheck_extents
        .iter()
        .map(|&index| {
            let pointer = kernel
                .args
                .get(index as usize)
                .filter(|arg| arg.is_pointer && arg.size == 8)
                .and_then(|arg| {
                    let start = usize::try_from(arg.offset).ok()?;
                    block.get(start..start.checked_add(8)?)?.try_into().ok()
                })
                .map(u64::from_ne_bytes);
            pointer.map_or(0, |address| {
                let after = ranges.partition_point(|&(start, _)| start <= address);
                after
                    .checked_sub(1)
                    .map(|i| ranges[i].1)
                    .filter(|&end| address < end)
                    .map_or(0, |end| end - address)
            })
        })
        .collect()
}

/// Whether binding `id` is still bound (it goes with its device's reset).
pub fn is_bound(id: u64) -> bool {
    checker()
        .as_ref()
        .is_some_and(|c| c.bindings.iter().any(|b| b.id == id))
}

/// A module built with the checker was registered: from now on frees are remembered and HIP
/// calls look for reports.
pub fn enable() {
    ACTIVE.store(true, Ordering::Release);
}

/// Notes a freed allocation (for reports of accesses to it).
pub fn freed(base: usize, size: usize) {
    if !ACTIVE.load(Ordering::Acquire) {
        return;
    }
    let mut guard = checker();
    let c = guard.get_or_insert_with(Checker::default);
    if c.freed.len() == FREED_KEPT {
        c.freed.pop_front();
    }
    c.freed.push_back((base, size));
}

/// Every kernel of `device` finished (`hipDeviceSynchronize` succeeded): the tables replaced
/// meanwhile can go, so that a loop of allocations, launches and frees does not grow.
pub fn idle(device: DeviceId) {
    if !ACTIVE.load(Ordering::Acquire) {
        return;
    }
    if let Some(c) = checker().as_mut() {
        for b in c.bindings.iter_mut().filter(|b| b.device == device) {
            b.memory.release_retired();
            b.running = false;
        }
    }
}

/// Forgets `device`'s states (`hipDeviceReset`, after waiting for the device) and the sticky
/// error.
pub fn reset(device: DeviceId) {
    if !ACTIVE.load(Ordering::Acquire) {
        return;
    }
    if let Some(c) = checker().as_mut() {
        c.bindings.retain(|b| b.device != device);
        c.sticky = None;
    }
}
/// The calls that answer even after an illegal access: those that never touch a device, and
/// the reset that clears it.
fn answers_after_error(function: &str) -> bool {
    is_reset(function) || function.starts_with("__hipmlir")
}

/// The calls that clear the error.
fn is_reset(function: &str) -> bool {
    matches!(function, "hipDeviceReset" | "hipDevicePrimaryCtxReset")
}

/// The sticky error, for a HIP call about to run (None: the call runs).
pub fn before_call(function: &str) -> Option<Failure> {
    if !ACTIVE.load(Ordering::Acquire) || answers_after_error(function) {
        return None;
    }
    let guard = checker();
    guard.as_ref()?.sticky.as_ref()?;
    Some(Failure::new(
        HipError::IllegalAddress,
        "an earlier kernel made an illegal memory access (reported above); every call fails \
         until hipDeviceReset",
    ))
}

/// After a HIP call: a report a kernel raised meanwhile fails the call (once; later calls fail
/// in `before_call`).
pub fn after_call(function: &str) -> Option<Failure> {
    if !ACTIVE.load(Ordering::Acquire) || is_reset(function) {
        return None;
    }
    let mut guard = checker();
    let c = guard.as_mut()?;
    if c.sticky.is_some() {
        return None;
    }
    let raised = c
        .bindings
        .iter()
        .find(|b| b.memory.report(REPORT_RAISED) != 0)?;
    let message = describe(raised, &c.ranges, &c.freed);
    c.sticky = Some(message.clone());
    if !c.exit_hook {
        c.exit_hook = true;
        // SAFETY: registering a plain function with the C library.
        unsafe { libc::atexit(exit_if_unhandled) };
    }
    Some(Failure::new(HipError::IllegalAddress, message))
}

/// At exit: a program that never reset the device after an illegal access exits with status 1
/// (its output flushed), as one whose kernel faults on a GPU does not finish normally.
extern "C" fn exit_if_unhandled() {
    let unhandled = checker().as_ref().is_some_and(|c| c.sticky.is_some());
    if unhandled {
        // SAFETY: flushing C's streams, then ending the process.
        unsafe {
            libc::fflush(std::ptr::null_mut());
            libc::_exit(1);
        }
    }
}

/// The report's text.
fn describe(b: &Binding, live: &[(u64, u64)], freed: &VecDeque<(usize, usize)>) -> String {
    let report = |index| b.memory.report(index);
    let site_number = report(REPORT_RAISED).saturating_sub(1) as usize;
    let address = report(REPORT_ADDRESS);
    let base = report(REPORT_BASE);
    let triple = |first: u64| {
        format!(
            "({},{},{})",
            report(first),
            report(first + 1),
            report(first + 2)
        )
    };
    let Some(site) = b.sites.get(site_number) else {
        return format!("illegal memory access at {address:#x} (a site the image does not list)");
    };
    let place = match &site.object {
        Some(o) => {
            let size = match o.kind {
                ObjectKind::DynamicShared => report(REPORT_SIZE),
                _ => o.size,
            };
            let name = demangle(&o.name);
            let what = if name.is_empty() {
                format!("{size}-byte {}", o.kind.describe())
            } else {
                format!("{size}-byte {} '{name}'", o.kind.describe())
            };
            relative(address, site.bytes, base, size, &what)
        }
        None => nearest(address, site.bytes, live, freed),
    };
    format!(
        "memory checker: illegal {} of {} bytes at {address:#x} in kernel '{}' at {}, thread {} \
         of block {}: {place}",
        site.access.verb(),
        site.bytes,
        site.kernel,
        site.location,
        triple(REPORT_THREAD),
        triple(REPORT_BLOCK),
    )
}

/// Where `[address, address + bytes)` lies relative to the `size` bytes at `base`.
fn relative(address: u64, bytes: u64, base: u64, size: u64, what: &str) -> String {
    let end = base.wrapping_add(size);
    if address >= end {
        format!(
            "{} bytes past the end of a {what} at {base:#x}",
            address - end
        )
    } else if address < base {
        format!(
            "{} bytes before the start of a {what} at {base:#x}",
            base - address
        )
    } else {
        format!(
            "runs {} bytes past the end of a {what} at {base:#x}",
            address + bytes - end
        )
    }
}

/// The allocation nearest `address`: a freed one holding it, else the live ones on either side.
fn nearest(
    address: u64,
    bytes: u64,
    live: &[(u64, u64)],
    freed: &VecDeque<(usize, usize)>,
) -> String {
    let inside_live = live.iter().any(|&(b, e)| b <= address && address < e);
    if !inside_live {
        if let Some(&(b, s)) = freed
            .iter()
            .rev()
            .find(|&&(b, s)| (b as u64) <= address && address < (b + s) as u64)
        {
            return format!(
                "inside a freed allocation: {} bytes into {s} bytes at {b:#x} (hipFree'd)",
                address - b as u64
            );
        }
    }
    let below = live.iter().filter(|&&(b, _)| b <= address).max();
    let above = live.iter().filter(|&&(b, _)| b > address).min();
    let distance = |(b, e): (u64, u64)| {
        if address >= b {
            address.saturating_sub(e)
        } else {
            b - address
        }
    };
    let nearest = match (below, above) {
        (Some(&x), Some(&y)) => Some(if distance(x) <= distance(y) { x } else { y }),
        (Some(&x), None) | (None, Some(&x)) => Some(x),
        (None, None) => None,
    };
    match nearest {
        None => "outside every allocation (the program has none)".into(),
        Some((b, e)) if distance((b, e)) > FAR => format!(
            "not in or near any allocation (a wild pointer; the nearest is {} bytes at {b:#x})",
            e - b
        ),
        Some((b, e)) => relative(
            address,
            bytes,
            b,
            e - b,
            &format!("{}-byte allocation", e - b),
        ),
    }
}

fn demangle(symbol: &str) -> String {
    cpp_demangle::Symbol::new(symbol)
        .ok()
        .and_then(|s| s.demangle().ok())
        .unwrap_or_else(|| symbol.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_is_written_when_the_allocations_change_and_freed_when_idle() {
        let memory = HostMemory::new();
        let state = memory.state() as *const u64;
        let device = 1000; // no real device has this ordinal
        let id = bind(device, Vec::new(), Box::new(memory));
        let table_of = || {
            // SAFETY: the state is live while bound; the table it points to too.
            unsafe {
                let table = state.add(STATE_TABLE as usize).read_volatile() as *const u64;
                // (The ranges after the index: see `table_words`.)
                let bits = table.read_volatile() as u32;
                let ranges = table.add(hipmlir_device_image::memcheck::ranges_word(bits));
                let n = ranges.read_volatile() as usize;
                (0..2 * n)
                    .map(|i| ranges.add(1 + i).read_volatile())
                    .collect::<Vec<_>>()
            }
        };
        before_launch(
            id,
            vec![(0x1000, 0x1040), (0x2000, 0x2100)],
            0,
            0,
            (&kernel(&[]), &[]),
        )
        .expect("first table");
        assert_eq!(table_of(), [0x1000, 0x1040, 0x2000, 0x2100]);
        let first = unsafe { state.read_volatile() };
        before_launch(
            id,
            vec![(0x1000, 0x1040), (0x2000, 0x2100)],
            0,
            0,
            (&kernel(&[]), &[]),
        )
        .expect("same table");
        assert_eq!(
            unsafe { state.read_volatile() },
            first,
            "unchanged: not rewritten"
        );
        before_launch(id, vec![(0x3000, 0x3008)], 0, 0, (&kernel(&[]), &[])).expect("new table");
        assert_eq!(table_of(), [0x3000, 0x3008]);
        let shared = || unsafe { state.add(STATE_DYNAMIC_SHARED as usize).read_volatile() };
        before_launch(id, vec![(0x3000, 0x3008)], 512, 0, (&kernel(&[]), &[])).expect("a launch");
        before_launch(id, vec![(0x3000, 0x3008)], 256, 0, (&kernel(&[]), &[]))
            .expect("a smaller one meanwhile");
        assert_eq!(shared(), 512, "launches that may run at once: the largest");
        idle(device);
        assert_eq!(table_of(), [0x3000, 0x3008], "the current table stays");
        before_launch(id, vec![(0x3000, 0x3008)], 256, 0, (&kernel(&[]), &[])).expect("alone");
        assert_eq!(shared(), 256, "after the device was idle: the launch's own");
        reset(device);
        assert!(!is_bound(id));
    }

    /// A kernel taking `pointers` (each 8 bytes, in order) and the extents of the named ones.
    fn kernel(extents: &[u32]) -> KernelInfo {
        use hipmlir_device_image::{AddressSpace, KernelArg};
        let mut args: Vec<KernelArg> = (0..3)
            .map(|i| KernelArg {
                name: format!("p{i}"),
                r#type: "int *".into(),
                offset: 0,
                size: 8,
                align: 8,
                is_pointer: i != 2,
                address_space: AddressSpace::Global,
            })
            .collect();
        let args_size = KernelArg::layout(&mut args);
        KernelInfo {
            name: "_Z1kPiS_l".into(),
            source_name: "k".into(),
            args,
            args_size,
            max_threads_per_block: None,
            unit: None,
            memcheck_extents: extents.to_vec(),
        }
    }

    #[test]
    fn an_extent_is_what_is_left_of_the_allocation_from_the_pointer() {
        let ranges = [(0x1000, 0x1040), (0x2000, 0x2100)];
        let block = |words: [u64; 3]| {
            words
                .iter()
                .flat_map(|w| w.to_ne_bytes())
                .collect::<Vec<_>>()
        };
        let k = kernel(&[1, 0, 2]);
        // Argument 2 is no pointer: 0 whatever it holds.
        assert_eq!(
            extents(&k, &block([0x1000, 0x2010, 0x1000]), &ranges),
            [0xf0, 0x40, 0]
        );
        // The last byte, one past the end, between allocations, before the first, null.
        assert_eq!(extents(&k, &block([0x103f, 0x1040, 0]), &ranges), [0, 1, 0]);
        assert_eq!(extents(&k, &block([0x1800, 0xfff, 0]), &ranges), [0, 0, 0]);
        assert_eq!(extents(&k, &block([0, 0x20ff, 0]), &ranges), [1, 0, 0]);
        assert!(extents(&kernel(&[]), &block([0x1000; 3]), &ranges).is_empty());
        // A block too short for the argument (never from a checked launch): 0, no panic.
        assert_eq!(extents(&k, &[0; 4], &ranges), [0, 0, 0]);
    }

    #[test]
    fn the_nearest_allocation_is_named() {
        let live = [(0x1000, 0x1040), (0x9000, 0x9100)];
        let freed = VecDeque::from([(0x5000usize, 0x200usize)]);
        assert_eq!(
            nearest(0x104c, 4, &live, &freed),
            "12 bytes past the end of a 64-byte allocation at 0x1000"
        );
        assert_eq!(
            nearest(0x5028, 8, &live, &freed),
            "inside a freed allocation: 40 bytes into 512 bytes at 0x5000 (hipFree'd)"
        );
        assert!(nearest(0x10, 4, &[(0x4000_0000, 0x4000_0040)], &freed)
            .starts_with("not in or near any allocation"));
    }
}
