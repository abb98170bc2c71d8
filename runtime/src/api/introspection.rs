//! What the runtime tells tools about its objects: `hipKernelNameRef`, `hipKernelNameRefByPtr`
//! (a kernel's name), `hipGetStreamDeviceId` (a stream's device).

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::{Mutex, OnceLock};

use super::launch::kernel_of;
use super::{hipStream_t, stream};
use crate::error::report;
use crate::registry::KernelRef;

/// A kernel's (mangled) name as a C string that lives as long as the process: names are kept
/// once each, so any number of calls allocate each name once.
fn interned(name: &str) -> *const c_char {
    static NAMES: OnceLock<Mutex<HashMap<String, &'static CStr>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(c) = names.get(name) {
        return c.as_ptr();
    }
    let c: &'static CStr = Box::leak(
        CString::new(name.replace('\0', ""))
            .unwrap_or_default()
            .into_boxed_c_str(),
    );
    names.insert(name.to_string(), c);
    c.as_ptr()
}

fn name_of(kernel: Option<KernelRef>) -> *const c_char {
    match kernel {
        Some(k) => interned(&k.info().name),
        None => std::ptr::null(),
    }
}

/// The name of the kernel `function` (`hipModuleGetFunction`'s handle) names; null for anything
/// else.
#[no_mangle]
pub extern "C" fn hipKernelNameRef(function: *const c_void) -> *const c_char {
    name_of(crate::registry::function(function as usize))
}

/// The name of the kernel whose host stub is `host_function` (the stream is not needed); null
/// when it names none.
#[no_mangle]
pub extern "C" fn hipKernelNameRefByPtr(
    host_function: *const c_void,
    _stream: hipStream_t,
) -> *const c_char {
    match kernel_of(host_function) {
        Ok(k) => name_of(Some(k)),
        Err(f) => {
            report("hipKernelNameRefByPtr", f.code, &f.message);
            std::ptr::null()
        }
    }
}

/// The device of stream `s` (the special streams: the calling thread's device); -1 for a
/// handle that is no live stream.
#[no_mangle]
pub extern "C" fn hipGetStreamDeviceId(s: hipStream_t) -> c_int {
    match stream(s) {
        Ok(st) => c_int::try_from(st.device()).unwrap_or(-1),
        Err(f) => {
            report("hipGetStreamDeviceId", f.code, &f.message);
            -1
        }
    }
}
