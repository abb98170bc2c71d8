//! Kernel launches (by name, by host stub, `hipLaunchKernelGGL`'s entry point) and kernel
//! queries (`hipFuncGetAttributes`, `hipOccupancyMaxPotentialBlockSize`).

use std::ffi::{c_char, c_int, c_void};

use super::{c_string, guard, hipError_t, hipStream_t, write_out};
use crate::device::runtime;
use crate::error::{Failure, HipError, HipResult};
use crate::jit::prepared_kernel;
use crate::lambda_kernels::register_closure_stub;
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
        on_cuda!(cu => crate::cuda::api::launch(cu, &kernel, grid, block, shmem, stream as usize, args));
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
        on_cuda!(cu => crate::cuda::api::launch(cu, &kernel, grid, block, shmem, stream as usize, args));
        launch(&kernel, grid, block, shmem, stream as usize, args)
    })
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
        on_cuda!(cu => crate::cuda::api::launch(cu, &kernel, grid, block, shmem, stream as usize, &block_bytes));
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

/// `hipFuncAttribute`.
const FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED: c_int = 8;
const FUNC_ATTRIBUTE_PREFERRED_CARVEOUT: c_int = 9;

/// Fills `hipFuncAttributes` from `clGetKernelWorkGroupInfo` (builds the kernel's module) and
/// what `hipFuncSetAttribute` set.
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
        on_cuda!(cu => unsafe {
            write_out(attr, crate::cuda::api::func_attributes(cu, &kernel)?, "the attributes pointer")
        });
        let (wg, local, private) = kernel_limits(&kernel)?;
        let rt = runtime()?;
        let settings = kernel.settings();
        let a = FuncAttributes {
            binaryVersion: 0,
            ptxVersion: 0,
            maxThreadsPerBlock: c_int::try_from(wg).unwrap_or(c_int::MAX),
            sharedSizeBytes: local as usize,
            localSizeBytes: private as usize,
            maxDynamicSharedSizeBytes: settings.max_dynamic_shared.unwrap_or_else(|| {
                c_int::try_from(rt.info.local_mem_size.saturating_sub(local)).unwrap_or(c_int::MAX)
            }),
            preferredShmemCarveout: settings.carveout.unwrap_or(-1),
            ..FuncAttributes::default()
        };
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(attr, a, "the attributes pointer") }
    })
}

/// Sets a kernel attribute: `hipFuncAttributeMaxDynamicSharedMemorySize` (up to the device's
/// shared memory less the kernel's static share) or `hipFuncAttributePreferredSharedMemoryCarveout`
/// (-1..=100). OpenCL needs neither to launch; both are reported by `hipFuncGetAttributes`.
#[no_mangle]
pub extern "C" fn hipFuncSetAttribute(
    function: *const c_void,
    attribute: c_int,
    value: c_int,
) -> hipError_t {
    guard("hipFuncSetAttribute", || {
        let kernel = kernel_of(function)?;
        on_cuda!(cu => crate::cuda::api::func_set_attribute(cu, &kernel, attribute, value));
        match attribute {
            FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED => {
                let (_, local, _) = kernel_limits(&kernel)?;
                let most = runtime()?.info.local_mem_size.saturating_sub(local);
                if value < 0 || value as u64 > most {
                    return Err(Failure::invalid_value(format!(
                        "{value} bytes of dynamic shared memory: the kernel can have 0..={most}"
                    )));
                }
                kernel.update_settings(|s| s.max_dynamic_shared = Some(value));
            }
            FUNC_ATTRIBUTE_PREFERRED_CARVEOUT => {
                if !(-1..=100).contains(&value) {
                    return Err(Failure::invalid_value(format!(
                        "a shared memory carveout is a percentage (or -1), got {value}"
                    )));
                }
                kernel.update_settings(|s| s.carveout = Some(value));
            }
            other => {
                return Err(Failure::invalid_value(format!(
                    "{other} is not a hipFuncAttribute value"
                )))
            }
        }
        Ok(())
    })
}

/// Sets a kernel's cache preference (`hipFuncCache_t`): OpenCL has no such control, so a valid
/// value for a known kernel is accepted and changes nothing.
#[no_mangle]
pub extern "C" fn hipFuncSetCacheConfig(function: *const c_void, config: c_int) -> hipError_t {
    guard("hipFuncSetCacheConfig", || {
        let kernel = kernel_of(function)?;
        if !(0..=3).contains(&config) {
            return Err(Failure::invalid_value(format!(
                "{config} is not a hipFuncCache_t value"
            )));
        }
        kernel.update_settings(|s| s.cache_config = config);
        Ok(())
    })
}

