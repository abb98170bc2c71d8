//! Kernel launches: by name, and `hipLaunchKernelGGL`'s entry point.

use std::ffi::{c_char, c_void};

use super::{c_string, guard, hipError_t, hipStream_t};
use crate::error::{Failure, HipResult};
use crate::launch::{launch, Dim3};
use crate::registry::{find_kernel, find_kernel_for_launch};

/// The packed argument block as a slice; null is allowed only with size 0.
///
/// # Safety
/// `args` must be null or valid for reading `args_size` bytes.
unsafe fn arg_block<'a>(args: *const c_void, args_size: usize) -> HipResult<&'a [u8]> {
    if args_size == 0 {
        return Ok(&[]);
    }
    if args.is_null() {
        return Err(Failure::invalid_value(format!(
            "the argument block is null but args_size is {args_size}"
        )));
    }
    // SAFETY: per the caller.
    Ok(unsafe { std::slice::from_raw_parts(args.cast::<u8>(), args_size) })
}

/// Launches the kernel named `name` (mangled, or as spelled in source) with a packed argument
/// block laid out like a C struct of its parameters. Asynchronous.
///
/// # Safety
/// `name` must be null or NUL-terminated; `args` null or valid for `args_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchKernelByName(
    name: *const c_char,
    grid: Dim3,
    block: Dim3,
    shmem: usize,
    stream: hipStream_t,
    args: *const c_void,
    args_size: usize,
) -> hipError_t {
    guard("hipLaunchKernelByName", || {
        // SAFETY: per the caller.
        let name = unsafe { c_string(name, "the kernel name") }?;
        let args = unsafe { arg_block(args, args_size) }?;
        let kernel = find_kernel(&name)?;
        launch(&kernel, grid, block, shmem, stream, args)
    })
}

/// `hipLaunchKernelGGL`'s target: the kernel of the registered stub `host_fn`, else the kernel
/// spelled `spelled_name` (the macro's stringified kernel expression).
///
/// # Safety
/// `spelled_name` must be null or NUL-terminated; `args` null or valid for `args_size` bytes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __hipmlirLaunchKernelGGL(
    host_fn: *const c_void,
    spelled_name: *const c_char,
    grid: Dim3,
    block: Dim3,
    shmem: usize,
    stream: hipStream_t,
    args: *const c_void,
    args_size: usize,
) -> hipError_t {
    guard("hipLaunchKernelGGL", || {
        // SAFETY: per the caller.
        let spelled = if spelled_name.is_null() {
            None
        } else {
            Some(unsafe { c_string(spelled_name, "the kernel name") }?)
        };
        let args = unsafe { arg_block(args, args_size) }?;
        let kernel = find_kernel_for_launch(host_fn as usize, spelled.as_deref())?;
        launch(&kernel, grid, block, shmem, stream, args)
    })
}
