//! Device variables (`__device__` and `__constant__` globals) seen from the host:
//! `hipMemcpyToSymbol`/`FromSymbol` (and `Async`), `hipGetSymbolAddress`, `hipGetSymbolSize`,
//! `hipModuleGetGlobal`.
//!
//! The compiler gives each variable a program-scope CrossWorkgroup variable in the module's SPIR-V
//! (with its initializer) and a one-thread kernel `__hipmlir_address_of_<symbol>(unsigned long
//! long* out)` that stores the variable's address in `out[0]`; the metadata lists them
//! (`ModuleMetadata::globals`). The host program has an ordinary global of the same type and
//! symbol, its *shadow*, whose address is what HIP calls the symbol (`HIP_SYMBOL(x)` is `&x`). The
//! image stub registers each shadow with `__hipmlirRegisterVar` right after the image.
//!
//! * Registration records shadow → (name, host size, the module registered last, and the
//!   translation unit's key for a shadow internal to its source); nothing else, since it runs in
//!   static constructors.
//! * Finding a variable (no device work): for a shadow internal to its source (every
//!   `__device__` variable of a build without -fgpu-rdc, as with hipcc, and `static` ones), the
//!   module whose variable of that name carries the source's key (`GlobalVar::unit`), so that
//!   variables of one name in two sources stay apart whatever order they registered in. Else
//!   the module registered just before its shadow if it defines the name, else the first
//!   registered module that defines it (a variable defined in one file and declared `extern` in
//!   others is listed only by the defining image). A shadow nobody registered is looked up by its
//!   dynamic symbol name (`dladdr`), as kernel stubs are. Unknown: `hipErrorInvalidSymbol`.
//! * Its device address is the backend's (`Device::variable`; on OpenCL, see `opencl::variables`).
//! * Copies go through the ordinary copy path at `address + offset`. As in CUDA, a copy
//!   to a symbol takes `hipMemcpyHostToDevice`, `DeviceToDevice` or `Default`, a copy from one
//!   `DeviceToHost`, `DeviceToDevice` or `Default`; other kinds are
//!   `hipErrorInvalidMemcpyDirection`. `offset + bytes` beyond the variable is
//!   `hipErrorInvalidValue`.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard};

use hipmlir_device_image::GlobalVar;

use crate::backend::MemcpyKind;
use crate::error::{Failure, HipError, HipResult};
use crate::hlog;
use crate::registry::{registry, registry_for_lookup, symbol_name, Module};

/// What `__hipmlirRegisterVar` recorded about one shadow.
#[derive(Debug, Clone)]
struct Shadow {
    name: String,
    /// `sizeof` the host's declaration (0 if unknown).
    host_size: usize,
    /// The module registered just before the shadow: the shadow's own image, normally.
    hint: Option<Arc<Module>>,
    /// The key of the translation unit whose own (internal) shadow this is.
    unit: Option<String>,
    /// The variable, once found.
    found: Option<(Arc<Module>, usize)>,
}

impl Shadow {
    fn hint_defines(&self) -> Option<(Arc<Module>, usize)> {
        let m = self.hint.as_ref()?;
        m.find_global(&self.name).map(|i| (m.clone(), i))
    }

    /// The variable of the shadow's own translation unit, or the one its hint defines.
    fn own_variable(&self) -> Option<(Arc<Module>, usize)> {
        match &self.unit {
            Some(unit) => registry_for_lookup().find_unit_global(&self.name, unit),
            None => self.hint_defines(),
        }
    }
}

static SHADOWS: Mutex<BTreeMap<usize, Shadow>> = Mutex::new(BTreeMap::new());

fn shadows() -> MutexGuard<'static, BTreeMap<usize, Shadow>> {
    SHADOWS.lock().unwrap_or_else(|p| p.into_inner())
}

/// `__hipmlirRegisterVar` (`unit` None) and `__hipmlirRegisterUnitVar`: remembers that the
/// host global at `shadow` stands for the device variable `name` (of translation unit `unit`).
/// Cheap, touches no device. A shadow registered again (a variable declared `extern` in another
/// file) keeps a registration whose image defines it.
pub fn register_var(shadow: usize, name: String, host_size: usize, unit: Option<String>) {
    let hint = registry().last_module();
    let entry = Shadow {
        name,
        host_size,
        hint,
        unit,
        found: None,
    };
    let mut all = shadows();
    let keep_old = all
        .get(&shadow)
        .is_some_and(|old| old.name == entry.name && old.hint_defines().is_some());
    if !keep_old {
        all.insert(shadow, entry);
    }
}

/// A device variable: a module and an index into its `metadata.globals`.
#[derive(Debug, Clone)]
pub struct Variable {
    pub module: Arc<Module>,
    pub index: usize,
}

impl Variable {
    pub fn info(&self) -> &GlobalVar {
        self.module.global(self.index)
    }

    /// The device variable's size in bytes (the metadata's: the storage the program has).
    pub fn size(&self) -> usize {
        usize::try_from(self.info().size).unwrap_or(usize::MAX)
    }

