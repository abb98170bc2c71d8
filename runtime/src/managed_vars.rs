//! `__managed__` variables: one object at one address for the host and every device, as HIP has
//! them (clang's HIP makes the device's variable a pointer the runtime fills, and the host's
//! name a way to the same memory).
//!
//! * The host program registers each variable when it starts (`__hipmlirRegisterManagedVar`,
//!   from the initializer of the host's reference to it; see the frontend's `host_shadows`): the
//!   runtime allocates managed memory as `hipMallocManaged` does (so copies, fills, pointer
//!   queries and hints take it as managed memory), copies the initial value in and returns the
//!   address, which the host's name refers to from then on.
//! * The device image lists the variable with `GlobalVar::managed_size`: its device variable
//!   holds the address, and device code reaches the object through it. Before a module's first
//!   launch on a device, the backend stores the address there ([`address`]).
//! * A variable is found by its symbol and the key of the translation unit that defines it, so
//!   that sources compiled without `-fgpu-rdc` each have their own. One that no host program
//!   registered (a module loaded with `hipModuleLoad`) gets zeroed managed memory of its own.

use std::sync::{Mutex, MutexGuard};

use hipmlir_device_image::GlobalVar;

use crate::backend::{Device, MemoryKind};
use crate::error::{Failure, HipError, HipResult};
use crate::hlog;

/// `hipMemAttachGlobal`: the memory any stream may use.
const ATTACH_GLOBAL: u32 = 1;

#[derive(Debug)]
struct Managed {
    name: String,
    unit: Option<String>,
    address: usize,
    size: usize,
}

static MANAGED: Mutex<Vec<Managed>> = Mutex::new(Vec::new());

fn managed() -> MutexGuard<'static, Vec<Managed>> {
    MANAGED.lock().unwrap_or_else(|p| p.into_inner())
}

/// Allocates `size` bytes of managed memory aligned to `align` on `device`.
fn allocate(device: &dyn Device, name: &str, size: usize, align: usize) -> HipResult<usize> {
    let kind = MemoryKind::Managed {
        flags: ATTACH_GLOBAL,
    };
    let p = device.allocate(kind, size)? as usize;
    if align > 1 && !p.is_multiple_of(align) {
        return Err(Failure::new(
            HipError::InvalidValue,
            format!(
                "managed variable '{name}' needs {align}-byte alignment; managed memory is \
                 aligned to less"
            ),
        ));
    }
    Ok(p)
}

/// The registration of `__managed__` variable `name` of translation unit `unit`: its memory,
/// allocated on `device` and holding `initial`. A variable registered again (a shared library
/// loaded twice) keeps its memory.
pub fn register(
    device: &dyn Device,
    initial: &[u8],
    align: usize,
    name: String,
    unit: String,
) -> HipResult<*mut u8> {
    let mut all = managed();
    let unit = Some(unit);
    if let Some(m) = all.iter().find(|m| m.name == name && m.unit == unit) {
        return Ok(m.address as *mut u8);
    }
    let address = allocate(device, &name, initial.len(), align)?;
    // SAFETY: a fresh allocation of `initial.len()` bytes that the host reaches directly.
    unsafe { std::ptr::copy_nonoverlapping(initial.as_ptr(), address as *mut u8, initial.len()) };
    hlog!(
        Debug,
        "managed variable '{name}': {} bytes at {address:#x}",
        initial.len()
    );
    all.push(Managed {
        name,
        unit,
        address,
        size: initial.len(),
    });
    Ok(address as *mut u8)
}

/// The address of managed variable `var`'s memory, which its device variable must hold: the
/// memory its translation unit registered, else (no host program registered it) zeroed memory
/// allocated now on `device`, shared by every module and device that has the variable.
pub fn address(device: &dyn Device, var: &GlobalVar) -> HipResult<usize> {
    let Some(size) = var.managed_size else {
        return Err(Failure::new(
            HipError::InvalidValue,
            format!("device variable '{}' is not managed", var.name),
        ));
    };
    let mut all = managed();
    let registered = all
        .iter()
        .find(|m| m.name == var.name && (var.unit.is_none() || m.unit == var.unit));
    if let Some(m) = registered {
        if m.size as u64 != size {
            hlog!(
                Warn,
                "managed variable '{}' has {size} bytes on the device but {} on the host",
                var.name,
                m.size
            );
        }
        return Ok(m.address);
    }
    let size = usize::try_from(size).map_err(|_| {
        Failure::invalid_value(format!("managed variable '{}' is too large", var.name))
    })?;
    hlog!(
        Info,
        "managed variable '{}' was not registered by the host program: it starts zeroed",
        var.name
    );
    let address = allocate(device, &var.name, size.max(1), 1)?;
    // SAFETY: a fresh allocation of at least `size` bytes that the host reaches directly.
    unsafe { std::ptr::write_bytes(address as *mut u8, 0, size) };
    all.push(Managed {
        name: var.name.clone(),
        unit: var.unit.clone(),
        address,
        size,
    });
    Ok(address)
}
