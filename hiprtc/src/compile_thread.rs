//! Where compiles and links run: one at a time in the process, each on a thread with the
//! compiler's stack.
//!
//! Clang's parser, the frontend's walk and MLIR's passes recurse on the nesting of the source,
//! so a deeply nested program needs far more stack than the caller's thread may have (the
//! compiler runs its compiles on such a thread too). libclang parses on the calling thread
//! (`LIBCLANG_NOTHREADS`, set when the library is loaded), so its recursion gets that stack
//! as well, not the 8 MiB of a thread of its own. Compiles take turns: each makes its own MLIR
//! context and parse, but the toolchain's process-wide set-up is not for racing threads.

use std::sync::Mutex;

/// The compile thread's stack: the compiler's, else a smaller one where the system refuses so
/// large a mapping.
const STACKS: [usize; 2] = [2 << 30, 256 << 20];

static TURN: Mutex<()> = Mutex::new(());

/// Runs `job` on a compile thread, after any compile already running; Err with a message when
/// it panicked or no thread could be made.
pub fn run<T: Send>(job: impl FnOnce() -> T + Send) -> Result<T, String> {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    // Shared by the tries: a thread that could not be made leaves the job for the next.
    let job = Mutex::new(Some(job));
    std::thread::scope(|scope| {
        let mut last_error = None;
        for stack in STACKS {
            let job = &job;
            let spawned = std::thread::Builder::new()
                .name("hiprtc".into())
                .stack_size(stack)
                .spawn_scoped(scope, move || {
                    let job = job.lock().unwrap_or_else(|e| e.into_inner()).take();
                    job.map(|job| job())
                });
            match spawned {
                Ok(thread) => {
                    return match thread.join() {
                        Ok(Some(value)) => Ok(value),
                        Ok(None) => Err("the compile ran twice".to_string()),
                        Err(panic) => Err(panic_message(&panic)),
                    };
                }
                Err(e) => last_error = Some(e),
            }
        }
        Err(format!(
            "cannot start a compile thread: {}",
            last_error.map_or_else(String::new, |e| e.to_string())
        ))
    })
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string());
    format!("internal compiler error: {text}")
}

/// Sets `LIBCLANG_NOTHREADS` when the library is loaded, before the program's threads are
/// likely to run (it is read at each parse; a program that set it keeps its value).
extern "C" fn parse_on_the_calling_thread() {
    if std::env::var_os("LIBCLANG_NOTHREADS").is_none() {
        // Runs while the library is loaded, as the program's own start-up code does.
        std::env::set_var("LIBCLANG_NOTHREADS", "1");
    }
}

#[used]
#[link_section = ".init_array"]
static SET_NOTHREADS: extern "C" fn() = parse_on_the_calling_thread;

#[cfg(test)]
mod tests {
    #[test]
    fn jobs_run_with_a_large_stack_and_panics_are_errors() {
        let deep = super::run(|| {
            fn down(n: u32) -> u32 {
                let pad = [n as u8; 4096];
                if n == 0 {
                    0
                } else {
                    down(n - 1) + u32::from(std::hint::black_box(pad)[0] & 1)
                }
            }
            down(20_000)
        });
        assert!(deep.is_ok(), "80 MiB of stack: {deep:?}");
        let panicked = super::run(|| -> u32 { panic!("boom") });
        assert!(panicked.unwrap_err().contains("boom"));
    }
}
