//! The memory checker's runtime side (`-fsanitize=address`; the compiler's side is
//! dialect-passes' `memcheck`, the words both read are `hipmlir_device_image::memcheck`'s).
//!
//! A checked module gets a state before its first launch (`bind`): host memory the device
//! reaches at its own address, holding the address of the device's allocation table, the error
//! word, the report and scratch words. Before each launch of a checked kernel the table is
//! brought up to date with the runtime's live allocations (`refresh`); a table that changed is
//! written anew (the old one stays readable by kernels still running: it is kept until
//! `hipDeviceReset`).
//!
//! A raised report is seen by the first HIP call made after the kernel wrote it (`check`, from
//! the API's `guard`): that call fails with `hipErrorIllegalAddress` and the report; every call
//! after it fails so too (the error is sticky, as a GPU's) until `hipDeviceReset`, and a program
//! that exits without resetting exits with status 1.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use hipmlir_device_image::memcheck::{
    Site, REPORT_ADDRESS, REPORT_BASE, REPORT_BLOCK, REPORT_RAISED, REPORT_THREAD, REPORT_WORDS,
    STATE_REPORT, STATE_TABLE, STATE_WORDS,
};

use crate::error::{Failure, HipError};

/// Whether any checked module was bound: without one, nothing here runs.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// A module's state and report (one block of words), with what the report is read against.
struct Binding {
    words: Box<[AtomicU64]>,
    sites: Arc<Vec<Site>>,
}

impl Binding {
    fn word(&self, index: u64) -> u64 {
        self.words[index as usize].load(Ordering::Acquire)
    }

    fn report(&self, index: u64) -> u64 {
        self.word(STATE_WORDS + index)
    }
}

#[derive(Default)]
struct Checker {
    bindings: Vec<Binding>,
    /// The ranges the current table holds, and the table (`[count, base, end, ...]`).
    ranges: Vec<(u64, u64)>,
    table: Option<Box<[AtomicU64]>>,
    /// Tables replaced while kernels may still read them.
    retired: Vec<Box<[AtomicU64]>>,
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

/// A new state for a checked module whose sites are `sites`: its address, for the module's
/// state variable. `ranges`: the live allocations a kernel may reach, sorted.
pub fn bind(sites: Vec<Site>, ranges: Vec<(u64, u64)>) -> usize {
    let mut guard = checker();
    let c = guard.get_or_insert_with(Checker::default);
    let binding = Binding {
        words: words(STATE_WORDS + REPORT_WORDS),
        sites: Arc::new(sites),
    };
    let address = binding.words.as_ptr() as usize;
    binding.words[STATE_REPORT as usize].store(address as u64 + STATE_WORDS * 8, Ordering::Release);
    c.bindings.push(binding);
    c.refresh(ranges, true);
    ACTIVE.store(true, Ordering::Release);
    address
}

/// Brings the table up to date before a launch of a checked kernel.
pub fn refresh(ranges: Vec<(u64, u64)>) {
    if let Some(c) = checker().as_mut() {
        c.refresh(ranges, false);
    }
}

impl Checker {
    fn refresh(&mut self, ranges: Vec<(u64, u64)>, new_binding: bool) {
        if self.table.is_some() && ranges == self.ranges {
            if new_binding {
                self.point_states();
            }
            return;
        }
        let table = words(1 + 2 * ranges.len() as u64);
        table[0].store(ranges.len() as u64, Ordering::Relaxed);
        for (i, (base, end)) in ranges.iter().enumerate() {
            table[1 + 2 * i].store(*base, Ordering::Relaxed);
            table[2 + 2 * i].store(*end, Ordering::Relaxed);
        }
        if let Some(old) = self.table.replace(table) {
            self.retired.push(old);
        }
        self.ranges = ranges;
        self.point_states();
    }

    fn point_states(&self) {
        let Some(table) = &self.table else { return };
        let address = table.as_ptr() as u64;
        for b in &self.bindings {
            b.words[STATE_TABLE as usize].store(address, Ordering::Release);
        }
    }
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

/// Forgets every state (`hipDeviceReset`, after waiting for the device): the sticky error too.
pub fn reset() {
    if !ACTIVE.load(Ordering::Acquire) {
        return;
    }
    if let Some(c) = checker().as_mut() {
        c.bindings.clear();
        c.retired.clear();
        c.table = None;
        c.ranges.clear();
        c.sticky = None;
    }
}

/// The calls that answer even after an illegal access: those that never touch a device, and
/// the reset that clears it.
fn answers_after_error(function: &str) -> bool {
    function == "hipDeviceReset" || function.starts_with("__hipmlir")
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
    if !ACTIVE.load(Ordering::Acquire) || function == "hipDeviceReset" {
        return None;
    }
    let mut guard = checker();
    let c = guard.as_mut()?;
    if c.sticky.is_some() {
        return None;
    }
    let raised = c.bindings.iter().find(|b| b.report(REPORT_RAISED) != 0)?;
    let message = describe(raised, &c.freed);
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
fn describe(b: &Binding, freed: &VecDeque<(usize, usize)>) -> String {
    let site_number = b.report(REPORT_RAISED).saturating_sub(1) as usize;
    let address = b.report(REPORT_ADDRESS);
    let base = b.report(REPORT_BASE);
    let triple = |first: u64| {
        format!(
            "({},{},{})",
            b.report(first),
            b.report(first + 1),
            b.report(first + 2)
        )
    };
    let Some(site) = b.sites.get(site_number) else {
        return format!("illegal memory access at {address:#x} (a site the image does not list)");
    };
    let place = match &site.object {
        Some(o) => {
            let name = demangle(&o.name);
            let what = if name.is_empty() {
                format!("{}-byte {}", o.size, o.kind.describe())
            } else {
                format!("{}-byte {} '{name}'", o.size, o.kind.describe())
            };
            relative(address, site.bytes, base, o.size, &what)
        }
        None => nearest(address, site.bytes, freed),
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
fn nearest(address: u64, bytes: u64, freed: &VecDeque<(usize, usize)>) -> String {
    let live = crate::opencl::memory::all_allocations();
    let inside_live = live
        .iter()
        .any(|&(b, s)| (b as u64) <= address && address < (b + s) as u64);
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
    let below = live.iter().filter(|&&(b, _)| b as u64 <= address).max();
    let above = live.iter().filter(|&&(b, _)| b as u64 > address).min();
    let distance = |(b, s): (usize, usize)| {
        if address >= b as u64 {
            address.saturating_sub((b + s) as u64)
        } else {
            b as u64 - address
        }
    };
    let nearest = match (below, above) {
        (Some(&x), Some(&y)) => Some(if distance(x) <= distance(y) { x } else { y }),
        (Some(&x), None) | (None, Some(&x)) => Some(x),
        (None, None) => None,
    };
    match nearest {
        None => "outside every allocation (the program has none)".into(),
        Some((b, s)) if distance((b, s)) > FAR => format!(
            "not in or near any allocation (a wild pointer; the nearest is {s} bytes at {b:#x})"
        ),
        Some((b, s)) => relative(
            address,
            bytes,
            b as u64,
            s as u64,
            &format!("{s}-byte allocation"),
        ),
    }
}

fn demangle(symbol: &str) -> String {
    cpp_demangle::Symbol::new(symbol)
        .ok()
        .and_then(|s| s.demangle().ok())
        .unwrap_or_else(|| symbol.to_string())
}