/// The kernel's limits and static shared memory, for the occupancy queries.
fn occupancy_inputs(function: *const c_void, dynamic_shmem: usize) -> HipResult<OccupancyKernel> {
    let kernel = kernel_of(function)?;
    let (wg, local, _) = kernel_limits(&kernel)?;
    let rt = runtime()?;
    if dynamic_shmem as u64 + local > rt.info.local_mem_size {
        return Err(Failure::invalid_value(format!(
            "{dynamic_shmem} bytes of dynamic shared memory do not fit the device's {} (the \
             kernel uses {local} itself)",
            rt.info.local_mem_size
        )));
    }
    Ok(OccupancyKernel {
        work_group_size: wg,
        shared_bytes: local.saturating_add(dynamic_shmem as u64),
    })
}

/// The block size that allows the most threads of `function` per compute unit (see
/// [`active_blocks_per_cu`]), capped by `block_size_limit` when positive, and the smallest grid
/// that fills every compute unit with it.
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
        on_cuda!(cu => {
            let kernel = kernel_of(function)?;
            let (grid, block) =
                crate::cuda::api::max_potential_block_size(cu, &kernel, dynamic_shmem, block_size_limit)?;
            // SAFETY: checked non-null; valid per the caller.
            unsafe {
                write_out(block_size, block, "the block size pointer")?;
                write_out(grid_size, grid, "the grid size pointer")
            }
        });
        let k = occupancy_inputs(function, dynamic_shmem)?;
        let rt = runtime()?;
        let (block, grid) = potential_block_size(&k, block_size_limit, &rt.info);
        // SAFETY: checked non-null; valid per the caller.
        unsafe {
            write_out(block_size, block, "the block size pointer")?;
            write_out(grid_size, grid, "the grid size pointer")
        }
    })
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
        active_blocks_into(num_blocks, function, block_size, dynamic_shmem, 0)
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
        || unsafe { active_blocks_into(num_blocks, function, block_size, dynamic_shmem, flags) },
    )
}

/// # Safety
/// `num_blocks` must be null or valid for writing an `int`.
unsafe fn active_blocks_into(
    num_blocks: *mut c_int,
    function: *const c_void,
    block_size: c_int,
    dynamic_shmem: usize,
    flags: std::ffi::c_uint,
) -> HipResult<()> {
    if num_blocks.is_null() {
        return Err(Failure::invalid_value("the result pointer is null"));
    }
    if flags > 1 {
        return Err(Failure::invalid_value(format!(
            "unknown occupancy flags {flags:#x}"
        )));
    }
    if block_size <= 0 {
        return Err(Failure::invalid_value(format!(
            "the block size must be positive, got {block_size}"
        )));
    }
    on_cuda!(cu => {
        let kernel = kernel_of(function)?;
        let n = crate::cuda::api::active_blocks(cu, &kernel, block_size, dynamic_shmem, flags)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(num_blocks, n, "the result pointer") }
    });
    let k = occupancy_inputs(function, dynamic_shmem)?;
    let rt = runtime()?;
    let n = active_blocks_per_cu(&k, block_size as usize, &rt.info);
    // SAFETY: checked non-null; valid per the caller.
    unsafe { write_out(num_blocks, clamp_int(n), "the result pointer") }
}

/// What the occupancy model needs to know about a kernel.
#[derive(Debug, Clone, Copy)]
pub struct OccupancyKernel {
    /// CL_KERNEL_WORK_GROUP_SIZE.
    pub work_group_size: usize,
    /// Static (CL_KERNEL_LOCAL_MEM_SIZE) plus dynamic shared memory per block.
    pub shared_bytes: u64,
}

fn clamp_int(v: usize) -> c_int {
    c_int::try_from(v).unwrap_or(c_int::MAX)
}

/// Threads one compute unit holds (`maxThreadsPerMultiProcessor`): an OpenCL compute unit runs
/// up to a work-group of the device's maximum size at once.
pub fn threads_per_cu(info: &crate::device::DeviceInfo) -> usize {
    info.max_work_group_size.max(1)
}

