//! Stream memory operations: `hipStreamWriteValue32/64` write a word in stream order,
//! `hipStreamWaitValue32/64` hold the stream's later work until a word meets a comparison
//! (`hipStreamWaitValueGte`, `Eq`, `And`, `Nor`, under a mask). The word must be memory the
//! device and the host both reach (device, pinned or managed memory).

use std::ffi::{c_uint, c_void};

use super::{guard, hipError_t, hipStream_t, stream};
use crate::backend::{ops, ValueWait, ValueWidth, ValueWrite, WaitCondition};
use crate::error::{Failure, HipResult};

fn write(
    s: hipStream_t,
    p: *mut c_void,
    value: u64,
    flags: c_uint,
    width: ValueWidth,
) -> HipResult<()> {
    ValueWait::check_address(p as usize, width)?;
    if flags != 0 {
        return Err(Failure::invalid_value(format!(
            "flags must be 0, got {flags:#x}"
        )));
    }
    let target = stream(s)?;
    ops::write_value(
        &target,
        &ValueWrite {
            address: p as usize,
            width,
            value: width.truncate(value),
        },
    )
}

fn wait(
    s: hipStream_t,
    p: *mut c_void,
    value: u64,
    flags: c_uint,
    mask: u64,
    width: ValueWidth,
) -> HipResult<()> {
    ValueWait::check_address(p as usize, width)?;
    let condition = WaitCondition::parse(flags)?;
    let target = stream(s)?;
    ops::wait_value(
        &target,
        &ValueWait {
            address: p as usize,
            width,
            condition,
            value: width.truncate(value),
            mask: width.truncate(mask),
        },
    )
}

/// Writes `value` to the 32-bit word `p` once the work before it on `s` is done.
#[no_mangle]
pub extern "C" fn hipStreamWriteValue32(
    s: hipStream_t,
    p: *mut c_void,
    value: u32,
    flags: c_uint,
) -> hipError_t {
    guard("hipStreamWriteValue32", || {
        write(s, p, u64::from(value), flags, ValueWidth::Bits32)
    })
}

/// Writes `value` to the 64-bit word `p` once the work before it on `s` is done.
#[no_mangle]
pub extern "C" fn hipStreamWriteValue64(
    s: hipStream_t,
    p: *mut c_void,
    value: u64,
    flags: c_uint,
) -> hipError_t {
    guard("hipStreamWriteValue64", || {
        write(s, p, value, flags, ValueWidth::Bits64)
    })
}

/// Later work on `s` waits until the 32-bit word `p`, masked, meets `flags`' comparison with
/// `value`.
#[no_mangle]
pub extern "C" fn hipStreamWaitValue32(
    s: hipStream_t,
    p: *mut c_void,
    value: u32,
    flags: c_uint,
    mask: u32,
) -> hipError_t {
    guard("hipStreamWaitValue32", || {
        wait(
            s,
            p,
            u64::from(value),
            flags,
            u64::from(mask),
            ValueWidth::Bits32,
        )
    })
}

/// Later work on `s` waits until the 64-bit word `p`, masked, meets `flags`' comparison with
/// `value`.
#[no_mangle]
pub extern "C" fn hipStreamWaitValue64(
    s: hipStream_t,
    p: *mut c_void,
    value: u64,
    flags: c_uint,
    mask: u64,
) -> hipError_t {
    guard("hipStreamWaitValue64", || {
        wait(s, p, value, flags, mask, ValueWidth::Bits64)
    })
}
