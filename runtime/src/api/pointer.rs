//! Pointer queries: `hipPointerGetAttributes`, the driver API's single attributes
//! (`hipPointerGetAttribute`, `hipDrvPointerGetAttributes`, `hipPointerSetAttribute`),
//! `hipMemGetAddressRange` and `hipMemPtrGetInfo`. Each backend tells what it knows of the
//! allocation holding a pointer (`Device::allocation`); arrays are the runtime's own handles.
//!
//! As in HIP 6, `hipPointerGetAttributes` answers memory nobody allocated with
//! `hipMemoryTypeUnregistered` and success; the single-attribute queries answer it with
//! `hipErrorInvalidValue`. Attribute values have the widths HIP writes (`RANGE_SIZE` and
//! `BUFFER_ID` are 32-bit, the booleans one byte), never more than the caller's variable holds.

use std::ffi::{c_int, c_uint, c_void};

use super::{current_device, guard, hipError_t, write_out};
use crate::backend::{Allocation, MemoryType, PointerAttributes};
use crate::error::{Failure, HipError, HipResult};

/// What the runtime knows of a pointer.
enum Known {
    Memory(Allocation),
    /// A live `hipArray_t` (a handle, never an address).
    Array,
    Nothing,
}

/// What `p` is: memory of the current device's backend (which, with unified addressing, knows
/// every device's), an array handle, or nothing known.
fn known(p: *const c_void) -> HipResult<Known> {
    if crate::arrays::get(p as usize).is_ok() {
        return Ok(Known::Array);
    }
    Ok(match current_device()?.allocation(p)? {
        Some(a) => Known::Memory(a),
        None => Known::Nothing,
    })
}

/// The allocation holding `p`, or `code` naming `what` asked.
pub(crate) fn allocation_of(p: *const c_void, code: HipError, what: &str) -> HipResult<Allocation> {
    match current_device()?.allocation(p)? {
        Some(a) => Ok(a),
        None => Err(Failure::new(
            code,
            format!("{p:p} is not memory the runtime allocated or registered ({what})"),
        )),
    }
}

/// Fills `*attributes` for `ptr`: device, managed, pinned or registered host memory (interior
/// pointers give their own addresses), `hipMemoryTypeArray` for an array, and
/// `hipMemoryTypeUnregistered` (a success, as in HIP 6) for anything else. A null pointer is
/// `hipErrorInvalidValue`.
///
/// # Safety
/// `attributes` must be null or valid for writing a `hipPointerAttribute_t`.
#[no_mangle]
pub unsafe extern "C" fn hipPointerGetAttributes(
    attributes: *mut PointerAttributes,
    ptr: *const c_void,
) -> hipError_t {
    guard("hipPointerGetAttributes", || {
        if attributes.is_null() || ptr.is_null() {
            return Err(Failure::invalid_value(
                "the attributes pointer or the pointer is null",
            ));
        }
        let a = match known(ptr)? {
            Known::Memory(a) => a.pointer_attributes(ptr as usize),
            Known::Array => PointerAttributes {
                r#type: MemoryType::Array.raw(),
                device: c_int::try_from(current_device()?.id()).unwrap_or(c_int::MAX),
                ..PointerAttributes::unregistered()
            },
            Known::Nothing => PointerAttributes::unregistered(),
        };
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(attributes, a, "the attributes pointer") }
    })
}

/// `hipPointer_attribute`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PointerAttribute {
    Context = 1,
    MemoryType = 2,
    DevicePointer = 3,
    HostPointer = 4,
    P2pTokens = 5,
    SyncMemops = 6,
    BufferId = 7,
    IsManaged = 8,
    DeviceOrdinal = 9,
    IsLegacyHipIpcCapable = 10,
    RangeStartAddr = 11,
    RangeSize = 12,
    Mapped = 13,
    AllowedHandleTypes = 14,
    IsGpuDirectRdmaCapable = 15,
    AccessFlags = 16,
    MempoolHandle = 17,
}

