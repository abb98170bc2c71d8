//! Device code that stops the program: a trap in a kernel (a failed `assert`, `abort()`,
//! `__builtin_trap()`, `__trap()`) ends the program, as HIP does (on AMD GPUs the trap's queue
//! error aborts the process).
//!
//! OpenCL cannot stop a kernel from inside, so the stop is reported through memory: the compiler
//! gives the modules whose code can trap a variable (`DEVICE_ABORT_FLAG_VARIABLE`) that points
//! to a host word; the work-item sets the word, then traps (a no-op on OpenCL: it runs on until
//! the kernel ends). Before such a module's first
//! launch the word is allocated in host memory the device can write (USM host memory) and its
//! address stored in the variable; each launch of the module's kernels then reads the word when
//! it completes, on the driver's thread, and a raised word ends the program there: the device's
//! printf output (the assert's message) is flushed, the kernel named, and the process aborted.
//! Where the device has no USM host memory the variable stays null: the message is printed and
//! the program runs on.
//!
//! On the CUDA backend the trap ends the kernel at once and the driver reports a launch failure
//! at the next synchronizing call; the words (pinned host memory there) are then read, and a
//! raised one ends the program the same way (see `cuda::driver::check`).
//!
//! This file keeps the words and stops the program; each backend sets its modules' words up
//! (`opencl::variables`, `cuda::module`).

use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard};

use crate::registry::Module;

extern "C" {
    // C's stdio: the device's printf writes through it.
    fn fflush(stream: *mut c_void) -> i32;
    fn signal(signal: i32, handler: usize) -> usize;
}

/// `SIGABRT` and `SIG_DFL` (Linux).
const SIGABRT: i32 = 6;
const SIG_DFL: usize = 0;

/// Every abort word bound to a module's variable, with the module's label: what a CUDA launch
/// failure is checked against.
static WORDS: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());

fn words() -> MutexGuard<'static, Vec<(usize, String)>> {
    WORDS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Records a word once it is in a module's variable.
pub fn register(word: usize, module: &Module) {
    words().push((word, module.label.clone()));
}

/// The words of a module whose program is gone (`hipDeviceReset`): no longer read.
pub fn forget(word: usize) {
    words().retain(|(w, _)| *w != word);
}

/// Ends the program if device code raised any module's abort word (a CUDA kernel that trapped
/// shows as a launch failure: this tells a failed assert from another fault).
pub fn stop_if_raised() {
    let raised = words()
        .iter()
        .find(|(w, _)| is_raised(*w))
        .map(|(_, label)| label.clone());
    if let Some(label) = raised {
        stop(&format!("a kernel of {label}"));
    }
}

pub fn check(flag: usize, kernel: &str) {
    if is_raised(flag) {
        stop(&format!("kernel '{kernel}'"));
    }
}

fn is_raised(word: usize) -> bool {
    // SAFETY: a registered word lives until it is forgotten (hipDeviceReset, after waiting).
    unsafe { (word as *const u32).read_volatile() != 0 }
}

fn stop(what: &str) -> ! {
    // SAFETY: fflush(NULL) flushes every C output stream.
    unsafe { fflush(std::ptr::null_mut()) };
    eprintln!(
        "hipmlir: {what} stopped the program from device code (a trap: a failed assert, \
         abort(), __builtin_trap()): aborting, as HIP does"
    );
    // The abort is the program's, not a crash: the OpenCL driver's crash handler (which asks for
    // a bug report) is not to run.
    // SAFETY: restoring the default disposition of one signal.
    unsafe { signal(SIGABRT, SIG_DFL) };
    std::process::abort();
}
