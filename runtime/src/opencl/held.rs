//! Memory that enqueued commands still use after their call returned, kept until each command's
//! event completes: the snapshot of a pageable source that an asynchronous copy reads (HIP and
//! CUDA stage such a source at the call, so the program may reuse it at once), and a spilled
//! kernel argument (its bytes and the device buffer holding them). Released by later launches,
//! copies and synchronizations of the device.

use std::ffi::c_void;
use std::sync::Mutex;

use super::cl::OwnedEvent;
use super::device::Runtime;
use crate::backend::DeviceId;

/// One thing a command still uses.
pub enum Held {
    /// Host bytes the command reads.
    Host(Box<[u8]>),
    /// A device buffer of the runtime's own, its start and size (freed when released).
    Device(usize, usize),
}

/// Per command: its device, its event, what it holds.
type Entry = (DeviceId, OwnedEvent, Vec<Held>);

static HELD: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// Keeps `items` until `event` (a command of `rt`'s) completes.
pub fn hold(rt: &Runtime, event: OwnedEvent, items: Vec<Held>) {
    HELD.lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((rt.id, event, items));
}

/// The device buffers (start, size) that `rt`'s commands still hold: spilled arguments of
/// launches not yet known to be done, which the memory checker's table must list while their
/// kernels may run.
pub fn device_buffers(rt: &Runtime) -> Vec<(usize, usize)> {
    HELD.lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .filter(|(device, _, _)| *device == rt.id)
        .flat_map(|(_, _, items)| items)
        .filter_map(|item| match item {
            Held::Device(p, size) => Some((*p, *size)),
            Held::Host(_) => None,
        })
        .collect()
}

/// Releases what `rt`'s finished commands held (`all`: every command's; the caller has
/// synchronized the device).
pub fn release_finished(rt: &Runtime, all: bool) {
    let done: Vec<Entry> = {
        let mut held = HELD.lock().unwrap_or_else(|p| p.into_inner());
        if held.is_empty() {
            return;
        }
        let (done, keep) =
            std::mem::take(&mut *held)
                .into_iter()
                .partition(|(device, event, _)| {
                    *device == rt.id && (all || !matches!(event.status(), Ok(s) if s > 0))
                });
        *held = keep;
        done
    };
    for item in done.into_iter().flat_map(|(_, _, items)| items) {
        match item {
            Held::Host(bytes) => drop(bytes),
            // SAFETY: allocated by the runtime in this context; the command using it is done.
            Held::Device(p, _) => {
                let _ = unsafe { rt.memory.free(rt.context.get(), p as *mut c_void) };
            }
        }
    }
}
