//! Device variables from the host: `hipMemcpyToSymbol`/`hipMemcpyFromSymbol` (and `Async`),
//! `hipGetSymbolAddress`, `hipGetSymbolSize`. A symbol is the address of the variable's host
//! shadow (`HIP_SYMBOL(x)`, or `x` itself through the header's templates); see `symbols`.

use std::ffi::{c_int, c_void};

use super::{current_device, guard, hipError_t, hipStream_t, stream, write_out};
use crate::backend::{ops, Copy3d};
use crate::error::{Failure, HipResult};
use crate::symbols;

/// `hipMemcpyToSymbol[Async]` and `hipMemcpyFromSymbol[Async]`: copies `bytes` between `other`
/// and the variable `symbol` at `offset`, through the ordinary copy path. `on`: `None` for the
/// synchronous calls (the null stream, waited for), else the stream.
#[allow(clippy::too_many_arguments)]
fn copy(
    symbol: *const c_void,
    other: *const c_void,
    bytes: usize,
    offset: usize,
    kind: c_int,
    to_symbol: bool,
    on: Option<hipStream_t>,
) -> HipResult<()> {
    let var = symbols::find(symbol)?;
    let kind = symbols::check_kind(kind, to_symbol)?;
    var.check_range(offset, bytes)?;
    let target = match on {
        None => None,
        Some(s) => Some(stream(s)?),
    };
    if bytes == 0 {
        return Ok(());
    }
    if other.is_null() {
        return Err(Failure::invalid_value(format!(
            "null {} pointer for a {bytes}-byte copy {} device variable '{}'",
            if to_symbol { "source" } else { "destination" },
            if to_symbol { "to" } else { "from" },
            var.info().name
        )));
    }
    let device = current_device()?;
    let (address, _) = device.variable(&var.module, var.index)?;
    let at = (address + offset) as *mut c_void;
    let (dst, src) = if to_symbol {
        (at, other)
    } else {
        (other as *mut c_void, at as *const c_void)
    };
    let copy = Copy3d::linear(dst, src, bytes);
    match target {
        None => ops::copy(&device.null_stream(), &copy, kind, true),
        Some(s) => ops::copy(&s, &copy, kind, false),
    }
}

/// Copies `size_bytes` from `src` into the device variable `symbol`, `offset` bytes in.
/// Synchronous. `kind`: `hipMemcpyHostToDevice`, `DeviceToDevice` or `Default`.
///
/// # Safety
/// `src` must be valid for `size_bytes` bytes (host memory) or lie in a device allocation.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyToSymbol(
    symbol: *const c_void,
    src: *const c_void,
    size_bytes: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipMemcpyToSymbol", || {
        copy(symbol, src, size_bytes, offset, kind, true, None)
    })
}

/// Copies `size_bytes` of the device variable `symbol`, from `offset` bytes in, to `dst`.
/// Synchronous. `kind`: `hipMemcpyDeviceToHost`, `DeviceToDevice` or `Default`.
///
/// # Safety
/// `dst` must be valid for `size_bytes` bytes (host memory) or lie in a device allocation.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyFromSymbol(
    dst: *mut c_void,
    symbol: *const c_void,
    size_bytes: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipMemcpyFromSymbol", || {
        copy(symbol, dst, size_bytes, offset, kind, false, None)
    })
}

/// `hipMemcpyToSymbol` on `stream`, returning at once (after the variable's first use, which
/// waits for its address). `src` must stay valid until the stream is synchronized.
///
/// # Safety
/// As `hipMemcpyToSymbol`, for as long as the copy is pending.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyToSymbolAsync(
    symbol: *const c_void,
    src: *const c_void,
    size_bytes: usize,
    offset: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemcpyToSymbolAsync", || {
        copy(symbol, src, size_bytes, offset, kind, true, Some(stream))
    })
}

/// `hipMemcpyFromSymbol` on `stream`, returning at once. `dst` must stay valid (and unread) until
/// the stream is synchronized.
///
/// # Safety
/// As `hipMemcpyFromSymbol`, for as long as the copy is pending.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyFromSymbolAsync(
    dst: *mut c_void,
    symbol: *const c_void,
    size_bytes: usize,
    offset: usize,
    kind: c_int,
    stream: hipStream_t,
) -> hipError_t {
    guard("hipMemcpyFromSymbolAsync", || {
        copy(symbol, dst, size_bytes, offset, kind, false, Some(stream))
    })
}

/// The device address of the variable `symbol`: usable with `hipMemcpy`, `hipMemset` and as a
/// kernel argument.
///
/// # Safety
/// `dev_ptr` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipGetSymbolAddress(
    dev_ptr: *mut *mut c_void,
    symbol: *const c_void,
) -> hipError_t {
    guard("hipGetSymbolAddress", || {
        let var = symbols::find(symbol)?;
        if dev_ptr.is_null() {
            return Err(Failure::invalid_value("the result pointer is null"));
        }
        let (address, _) = current_device()?.variable(&var.module, var.index)?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(dev_ptr, address as *mut c_void, "the result pointer") }
    })
}

/// The size in bytes of the device variable `symbol` (no device work).
///
/// # Safety
/// `size` must be null or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn hipGetSymbolSize(size: *mut usize, symbol: *const c_void) -> hipError_t {
    guard("hipGetSymbolSize", || {
        let var = symbols::find(symbol)?;
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe { write_out(size, var.size(), "the result pointer") }
    })
}
