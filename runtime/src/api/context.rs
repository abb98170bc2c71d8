//! The driver API's devices and contexts: `hipDeviceGet`, `hipCtx*` (deprecated by HIP, still
//! called by programs) and the primary contexts (`hipDevicePrimaryCtx*`).
//!
//! A context names a device. As in HIP, every context of a device shares its memory, streams and
//! modules (a backend `Device` is its primary context): `hipCtxCreate` makes a context object of
//! its own, with its flags and cache settings, that can be pushed, made current and destroyed;
//! each device's primary context is one fixed handle, retained and released by count. Each host
//! thread keeps a stack of contexts: its top is the current context, and making a context
//! current makes its device the thread's device (`hipSetDevice`). With an empty stack the
//! current context is the primary context of the thread's device, as HIP answers.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::{current_device_id, device_at, guard, hipError_t, set_current_device, write_out};
use crate::backend::DeviceId;
use crate::error::{Failure, HipError, HipResult};
use crate::handles::{HandleTable, Kind};
use crate::props::HIP_VERSION;

/// `hipCtx_t`.
#[allow(non_camel_case_types)]
pub type hipCtx_t = *mut c_void;

/// One context.
#[derive(Debug)]
struct Context {
    device: DeviceId,
    primary: bool,
    settings: Mutex<Settings>,
}

/// What a context keeps for the program to read back.
#[derive(Debug, Clone, Copy)]
struct Settings {
    /// `hipDeviceSchedule*`, `hipDeviceMapHost`, `hipDeviceLmemResizeToMax`.
    flags: u32,
    /// `hipFuncCache_t`.
    cache: c_int,
    /// `hipSharedMemConfig` (four-byte banks unless set, as HIP reports).
    shared: c_int,
}

impl Context {
    fn new(device: DeviceId, primary: bool, flags: u32) -> Context {
        Context {
            device,
            primary,
            settings: Mutex::new(Settings {
                flags,
                cache: 0,
                shared: SHARED_FOUR_BYTE,
            }),
        }
    }

    fn settings(&self) -> MutexGuard<'_, Settings> {
        self.settings.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `hipSharedMemBankSizeFourByte`.
const SHARED_FOUR_BYTE: c_int = 1;
/// The scheduling flags' bits, and the whole of the context flags.
const SCHEDULE_MASK: u32 = 0x7;
const CONTEXT_FLAGS: u32 = SCHEDULE_MASK | 0x8 | 0x10;

/// Checks context flags: known bits, and one scheduling choice (auto, spin, yield, blocking).
fn check_flags(flags: u32) -> HipResult<()> {
    let schedule = flags & SCHEDULE_MASK;
    if flags & !CONTEXT_FLAGS != 0 || !matches!(schedule, 0 | 1 | 2 | 4) {
        return Err(Failure::invalid_value(format!(
            "context flags {flags:#x}: one of hipDeviceScheduleAuto/Spin/Yield/BlockingSync, \
             with hipDeviceMapHost and hipDeviceLmemResizeToMax"
        )));
    }
    Ok(())
}

fn contexts() -> &'static HandleTable<Context> {
    static TABLE: OnceLock<HandleTable<Context>> = OnceLock::new();
    TABLE.get_or_init(|| HandleTable::new(Kind::Context))
}

/// Each device's primary context: its handle and how often it is retained.
#[derive(Debug, Clone, Copy)]
struct Primary {
    handle: usize,
    retains: u32,
}

fn primaries() -> MutexGuard<'static, HashMap<DeviceId, Primary>> {
    static PRIMARIES: OnceLock<Mutex<HashMap<DeviceId, Primary>>> = OnceLock::new();
    PRIMARIES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// `device`'s primary context (made on first use).
fn primary_of(device: DeviceId) -> usize {
    primaries()
        .entry(device)
        .or_insert_with(|| Primary {
            handle: contexts().insert(Arc::new(Context::new(device, true, 0))),
            retains: 0,
        })
        .handle
}