impl PointerAttribute {
    const ALL: [PointerAttribute; 17] = {
        use PointerAttribute::*;
        [
            Context,
            MemoryType,
            DevicePointer,
            HostPointer,
            P2pTokens,
            SyncMemops,
            BufferId,
            IsManaged,
            DeviceOrdinal,
            IsLegacyHipIpcCapable,
            RangeStartAddr,
            RangeSize,
            Mapped,
            AllowedHandleTypes,
            IsGpuDirectRdmaCapable,
            AccessFlags,
            MempoolHandle,
        ]
    };

    fn parse(raw: c_int) -> HipResult<Self> {
        Self::ALL
            .into_iter()
            .find(|a| *a as c_int == raw)
            .ok_or_else(|| Failure::invalid_value(format!("{raw} is not a hipPointer_attribute")))
    }

    /// Those HIP 6.2 does not report (`hipErrorNotSupported`, as HIP answers them).
    fn unsupported_why(self) -> Option<&'static str> {
        use PointerAttribute::*;
        Some(match self {
            Context => "HIP does not report a pointer's context (contexts are its devices)",
            P2pTokens => "P2P tokens (deprecated by CUDA, never in HIP)",
            IsLegacyHipIpcCapable => "HIP does not report the legacy IPC capability",
            AllowedHandleTypes => "allocation handle types (virtual memory management)",
            IsGpuDirectRdmaCapable => "GPUDirect RDMA",
            MempoolHandle => "the memory pool of an allocation",
            _ => return None,
        })
    }
}

/// One attribute's value, at the width HIP writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    Pointer(usize),
    U32(u32),
    I32(i32),
    Bool(bool),
}

impl Value {
    /// The value written when the query fails: zero of the attribute's width (the device
    /// ordinal's is `hipInvalidDeviceId`, as HIP writes it).
    fn failed(attribute: PointerAttribute) -> Value {
        use PointerAttribute::*;
        match attribute {
            Context | DevicePointer | HostPointer | RangeStartAddr => Value::Pointer(0),
            SyncMemops | IsManaged | Mapped => Value::Bool(false),
            DeviceOrdinal => Value::I32(crate::backend::INVALID_DEVICE_ID),
            _ => Value::U32(0),
        }
    }

    /// # Safety
    /// `data` must be valid for writing the value's width.
    unsafe fn write(self, data: *mut c_void) {
        // SAFETY (each): per the caller; unaligned writes, the caller's variable may be anywhere.
        unsafe {
            match self {
                Value::Pointer(v) => data.cast::<usize>().write_unaligned(v),
                Value::U32(v) => data.cast::<u32>().write_unaligned(v),
                Value::I32(v) => data.cast::<i32>().write_unaligned(v),
                Value::Bool(v) => data.cast::<bool>().write_unaligned(v),
            }
        }
    }
}

