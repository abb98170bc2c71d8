//! Device variables from the host: `hipMemcpyToSymbol`/`hipMemcpyFromSymbol` (and `Async`),
//! `hipGetSymbolAddress`, `hipGetSymbolSize`. A symbol is the address of the variable's host
//! shadow (`HIP_SYMBOL(x)`, or `x` itself through the header's templates); see `symbols`.

use std::ffi::{c_int, c_void};

use super::{guard, hipError_t, hipStream_t, write_out};
use crate::symbols;

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
        on_cuda!(cu => crate::cuda::api::symbol_copy(cu, symbol, src, size_bytes, offset, kind, true, None));
        symbols::copy(symbol, src, size_bytes, offset, kind, true, None)
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
        on_cuda!(cu => crate::cuda::api::symbol_copy(cu, symbol, dst, size_bytes, offset, kind, false, None));
        symbols::copy(symbol, dst, size_bytes, offset, kind, false, None)
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
        on_cuda!(cu => crate::cuda::api::symbol_copy(cu, symbol, src, size_bytes, offset, kind, true, Some(stream as usize)));
        symbols::copy(
            symbol,
            src,
            size_bytes,
            offset,
            kind,
            true,
            Some(stream as usize),
        )
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
        on_cuda!(cu => crate::cuda::api::symbol_copy(cu, symbol, dst, size_bytes, offset, kind, false, Some(stream as usize)));
        symbols::copy(
            symbol,
            dst,
            size_bytes,
            offset,
            kind,
            false,
            Some(stream as usize),
        )
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
            return Err(crate::error::Failure::invalid_value(
                "the result pointer is null",
            ));
        }
        on_cuda!(cu => {
            let (address, _) = crate::cuda::api::symbol(cu, symbol)?;
            // SAFETY: checked non-null; valid per the caller.
            unsafe { write_out(dev_ptr, address as usize as *mut c_void, "the result pointer") }
        });
        let address = var.address()?;
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