thread_local! {
    /// The calling thread's context stack; its top is the current context.
    static STACK: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

fn with_stack<R>(f: impl FnOnce(&mut Vec<usize>) -> R) -> HipResult<R> {
    STACK
        .try_with(|s| f(&mut s.borrow_mut()))
        .map_err(|_| Failure::new(HipError::InvalidContext, "the thread is exiting"))
}

/// The live context a handle names; anything else (null included) is
/// `hipErrorInvalidContext`.
fn context(handle: hipCtx_t) -> HipResult<Arc<Context>> {
    contexts().get(handle as usize).ok_or_else(|| {
        Failure::new(
            HipError::InvalidContext,
            format!("{handle:p} is not a live context (destroyed, or never created)"),
        )
    })
}

/// The calling thread's current context: the top of its stack, else its device's primary one.
fn current() -> HipResult<(usize, Arc<Context>)> {
    let top = with_stack(|s| s.last().copied())?;
    let handle = match top {
        Some(h) => h,
        None => primary_of(device_at(current_device_id() as c_int)?.id()),
    };
    Ok((handle, context(handle as hipCtx_t)?))
}

/// The flags of the calling thread's current context if `hipCtxCreate` made it (None for a
/// primary context, whose flags are its device's).
pub(crate) fn created_context_flags() -> HipResult<Option<u32>> {
    let Some(top) = with_stack(|s| s.last().copied())? else {
        return Ok(None);
    };
    let ctx = context(top as hipCtx_t)?;
    Ok((!ctx.primary).then(|| ctx.settings().flags))
}

/// Makes `ctx`'s device the calling thread's.
fn enter(ctx: &Context) -> HipResult<()> {
    set_current_device(device_at(ctx.device as c_int)?)
}

/// The device with HIP ordinal `ordinal` (a `hipDevice_t` is the ordinal).
///
/// # Safety
/// `out` must be null or valid for writing a `hipDevice_t`.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGet(out: *mut c_int, ordinal: c_int) -> hipError_t {
    guard("hipDeviceGet", || {
        device_at(ordinal)?;
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { write_out(out, ordinal, "the device pointer") }
    })
}

/// Creates a context on `dev` with `flags` and pushes it on the calling thread's stack (its
/// device becomes the thread's).
///
/// # Safety
/// `out` must be null or valid for writing a `hipCtx_t`.
#[no_mangle]
pub unsafe extern "C" fn hipCtxCreate(out: *mut hipCtx_t, flags: c_uint, dev: c_int) -> hipError_t {
    guard("hipCtxCreate", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the context pointer is null"));
        }
        check_flags(flags)?;
        let d = device_at(dev).map_err(|e| Failure::invalid_value(e.message))?;
        let ctx = Arc::new(Context::new(d.id(), false, flags));
        enter(&ctx)?;
        let handle = contexts().insert(ctx);
        with_stack(|s| s.push(handle))?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(out, handle as hipCtx_t, "the context pointer") }
    })
}

/// Destroys a context made by `hipCtxCreate` (popped from the calling thread's stack if it is
/// its top); it is invalid afterwards. Null is `hipErrorInvalidValue`; a primary context (released
/// with `hipDevicePrimaryCtxRelease`) or a dead one `hipErrorInvalidContext`.
#[no_mangle]
pub extern "C" fn hipCtxDestroy(ctx: hipCtx_t) -> hipError_t {
    guard("hipCtxDestroy", || {
        if ctx.is_null() {
            return Err(Failure::invalid_value("the context is null"));
        }
        if context(ctx)?.primary {
            return Err(Failure::new(
                HipError::InvalidContext,
                "a primary context is not destroyed: release it (hipDevicePrimaryCtxRelease)",
            ));
        }
        contexts().remove(ctx as usize);
        with_stack(|s| {
            if s.last() == Some(&(ctx as usize)) {
                s.pop();
            }
        })?;
        Ok(())
    })
}

/// Pushes `ctx` on the calling thread's stack: it becomes current, its device the thread's.
#[no_mangle]
pub extern "C" fn hipCtxPushCurrent(ctx: hipCtx_t) -> hipError_t {
    guard("hipCtxPushCurrent", || {
        let c = context(ctx)?;
        enter(&c)?;
        with_stack(|s| s.push(ctx as usize))
    })
}

/// Pops the calling thread's current context into `*out` (which may be null); the next one
/// down, if any, becomes current. An empty stack is `hipErrorInvalidContext`.
///
/// # Safety
/// `out` must be null or valid for writing a `hipCtx_t`.
#[no_mangle]
pub unsafe extern "C" fn hipCtxPopCurrent(out: *mut hipCtx_t) -> hipError_t {
    guard("hipCtxPopCurrent", || {
        let (popped, below) = with_stack(|s| (s.pop(), s.last().copied()))?;
        let popped = popped.ok_or_else(|| {
            Failure::new(
                HipError::InvalidContext,
                "no context is current on this thread (its stack is empty)",
            )
        })?;
        if let Some(next) = below.map(|h| context(h as hipCtx_t)).transpose()? {
            enter(&next)?;
        }
        if !out.is_null() {
            // SAFETY: non-null; valid per the caller.
            unsafe { write_out(out, popped as hipCtx_t, "the context pointer") }?;
        }
        Ok(())
    })
}

/// Makes `ctx` current in place of the top of the calling thread's stack (pushed on an empty
/// one); null pops the top.
#[no_mangle]
pub extern "C" fn hipCtxSetCurrent(ctx: hipCtx_t) -> hipError_t {
    guard("hipCtxSetCurrent", || {
        if ctx.is_null() {
            return with_stack(|s| {
                s.pop();
            });
        }
        let c = context(ctx)?;
        enter(&c)?;
        with_stack(|s| {
            s.pop();
            s.push(ctx as usize);
        })
    })
}

