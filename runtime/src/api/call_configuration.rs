//! The launch configuration stack: `__hipPushCallConfiguration` / `__hipPopCallConfiguration`
//! (what clang's `<<<>>>` lowering calls around a kernel stub) and the older execution-control
//! API built on it, `hipConfigureCall`, `hipSetupArgument`, `hipLaunchByPtr`. Each thread has its
//! own stack; an argument set up lands at its offset in the top configuration's argument block,
//! which `hipLaunchByPtr` launches as the kernel's packed arguments.

use std::cell::RefCell;
use std::ffi::c_void;

use super::launch::{kernel_of, launch};
use super::{guard, hipError_t, hipStream_t, write_out};
use crate::backend::Dim3;
use crate::error::{Failure, HipError, HipResult};

/// One pushed configuration.
struct CallConfiguration {
    grid: Dim3,
    block: Dim3,
    shared_mem: usize,
    stream: hipStream_t,
    args: Vec<u8>,
}

thread_local! {
    static STACK: RefCell<Vec<CallConfiguration>> = const { RefCell::new(Vec::new()) };
}

/// The biggest argument block `hipSetupArgument` builds: far beyond any device's parameter
/// limit, so that a wild offset is an error rather than a huge allocation.
const MAX_ARGUMENT_BYTES: usize = 1 << 20;

fn missing() -> Failure {
    Failure::new(
        HipError::MissingConfiguration,
        "no launch configuration was pushed (hipConfigureCall or __hipPushCallConfiguration)",
    )
}

fn push(grid: Dim3, block: Dim3, shared_mem: usize, stream: hipStream_t) -> HipResult<()> {
    STACK
        .try_with(|s| {
            s.borrow_mut().push(CallConfiguration {
                grid,
                block,
                shared_mem,
                stream,
                args: Vec::new(),
            })
        })
        .map_err(|_| Failure::new(HipError::Unknown, "the thread is exiting"))
}

fn pop() -> HipResult<CallConfiguration> {
    STACK
        .try_with(|s| s.borrow_mut().pop())
        .ok()
        .flatten()
        .ok_or_else(missing)
}

/// Pushes a launch configuration on the calling thread's stack.
#[no_mangle]
pub extern "C" fn __hipPushCallConfiguration(
    grid: Dim3,
    block: Dim3,
    shared_mem: usize,
    stream: hipStream_t,
) -> hipError_t {
    guard("__hipPushCallConfiguration", || {
        push(grid, block, shared_mem, stream)
    })
}

/// Pops the calling thread's last launch configuration into the four pointers (each may be
/// null); none pushed is `hipErrorMissingConfiguration`.
///
/// # Safety
/// Each pointer must be null or valid for writing its value.
#[no_mangle]
pub unsafe extern "C" fn __hipPopCallConfiguration(
    grid: *mut Dim3,
    block: *mut Dim3,
    shared_mem: *mut usize,
    stream: *mut hipStream_t,
) -> hipError_t {
    guard("__hipPopCallConfiguration", || {
        let c = pop()?;
        // SAFETY: each is written only when not null; valid per the caller.
        unsafe {
            for (p, v) in [(grid, c.grid), (block, c.block)] {
                if !p.is_null() {
                    write_out(p, v, "the dimensions pointer")?;
                }
            }
            if !shared_mem.is_null() {
                write_out(shared_mem, c.shared_mem, "the shared memory pointer")?;
            }
            if !stream.is_null() {
                write_out(stream, c.stream, "the stream pointer")?;
            }
        }
        Ok(())
    })
}

/// Pushes the configuration of the next `hipLaunchByPtr`.
#[no_mangle]
pub extern "C" fn hipConfigureCall(
    grid: Dim3,
    block: Dim3,
    shared_mem: usize,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipConfigureCall", || push(grid, block, shared_mem, stream))
}

/// Copies `size` bytes of `arg` to `offset` of the top configuration's argument block.
///
/// # Safety
/// `arg` must be null or valid for reading `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipSetupArgument(
    arg: *const c_void,
    size: usize,
    offset: usize,
) -> hipError_t {
    guard("hipSetupArgument", || {
        if arg.is_null() && size > 0 {
            return Err(Failure::invalid_value("the argument is null"));
        }
        let end = offset
            .checked_add(size)
            .filter(|&e| e <= MAX_ARGUMENT_BYTES)
            .ok_or_else(|| {
                Failure::invalid_value(format!(
                    "an argument of {size} bytes at offset {offset} is beyond any kernel's"
                ))
            })?;
        // SAFETY: checked non-null (or empty); `size` bytes per the caller.
        let bytes = unsafe { std::slice::from_raw_parts(arg.cast::<u8>(), size) };
        STACK
            .try_with(|s| {
                let mut stack = s.borrow_mut();
                let top = stack.last_mut().ok_or_else(missing)?;
                if top.args.len() < end {
                    top.args.resize(end, 0);
                }
                top.args[offset..end].copy_from_slice(bytes);
                Ok(())
            })
            .map_err(|_| Failure::new(HipError::Unknown, "the thread is exiting"))?
    })
}

/// Launches the kernel of host stub `function` with the configuration and arguments set up
/// since `hipConfigureCall` (the block padded to the kernel's argument size).
#[no_mangle]
pub extern "C" fn hipLaunchByPtr(function: *const c_void) -> hipError_t {
    guard("hipLaunchByPtr", || {
        let mut c = pop()?;
        let kernel = kernel_of(function)?;
        let size = usize::try_from(kernel.info().args_size).unwrap_or(usize::MAX);
        if c.args.len() < size {
            c.args.resize(size, 0);
        }
        launch(&kernel, c.grid, c.block, c.shared_mem, c.stream, &c.args)
    })
}
