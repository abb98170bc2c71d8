//! The HIP API on the CUDA backend: what each `extern "C"` function in `api/` does when the
//! CUDA backend serves the process (it calls here first, see `on_cuda!`). Argument checks that do
//! not depend on the backend stay in `api/`; everything here runs with the calling thread's
//! device current.

use std::ffi::{c_char, c_int, c_uint, c_void};

use super::device::CudaRuntime;
use super::driver::{check, sys};
use super::{launch as cu_launch, memory as mem, module, stream};
use crate::api::launch::FuncAttributes;
use crate::error::{Failure, HipError, HipResult};
use crate::launch::Dim3;
use crate::props::HipDeviceProp;
use crate::registry::KernelRef;

// ---- devices -----------------------------------------------------------------------------------

pub fn device_count(rt: &CudaRuntime) -> c_int {
    c_int::try_from(rt.devices.len()).unwrap_or(c_int::MAX)
}

pub fn properties(rt: &CudaRuntime, device: c_int) -> HipResult<HipDeviceProp> {
    Ok(rt.device(device)?.props)
}

pub fn name(rt: &CudaRuntime, device: c_int) -> HipResult<String> {
    Ok(rt.device(device)?.name.clone())
}

pub fn synchronize(rt: &CudaRuntime) -> HipResult<()> {
    rt.current()?;
    // SAFETY: a context is current.
    check("cuCtxSynchronize", unsafe { sys::cuCtxSynchronize() })
}

/// `hipDeviceReset`: the primary context is reset (every allocation, stream, event and loaded
/// module goes with it); modules load again on their next launch, their variables initialized
/// anew.
pub fn reset(rt: &CudaRuntime) -> HipResult<()> {
    let device = rt.current()?;
    // SAFETY: a context is current; waiting before the reset.
    let _ = unsafe { sys::cuCtxSynchronize() };
    for m in crate::registry::registry().modules() {
        m.lock_cuda().clear();
    }
    crate::api::module::forget_cuda_modules();
    stream::forget_all();
    crate::heap::forget();
    for m in crate::registry::registry().modules() {
        m.abort_flag
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
    }
    crate::device_abort::forget_all();
    device.reset()
}