/// The calling thread's current context (its device's primary one when its stack is empty).
///
/// # Safety
/// `out` must be null or valid for writing a `hipCtx_t`.
#[no_mangle]
pub unsafe extern "C" fn hipCtxGetCurrent(out: *mut hipCtx_t) -> hipError_t {
    guard("hipCtxGetCurrent", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the context pointer is null"));
        }
        let (handle, _) = current()?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(out, handle as hipCtx_t, "the context pointer") }
    })
}

/// The device of the current context.
///
/// # Safety
/// `out` must be null or valid for writing a `hipDevice_t`.
#[no_mangle]
pub unsafe extern "C" fn hipCtxGetDevice(out: *mut c_int) -> hipError_t {
    guard("hipCtxGetDevice", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the device pointer is null"));
        }
        let (_, c) = current()?;
        let ordinal = c_int::try_from(c.device).unwrap_or(c_int::MAX);
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(out, ordinal, "the device pointer") }
    })
}

/// The API version a context serves: the HIP version hipmlir implements (`HIP_VERSION`).
///
/// # Safety
/// `version` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipCtxGetApiVersion(ctx: hipCtx_t, version: *mut c_int) -> hipError_t {
    guard("hipCtxGetApiVersion", || {
        if !ctx.is_null() {
            context(ctx)?;
        }
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { write_out(version, HIP_VERSION, "the version pointer") }
    })
}

/// The current context's cache preference (`hipFuncCache_t`; `hipFuncCachePreferNone` unless
/// set).
///
/// # Safety
/// `config` must be null or valid for writing a `hipFuncCache_t`.
#[no_mangle]
pub unsafe extern "C" fn hipCtxGetCacheConfig(config: *mut c_int) -> hipError_t {
    guard("hipCtxGetCacheConfig", || {
        let value = current()?.1.settings().cache;
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { write_out(config, value, "the configuration pointer") }
    })
}

/// Sets the current context's cache preference: a hint neither backend's hardware model takes
/// from a context (kept and reported).
#[no_mangle]
pub extern "C" fn hipCtxSetCacheConfig(config: c_int) -> hipError_t {
    guard("hipCtxSetCacheConfig", || {
        if !(0..=3).contains(&config) {
            return Err(Failure::invalid_value(format!(
                "{config} is not a hipFuncCache_t value"
            )));
        }
        current()?.1.settings().cache = config;
        Ok(())
    })
}

/// The current context's shared memory bank size (`hipSharedMemConfig`; four-byte banks unless
/// set).
///
/// # Safety
/// `config` must be null or valid for writing a `hipSharedMemConfig`.
#[no_mangle]
pub unsafe extern "C" fn hipCtxGetSharedMemConfig(config: *mut c_int) -> hipError_t {
    guard("hipCtxGetSharedMemConfig", || {
        let value = current()?.1.settings().shared;
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { write_out(config, value, "the configuration pointer") }
    })
}

/// Sets the current context's shared memory bank size (kept and reported: the backends' banks
/// are not configurable).
#[no_mangle]
pub extern "C" fn hipCtxSetSharedMemConfig(config: c_int) -> hipError_t {
    guard("hipCtxSetSharedMemConfig", || {
        if !(0..=2).contains(&config) {
            return Err(Failure::invalid_value(format!(
                "{config} is not a hipSharedMemConfig value"
            )));
        }
        current()?.1.settings().shared = config;
        Ok(())
    })
}

/// Waits for all work of the current context's device.
#[no_mangle]
pub extern "C" fn hipCtxSynchronize() -> hipError_t {
    guard("hipCtxSynchronize", || {
        let (_, c) = current()?;
        device_at(c.device as c_int)?.synchronize()
    })
}

/// The current context's flags.
///
/// # Safety
/// `flags` must be null or valid for writing an `unsigned int`.
#[no_mangle]
pub unsafe extern "C" fn hipCtxGetFlags(flags: *mut c_uint) -> hipError_t {
    guard("hipCtxGetFlags", || {
        let value = current()?.1.settings().flags;
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { write_out(flags, value, "the flags pointer") }
    })
}

extern "C" {
    // The runtime API's peer functions, whichever file of `api` serves them (linked by name so
    // the contexts' forms follow them).
    fn hipDeviceEnablePeerAccess(peer: c_int, flags: c_uint) -> hipError_t;
    fn hipDeviceDisablePeerAccess(peer: c_int) -> hipError_t;
}

/// Turns a code another entry point returned (and reported) into this call's result.
fn result_of(code: hipError_t) -> HipResult<()> {
    match HipError::from_code(code) {
        Some(HipError::Success) => Ok(()),
        Some(e) => Err(Failure::quiet(e)),
        None => Err(Failure::quiet(HipError::Unknown)),
    }
}

