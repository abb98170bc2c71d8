//! Streams and compute units: `hipExtStreamCreateWithCUMask`, `hipExtStreamGetCUMask` (AMD's
//! masks of the compute units a stream's kernels may use, one bit per unit in 32-bit words).
//! Neither OpenCL queues nor CUDA streams can be restricted to some units: every stream may use
//! all of them, which is what `hipExtStreamGetCUMask` reports and the one mask a new stream can
//! be given.

use std::ffi::c_uint;

use super::stream::hipStreamCreate;
use super::{current_device, guard, hipError_t, hipStream_t, stream};
use crate::backend::not_supported;
use crate::error::{Failure, HipResult};

/// The mask of every compute unit of a device with `units` of them, in `words` words.
fn full_mask(units: usize, words: usize) -> Vec<u32> {
    (0..words)
        .map(|w| {
            let lo = w * 32;
            match units.saturating_sub(lo) {
                0 => 0,
                n if n >= 32 => u32::MAX,
                n => (1u32 << n) - 1,
            }
        })
        .collect()
}

/// The compute units of the device `s` belongs to.
fn units_of(s: hipStream_t) -> HipResult<usize> {
    let device = stream(s)?.device();
    let d = super::backend()?.device(device)?;
    Ok(usize::try_from(d.properties().multiProcessorCount)
        .unwrap_or(1)
        .max(1))
}

/// Creates a stream whose kernels may use the compute units `mask` sets (`words` 32-bit words):
/// every unit of the device, as every stream does here; a mask that leaves some out is
/// `hipErrorNotSupported`.
///
/// # Safety
/// `out` must be null or valid for writing a `hipStream_t`; `mask` null or valid for reading
/// `words` words.
#[no_mangle]
pub unsafe extern "C" fn hipExtStreamCreateWithCUMask(
    out: *mut hipStream_t,
    words: u32,
    mask: *const u32,
) -> hipError_t {
    guard("hipExtStreamCreateWithCUMask", || {
        if out.is_null() || mask.is_null() || words == 0 {
            return Err(Failure::invalid_value(
                "the stream pointer or the mask is null, or the mask is empty",
            ));
        }
        let units = usize::try_from(current_device()?.properties().multiProcessorCount)
            .unwrap_or(1)
            .max(1);
        // SAFETY: checked non-null; `words` words per the caller.
        let given = unsafe { std::slice::from_raw_parts(mask, words as usize) };
        let all = full_mask(units, words as usize);
        if given.iter().zip(&all).any(|(g, a)| g & a != *a) {
            return Err(not_supported(
                "a stream restricted to some compute units: OpenCL queues and CUDA streams use \
                 every unit",
            ));
        }
        // SAFETY: checked non-null; valid per the caller.
        match unsafe { hipStreamCreate(out) } {
            0 => Ok(()),
            _ => Err(Failure::quiet(crate::error::take_last_error())),
        }
    })
}

/// Writes the mask of the compute units stream `s`'s kernels may use (all of its device's) into
/// `words` 32-bit words; fewer words than the device has units for is `hipErrorInvalidValue`.
///
/// # Safety
/// `mask` must be null or valid for writing `words` words.
#[no_mangle]
pub unsafe extern "C" fn hipExtStreamGetCUMask(
    s: hipStream_t,
    words: c_uint,
    mask: *mut u32,
) -> hipError_t {
    guard("hipExtStreamGetCUMask", || {
        if mask.is_null() {
            return Err(Failure::invalid_value("the mask is null"));
        }
        let units = units_of(s)?;
        let needed = units.div_ceil(32);
        if (words as usize) < needed {
            return Err(Failure::invalid_value(format!(
                "{words} words hold no mask of {units} compute units ({needed} needed)"
            )));
        }
        let all = full_mask(units, words as usize);
        // SAFETY: checked non-null; `words` words per the caller.
        unsafe { std::ptr::copy_nonoverlapping(all.as_ptr(), mask, all.len()) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::full_mask;

    #[test]
    fn masks_set_one_bit_per_unit() {
        assert_eq!(full_mask(2, 1), [0b11]);
        assert_eq!(full_mask(32, 2), [u32::MAX, 0]);
        assert_eq!(
            full_mask(132, 5),
            [u32::MAX, u32::MAX, u32::MAX, u32::MAX, 0xF]
        );
    }
}
