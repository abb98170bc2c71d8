//! A bound on a compile's memory. libclang reads each file a source includes to its end without
//! trusting the file's size (it opens user files as volatile), so `#include "/dev/zero"`, or a
//! link to such a device, would take all of the machine's memory; clang++ reads the same device
//! as empty. A thread of its own watches the process's resident memory and ends the compile with
//! an error past the limit: half the machine's memory, or `HIPMLIR_COMPILE_MEMORY_LIMIT` MiB
//! (0: no limit).

use std::time::Duration;

use crate::error::Error;
use crate::temp_folders;

pub const LIMIT_VARIABLE: &str = "HIPMLIR_COMPILE_MEMORY_LIMIT";

/// How often the memory is looked at: a file read without end grows by a few hundred MiB in
/// that time at most.
const INTERVAL: Duration = Duration::from_millis(25);

/// Starts the watching thread (nothing when there is no limit or it cannot start).
pub fn watch() {
    let Some(limit) = limit_bytes() else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("hipmlir-memory".into())
        .stack_size(64 << 10)
        .spawn(move || loop {
            std::thread::sleep(INTERVAL);
            if resident_bytes().is_some_and(|used| used > limit) {
                let error = Error::MemoryLimit {
                    limit_mib: limit >> 20,
                    variable: LIMIT_VARIABLE,
                };
                eprintln!("{error}");
                temp_folders::end_with_status(1);
            }
        });
}

/// The limit in bytes: the variable's MiB, else half the physical memory.
fn limit_bytes() -> Option<u64> {
    if let Ok(text) = std::env::var(LIMIT_VARIABLE) {
        match text.trim().parse::<u64>() {
            Ok(0) => return None,
            Ok(mib) => return Some(mib.saturating_mul(1 << 20)),
            Err(_) => eprintln!(
                "hipmlir: warning: {LIMIT_VARIABLE}='{text}' is not a number of MiB: the \
                 default limit applies"
            ),
        }
    }
    // SAFETY: sysconf only reads system values.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages > 0 && page > 0).then(|| pages as u64 * page as u64 / 2)
}

/// This process's resident memory (`/proc/self/statm`'s second field, in pages).
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf only reads a system value.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * page.max(0) as u64)
}
