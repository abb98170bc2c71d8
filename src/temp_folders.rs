//! Temporary folders that a signal does not leave behind: SIGINT, SIGTERM and SIGHUP (Ctrl-C, a
//! killed build, the compile server ending a child whose launcher went away) end the programs
//! the compiler runs (the host compiler, the linker), remove every folder made here, then end
//! the process by the same signal, as it would have ended without us.
//!
//! A handler only writes the signal's number to a pipe; a thread of its own reads it and does the
//! work as ordinary code. No signal is blocked, so the programs the compiler runs start with
//! the mask they would have had (a blocked mask is inherited across exec), and Ctrl-C reaches
//! them.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Mutex;

/// The folders to remove on a signal.
static FOLDERS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The pipe's writing end, for the handler.
static PIPE: AtomicI32 = AtomicI32::new(-1);

/// Set once a signal is ending the process (`end_by`).
static ENDING: AtomicBool = AtomicBool::new(false);

/// Waits for the end when a signal is ending the process: the compile, whose host compiler the
/// signal's handler killed, must not exit with its own failure first (the caller would see
/// "exit status 1" instead of the signal).
pub fn hold_while_ending() {
    if ENDING.load(Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
}

extern "C" fn on_signal(signal: libc::c_int) {
    let byte = signal as u8;
    // SAFETY: write(2) is async-signal-safe; a full pipe (signals arriving faster than the
    // thread reads them) loses only repeats.
    unsafe { libc::write(PIPE.load(Ordering::Relaxed), (&byte as *const u8).cast(), 1) };
}

/// Starts the thread that takes the signals and installs their handler. A signal that was
/// ignored when the process started (a background job's SIGINT) stays ignored.
pub fn remove_on_signal() {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two descriptors of a new pipe.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return;
    }
    let [read_end, write_end] = fds;
    PIPE.store(write_end, Ordering::Relaxed);
    let started = std::thread::Builder::new()
        .name("hipmlir-signals".into())
        .spawn(move || loop {
            let mut byte = 0u8;
            // SAFETY: reads one byte into a live buffer.
            let read = unsafe { libc::read(read_end, (&mut byte as *mut u8).cast(), 1) };
            if read == 1 {
                end_by(byte as libc::c_int);
            }
            if read == 0 {
                return;
            }
        });
    if started.is_err() {
        return;
    }
    for signal in SIGNALS {
        // SAFETY: installs a handler that only writes to the pipe; the old action is read first
        // so that an ignored signal stays ignored.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, std::ptr::null(), &mut old);
            if old.sa_sigaction == libc::SIG_IGN {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as *const () as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Ends the programs the compiler runs, removes the folders, then ends this process by the
/// signal itself (the caller sees "killed by SIGINT", and a shell's Ctrl-C stops the whole loop
/// it runs).
fn end_by(signal: libc::c_int) -> ! {
    stop_children_and_remove_folders(signal);
    // SAFETY: the default action back, then the signal to this process.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::kill(libc::getpid(), signal);
        libc::_exit(128 + signal)
    }
}

/// Ends the compile from a thread other than its own (the memory limit): the programs it runs
/// are ended and the folders removed, as for a signal, and the process exits with `status`.
pub fn end_with_status(status: i32) -> ! {
    stop_children_and_remove_folders(libc::SIGTERM);
    // SAFETY: ends the process at once; the compile's thread may be inside libclang.
    unsafe { libc::_exit(status) }
}

fn stop_children_and_remove_folders(signal: libc::c_int) {
    ENDING.store(true, Ordering::SeqCst);
    // The host compiler or linker would go on writing into the folders (and outlive us).
    for child in children() {
        // SAFETY: signals a child process of ours.
        unsafe { libc::kill(child, signal) };
    }
    for folder in FOLDERS.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
        remove_while_written(&folder);
    }
}

/// Removes a folder that the compile's other threads may still be writing into (they run on
/// until the process ends): moved aside first, it is out of reach of the paths they write to, so
/// that no file they make after the removal keeps it alive.
fn remove_while_written(folder: &std::path::Path) {
    let mut aside = folder.as_os_str().to_owned();
    aside.push(".ending");
    let aside = PathBuf::from(aside);
    let target = if std::fs::rename(folder, &aside).is_ok() {
        aside
    } else {
        folder.to_path_buf()
    };
    // A file made through a descriptor opened before the move can still land: try again.
    for _ in 0..8 {
        if std::fs::remove_dir_all(&target).is_ok() || !target.exists() {
            return;
        }
    }
}

/// This process's children, as Linux lists them per thread.
fn children() -> Vec<libc::pid_t> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A temporary folder (`tempfile::TempDir`) that a signal removes too.
pub struct TempFolder(tempfile::TempDir);

impl TempFolder {
    pub fn new(prefix: &str) -> std::io::Result<TempFolder> {
        Ok(Self::listed(
            tempfile::Builder::new().prefix(prefix).tempdir()?,
        ))
    }

    /// One in `dir` (beside an output: a file made in it is renamed into place).
    pub fn new_in(dir: &std::path::Path, prefix: &str) -> std::io::Result<TempFolder> {
        Ok(Self::listed(
            tempfile::Builder::new().prefix(prefix).tempdir_in(dir)?,
        ))
    }

    fn listed(dir: tempfile::TempDir) -> TempFolder {
        FOLDERS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(dir.path().to_path_buf());
        TempFolder(dir)
    }

    pub fn path(&self) -> &std::path::Path {
        self.0.path()
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        // Removed while still listed: a signal that ends the process between the two steps
        // still finds it (unlisted first, it was left behind when the signal came before
        // tempfile's own removal).
        let _ = std::fs::remove_dir_all(self.0.path());
        FOLDERS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|f| f != self.0.path());
    }
}
