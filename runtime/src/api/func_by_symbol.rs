//! `hipGetFuncBySymbol`: the `hipFunction_t` of a kernel named by its host stub, so the module
//! API (`hipModuleLaunchKernel`, `hipFuncGetAttribute`, `hipModuleOccupancy*`) can take a kernel
//! of the program itself.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

use super::launch::kernel_of;
use super::module::hipFunction_t;
use super::{guard, hipError_t, write_out};
use crate::error::{Failure, HipError};
use crate::registry;

/// The function handle given for each host stub, handed out again for the same stub.
static HANDLES: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);

/// Writes the `hipFunction_t` of the kernel whose host stub (or `hipFunction_t`) is `symbol`;
/// a pointer that is no kernel is `hipErrorInvalidDeviceFunction`.
///
/// # Safety
/// `function` must be null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hipGetFuncBySymbol(
    function: *mut hipFunction_t,
    symbol: *const c_void,
) -> hipError_t {
    guard("hipGetFuncBySymbol", || {
        if function.is_null() {
            return Err(Failure::invalid_value("the function pointer is null"));
        }
        if symbol.is_null() {
            return Err(Failure::new(
                HipError::InvalidDeviceFunction,
                "the kernel symbol is null",
            ));
        }
        let mut handles = HANDLES.lock().unwrap_or_else(|p| p.into_inner());
        let handles = handles.get_or_insert_with(HashMap::new);
        let handle = match handles.get(&(symbol as usize)) {
            Some(&h) if registry::function(h).is_some() => h,
            _ => {
                let kernel = kernel_of(symbol)?;
                let h = registry::insert_function(kernel.module.clone(), kernel.index());
                handles.insert(symbol as usize, h);
                h
            }
        };
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(function, handle as hipFunction_t, "the function pointer") }
    })
}