/// Lets the current context's device reach `peer`'s device's memory
/// (`hipDeviceEnablePeerAccess`).
#[no_mangle]
pub extern "C" fn hipCtxEnablePeerAccess(peer: hipCtx_t, flags: c_uint) -> hipError_t {
    guard("hipCtxEnablePeerAccess", || {
        let p = context(peer)?;
        current()?;
        // SAFETY: a plain C call of this library.
        result_of(unsafe { hipDeviceEnablePeerAccess(p.device as c_int, flags) })
    })
}

/// Undoes [`hipCtxEnablePeerAccess`] (`hipDeviceDisablePeerAccess`).
#[no_mangle]
pub extern "C" fn hipCtxDisablePeerAccess(peer: hipCtx_t) -> hipError_t {
    guard("hipCtxDisablePeerAccess", || {
        let p = context(peer)?;
        current()?;
        // SAFETY: a plain C call of this library.
        result_of(unsafe { hipDeviceDisablePeerAccess(p.device as c_int) })
    })
}

/// Retains `dev`'s primary context and writes its handle (the device is opened and made usable
/// from the calling thread; it does not become current).
///
/// # Safety
/// `out` must be null or valid for writing a `hipCtx_t`.
#[no_mangle]
pub unsafe extern "C" fn hipDevicePrimaryCtxRetain(out: *mut hipCtx_t, dev: c_int) -> hipError_t {
    guard("hipDevicePrimaryCtxRetain", || {
        let d = device_at(dev)?;
        if out.is_null() {
            return Err(Failure::invalid_value("the context pointer is null"));
        }
        d.make_current()?;
        let handle = primary_of(d.id());
        if let Some(p) = primaries().get_mut(&d.id()) {
            p.retains = p.retains.saturating_add(1);
        }
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(out, handle as hipCtx_t, "the context pointer") }
    })
}

/// Releases what [`hipDevicePrimaryCtxRetain`] retained; releasing more often than retained is
/// `hipErrorInvalidContext`. The device's memory and streams stay (the runtime API keeps using
/// them).
#[no_mangle]
pub extern "C" fn hipDevicePrimaryCtxRelease(dev: c_int) -> hipError_t {
    guard("hipDevicePrimaryCtxRelease", || {
        let d = device_at(dev)?;
        primary_of(d.id());
        let mut all = primaries();
        let p = all.get_mut(&d.id()).ok_or_else(|| {
            Failure::new(
                HipError::InvalidContext,
                "the primary context is not retained",
            )
        })?;
        if p.retains == 0 {
            return Err(Failure::new(
                HipError::InvalidContext,
                format!("device {dev}'s primary context is not retained"),
            ));
        }
        p.retains -= 1;
        Ok(())
    })
}

/// The primary context's flags and whether it is active (retained through the driver API);
/// either result pointer may be null.
///
/// # Safety
/// `flags` and `active` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipDevicePrimaryCtxGetState(
    dev: c_int,
    flags: *mut c_uint,
    active: *mut c_int,
) -> hipError_t {
    guard("hipDevicePrimaryCtxGetState", || {
        let d = device_at(dev)?;
        let handle = primary_of(d.id());
        let retained = primaries().get(&d.id()).is_some_and(|p| p.retains > 0);
        let value = context(handle as hipCtx_t)?.settings().flags;
        // SAFETY: each is checked non-null; valid per the caller.
        unsafe {
            if !flags.is_null() {
                write_out(flags, value, "the flags pointer")?;
            }
            if !active.is_null() {
                write_out(active, c_int::from(retained), "the active pointer")?;
            }
        }
        Ok(())
    })
}

/// Sets the primary context's scheduling flags (`hipDeviceSchedule*`, `hipDeviceMapHost`,
/// `hipDeviceLmemResizeToMax`): the CUDA driver's own; kept and reported on OpenCL, whose
/// queues have no such choice.
#[no_mangle]
pub extern "C" fn hipDevicePrimaryCtxSetFlags(dev: c_int, flags: c_uint) -> hipError_t {
    guard("hipDevicePrimaryCtxSetFlags", || {
        let d = device_at(dev)?;
        check_flags(flags)?;
        d.set_context_flags(flags)?;
        let handle = primary_of(d.id());
        context(handle as hipCtx_t)?.settings().flags = flags;
        Ok(())
    })
}

/// Resets `dev`'s primary context as `hipDeviceReset` resets the device: every allocation,
/// stream and event goes, modules load again on their next use.
#[no_mangle]
pub extern "C" fn hipDevicePrimaryCtxReset(dev: c_int) -> hipError_t {
    guard("hipDevicePrimaryCtxReset", || {
        super::device::reset(device_at(dev)?)
    })
}
