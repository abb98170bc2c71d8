//! The driver API's odds: cooperative launches
//! (`hipModuleLaunchCooperativeKernel`, `hipLaunchCooperativeKernel`), `hipFuncGetAttribute`,
//! `hipModuleGetTexRef`, and the launches between events (`hipExtLaunchKernel`,
//! `hipExtModuleLaunchKernel`, `hipHccModuleLaunchKernel`).

use std::ffi::{c_char, c_int, c_uint, c_void};

use super::launch::{attributes_of, kernel_of, launch, launch_with, pack_kernel_params};
use super::module::{hipFunction_t, hipModule_t, module_arguments, module_function};
use super::write_out;
use super::{c_string, event, guard, hipError_t, hipEvent_t, hipStream_t, stream};
use crate::backend::{ops, Dim3, FuncAttributes};
use crate::error::{Failure, HipError, HipResult};
use crate::registry::KernelRef;

/// Launches a module function with every block resident at once (for `grid_group::sync()`):
/// the CUDA driver's cooperative launch; on OpenCL a grid of one block (no promise of several
/// work-groups at once exists there: larger grids are `hipErrorNotSupported`).
///
/// # Safety
/// `kernel_params` must hold one valid pointer per kernel argument.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipModuleLaunchCooperativeKernel(
    f: hipFunction_t,
    grid_x: c_uint,
    grid_y: c_uint,
    grid_z: c_uint,
    block_x: c_uint,
    block_y: c_uint,
    block_z: c_uint,
    shmem: c_uint,
    stream: hipStream_t,
    kernel_params: *mut *mut c_void,
) -> hipError_t {
    guard("hipModuleLaunchCooperativeKernel", || {
        let kernel = module_function(f)?;
        // SAFETY: per the caller.
        let block = unsafe { module_arguments(&kernel, kernel_params, std::ptr::null_mut()) }?;
        launch_with(
            ops::launch_cooperative,
            // HIP's answer for cooperative launches on a handle naming no stream.
            HipError::ContextIsDestroyed,
            &kernel,
            Dim3::new(grid_x, grid_y, grid_z),
            Dim3::new(block_x, block_y, block_z),
            shmem as usize,
            stream,
            &block,
        )
    })
}

/// [`hipModuleLaunchCooperativeKernel`] of a kernel's host stub (or a `hipFunction_t`).
///
/// # Safety
/// `args` must hold one valid pointer per kernel argument.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchCooperativeKernel(
    function: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shmem: c_uint,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipLaunchCooperativeKernel", || {
        let kernel = kernel_of(function)?;
        // SAFETY: per the caller.
        let bytes = unsafe { pack_kernel_params(kernel.info(), args as *const *const c_void) }?;
        launch_with(
            ops::launch_cooperative,
            // HIP's answer for cooperative launches on a handle naming no stream.
            HipError::ContextIsDestroyed,
            &kernel,
            grid,
            block,
            shmem as usize,
            stream,
            &bytes,
        )
    })
}

/// `hipFunction_attribute`: each attribute's field of `hipFuncAttributes`.
const FUNCTION_ATTRIBUTES: [fn(&FuncAttributes) -> c_int; 10] = [
    |a| a.maxThreadsPerBlock,
    |a| clamp(a.sharedSizeBytes),
    |a| clamp(a.constSizeBytes),
    |a| clamp(a.localSizeBytes),
    |a| a.numRegs,
    |a| a.ptxVersion,
    |a| a.binaryVersion,
    |a| a.cacheModeCA,
    |a| a.maxDynamicSharedSizeBytes,
    |a| a.preferredShmemCarveout,
];

fn clamp(v: usize) -> c_int {
    c_int::try_from(v).unwrap_or(c_int::MAX)
}

