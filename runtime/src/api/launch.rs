//! Kernel launches (by name, by host stub, `hipLaunchKernelGGL`'s entry point) and kernel
//! queries (`hipFuncGetAttributes`, `hipOccupancyMaxPotentialBlockSize`, and the module forms
//! `hipModuleOccupancy*` through the same code).

use std::ffi::{c_char, c_int, c_void, CStr};

use hipmlir_device_image::{AddressSpace, KernelInfo};

use super::module::{hipFunction_t, module_function};
use super::{c_string, current_device, guard, hipError_t, hipStream_t, stream_or, write_out};
use crate::backend::{check_args_size, ops, Dim3, FuncAttribute, FuncAttributes, LaunchConfig};
use crate::error::{Failure, HipError, HipResult};
use crate::lambda_kernels::register_closure_stub;
use crate::registry::{find_kernel, find_kernel_for_launch, KernelRef};

/// Launches `kernel` on the stream `s` names: the one place the C launch entry points meet.
pub(super) fn launch(
    kernel: &KernelRef,
    grid: Dim3,
    block: Dim3,
    shared_mem: usize,
    s: hipStream_t,
    args: &[u8],
) -> HipResult<()> {
    // A launch on a handle naming no live stream is hipErrorInvalidValue, as HIP answers it.
    launch_with(
        ops::launch,
        HipError::InvalidValue,
        kernel,
        grid,
        block,
        shared_mem,
        s,
        args,
    )
}

/// [`launch`] through `op`: `ops::launch`, or `ops::launch_cooperative` (every block resident
/// at once); `dead_stream` is the answer to a handle naming no live stream.
#[allow(clippy::too_many_arguments)]
pub(super) fn launch_with(
    op: fn(&KernelRef, &LaunchConfig) -> HipResult<()>,
    dead_stream: HipError,
    kernel: &KernelRef,
    grid: Dim3,
    block: Dim3,
    shared_mem: usize,
    s: hipStream_t,
    args: &[u8],
) -> HipResult<()> {
    check_args_size(kernel.info(), args)?;
    let stream = stream_or(s, dead_stream)?;
    let cfg = LaunchConfig {
        grid,
        block,
        shared_mem,
        stream: &stream,
        args,
    };
    op(kernel, &cfg)
}

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
        // SAFETY: per the caller (read only for a stub not seen before).
        let spelled = (!spelled_name.is_null()).then(|| unsafe { CStr::from_ptr(spelled_name) });
        let args = unsafe { arg_block(args, args_size) }?;
        let kernel = find_kernel_for_launch(host_fn as usize, spelled)?;
        launch(&kernel, grid, block, shmem, stream, args)
    })
}

/// Tells the runtime which translation unit's kernel host stub `host_fn` launches (a kernel of
/// internal linkage: see `registry::register_unit_stub`).
///
/// # Safety
/// `spelled_name` and `unit` must be null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn __hipmlirRegisterUnitStub(
    host_fn: *const c_void,
    spelled_name: *const c_char,
    unit: *const c_char,
) {
    if spelled_name.is_null() || unit.is_null() {
        return;
    }
    // SAFETY: per the caller.
    let (spelled, unit) = unsafe { (CStr::from_ptr(spelled_name), CStr::from_ptr(unit)) };
    crate::registry::register_unit_stub(
        host_fn as usize,
        &spelled.to_string_lossy(),
        &unit.to_string_lossy(),
    );
}

/// Finds and remembers the kernel of host stub `host_fn`, whose parameter `i` holds the closure
/// object of the device lambda `closures[i]` names (`(lambda at file:line:col)`), where that is
/// not null: the host and device compilers name kernel instances for closure types apart.
///
/// # Safety
/// `spelled_name` must be null or NUL-terminated; `closures` valid for `count` pointers, each
/// null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn __hipmlirRegisterClosureStub(
    host_fn: *const c_void,
    spelled_name: *const c_char,
    closures: *const *const c_char,
    count: usize,
) -> hipError_t {
    guard("hipLaunchKernelGGL", || {
        let spelled = if spelled_name.is_null() {
            None
        } else {
            // SAFETY: per the caller.
            Some(unsafe { c_string(spelled_name, "the kernel name") }?)
        };
        if closures.is_null() && count > 0 {
            return Err(Failure::invalid_value("the closure names are null"));
        }
        let mut names = Vec::with_capacity(count);
        for i in 0..count {
            // SAFETY: `closures` holds `count` pointers, per the caller.
            let p = unsafe { *closures.add(i) };
            names.push(if p.is_null() {
                None
            } else {
                // SAFETY: per the caller.
                Some(unsafe { c_string(p, "a closure name") }?.into_owned())
            });
        }
        register_closure_stub(host_fn as usize, spelled.as_deref(), &names)
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
    if let Some(k) = crate::registry::function(function as usize) {
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
        launch(&kernel, grid, block, shmem, stream, &block_bytes)
    })
}

/// Fills `hipFuncAttributes` (on OpenCL from `clGetKernelWorkGroupInfo`, building the kernel's
/// module, and what `hipFuncSetAttribute` set).
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
        let a = attributes_of(&kernel)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(attr, a, "the attributes pointer") }
    })
}