pub fn attribute(rt: &CudaRuntime, attribute: c_int, device: c_int) -> HipResult<c_int> {
    use sys::CUdevice_attribute::*;
    let d = rt.device(device)?;
    // Those the driver answers better than the shared table.
    let direct = match attribute {
        9 => Some(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS),
        13 => Some(CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST),
        25 => Some(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR),
        65 => Some(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS),
        72 => Some(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR),
        75 => Some(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
        78 => Some(CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED),
        90 => Some(CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED),
        10015 => Some(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
        _ => None,
    };
    if let Some(which) = direct {
        return Ok(d.attribute(which));
    }
    if matches!(attribute, 10005 | 10006) {
        return Err(Failure::new(
            HipError::NotSupported,
            format!("attribute {attribute} is an AMD GPU's HDP register address"),
        ));
    }
    crate::api::device::device_attribute(&d.props, &d.info, attribute).ok_or_else(|| {
        Failure::invalid_value(format!(
            "{attribute} is not a hipDeviceAttribute_t hipmlir knows"
        ))
    })
}

/// `hipLimit_t` 0..=2 are `CU_LIMIT_STACK_SIZE`, `PRINTF_FIFO_SIZE`, `MALLOC_HEAP_SIZE`; the
/// heap's size is hipmlir's own (its allocator is device code), kept beside the OpenCL one.
pub fn get_limit(rt: &CudaRuntime, limit: c_int) -> HipResult<usize> {
    rt.current()?;
    let which = match limit {
        0 => sys::CUlimit::CU_LIMIT_STACK_SIZE,
        1 => sys::CUlimit::CU_LIMIT_PRINTF_FIFO_SIZE,
        2 => return Ok(crate::heap::limit()),
        other => return Err(Failure::invalid_value(format!("unknown limit {other}"))),
    };
    let mut v = 0;
    // SAFETY: writes one size_t.
    check("cuCtxGetLimit", unsafe {
        sys::cuCtxGetLimit(&mut v, which)
    })?;
    Ok(v)
}

pub fn set_limit(rt: &CudaRuntime, limit: c_int, value: usize) -> HipResult<()> {
    rt.current()?;
    let which = match limit {
        0 => sys::CUlimit::CU_LIMIT_STACK_SIZE,
        1 => sys::CUlimit::CU_LIMIT_PRINTF_FIFO_SIZE,
        2 => return crate::heap::set_limit(value),
        other => return Err(Failure::invalid_value(format!("unknown limit {other}"))),
    };
    // SAFETY: plain driver call.
    check("cuCtxSetLimit", unsafe { sys::cuCtxSetLimit(which, value) })
}

// ---- launches ----------------------------------------------------------------------------------

pub fn launch(
    rt: &CudaRuntime,
    kernel: &KernelRef,
    grid: Dim3,
    block: Dim3,
    shmem: usize,
    stream: usize,
    args: &[u8],
) -> HipResult<()> {
    cu_launch::launch(rt, kernel, grid, block, shmem, stream, args)
}

fn function_of(rt: &CudaRuntime, kernel: &KernelRef) -> HipResult<module::Function> {
    let device = rt.current()?;
    module::function(&kernel.module, kernel.index(), device)
}

fn function_attribute(f: &module::Function, which: sys::CUfunction_attribute) -> HipResult<c_int> {
    let mut v = 0;
    // SAFETY: writes one int.
    check("cuFuncGetAttribute", unsafe {
        sys::cuFuncGetAttribute(&mut v, which, f.raw())
    })?;
    Ok(v)
}

pub fn func_attributes(rt: &CudaRuntime, kernel: &KernelRef) -> HipResult<FuncAttributes> {
    use sys::CUfunction_attribute::*;
    let f = function_of(rt, kernel)?;
    let get = |w| function_attribute(&f, w);
    let to_usize = |v: c_int| usize::try_from(v).unwrap_or(0);
    Ok(FuncAttributes {
        binaryVersion: get(CU_FUNC_ATTRIBUTE_BINARY_VERSION)?,
        cacheModeCA: get(CU_FUNC_ATTRIBUTE_CACHE_MODE_CA)?,
        constSizeBytes: to_usize(get(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)?),
        localSizeBytes: to_usize(get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?),
        maxDynamicSharedSizeBytes: get(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?,
        maxThreadsPerBlock: get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        numRegs: get(CU_FUNC_ATTRIBUTE_NUM_REGS)?,
        preferredShmemCarveout: get(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)?,
        ptxVersion: get(CU_FUNC_ATTRIBUTE_PTX_VERSION)?,
        sharedSizeBytes: to_usize(get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?),
    })
}

/// `hipFuncSetAttribute`: the driver's own attributes (8: max dynamic shared memory, 9: carveout).
pub fn func_set_attribute(
    rt: &CudaRuntime,
    kernel: &KernelRef,
    attribute: c_int,
    value: c_int,
) -> HipResult<()> {
    use sys::CUfunction_attribute::*;
    let which = match attribute {
        8 => CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        9 => CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
        other => {
            return Err(Failure::invalid_value(format!(
                "{other} is not a hipFuncAttribute value"
            )))
        }
    };
    let f = function_of(rt, kernel)?;
    // SAFETY: a function of a loaded module.
    check("cuFuncSetAttribute", unsafe {
        sys::cuFuncSetAttribute(f.raw(), which, value)
    })?;
    if attribute == 8 {
        kernel.update_settings(|s| s.max_dynamic_shared = Some(value));
        let device = rt.current()?;
        module::note_shared_allowed(
            &kernel.module,
            kernel.index(),
            device,
            value.max(0) as usize,
        );
    } else {
        kernel.update_settings(|s| s.carveout = Some(value));
    }
    Ok(())
}

pub fn max_potential_block_size(
    rt: &CudaRuntime,
    kernel: &KernelRef,
    dynamic_shmem: usize,
    limit: c_int,
) -> HipResult<(c_int, c_int)> {
    let f = function_of(rt, kernel)?;
    let (mut grid, mut block) = (0, 0);
    // SAFETY: writes two ints; no per-block-size callback.
    check("cuOccupancyMaxPotentialBlockSize", unsafe {
        sys::cuOccupancyMaxPotentialBlockSize(
            &mut grid,
            &mut block,
            f.raw(),
            None,
            dynamic_shmem,
            limit.max(0),
        )
    })?;
    Ok((grid, block))
}

pub fn active_blocks(
    rt: &CudaRuntime,
    kernel: &KernelRef,
    block_size: c_int,
    dynamic_shmem: usize,
    flags: c_uint,
) -> HipResult<c_int> {
    let f = function_of(rt, kernel)?;
    let mut n = 0;
    // SAFETY: writes one int.
    check(
        "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                &mut n,
                f.raw(),
                block_size,
                dynamic_shmem,
                flags,
            )
        },
    )?;
    Ok(n)
}

// ---- device variables --------------------------------------------------------------------------

/// The device address and size of the variable a host shadow stands for.
pub fn symbol(rt: &CudaRuntime, symbol: *const c_void) -> HipResult<(u64, usize)> {
    let var = crate::symbols::find(symbol)?;
    let device = rt.current()?;
    let (address, size) = module::variable(&var.module, var.index, device)?;
    Ok((address, size.max(var.size())))
}

/// `hipMemcpyToSymbol[Async]` / `hipMemcpyFromSymbol[Async]`.
#[allow(clippy::too_many_arguments)]
pub fn symbol_copy(
    rt: &CudaRuntime,
    symbol_ptr: *const c_void,
    other: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
    to_symbol: bool,
    stream: Option<usize>,
) -> HipResult<()> {
    let kind = crate::symbols::check_kind(kind, to_symbol)?;
    let var = crate::symbols::find(symbol_ptr)?;
    let size = var.size();
    if offset.checked_add(bytes).is_none_or(|end| end > size) {
        return Err(Failure::invalid_value(format!(
            "offset {offset} + {bytes} bytes is beyond device variable '{}' ({size} bytes)",
            var.info().name
        )));
    }
    if bytes == 0 {
        return Ok(());
    }
    if other.is_null() {
        return Err(Failure::invalid_value("a null host pointer"));
    }
    let (address, _) = symbol(rt, symbol_ptr)?;
    let at = (address as usize + offset) as *mut c_void;
    let (dst, src) = if to_symbol {
        (at, other)
    } else {
        (other as *mut c_void, at as *const c_void)
    };
    match stream {
        None => mem::memcpy(dst, src, bytes, kind),
        Some(s) => mem::memcpy_async(dst, src, bytes, kind, s),
    }
}

// ---- out-parameter helpers used by api/ --------------------------------------------------------

/// Writes `text` into a caller's buffer of `len` bytes, truncated and NUL-terminated.
///
/// # Safety
/// `out` must be valid for `len` bytes (checked non-null, `len > 0` by the caller).
pub unsafe fn write_name(out: *mut c_char, len: c_int, text: &str) {
    let n = text.len().min(len.max(1) as usize - 1);
    // SAFETY: per the caller.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr().cast(), out, n);
        out.add(n).write(0);
    }
}
