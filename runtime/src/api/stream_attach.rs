//! `hipStreamAttachMemAsync`: which streams a program promises will use managed memory. The
//! arguments are checked as HIP checks them; the CUDA driver takes the promise
//! (`cuStreamAttachMemAsync`), while OpenCL's shared (managed) memory is coherent for every
//! stream, so the promise changes nothing there.

use std::ffi::{c_uint, c_void};

use super::{current_device, guard, hipError_t, hipStream_t};
use crate::backend::{DeviceAttribute, MemoryType};
use crate::error::{Failure, HipResult};

/// `hipMemAttachGlobal`, `hipMemAttachHost`, `hipMemAttachSingle`: exactly one of them.
const ATTACH_FLAGS: [c_uint; 3] = [1, 2, 4];
const ATTACH_SINGLE: c_uint = 4;

/// Attaches `length` bytes of managed memory at `dev_ptr` (0 or the allocation's size: all of
/// it) to `stream`, or with `hipMemAttachGlobal`/`Host` to every stream or the host. Pageable
/// host memory may be named, by a non-zero length, where the device reaches pageable memory.
#[no_mangle]
pub extern "C" fn hipStreamAttachMemAsync(
    stream: hipStream_t,
    dev_ptr: *mut c_void,
    length: usize,
    flags: c_uint,
) -> hipError_t {
    guard("hipStreamAttachMemAsync", || {
        let s = super::stream(stream)?;
        if dev_ptr.is_null() {
            return Err(Failure::invalid_value("the pointer is null"));
        }
        if !ATTACH_FLAGS.contains(&flags) {
            return Err(Failure::invalid_value(format!(
                "flags {flags:#x}: one of hipMemAttachGlobal (1), hipMemAttachHost (2) and \
                 hipMemAttachSingle (4)"
            )));
        }
        if flags == ATTACH_SINGLE && s.is_null() {
            return Err(Failure::invalid_value(
                "hipMemAttachSingle names one stream: the null stream is every blocking one",
            ));
        }
        check_range(dev_ptr, length)?;
        s.queue().attach_memory(dev_ptr, length, flags)
    })
}

/// The memory must be a whole managed allocation (a length of 0 or its size, from its start),
/// or pageable host memory of a non-zero length on a device that reaches pageable memory.
fn check_range(p: *mut c_void, length: usize) -> HipResult<()> {
    let device = current_device()?;
    match device.allocation(p)? {
        Some(a) if a.memory == MemoryType::Managed => {
            if a.base != p as usize || (length != 0 && length != a.size) {
                return Err(Failure::invalid_value(format!(
                    "{p:p}+{length}: managed memory is attached whole (from the start of the \
                     {}-byte allocation at {:#x}, a length of 0 or its size)",
                    a.size, a.base
                )));
            }
            Ok(())
        }
        Some(a) => Err(Failure::invalid_value(format!(
            "{p:p} is {:?} memory, not managed memory (hipMallocManaged)",
            a.memory
        ))),
        None if device.attribute(DeviceAttribute::PageableMemoryAccess)? == 0 => {
            Err(Failure::invalid_value(format!(
                "{p:p} is not managed memory, and the device does not reach pageable memory"
            )))
        }
        None if length == 0 => Err(Failure::invalid_value(format!(
            "{p:p} is pageable memory: its length must be given"
        ))),
        None => Ok(()),
    }
}