    /// Checks that `offset + bytes` lies inside the variable.
    pub fn check_range(&self, offset: usize, bytes: usize) -> HipResult<()> {
        match offset.checked_add(bytes) {
            Some(end) if end <= self.size() => Ok(()),
            _ => Err(Failure::invalid_value(format!(
                "offset {offset} + {bytes} bytes is beyond device variable '{}' ({} bytes)",
                self.info().name,
                self.size()
            ))),
        }
    }
}

fn not_a_symbol(symbol: usize) -> Failure {
    Failure::new(
        HipError::InvalidSymbol,
        format!(
            "{symbol:#x} is not a device variable: pass the variable itself \
             (hipMemcpyToSymbol(x, ...)) or HIP_SYMBOL(x); compiled programs register theirs with \
             __hipmlirRegisterVar"
        ),
    )
}

fn defined_nowhere(name: &str, symbol: usize) -> Failure {
    let reg = registry();
    let failed = reg.failed_images();
    let mut message = format!(
        "device variable '{name}' (host symbol at {symbol:#x}) is not defined by any registered \
         device image"
    );
    if !failed.is_empty() {
        message.push_str(&format!(
            "; {} device image(s) failed to register: {}",
            failed.len(),
            failed.join("; ")
        ));
    }
    Failure::new(HipError::InvalidSymbol, message)
}

/// The variable `symbol` (a shadow's address) stands for. Touches no device.
pub fn find(symbol: *const c_void) -> HipResult<Variable> {
    let shadow = symbol as usize;
    if shadow == 0 {
        return Err(Failure::new(HipError::InvalidSymbol, "the symbol is null"));
    }
    let registered = shadows().get(&shadow).cloned();
    let (module, index) = match registered {
        Some(Shadow {
            found: Some(found), ..
        }) => found,
        Some(entry) => {
            let found = match entry.own_variable() {
                Some(found) => found,
                None => {
                    let found = registry_for_lookup().find_global(&entry.name);
                    found.ok_or_else(|| defined_nowhere(&entry.name, shadow))?
                }
            };
            let device_size = found.0.global(found.1).size;
            if entry.host_size != 0 && entry.host_size as u64 != device_size {
                hlog!(
                    Warn,
                    "device variable '{}' has {device_size} bytes on the device but {} on the \
                     host; copies are bounded by the device's",
                    entry.name,
                    entry.host_size
                );
            }
            if let Some(e) = shadows().get_mut(&shadow) {
                e.found = Some(found.clone());
            }
            found
        }
        None => {
            // Not registered: a shadow in the dynamic symbol table is found by its name.
            let name = symbol_name(shadow).ok_or_else(|| not_a_symbol(shadow))?;
            let found = registry_for_lookup().find_global(&name);
            let found = found.ok_or_else(|| not_a_symbol(shadow))?;
            shadows().insert(
                shadow,
                Shadow {
                    name,
                    host_size: 0,
                    hint: None,
                    unit: None,
                    found: Some(found.clone()),
                },
            );
            found
        }
    };
    Ok(Variable { module, index })
}

/// A copy's kind, checked against its direction (`to_symbol`: the symbol is the destination).
pub fn check_kind(kind: i32, to_symbol: bool) -> HipResult<MemcpyKind> {
    let parsed = MemcpyKind::from_raw(kind);
    let allowed = match parsed {
        Some(MemcpyKind::DeviceToDevice | MemcpyKind::Default) => true,
        Some(MemcpyKind::HostToDevice) => to_symbol,
        Some(MemcpyKind::DeviceToHost) => !to_symbol,
        _ => false,
    };
    if let (true, Some(kind)) = (allowed, parsed) {
        return Ok(kind);
    }
    let wanted = if to_symbol {
        "hipMemcpyHostToDevice, hipMemcpyDeviceToDevice or hipMemcpyDefault"
    } else {
        "hipMemcpyDeviceToHost, hipMemcpyDeviceToDevice or hipMemcpyDefault"
    };
    Err(Failure::new(
        HipError::InvalidMemcpyDirection,
        format!(
            "kind {kind} is not a direction for a copy {} a symbol (use {wanted})",
            if to_symbol { "to" } else { "from" }
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_the_direction() {
        for k in [1, 3, 4] {
            assert_eq!(check_kind(k, true).map(|k| k as i32), Ok(k));
        }
        for k in [2, 3, 4] {
            assert_eq!(check_kind(k, false).map(|k| k as i32), Ok(k));
        }
        for (k, to) in [
            (0, true),
            (2, true),
            (0, false),
            (1, false),
            (7, true),
            (-1, false),
        ] {
            let e = check_kind(k, to).unwrap_err();
            assert_eq!(e.code, HipError::InvalidMemcpyDirection, "{k} {to}");
        }
    }

    #[test]
    fn unknown_and_null_symbols_are_invalid_symbols() {
        static NOT_A_VARIABLE: [u8; 4] = [1, 2, 3, 4];
        let e = find(std::ptr::null()).unwrap_err();
        assert_eq!(e.code, HipError::InvalidSymbol);
        let e = find(NOT_A_VARIABLE.as_ptr().cast()).unwrap_err();
        assert_eq!(e.code, HipError::InvalidSymbol);
        assert!(e.message.contains("HIP_SYMBOL"), "{}", e.message);
    }
}