/// The value of `attribute` for `p`.
fn attribute_value(attribute: PointerAttribute, p: *const c_void) -> HipResult<Value> {
    use PointerAttribute as A;
    if let Some(why) = attribute.unsupported_why() {
        return Err(crate::backend::not_supported(why));
    }
    let unknown = || {
        Failure::invalid_value(format!(
            "{p:p} is not memory the runtime allocated or registered ({attribute:?})"
        ))
    };
    let a = match known(p)? {
        Known::Memory(a) => a,
        Known::Array if attribute == A::MemoryType => {
            return Ok(Value::U32(MemoryType::Array.raw() as u32))
        }
        // Memory nobody gave access to has no access flags, and that is no error (as in HIP).
        _ if attribute == A::AccessFlags => return Ok(Value::U32(0)),
        _ => return Err(unknown()),
    };
    let offset = a.offset_of(p as usize);
    let address = |base: Option<usize>, what: &str| {
        base.map(|b| Value::Pointer(b + offset)).ok_or_else(|| {
            Failure::invalid_value(format!(
                "{p:p} has no {what} address ({:?} memory)",
                a.memory
            ))
        })
    };
    /// `hipMemAccessFlagsProtRead` and `ProtReadWrite`.
    const PROT_READ: u32 = 1;
    const PROT_READ_WRITE: u32 = 3;
    const REGISTER_READ_ONLY: u32 = 8;
    Ok(match attribute {
        A::MemoryType => Value::U32(a.memory.raw() as u32),
        A::DevicePointer => address(a.device_base, "device")?,
        A::HostPointer => address(a.host_base, "host")?,
        A::SyncMemops => Value::Bool(a.sync_memops),
        A::BufferId => Value::U32(a.buffer_id as u32),
        A::IsManaged => Value::Bool(a.memory == MemoryType::Managed),
        A::DeviceOrdinal => Value::I32(c_int::try_from(a.device).unwrap_or(c_int::MAX)),
        A::RangeStartAddr => Value::Pointer(a.base),
        A::RangeSize => Value::U32(u32::try_from(a.size).unwrap_or(u32::MAX)),
        // Every allocation the runtime knows is mapped into the unified address space.
        A::Mapped => Value::Bool(true),
        A::AccessFlags if a.registered && a.flags & REGISTER_READ_ONLY != 0 => {
            Value::U32(PROT_READ)
        }
        A::AccessFlags => Value::U32(PROT_READ_WRITE),
        _ => unreachable!("unsupported attributes were answered above"),
    })
}

/// Writes one attribute (`hipPointer_attribute`) of `ptr` into `data`, at the width HIP writes
/// it. Memory the runtime does not know is `hipErrorInvalidValue` (its value written as zero);
/// the attributes HIP 6.2 does not report are `hipErrorNotSupported`.
///
/// # Safety
/// `data` must be null or valid for writing the attribute's value.
#[no_mangle]
pub unsafe extern "C" fn hipPointerGetAttribute(
    data: *mut c_void,
    attribute: c_int,
    ptr: *const c_void,
) -> hipError_t {
    guard("hipPointerGetAttribute", || {
        if data.is_null() || ptr.is_null() {
            return Err(Failure::invalid_value(
                "the data pointer or the pointer is null",
            ));
        }
        let attribute = PointerAttribute::parse(attribute)?;
        let result = attribute_value(attribute, ptr);
        let value = match &result {
            Ok(v) => *v,
            Err(e) if e.code == HipError::NotSupported => return result.map(drop),
            Err(_) => Value::failed(attribute),
        };
        // SAFETY: non-null; valid for the attribute's value per the caller.
        unsafe { value.write(data) };
        result.map(drop)
    })
}

/// Several attributes of `ptr` at once. As in HIP, the call succeeds whenever its arguments
/// are well formed: an attribute that cannot be answered for this pointer gets its zero value.
///
/// # Safety
/// `attributes` and `data` must be null or hold `count` entries; each `data[i]` must be null or
/// valid for writing attribute `i`'s value.
#[no_mangle]
pub unsafe extern "C" fn hipDrvPointerGetAttributes(
    count: c_uint,
    attributes: *const c_int,
    data: *mut *mut c_void,
    ptr: *const c_void,
) -> hipError_t {
    guard("hipDrvPointerGetAttributes", || {
        if count == 0 || attributes.is_null() || data.is_null() || ptr.is_null() {
            return Err(Failure::invalid_value(
                "the count is 0, or the attributes, data or pointer is null",
            ));
        }
        // SAFETY: both arrays hold `count` entries, per the caller.
        let (attributes, outs) = unsafe {
            (
                std::slice::from_raw_parts(attributes, count as usize),
                std::slice::from_raw_parts(data, count as usize),
            )
        };
        let parsed = attributes
            .iter()
            .map(|&raw| PointerAttribute::parse(raw))
            .collect::<HipResult<Vec<_>>>()?;
        if let Some(i) = outs.iter().position(|p| p.is_null()) {
            return Err(Failure::invalid_value(format!("data[{i}] is null")));
        }
        for (&attribute, &out) in parsed.iter().zip(outs) {
            let value = attribute_value(attribute, ptr).unwrap_or(Value::failed(attribute));
            // SAFETY: non-null; valid for the attribute's value per the caller.
            unsafe { value.write(out) };
        }
        Ok(())
    })
}

