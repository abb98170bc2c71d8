//! What the OpenCL backend keeps for one registry module: its program build (`jit`), the device
//! addresses of its variables found so far, whether its heap variable holds the device heap, and
//! its abort word. `hipDeviceReset` drops all of it (`ModuleState::reset`): the next launch builds
//! the program again, its variables back at their initial values, as in a new HIP context.

use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use super::jit::Build;
use super::memory;
use crate::backend::ModuleState;
use crate::registry::Module;

#[derive(Debug, Default)]
pub struct ClModule {
    /// The built program and its kernels; also serializes launches of this module's kernels.
    build: Mutex<Build>,
    /// Device addresses of this module's variables found so far (index into
    /// `metadata.globals` → address); also serializes finding them (see `variables`).
    variables: Mutex<HashMap<usize, usize>>,
    /// Whether the built program's heap variable holds the heap's address (see `heap`).
    pub heap_bound: AtomicBool,
    /// The host word the built program's abort-flag variable points to, once set.
    pub abort_word: Mutex<Option<usize>>,
}

/// The OpenCL state of `module`.
pub fn of(module: &Module) -> &ClModule {
    module.state(ClModule::default)
}

impl ClModule {
    pub fn lock_build(&self) -> MutexGuard<'_, Build> {
        self.build.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn lock_variables(&self) -> MutexGuard<'_, HashMap<usize, usize>> {
        self.variables.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn lock_abort_word(&self) -> MutexGuard<'_, Option<usize>> {
        self.abort_word.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl ModuleState for ClModule {
    /// Drops the built program, and with it the storage of the module's variables. The caller
    /// has waited for the device.
    fn reset(&self) {
        for (_, address) in self.lock_variables().drain() {
            memory::remove_variable(address);
        }
        *self.lock_build() = Build::NotBuilt;
        self.heap_bound.store(false, Ordering::SeqCst);
        if let Some(word) = self.lock_abort_word().take() {
            crate::device_abort::forget(word);
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for ClModule {
    fn drop(&mut self) {
        // The program (and its variables' storage) goes with the module.
        let variables = self.variables.get_mut().unwrap_or_else(|p| p.into_inner());
        for &address in variables.values() {
            memory::remove_variable(address);
        }
    }
}