/// A kernel's attributes as the device reports them, with the constant memory its module's
/// `__constant__` variables take (hipmlir keeps them in global memory, so no driver counts
/// them).
pub(super) fn attributes_of(kernel: &KernelRef) -> HipResult<FuncAttributes> {
    let mut a = current_device()?.func_attributes(kernel)?;
    a.constSizeBytes = kernel
        .module
        .image
        .metadata
        .globals
        .iter()
        .filter(|g| g.constant)
        .map(|g| usize::try_from(g.size).unwrap_or(usize::MAX))
        .fold(0, usize::saturating_add);
    Ok(a)
}

/// Sets a kernel attribute: `hipFuncAttributeMaxDynamicSharedMemorySize` (on OpenCL up to the
/// device's shared memory less the kernel's static share) or
/// `hipFuncAttributePreferredSharedMemoryCarveout` (-1..=100); both are reported by
/// `hipFuncGetAttributes`.
#[no_mangle]
pub extern "C" fn hipFuncSetAttribute(
    function: *const c_void,
    attribute: c_int,
    value: c_int,
) -> hipError_t {
    guard("hipFuncSetAttribute", || {
        let kernel = kernel_of(function)?;
        let attribute = FuncAttribute::parse(attribute)?;
        current_device()?.set_func_attribute(&kernel, attribute, value)
    })
}

/// The block size that allows the most threads of `function` per compute unit (on OpenCL see
/// `backend::occupancy`), capped by `block_size_limit` when positive, and the smallest grid that
/// fills every compute unit with it.
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
    guard("hipOccupancyMaxPotentialBlockSize", || unsafe {
        potential_block_size_into(
            grid_size,
            block_size,
            || kernel_of(function),
            dynamic_shmem,
            block_size_limit,
            0,
        )
    })
}

/// [`hipOccupancyMaxPotentialBlockSize`] of a module's function (`hipModuleGetFunction`).
///
/// # Safety
/// `grid_size` and `block_size` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipModuleOccupancyMaxPotentialBlockSize(
    grid_size: *mut c_int,
    block_size: *mut c_int,
    function: hipFunction_t,
    dynamic_shmem: usize,
    block_size_limit: c_int,
) -> hipError_t {
    guard("hipModuleOccupancyMaxPotentialBlockSize", || unsafe {
        potential_block_size_into(
            grid_size,
            block_size,
            || module_function(function),
            dynamic_shmem,
            block_size_limit,
            0,
        )
    })
}

/// [`hipModuleOccupancyMaxPotentialBlockSize`] with flags (`hipOccupancyDefault` 0 or
/// `hipOccupancyDisableCachingOverride` 1, which changes nothing here).
///
/// # Safety
/// `grid_size` and `block_size` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipModuleOccupancyMaxPotentialBlockSizeWithFlags(
    grid_size: *mut c_int,
    block_size: *mut c_int,
    function: hipFunction_t,
    dynamic_shmem: usize,
    block_size_limit: c_int,
    flags: std::ffi::c_uint,
) -> hipError_t {
    guard(
        "hipModuleOccupancyMaxPotentialBlockSizeWithFlags",
        || unsafe {
            potential_block_size_into(
                grid_size,
                block_size,
                || module_function(function),
                dynamic_shmem,
                block_size_limit,
                flags,
            )
        },
    )
}

/// The one path of the potential block size queries: `kernel` is the function's kernel.
///
/// # Safety
/// `grid_size` and `block_size` must be null or valid for writing an `int`.
unsafe fn potential_block_size_into(
    grid_size: *mut c_int,
    block_size: *mut c_int,
    kernel: impl FnOnce() -> HipResult<KernelRef>,
    dynamic_shmem: usize,
    block_size_limit: c_int,
    flags: std::ffi::c_uint,
) -> HipResult<()> {
    if grid_size.is_null() || block_size.is_null() {
        return Err(Failure::invalid_value("a result pointer is null"));
    }
    check_occupancy_flags(flags)?;
    let kernel = kernel()?;
    let (grid, block) =
        current_device()?.max_potential_block_size(&kernel, dynamic_shmem, block_size_limit)?;
    // SAFETY: checked non-null; valid per the caller.
    unsafe {
        write_out(block_size, block, "the block size pointer")?;
        write_out(grid_size, grid, "the grid size pointer")
    }
}

/// `hipOccupancyDefault` (0) or `hipOccupancyDisableCachingOverride` (1); anything else is
/// `hipErrorInvalidValue`.
fn check_occupancy_flags(flags: std::ffi::c_uint) -> HipResult<()> {
    if flags > 1 {
        return Err(Failure::invalid_value(format!(
            "unknown occupancy flags {flags:#x}"
        )));
    }
    Ok(())
}

