//! Launches on several devices at once: `hipLaunchCooperativeKernelMultiDevice`,
//! `hipModuleLaunchCooperativeKernelMultiDevice` (cooperative launches, each under the rules of
//! the single-device form) and `hipExtLaunchMultiKernelMultiDevice` (plain launches). Each entry
//! names a stream of its own device (each device once) and the same kernel, grid, block and
//! shared memory, as HIP requires (it answers `hipErrorInvalidValue` otherwise). Unless the
//! flags say otherwise, the launches start once the work queued before them on every listed
//! stream is done (`hipCooperativeLaunchMultiDeviceNoPreSync` skips that), and the work queued
//! after them on any listed stream waits for all of them (`NoPostSync` skips that): events
//! recorded on each stream and waited for by the others, across devices as any event is.

use std::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;

use super::launch::{kernel_of, pack_kernel_params};
use super::module::{hipFunction_t, module_arguments, module_function};
use super::{backend, guard, hipError_t, hipStream_t, stream};
use crate::backend::{check_args_size, ops, Dim3, Event, EventFlags, LaunchConfig, Stream};
use crate::error::{Failure, HipResult};
use crate::registry::KernelRef;

/// `hipCooperativeLaunchMultiDeviceNoPreSync` and `NoPostSync`.
const NO_PRE_SYNC: c_uint = 1;
const NO_POST_SYNC: c_uint = 2;

/// HIP's `hipLaunchParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct LaunchParams {
    pub func: *mut c_void,
    pub grid: Dim3,
    pub block: Dim3,
    pub args: *mut *mut c_void,
    pub shared_mem: usize,
    pub stream: hipStream_t,
}

/// HIP's `hipFunctionLaunchParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct FunctionLaunchParams {
    pub function: hipFunction_t,
    pub grid_x: c_uint,
    pub grid_y: c_uint,
    pub grid_z: c_uint,
    pub block_x: c_uint,
    pub block_y: c_uint,
    pub block_z: c_uint,
    pub shared_mem: c_uint,
    pub stream: hipStream_t,
    pub kernel_params: *mut *mut c_void,
}

/// One entry, resolved; its arguments are packed once every entry is known to launch the
/// same kernel (another kernel's argument list may be shorter than its parameters).
struct Launch {
    kernel: KernelRef,
    grid: Dim3,
    block: Dim3,
    shared_mem: usize,
    stream: Arc<Stream>,
    args: Args,
}

/// An entry's arguments as the program gave them: one pointer per argument.
enum Args {
    /// `hipLaunchParams::args` (host stub launches).
    Pointers(*mut *mut c_void),
    /// `hipFunctionLaunchParams::kernelParams` (module launches).
    Module(*mut *mut c_void),
}

impl Launch {
    /// The packed argument block.
    ///
    /// # Safety
    /// The entry's pointers must hold one valid pointer per argument of its kernel.
    unsafe fn pack(&self) -> HipResult<Vec<u8>> {
        // SAFETY: per the caller.
        let block = unsafe {
            match self.args {
                Args::Pointers(p) => {
                    pack_kernel_params(self.kernel.info(), p as *const *const c_void)?
                }
                Args::Module(p) => module_arguments(&self.kernel, p, std::ptr::null_mut())?,
            }
        };
        check_args_size(self.kernel.info(), &block)?;
        Ok(block)
    }
}

/// The entries of a list of `count` (a C count), checked against the device count; each
/// resolved by `resolve`.
///
/// # Safety
/// `list` must be null or valid for `count` entries.
unsafe fn entries<T: Copy>(
    list: *const T,
    count: i64,
    resolve: impl Fn(&T) -> HipResult<Launch>,
) -> HipResult<Vec<Launch>> {
    if list.is_null() {
        return Err(Failure::invalid_value("the launch list is null"));
    }
    let devices = backend()?.device_count();
    let n = usize::try_from(count).unwrap_or(0);
    if n == 0 || n > devices {
        return Err(Failure::invalid_value(format!(
            "{count} launches: one per device, 1 to {devices}"
        )));
    }
    // SAFETY: per the caller.
    (0..n)
        .map(|i| resolve(&unsafe { list.add(i).read_unaligned() }))
        .collect()
}

