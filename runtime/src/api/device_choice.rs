//! Finding a device by what it is: `hipChooseDevice` (by properties), the PCI bus id API, and
//! `hipSetValidDevices` (the device of threads that choose none).

use std::ffi::{c_char, c_int, CStr};

use super::device::properties;
use super::{backend, guard, hipError_t, write_c_string, write_out};
use crate::error::{Failure, HipError, HipResult};
use crate::props::HipDeviceProp;

/// The number of devices of the chosen backend.
fn device_count() -> HipResult<c_int> {
    Ok(c_int::try_from(backend()?.device_count()).unwrap_or(c_int::MAX))
}

/// `domain:bus:device.function` as CUDA and HIP write it (`0000:65:00.0`).
fn pci_bus_id(p: &HipDeviceProp) -> String {
    format!(
        "{:04x}:{:02x}:{:02x}.0",
        p.pciDomainID, p.pciBusID, p.pciDeviceID
    )
}

/// How many of the properties `wanted` asks for (its non-zero fields) `p` has: at least the
/// compute capability, memory sizes, block size and multiprocessor count asked for.
fn requirements_met(p: &HipDeviceProp, wanted: &HipDeviceProp) -> usize {
    let at_least = |have: u64, want: u64| want != 0 && have >= want;
    let capability = (wanted.major, wanted.minor) != (0, 0)
        && (p.major, p.minor) >= (wanted.major, wanted.minor);
    [
        capability,
        at_least(p.totalGlobalMem as u64, wanted.totalGlobalMem as u64),
        at_least(p.sharedMemPerBlock as u64, wanted.sharedMemPerBlock as u64),
        at_least(p.totalConstMem as u64, wanted.totalConstMem as u64),
        at_least(
            p.maxThreadsPerBlock as u64,
            wanted.maxThreadsPerBlock as u64,
        ),
        at_least(
            p.multiProcessorCount as u64,
            wanted.multiProcessorCount as u64,
        ),
        at_least(p.regsPerBlock as u64, wanted.regsPerBlock as u64),
    ]
    .iter()
    .filter(|met| **met)
    .count()
}

/// Writes the device that meets most of the properties `prop` asks for (its non-zero fields);
/// the first such device on a tie, device 0 when none meets any.
///
/// # Safety
/// `device` must be null or valid for writing an `int`; `prop` null or a valid `hipDeviceProp_t`.
#[no_mangle]
pub unsafe extern "C" fn hipChooseDevice(
    device: *mut c_int,
    prop: *const HipDeviceProp,
) -> hipError_t {
    guard("hipChooseDevice", || {
        if device.is_null() || prop.is_null() {
            return Err(Failure::invalid_value(
                "the device or properties pointer is null",
            ));
        }
        // SAFETY: checked non-null; valid per the caller.
        let wanted = unsafe { prop.read_unaligned() };
        let mut best = (0, 0);
        for d in 0..device_count()? {
            let met = requirements_met(&properties(d)?, &wanted);
            if met > best.1 {
                best = (d, met);
            }
        }
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(device, best.0, "the device pointer") }
    })
}

/// HIP 6's name of [`hipChooseDevice`] (`hipDeviceProp_tR0600`, the layout hipmlir's headers
/// declare).
///
/// # Safety
/// As [`hipChooseDevice`].
#[no_mangle]
pub unsafe extern "C" fn hipChooseDeviceR0600(
    device: *mut c_int,
    prop: *const HipDeviceProp,
) -> hipError_t {
    // SAFETY: per the caller.
    unsafe { hipChooseDevice(device, prop) }
}

/// Writes the device's PCI bus id (`0000:65:00.0`), NUL-terminated, truncated to `len` bytes.
///
/// # Safety
/// `bus_id` must be null or valid for writing `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetPCIBusId(
    bus_id: *mut c_char,
    len: c_int,
    device: c_int,
) -> hipError_t {
    guard("hipDeviceGetPCIBusId", || {
        if bus_id.is_null() || len <= 0 {
            return Err(Failure::invalid_value("the bus id buffer is null or empty"));
        }
        let text = pci_bus_id(&properties(device)?);
        // SAFETY: checked non-null and non-empty; valid for `len` bytes per the caller.
        unsafe { write_c_string(bus_id, len, &text) };
        // As HIP: a buffer too short for the whole id and its NUL gets the id's start, ended
        // by a NUL, and an error.
        if usize::try_from(len).is_ok_and(|len| len <= text.len()) {
            return Err(Failure::invalid_value(format!(
                "the bus id '{text}' needs {} bytes; the buffer has {len}",
                text.len() + 1
            )));
        }
        Ok(())
    })
}