/// One attribute (`hipFunction_attribute`) of a module function, as `hipFuncGetAttributes`
/// reports it. A null or unknown function is `hipErrorInvalidHandle`.
///
/// # Safety
/// `value` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipFuncGetAttribute(
    value: *mut c_int,
    attribute: c_int,
    f: hipFunction_t,
) -> hipError_t {
    guard("hipFuncGetAttribute", || {
        if value.is_null() {
            return Err(Failure::invalid_value("the value pointer is null"));
        }
        let field = usize::try_from(attribute)
            .ok()
            .and_then(|i| FUNCTION_ATTRIBUTES.get(i))
            .ok_or_else(|| {
                Failure::invalid_value(format!("{attribute} is not a hipFunction_attribute"))
            })?;
        let kernel = module_function(f)?;
        let attributes = attributes_of(&kernel)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(value, field(&attributes), "the value pointer") }
    })
}

/// A module's texture reference by name: the runtime's `textureReference` for that module
/// variable (the same one each time), which the `hipTexRefSet*` functions bind
/// (`texture_reference`); a name the module lacks is `hipErrorNotFound`.
///
/// # Safety
/// `out` must be null or valid for writing; `name` null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn hipModuleGetTexRef(
    out: *mut *mut c_void,
    module: hipModule_t,
    name: *const c_char,
) -> hipError_t {
    guard("hipModuleGetTexRef", || {
        if out.is_null() {
            return Err(Failure::invalid_value(
                "the texture reference pointer is null",
            ));
        }
        // SAFETY: per the caller.
        let name = unsafe { c_string(name, "the texture name") }?;
        if name.is_empty() {
            return Err(Failure::invalid_value("the texture name is empty"));
        }
        let m = crate::registry::loaded_module(module as usize)?;
        let index = m.find_global(&name).ok_or_else(|| {
            Failure::new(
                HipError::NotFound,
                format!("{} has no texture reference '{name}'", m.label),
            )
        })?;
        let reference = crate::texture_reference::of_module_variable(&m, index);
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(out, reference.cast(), "the texture reference pointer") }
    })
}

/// `hipExtAnyOrderLaunch`: the kernel may run out of order with the stream's other work (an
/// in-order launch keeps that promise too).
const ANY_ORDER_LAUNCH: c_uint = 0x1;

/// Runs `launch` between records of `start` and `stop` (each optional) on the stream `s` names.
fn between_events(
    s: hipStream_t,
    start: hipEvent_t,
    stop: hipEvent_t,
    flags: c_uint,
    launch: impl FnOnce() -> HipResult<()>,
) -> HipResult<()> {
    if flags & !ANY_ORDER_LAUNCH != 0 {
        return Err(Failure::invalid_value(format!(
            "launch flags {flags:#x}: only hipExtAnyOrderLaunch (1) exists"
        )));
    }
    let on = stream(s)?;
    let (start, stop) = (
        (!start.is_null()).then(|| event(start)).transpose()?,
        (!stop.is_null()).then(|| event(stop)).transpose()?,
    );
    if let Some(e) = &start {
        ops::record(e, &on)?;
    }
    launch()?;
    if let Some(e) = &stop {
        ops::record(e, &on)?;
    }
    Ok(())
}

/// `hipLaunchKernel` between records of `start` and `stop` (either may be null) on `stream`.
///
/// # Safety
/// `args` must hold one valid pointer per kernel argument.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipExtLaunchKernel(
    function: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shmem: usize,
    stream: hipStream_t,
    start: hipEvent_t,
    stop: hipEvent_t,
    flags: c_int,
) -> hipError_t {
    guard("hipExtLaunchKernel", || {
        let kernel = kernel_of(function)?;
        // SAFETY: per the caller.
        let bytes = unsafe { pack_kernel_params(kernel.info(), args as *const *const c_void) }?;
        between_events(stream, start, stop, flags as c_uint, || {
            launch(&kernel, grid, block, shmem, stream, &bytes)
        })
    })
}