/// Checks the flags and the entries against each other, then launches them in order, with
/// the synchronization the flags ask for.
///
/// # Safety
/// Each entry's argument pointers must be valid for its kernel.
unsafe fn launch_all(launches: &[Launch], flags: c_uint, cooperative: bool) -> HipResult<()> {
    if flags & !(NO_PRE_SYNC | NO_POST_SYNC) != 0 {
        return Err(Failure::invalid_value(format!(
            "flags {flags:#x}: hipCooperativeLaunchMultiDeviceNoPreSync (1) and NoPostSync (2) \
             only"
        )));
    }
    let first = &launches[0];
    for (i, l) in launches.iter().enumerate() {
        let same_kernel = Arc::ptr_eq(&l.kernel.module, &first.kernel.module)
            && l.kernel.index() == first.kernel.index();
        if !same_kernel
            || (l.grid, l.block, l.shared_mem) != (first.grid, first.block, first.shared_mem)
        {
            return Err(Failure::invalid_value(format!(
                "launch {i} differs from launch 0 in its kernel, grid, block or shared memory: \
                 every device runs the same launch"
            )));
        }
        if launches[..i]
            .iter()
            .any(|o| o.stream.device() == l.stream.device())
        {
            return Err(Failure::invalid_value(format!(
                "launch {i} is on device {}, which an earlier launch uses: one launch per device",
                l.stream.device()
            )));
        }
    }
    // SAFETY: per the caller.
    let blocks = launches
        .iter()
        .map(|l| unsafe { l.pack() })
        .collect::<HipResult<Vec<_>>>()?;
    let streams: Vec<&Arc<Stream>> = launches.iter().map(|l| &l.stream).collect();
    if flags & NO_PRE_SYNC == 0 {
        join(&streams)?;
    }
    let op = if cooperative {
        ops::launch_cooperative
    } else {
        ops::launch
    };
    for (l, args) in launches.iter().zip(&blocks) {
        let cfg = LaunchConfig {
            grid: l.grid,
            block: l.block,
            shared_mem: l.shared_mem,
            stream: &l.stream,
            args,
        };
        op(&l.kernel, &cfg)?;
    }
    if flags & NO_POST_SYNC == 0 {
        join(&streams)?;
    }
    Ok(())
}

/// Makes the later work of every stream wait for the work queued so far on all of them.
fn join(streams: &[&Arc<Stream>]) -> HipResult<()> {
    if streams.len() < 2 {
        return Ok(());
    }
    let b = backend()?;
    let flags = EventFlags {
        disable_timing: true,
        ..EventFlags::default()
    };
    let events = streams
        .iter()
        .map(|s| {
            let event: Arc<dyn Event> = Arc::from(b.device(s.device())?.create_event(flags)?);
            ops::record(&event, s)?;
            Ok(event)
        })
        .collect::<HipResult<Vec<_>>>()?;
    for (i, s) in streams.iter().enumerate() {
        for (j, event) in events.iter().enumerate() {
            if i != j {
                ops::wait_event(s, event)?;
            }
        }
    }
    Ok(())
}

/// An entry of `hipLaunchParams`: the kernel of a host stub, its arguments as pointers.
fn runtime_entry(p: &LaunchParams) -> HipResult<Launch> {
    Ok(Launch {
        kernel: kernel_of(p.func)?,
        grid: p.grid,
        block: p.block,
        shared_mem: p.shared_mem,
        stream: stream(p.stream)?,
        args: Args::Pointers(p.args),
    })
}

/// Launches the same kernel cooperatively on several devices, each on the stream its entry
/// names (see the module docs for the flags).
///
/// # Safety
/// `list` must be null or valid for `count` entries, each with valid arguments.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchCooperativeKernelMultiDevice(
    list: *mut LaunchParams,
    count: c_int,
    flags: c_uint,
) -> hipError_t {
    guard("hipLaunchCooperativeKernelMultiDevice", || {
        // SAFETY: per the caller.
        let launches = unsafe { entries(list, i64::from(count), runtime_entry) }?;
        // SAFETY: per the caller.
        unsafe { launch_all(&launches, flags, true) }
    })
}

/// [`hipLaunchCooperativeKernelMultiDevice`] with plain (not cooperative) launches.
///
/// # Safety
/// As `hipLaunchCooperativeKernelMultiDevice`.
#[no_mangle]
pub unsafe extern "C" fn hipExtLaunchMultiKernelMultiDevice(
    list: *mut LaunchParams,
    count: c_int,
    flags: c_uint,
) -> hipError_t {
    guard("hipExtLaunchMultiKernelMultiDevice", || {
        // SAFETY: per the caller.
        let launches = unsafe { entries(list, i64::from(count), runtime_entry) }?;
        // SAFETY: per the caller.
        unsafe { launch_all(&launches, flags, false) }
    })
}

/// [`hipLaunchCooperativeKernelMultiDevice`] of a module's function.
///
/// # Safety
/// `list` must be null or valid for `count` entries, each with valid `kernelParams`.
#[no_mangle]
pub unsafe extern "C" fn hipModuleLaunchCooperativeKernelMultiDevice(
    list: *mut FunctionLaunchParams,
    count: c_uint,
    flags: c_uint,
) -> hipError_t {
    guard("hipModuleLaunchCooperativeKernelMultiDevice", || {
        let entry = |p: &FunctionLaunchParams| {
            Ok(Launch {
                kernel: module_function(p.function)?,
                grid: Dim3::new(p.grid_x, p.grid_y, p.grid_z),
                block: Dim3::new(p.block_x, p.block_y, p.block_z),
                shared_mem: p.shared_mem as usize,
                stream: stream(p.stream)?,
                args: Args::Module(p.kernel_params),
            })
        };
        // SAFETY: per the caller.
        let launches = unsafe { entries(list, i64::from(count), entry) }?;
        // SAFETY: per the caller.
        unsafe { launch_all(&launches, flags, true) }
    })
}
