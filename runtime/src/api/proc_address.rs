//! `hipGetProcAddress`: any function this library exports, by name, as a pointer the program
//! calls through. The name is looked up in the library's own dynamic symbols (only a symbol of
//! this library is handed out), and checked against the HIP version the program asks for: a
//! function HIP introduced after that version is `HIP_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT`
//! (the versions are those of HIP 6.2's functions, `runtime/hip-functions.tsv`).

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::OnceLock;

use super::{c_string, guard, hipError_t};
use crate::error::Failure;

/// `HIP_GET_PROC_ADDRESS_DEFAULT`, `HIP_GET_PROC_ADDRESS_LEGACY_STREAM`,
/// `HIP_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`.
const FLAGS: [u64; 3] = [0, 1, 2];

/// `hipDriverProcAddressQueryResult`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
enum QueryResult {
    Success = 0,
    SymbolNotFound = 1,
    VersionNotSufficient = 2,
}

/// HIP 6.2's functions with the version (major * 100 + minor) that introduced each.
fn introduced() -> &'static HashMap<&'static str, c_int> {
    static TABLE: OnceLock<HashMap<&'static str, c_int>> = OnceLock::new();
    TABLE.get_or_init(|| {
        include_str!("../../hip-functions.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| {
                let (name, version) = l.split_once('\t')?;
                let (major, minor) = version.trim().split_once('.')?;
                Some((
                    name,
                    major.parse::<c_int>().ok()? * 100 + minor.parse::<c_int>().ok()?,
                ))
            })
            .collect()
    })
}

extern "C" {
    fn dlopen(path: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

/// `RTLD_NOW | RTLD_NOLOAD` (Linux): the library is loaded already; only its handle is wanted.
const RTLD_NOW_NOLOAD: c_int = 0x2 | 0x4;

/// This library's path and handle (the loaded object holding this function).
fn own_library() -> Option<&'static (String, usize)> {
    static LIBRARY: OnceLock<Option<(String, usize)>> = OnceLock::new();
    LIBRARY
        .get_or_init(|| {
            let (path, _) =
                crate::registry::loaded_object_of(hipGetProcAddress as *const () as usize)?;
            let c_path = CString::new(path.clone()).ok()?;
            // SAFETY: a path of an object already loaded; RTLD_NOLOAD loads nothing.
            let handle = unsafe { dlopen(c_path.as_ptr(), RTLD_NOW_NOLOAD) };
            (!handle.is_null()).then_some((path, handle as usize))
        })
        .as_ref()
}

/// The address of this library's function `name`, if it exports one.
fn exported(name: &str) -> Option<*mut c_void> {
    let (path, handle) = own_library()?;
    let c_name = CString::new(name).ok()?;
    // SAFETY: a handle from dlopen; a NUL-terminated name.
    let found = unsafe { dlsym(*handle as *mut c_void, c_name.as_ptr()) };
    if found.is_null() {
        return None;
    }
    // dlsym searches the library's dependencies too: only its own functions are handed out.
    let (owner, _) = crate::registry::loaded_object_of(found as usize)?;
    (owner == *path).then_some(found)
}

/// What `name` resolves to for a program built against HIP `version`.
fn resolve(name: &str, version: c_int) -> Result<*mut c_void, (QueryResult, String)> {
    let not_found = |why: String| (QueryResult::SymbolNotFound, why);
    // HIP 5's `hipDeviceProp_t` (the R0000 layout) is not provided: these two take HIP 6's.
    if matches!(name, "hipGetDeviceProperties" | "hipChooseDevice") && version < 600 {
        return Err(not_found(format!(
            "{name} for HIP {version}: hipmlir provides only HIP 6's hipDeviceProp_t layout"
        )));
    }
    if let Some(&since) = introduced().get(name) {
        if version < since {
            return Err((
                QueryResult::VersionNotSufficient,
                format!(
                    "{name} came with HIP {}.{}; the program asks for HIP {}.{}",
                    since / 100,
                    since % 100,
                    version / 100,
                    version % 100
                ),
            ));
        }
    }
    exported(name).ok_or_else(|| not_found(format!("hipmlir exports no function {name}")))
}

/// Writes the address of the function `symbol` into `*pfn` for a program built against HIP
/// `hip_version` (major * 100 + minor, e.g. 602) and its status into `*status` (when not null).
/// A name this library does not export, or a function that came after `hip_version`, is
/// `hipErrorInvalidValue` with `*pfn` null; so are a null or empty name, a null `pfn`, a version
/// below 1, and flags other than `HIP_GET_PROC_ADDRESS_DEFAULT`, `_LEGACY_STREAM` and
/// `_PER_THREAD_DEFAULT_STREAM` (the last two give the same functions: hipmlir has no separate
/// per-thread forms, its null stream is the legacy one everywhere).
///
/// # Safety
/// `symbol` must be null or a NUL-terminated string; `pfn` null or valid for writing a pointer;
/// `status` null or valid for writing a `hipDriverProcAddressQueryResult`.
#[no_mangle]
pub unsafe extern "C" fn hipGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    hip_version: c_int,
    flags: u64,
    status: *mut c_int,
) -> hipError_t {
    guard("hipGetProcAddress", || {
        // SAFETY: per the caller.
        let name = unsafe { c_string(symbol, "the symbol name") }?;
        if pfn.is_null() {
            return Err(Failure::invalid_value(
                "the function pointer's pointer is null",
            ));
        }
        // SAFETY: checked non-null; valid per the caller.
        unsafe { pfn.write_unaligned(std::ptr::null_mut()) };
        if name.is_empty() {
            return Err(Failure::invalid_value("the symbol name is empty"));
        }
        if !FLAGS.contains(&flags) {
            return Err(Failure::invalid_value(format!(
                "flags {flags:#x}: HIP_GET_PROC_ADDRESS_DEFAULT, _LEGACY_STREAM or \
                 _PER_THREAD_DEFAULT_STREAM"
            )));
        }
        if hip_version < 1 {
            return Err(Failure::invalid_value(format!(
                "HIP version {hip_version}: major * 100 + minor, e.g. 602"
            )));
        }
        let answer = resolve(&name, hip_version);
        let code = match &answer {
            Ok(_) => QueryResult::Success,
            Err((code, _)) => *code,
        };
        write_status(status, code);
        let found = answer.map_err(|(_, why)| Failure::invalid_value(why))?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { pfn.write_unaligned(found) };
        Ok(())
    })
}

/// Writes `code` through `status` when it is not null.
fn write_status(status: *mut c_int, code: QueryResult) {
    if !status.is_null() {
        // SAFETY: valid per the caller of hipGetProcAddress.
        unsafe { status.write_unaligned(code as c_int) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_versions_table_reads_hip_6_2s_functions() {
        let t = introduced();
        assert!(t.len() > 400, "{}", t.len());
        assert_eq!(t.get("hipMalloc"), Some(&402));
        assert_eq!(t.get("hipGetProcAddress"), Some(&601));
        assert_eq!(t.get("hipGraphExecGetFlags"), Some(&602));
        assert!(!t.contains_key("hipMemcpy_spt"));
        let e = resolve("hipStreamBeginCaptureToGraph", 600).unwrap_err();
        assert_eq!(e.0, QueryResult::VersionNotSufficient);
        assert_eq!(
            resolve("hipGetDeviceProperties", 500).unwrap_err().0,
            QueryResult::SymbolNotFound
        );
    }
}