/// How many blocks of `block_size` threads of `function` one compute unit holds at once (0 when
/// the block is larger than the kernel allows).
///
/// # Safety
/// `num_blocks` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipOccupancyMaxActiveBlocksPerMultiprocessor(
    num_blocks: *mut c_int,
    function: *const c_void,
    block_size: c_int,
    dynamic_shmem: usize,
) -> hipError_t {
    guard("hipOccupancyMaxActiveBlocksPerMultiprocessor", || unsafe {
        active_blocks_into(
            num_blocks,
            || kernel_of(function),
            block_size,
            dynamic_shmem,
            0,
        )
    })
}

/// [`hipOccupancyMaxActiveBlocksPerMultiprocessor`] with flags (`hipOccupancyDefault` 0 or
/// `hipOccupancyDisableCachingOverride` 1, which changes nothing here).
///
/// # Safety
/// `num_blocks` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    num_blocks: *mut c_int,
    function: *const c_void,
    block_size: c_int,
    dynamic_shmem: usize,
    flags: std::ffi::c_uint,
) -> hipError_t {
    guard(
        "hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        || unsafe {
            active_blocks_into(
                num_blocks,
                || kernel_of(function),
                block_size,
                dynamic_shmem,
                flags,
            )
        },
    )
}

/// [`hipOccupancyMaxActiveBlocksPerMultiprocessor`] of a module's function.
///
/// # Safety
/// `num_blocks` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
    num_blocks: *mut c_int,
    function: hipFunction_t,
    block_size: c_int,
    dynamic_shmem: usize,
) -> hipError_t {
    guard(
        "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor",
        || unsafe {
            active_blocks_into(
                num_blocks,
                || module_function(function),
                block_size,
                dynamic_shmem,
                0,
            )
        },
    )
}

/// [`hipModuleOccupancyMaxActiveBlocksPerMultiprocessor`] with flags.
///
/// # Safety
/// `num_blocks` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    num_blocks: *mut c_int,
    function: hipFunction_t,
    block_size: c_int,
    dynamic_shmem: usize,
    flags: std::ffi::c_uint,
) -> hipError_t {
    guard(
        "hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        || unsafe {
            active_blocks_into(
                num_blocks,
                || module_function(function),
                block_size,
                dynamic_shmem,
                flags,
            )
        },
    )
}

/// The one path of the active-block queries: `kernel` is the function's kernel.
///
/// # Safety
/// `num_blocks` must be null or valid for writing an `int`.
unsafe fn active_blocks_into(
    num_blocks: *mut c_int,
    kernel: impl FnOnce() -> HipResult<KernelRef>,
    block_size: c_int,
    dynamic_shmem: usize,
    flags: std::ffi::c_uint,
) -> HipResult<()> {
    if num_blocks.is_null() {
        return Err(Failure::invalid_value("the result pointer is null"));
    }
    check_occupancy_flags(flags)?;
    if block_size <= 0 {
        return Err(Failure::invalid_value(format!(
            "the block size must be positive, got {block_size}"
        )));
    }
    let kernel = kernel()?;
    let n = current_device()?.max_active_blocks(&kernel, block_size, dynamic_shmem, flags)?;
    // SAFETY: checked non-null; valid per the caller.
    unsafe { write_out(num_blocks, n, "the result pointer") }
}

/// Packs `kernelParams` (one pointer per argument, each to the argument's value) into the
/// argument block laid out by the kernel's metadata (`hipModuleLaunchKernel`, `hipLaunchKernel`).
///
/// # Safety
/// `params` must hold one valid pointer per kernel argument, each readable for the argument's size.
pub(super) unsafe fn pack_kernel_params(
    info: &KernelInfo,
    params: *const *const c_void,
) -> HipResult<Vec<u8>> {
    let mut block = vec![0u8; usize::try_from(info.args_size).unwrap_or(0)];
    if info.args.is_empty() {
        return Ok(block);
    }
    if params.is_null() {
        return Err(Failure::invalid_value(format!(
            "kernel '{}' takes {} argument(s) but kernelParams is null",
            info.source_name,
            info.args.len()
        )));
    }
    for (i, arg) in info.args.iter().enumerate() {
        // SAFETY: per the caller, `params` has one entry per argument.
        let p = unsafe { *params.add(i) };
        if p.is_null() {
            return Err(Failure::invalid_value(format!(
                "kernelParams[{i}] (argument '{}' of '{}') is null",
                arg.name, info.source_name
            )));
        }
        let (start, len) = (arg.offset as usize, arg.size as usize);
        if arg.is_pointer && arg.address_space == AddressSpace::Workgroup {
            continue;
        }
        let dst = block
            .get_mut(start..start + len)
            .ok_or_else(|| Failure::new(HipError::InvalidImage, "argument outside its block"))?;
        // SAFETY: per the caller, `p` is readable for the argument's size.
        dst.copy_from_slice(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) });
    }
    Ok(block)
}
