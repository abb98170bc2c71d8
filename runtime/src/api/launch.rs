//! Kernel launches (by name, by host stub, `hipLaunchKernelGGL`'s entry point) and kernel
//! queries (`hipFuncGetAttributes`, `hipOccupancyMaxPotentialBlockSize`).

use std::ffi::{c_char, c_int, c_void};

use super::{c_string, guard, hipError_t, hipStream_t, write_out};
use crate::device::runtime;
use crate::error::{Failure, HipError, HipResult};
use crate::jit::prepared_kernel;
use crate::launch::{launch, pack_kernel_params, Dim3};
use crate::registry::{find_kernel, find_kernel_for_launch, KernelRef};

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
        launch(&kernel, grid, block, shmem, stream as usize, args)
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
        launch(&kernel, grid, block, shmem, stream as usize, args)
    })
}

/// The kernel a `const void*` names: a `hipFunction_t` from `hipModuleGetFunction`, or a host
/// stub.
pub(crate) fn kernel_of(function: *const c_void) -> HipResult<KernelRef> {
    if function.is_null() {
        return Err(Failure::new(
            HipError::InvalidDeviceFunction,
            "the kernel function is null",
        ));
    }
    if let Some(k) = super::module::function(function as usize) {
        return Ok(k);
    }
    find_kernel_for_launch(function as usize, None)
}

/// Launches the kernel of host stub `function` with `args` (one pointer per kernel argument, as
/// `hipModuleLaunchKernel`'s `kernelParams`). Asynchronous.
///
/// # Safety
/// `args` must hold one valid pointer per kernel argument.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchKernel(
    function: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shmem: usize,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipLaunchKernel", || {
        let kernel = kernel_of(function)?;
        // SAFETY: per the caller.
        let block_bytes =
            unsafe { pack_kernel_params(kernel.info(), args as *const *const c_void) }?;
        launch(&kernel, grid, block, shmem, stream as usize, &block_bytes)
    })
}

/// HIP's `hipFuncAttributes`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_snake_case)]
pub struct FuncAttributes {
    pub binaryVersion: c_int,
    pub cacheModeCA: c_int,
    pub constSizeBytes: usize,
    pub localSizeBytes: usize,
    pub maxDynamicSharedSizeBytes: c_int,
    pub maxThreadsPerBlock: c_int,
    pub numRegs: c_int,
    pub preferredShmemCarveout: c_int,
    pub ptxVersion: c_int,
    pub sharedSizeBytes: usize,
}

/// Per-kernel limits after the JIT: (work-group size, local memory, private memory).
fn kernel_limits(kernel: &KernelRef) -> HipResult<(usize, u64, u64)> {
    let rt = runtime()?;
    let module = &kernel.module;
    let mut state = module.lock_state();
    let info = kernel.info();
    let p = prepared_kernel(rt, module, &mut state, &info.name, info.args.len())?;
    Ok((p.work_group_size, p.local_mem_size, p.private_mem_size))
}

/// Fills `hipFuncAttributes` from `clGetKernelWorkGroupInfo` (builds the kernel's module).
///
/// # Safety
/// `attr` must be null or valid for writing a `hipFuncAttributes`.
#[no_mangle]
pub unsafe extern "C" fn hipFuncGetAttributes(
    attr: *mut FuncAttributes,
    function: *const c_void,
) -> hipError_t {
    guard("hipFuncGetAttributes", || {
        if attr.is_null() {
            return Err(Failure::invalid_value("the attributes pointer is null"));
        }
        let kernel = kernel_of(function)?;
        let (wg, local, private) = kernel_limits(&kernel)?;
        let rt = runtime()?;
        let a = FuncAttributes {
            binaryVersion: 0,
            ptxVersion: 0,
            maxThreadsPerBlock: c_int::try_from(wg).unwrap_or(c_int::MAX),
            sharedSizeBytes: local as usize,
            localSizeBytes: private as usize,
            maxDynamicSharedSizeBytes: c_int::try_from(
                rt.info.local_mem_size.saturating_sub(local),
            )
            .unwrap_or(c_int::MAX),
            ..FuncAttributes::default()
        };
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(attr, a, "the attributes pointer") }
    })
}

/// The block size that allows the most threads of `function` per compute unit, and the grid
/// that fills the device with it. On OpenCL: the kernel's work-group limit
/// (CL_KERNEL_WORK_GROUP_SIZE) capped by `block_size_limit`, rounded down to a multiple of
/// warpSize; the grid is one block per compute unit times the blocks that fit the device's
/// work-group limit.
///
/// # Safety
/// `grid_size` and `block_size` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipOccupancyMaxPotentialBlockSize(
    grid_size: *mut c_int,
    block_size: *mut c_int,
    function: *const c_void,
    dynamic_shmem: usize,
    block_size_limit: c_int,
) -> hipError_t {
    guard("hipOccupancyMaxPotentialBlockSize", || {
        if grid_size.is_null() || block_size.is_null() {
            return Err(Failure::invalid_value("a result pointer is null"));
        }
        let kernel = kernel_of(function)?;
        let (wg, local, _) = kernel_limits(&kernel)?;
        let rt = runtime()?;
        if dynamic_shmem as u64 + local > rt.info.local_mem_size {
            return Err(Failure::invalid_value(format!(
                "{dynamic_shmem} bytes of dynamic shared memory do not fit the device's {}",
                rt.info.local_mem_size
            )));
        }
        let (block, grid) = occupancy(wg, block_size_limit, &rt.info);
        // SAFETY: checked non-null; valid per the caller.
        unsafe {
            write_out(block_size, block, "the block size pointer")?;
            write_out(grid_size, grid, "the grid size pointer")
        }
    })
}

/// (block, grid) for `hipOccupancyMaxPotentialBlockSize`.
pub fn occupancy(
    kernel_wg: usize,
    limit: c_int,
    info: &crate::device::DeviceInfo,
) -> (c_int, c_int) {
    let warp = info.warp_size() as usize;
    let mut block = kernel_wg.min(info.max_work_group_size).max(1);
    if limit > 0 {
        block = block.min(limit as usize);
    }
    if block >= warp {
        block -= block % warp;
    }
    let per_cu = (info.max_work_group_size / block).max(1);
    let grid = (info.max_compute_units as usize)
        .max(1)
        .saturating_mul(per_cu);
    (
        c_int::try_from(block).unwrap_or(c_int::MAX),
        c_int::try_from(grid).unwrap_or(c_int::MAX),
    )
}
