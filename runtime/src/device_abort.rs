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

/// An abort word bound to a module's variable: what a CUDA launch failure is checked against.
struct Word {
    address: usize,
    /// The module's label.
    module: String,
    /// The module's kernel launched last (CUDA): the likely one to have trapped.
    last_launched: Option<String>,
}

static WORDS: Mutex<Vec<Word>> = Mutex::new(Vec::new());

fn words() -> MutexGuard<'static, Vec<Word>> {
    WORDS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Records a word once it is in a module's variable.
pub fn register(word: usize, module: &Module) {
    words().push(Word {
        address: word,
        module: module.label.clone(),
        last_launched: None,
    });
}

/// The words of a module whose program is gone (`hipDeviceReset`): no longer read.
pub fn forget(word: usize) {
    words().retain(|w| w.address != word);
}

/// Notes a launch of `kernel` of `module` (CUDA, where a trap is seen only at the next
/// synchronizing call): the kernel a raised word is then blamed on.
pub fn launching(module: &Module, kernel: &str) {
    if module.abort_flag_variable.is_none() {
        return;
    }
    for w in words().iter_mut().filter(|w| w.module == module.label) {
        if w.last_launched.as_deref() != Some(kernel) {
            w.last_launched = Some(kernel.to_string());
        }
    }
}

/// Ends the program if device code raised any module's abort word (a CUDA kernel that trapped
/// shows as a launch failure: this tells a trap from another fault).
pub fn stop_if_raised() {
    let raised = words()
        .iter()
        .find(|w| is_raised(w.address))
        .map(|w| match &w.last_launched {
            Some(kernel) => format!("kernel '{kernel}' (the last launched of {})", w.module),
            None => format!("a kernel of {}", w.module),
        });
    if let Some(what) = raised {
        stop(&what);
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
