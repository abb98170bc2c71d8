//! What the OpenCL backend keeps for one registry module, on each device: its program build
//! (`jit`), the device addresses of its variables found so far, whether its heap variable holds
//! the device heap, and its abort word. `hipDeviceReset` drops one device's (`ModuleState::
//! reset_device`): the next launch there builds the program again, its variables back at their
//! initial values, as in a new HIP context.

use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use super::device::{self, Runtime};
use super::jit::Build;
use super::memory;
use crate::backend::{DeviceId, ModuleState};
use crate::registry::Module;

/// A module's state on every device: a slot per opened device.
#[derive(Debug)]
pub struct ClModule {
    devices: Box<[OnceLock<ClDeviceModule>]>,
}

/// A module's state on one device.
#[derive(Debug)]
pub struct ClDeviceModule {
    device: DeviceId,
    /// The built program and its kernels; also serializes launches of this module's kernels.
    build: Mutex<Build>,
    /// Device addresses of this module's variables found so far (index into
    /// `metadata.globals` → address); also serializes finding them (see `variables`).
    variables: Mutex<HashMap<usize, usize>>,
    /// Whether the built program's heap variable holds the heap's address (see `heap`).
    pub heap_bound: AtomicBool,
    /// Whether the built program's managed variables hold their memory's addresses (see
    /// `managed_vars`).
    pub managed_bound: AtomicBool,
    /// The host word the built program's abort-flag variable points to, once set.
    pub abort_word: Mutex<Option<usize>>,
    /// The memory checker's binding of the built program's state variable (see `memcheck`),
    /// once bound: `Some(None)` where the device cannot run the checker.
    pub memcheck_binding: Mutex<Option<Option<u64>>>,
}

/// The OpenCL state of `module` on device `rt`.
pub fn of<'m>(module: &'m Module, rt: &Runtime) -> &'m ClDeviceModule {
    let state = module.state(|| ClModule {
        devices: (0..device::all().len().max(rt.id + 1))
            .map(|_| OnceLock::new())
            .collect(),
    });
    state.devices[rt.id].get_or_init(|| ClDeviceModule {
        device: rt.id,
        build: Mutex::new(Build::default()),
        variables: Mutex::new(HashMap::new()),
        heap_bound: AtomicBool::new(false),
        managed_bound: AtomicBool::new(false),
        abort_word: Mutex::new(None),
        memcheck_binding: Mutex::new(None),
    })
}

impl ClDeviceModule {
    pub fn lock_build(&self) -> MutexGuard<'_, Build> {
        self.build.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn lock_variables(&self) -> MutexGuard<'_, HashMap<usize, usize>> {
        self.variables.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn lock_abort_word(&self) -> MutexGuard<'_, Option<usize>> {
        self.abort_word.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Drops the built program, and with it the storage of the module's variables. The caller
    /// has waited for the device.
    fn reset(&self) {
        let rt = device::runtime_of(self.device).ok();
        for (_, address) in self.lock_variables().drain() {
            if let Some(rt) = rt {
                memory::remove_variable(rt, address);
            }
        }
        *self.lock_build() = Build::NotBuilt;
        self.heap_bound.store(false, Ordering::SeqCst);
        self.managed_bound.store(false, Ordering::SeqCst);
        *self
            .memcheck_binding
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = None;
        if let Some(word) = self.lock_abort_word().take() {
            crate::device_abort::forget(word);
        }
    }
}

impl ModuleState for ClModule {
    fn reset(&self) {
        for slot in self.devices.iter() {
            if let Some(state) = slot.get() {
                state.reset();
            }
        }
    }

    fn reset_device(&self, device: DeviceId) {
        if let Some(state) = self.devices.get(device).and_then(OnceLock::get) {
            state.reset();
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for ClDeviceModule {
    fn drop(&mut self) {
        // The program (and its variables' storage) goes with the module.
        let Ok(rt) = device::runtime_of(self.device) else {
            return;
        };
        let variables = self.variables.get_mut().unwrap_or_else(|p| p.into_inner());
        for &address in variables.values() {
            memory::remove_variable(rt, address);
        }
    }
}