/// Sets an attribute of the allocation holding `ptr`: only `HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS`
/// (an `unsigned int` or `bool` of 0 or 1, read as its first byte, as HIP does), as HIP allows.
/// Memory the runtime does not know is `hipErrorInvalidDevicePointer`.
///
/// # Safety
/// `value` must be null or valid for reading one byte.
#[no_mangle]
pub unsafe extern "C" fn hipPointerSetAttribute(
    value: *const c_void,
    attribute: c_int,
    ptr: *const c_void,
) -> hipError_t {
    guard("hipPointerSetAttribute", || {
        if value.is_null() || ptr.is_null() {
            return Err(Failure::invalid_value(
                "the value pointer or the pointer is null",
            ));
        }
        if PointerAttribute::parse(attribute)? != PointerAttribute::SyncMemops {
            return Err(Failure::invalid_value(format!(
                "attribute {attribute} cannot be set: only HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS can"
            )));
        }
        // SAFETY: readable for one byte per the caller.
        let on = match unsafe { value.cast::<u8>().read() } {
            0 => false,
            1 => true,
            other => {
                return Err(Failure::invalid_value(format!(
                    "SYNC_MEMOPS takes 0 or 1, got {other}"
                )))
            }
        };
        current_device()?.set_sync_memops(ptr, on)
    })
}

/// The base and size of the allocation holding `ptr` (device, managed, pinned or registered
/// memory); either result pointer may be null. Anything else is `hipErrorNotFound`.
///
/// # Safety
/// `base` and `size` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipMemGetAddressRange(
    base: *mut *mut c_void,
    size: *mut usize,
    ptr: *const c_void,
) -> hipError_t {
    guard("hipMemGetAddressRange", || {
        if ptr.is_null() {
            return Err(Failure::new(HipError::NotFound, "the pointer is null"));
        }
        let a = allocation_of(ptr, HipError::NotFound, "hipMemGetAddressRange")?;
        if !base.is_null() {
            // SAFETY: non-null; valid per the caller.
            unsafe { write_out(base, a.base as *mut c_void, "the base pointer") }?;
        }
        if !size.is_null() {
            // SAFETY: non-null; valid per the caller.
            unsafe { write_out(size, a.size, "the size pointer") }?;
        }
        Ok(())
    })
}

/// The size of the allocation holding `ptr`; anything but memory the runtime allocated or
/// registered is `hipErrorInvalidValue`.
///
/// # Safety
/// `size` must be null or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn hipMemPtrGetInfo(ptr: *mut c_void, size: *mut usize) -> hipError_t {
    guard("hipMemPtrGetInfo", || {
        if ptr.is_null() || size.is_null() {
            return Err(Failure::invalid_value(
                "the pointer or the size pointer is null",
            ));
        }
        let a = allocation_of(ptr, HipError::InvalidValue, "hipMemPtrGetInfo")?;
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(size, a.size, "the size pointer") }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_hips_numbers_and_widths() {
        for a in PointerAttribute::ALL {
            assert_eq!(PointerAttribute::parse(a as c_int).unwrap(), a);
        }
        assert_eq!(
            PointerAttribute::parse(0).unwrap_err().code,
            HipError::InvalidValue
        );
        assert_eq!(
            PointerAttribute::parse(-1).unwrap_err().code,
            HipError::InvalidValue
        );
        let mut word = [0xffu8; 8];
        unsafe { Value::Bool(true).write(word.as_mut_ptr().cast()) };
        assert_eq!(word, [1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
        unsafe { Value::failed(PointerAttribute::RangeSize).write(word.as_mut_ptr().cast()) };
        assert_eq!(word, [0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
    }
}