/// Writes the ordinal of the device with this PCI bus id (`[domain:]bus:device[.function]`,
/// hexadecimal, as `hipDeviceGetPCIBusId` writes it).
///
/// # Safety
/// `device` must be null or valid for writing an `int`; `bus_id` null or a C string.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetByPCIBusId(
    device: *mut c_int,
    bus_id: *const c_char,
) -> hipError_t {
    guard("hipDeviceGetByPCIBusId", || {
        if device.is_null() || bus_id.is_null() {
            return Err(Failure::invalid_value(
                "the device pointer or the bus id is null",
            ));
        }
        // SAFETY: checked non-null; a C string per the caller.
        let text = unsafe { CStr::from_ptr(bus_id) }.to_string_lossy();
        let wanted = parse_pci_bus_id(&text).ok_or_else(|| {
            Failure::invalid_value(format!(
                "'{text}' is not a PCI bus id ([domain:]bus:device[.function], hexadecimal)"
            ))
        })?;
        for d in 0..device_count()? {
            let p = properties(d)?;
            if (p.pciDomainID, p.pciBusID, p.pciDeviceID) == wanted {
                // SAFETY: checked non-null; valid per the caller.
                return unsafe { write_out(device, d, "the device pointer") };
            }
        }
        Err(Failure::new(
            HipError::InvalidDevice,
            format!("no device has PCI bus id '{text}'"),
        ))
    })
}

/// (domain, bus, device) of `[domain:]bus:device[.function]`.
fn parse_pci_bus_id(text: &str) -> Option<(i32, i32, i32)> {
    let hex = |s: &str| i32::from_str_radix(s.trim(), 16).ok();
    let without_function = text.split('.').next()?;
    let parts: Vec<&str> = without_function.split(':').collect();
    match parts.as_slice() {
        [bus, dev] => Some((0, hex(bus)?, hex(dev)?)),
        [domain, bus, dev] => Some((hex(domain)?, hex(bus)?, hex(dev)?)),
        _ => None,
    }
}

/// Sets the devices the program may use, in order of preference: a thread that has not called
/// `hipSetDevice` uses the first (an empty list restores device 0). A null list of some length,
/// a negative length or a device listed twice is `hipErrorInvalidValue`; a device that does not
/// exist `hipErrorInvalidDevice`.
///
/// # Safety
/// `devices` must be null or valid for reading `len` ints.
#[no_mangle]
pub unsafe extern "C" fn hipSetValidDevices(devices: *mut c_int, len: c_int) -> hipError_t {
    guard("hipSetValidDevices", || {
        let len = usize::try_from(len)
            .map_err(|_| Failure::invalid_value(format!("a list of {len} devices")))?;
        if len > 0 && devices.is_null() {
            return Err(Failure::invalid_value("the device list is null"));
        }
        let list: &[c_int] = if len == 0 {
            &[]
        } else {
            // SAFETY: checked non-null; `len` ints per the caller.
            unsafe { std::slice::from_raw_parts(devices, len) }
        };
        let mut ids = Vec::with_capacity(len);
        for &d in list {
            let id = super::device_at(d)?.id();
            if ids.contains(&id) {
                return Err(Failure::invalid_value(format!(
                    "device {d} is listed twice"
                )));
            }
            ids.push(id);
        }
        super::set_default_device(ids.first().copied().unwrap_or(0));
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_ids_are_read_as_written() {
        assert_eq!(parse_pci_bus_id("0000:65:00.0"), Some((0, 0x65, 0)));
        assert_eq!(parse_pci_bus_id("65:1f"), Some((0, 0x65, 0x1f)));
        assert_eq!(parse_pci_bus_id("0001:0a:03.1"), Some((1, 0xa, 3)));
        assert_eq!(parse_pci_bus_id("zz:00"), None);
        assert_eq!(parse_pci_bus_id("1:2:3:4"), None);
    }
}