/// Blocks of `block` threads resident on one compute unit: limited by its threads (a block
/// occupies whole warps), its block slots and its shared memory; 0 for a block the kernel
/// cannot run.
pub fn active_blocks_per_cu(
    k: &OccupancyKernel,
    block: usize,
    info: &crate::device::DeviceInfo,
) -> usize {
    if block == 0 || block > k.work_group_size.min(info.max_work_group_size) {
        return 0;
    }
    let warp = info.warp_size().max(1) as usize;
    let by_threads = threads_per_cu(info) / block.div_ceil(warp).saturating_mul(warp);
    let by_shared = match k.shared_bytes {
        0 => usize::MAX,
        bytes => usize::try_from(info.local_mem_size / bytes).unwrap_or(usize::MAX),
    };
    by_threads
        .min(crate::props::max_blocks_per_cu(info))
        .min(by_shared)
}

/// (block, grid) for `hipOccupancyMaxPotentialBlockSize`: the largest block among those that
/// keep the most threads resident per compute unit; the grid fills every compute unit with it.
pub fn potential_block_size(
    k: &OccupancyKernel,
    limit: c_int,
    info: &crate::device::DeviceInfo,
) -> (c_int, c_int) {
    let warp = info.warp_size().max(1) as usize;
    let mut most = k.work_group_size.min(info.max_work_group_size).max(1);
    if limit > 0 {
        most = most.min(limit as usize);
    }
    // Candidates: multiples of the warp size, and `most` itself when below one warp.
    let mut candidates: Vec<usize> = (1..=most / warp).rev().map(|w| w * warp).collect();
    if candidates.is_empty() {
        candidates.push(most);
    }
    let (mut best_block, mut best_threads) = (candidates[0], 0);
    for block in candidates {
        let threads = active_blocks_per_cu(k, block, info) * block;
        if threads > best_threads {
            (best_block, best_threads) = (block, threads);
        }
    }
    let per_cu = active_blocks_per_cu(k, best_block, info).max(1);
    let grid = (info.max_compute_units as usize)
        .max(1)
        .saturating_mul(per_cu);
    (clamp_int(best_block), clamp_int(grid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::DeviceInfo;

    fn cpu() -> DeviceInfo {
        DeviceInfo {
            max_work_group_size: 8192,
            max_compute_units: 2,
            local_mem_size: 256 * 1024,
            sub_group_sizes: vec![4, 8, 16, 32, 64],
            ..DeviceInfo::default()
        }
    }

    #[test]
    fn active_blocks_follow_threads_slots_and_shared_memory() {
        let d = cpu();
        assert_eq!(d.warp_size(), 32);
        let k = OccupancyKernel {
            work_group_size: 8192,
            shared_bytes: 0,
        };
        assert_eq!(active_blocks_per_cu(&k, 256, &d), 32);
        assert_eq!(active_blocks_per_cu(&k, 8192, &d), 1);
        // A block of 33 threads occupies two warps.
        assert_eq!(active_blocks_per_cu(&k, 33, &d), 128);
        assert_eq!(active_blocks_per_cu(&k, 1, &d), 256, "block slots");
        assert_eq!(active_blocks_per_cu(&k, 8193, &d), 0);
        let shared = OccupancyKernel {
            shared_bytes: 64 * 1024,
            ..k
        };
        assert_eq!(active_blocks_per_cu(&shared, 256, &d), 4);
        let small = OccupancyKernel {
            work_group_size: 128,
            ..k
        };
        assert_eq!(active_blocks_per_cu(&small, 256, &d), 0);
    }

    #[test]
    fn potential_block_size_fills_the_device() {
        let d = cpu();
        let k = OccupancyKernel {
            work_group_size: 8192,
            shared_bytes: 0,
        };
        let (block, grid) = potential_block_size(&k, 0, &d);
        assert_eq!(block, 8192);
        assert_eq!(grid, 2);
        // Under a limit of 100: 64 fills a unit exactly (128 x 64), 96 does not (85 x 96).
        let (block, grid) = potential_block_size(&k, 100, &d);
        assert_eq!((block, grid), (64, 2 * 128));
        let (block, _) = potential_block_size(&k, 20, &d);
        assert_eq!(block, 20);
        // Shared memory caps blocks per unit: the biggest block wins among equals.
        let shared = OccupancyKernel {
            shared_bytes: 128 * 1024,
            ..k
        };
        let (block, grid) = potential_block_size(&shared, 0, &d);
        assert_eq!((block, grid), (8192, 2));
    }
}