/// The blocks of a launch given in work-items (`global`) of `local`-sized work-groups; a global
/// size that is no multiple of the work-group size (partial work-groups, which an NDRange of
/// whole blocks cannot express) is `hipErrorNotSupported`, an empty one `hipErrorInvalidValue`.
fn grid_of(global: [u32; 3], local: [u32; 3]) -> HipResult<Dim3> {
    let mut grid = [0u32; 3];
    for d in 0..3 {
        if local[d] == 0 || global[d] == 0 {
            return Err(Failure::invalid_value(format!(
                "global size {global:?} and work-group size {local:?} must be positive"
            )));
        }
        if !global[d].is_multiple_of(local[d]) {
            return Err(crate::backend::not_supported(&format!(
                "a global size {global:?} that is no multiple of the work-group size {local:?} \
                 (partial work-groups)"
            )));
        }
        grid[d] = global[d] / local[d];
    }
    Ok(Dim3::new(grid[0], grid[1], grid[2]))
}

/// A module launch sized in work-items, between two events.
///
/// # Safety
/// As `hipModuleLaunchKernel`.
#[allow(clippy::too_many_arguments)]
unsafe fn module_launch_in_work_items(
    f: hipFunction_t,
    global: [u32; 3],
    local: [u32; 3],
    shmem: usize,
    s: hipStream_t,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
    start: hipEvent_t,
    stop: hipEvent_t,
    flags: c_uint,
) -> HipResult<()> {
    let kernel: KernelRef = module_function(f)?;
    let grid = grid_of(global, local)?;
    // SAFETY: per the caller.
    let block = unsafe { module_arguments(&kernel, kernel_params, extra) }?;
    let local = Dim3::new(local[0], local[1], local[2]);
    between_events(s, start, stop, flags, || {
        launch(&kernel, grid, local, shmem, s, &block)
    })
}

/// `hipModuleLaunchKernel` sized in work-items (`global` = grid x block) between records of
/// `start` and `stop` (either may be null); `flags` as `hipExtLaunchKernel`'s.
///
/// # Safety
/// As `hipModuleLaunchKernel`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipExtModuleLaunchKernel(
    f: hipFunction_t,
    global_x: u32,
    global_y: u32,
    global_z: u32,
    local_x: u32,
    local_y: u32,
    local_z: u32,
    shmem: usize,
    stream: hipStream_t,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
    start: hipEvent_t,
    stop: hipEvent_t,
    flags: u32,
) -> hipError_t {
    guard("hipExtModuleLaunchKernel", || unsafe {
        module_launch_in_work_items(
            f,
            [global_x, global_y, global_z],
            [local_x, local_y, local_z],
            shmem,
            stream,
            kernel_params,
            extra,
            start,
            stop,
            flags,
        )
    })
}

/// [`hipExtModuleLaunchKernel`] without flags (its older name).
///
/// # Safety
/// As `hipModuleLaunchKernel`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipHccModuleLaunchKernel(
    f: hipFunction_t,
    global_x: u32,
    global_y: u32,
    global_z: u32,
    local_x: u32,
    local_y: u32,
    local_z: u32,
    shmem: usize,
    stream: hipStream_t,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
    start: hipEvent_t,
    stop: hipEvent_t,
) -> hipError_t {
    guard("hipHccModuleLaunchKernel", || unsafe {
        module_launch_in_work_items(
            f,
            [global_x, global_y, global_z],
            [local_x, local_y, local_z],
            shmem,
            stream,
            kernel_params,
            extra,
            start,
            stop,
            0,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_items_divide_into_blocks() {
        assert_eq!(grid_of([64, 8, 1], [16, 4, 1]).unwrap(), Dim3::new(4, 2, 1));
        assert_eq!(
            grid_of([60, 1, 1], [16, 1, 1]).unwrap_err().code,
            HipError::NotSupported
        );
        assert_eq!(
            grid_of([64, 1, 1], [0, 1, 1]).unwrap_err().code,
            HipError::InvalidValue
        );
    }
}
