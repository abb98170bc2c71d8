//! Legacy texture references: their state set and read back through `hipTexRefSet*` and
//! `hipTexRefGet*` with HIP's checks; binding one, and graphics interop, answer
//! `hipErrorNotSupported` (with the reason, once), never a silent success.

mod common;

use std::ffi::{c_int, c_uint, c_void};
use std::ptr::{null, null_mut};

use common::*;
use hipmlir_rt::*;

/// `hipArray_Format`: HIP_AD_FORMAT_UNSIGNED_INT8, HIP_AD_FORMAT_FLOAT.
const FORMAT_U8: c_int = 0x01;
const FORMAT_FLOAT: c_int = 0x20;

#[test]
fn texture_reference_state_round_trips() {
    let mut t = TextureReference::default();
    let tex: *mut TextureReference = &mut t;
    unsafe {
        ok(hipTexRefSetFilterMode(tex, 1));
        ok(hipTexRefSetMipmapFilterMode(tex, 0));
        ok(hipTexRefSetMaxAnisotropy(tex, 8));
        ok(hipTexRefSetMipmapLevelBias(tex, 0.25));
        ok(hipTexRefSetMipmapLevelClamp(tex, 1.0, 6.5));
        for (dim, mode) in [(0, 3), (1, 2), (2, 1)] {
            ok(hipTexRefSetAddressMode(tex, dim, mode));
        }
        ok(hipTexRefSetFormat(tex, FORMAT_FLOAT, 4));
        let mut mode: c_int = -1;
        ok(hipTexRefGetFilterMode(&mut mode, tex));
        assert_eq!(mode, 1);
        ok(hipTexRefGetMipmapFilterMode(&mut mode, tex));
        assert_eq!(mode, 0);
        for (dim, want) in [(0, 3), (1, 2), (2, 1)] {
            ok(hipTexRefGetAddressMode(&mut mode, tex, dim));
            assert_eq!(mode, want, "dimension {dim}");
        }
        let mut anisotropy: c_int = 0;
        ok(hipTexRefGetMaxAnisotropy(&mut anisotropy, tex));
        assert_eq!(anisotropy, 8);
        let mut bias = 0.0f32;
        ok(hipTexRefGetMipmapLevelBias(&mut bias, tex));
        assert_eq!(bias, 0.25);
        let (mut min, mut max) = (0.0f32, 0.0f32);
        ok(hipTexRefGetMipmapLevelClamp(&mut min, &mut max, tex));
        assert_eq!((min, max), (1.0, 6.5));
        let (mut format, mut channels): (c_int, c_int) = (0, 0);
        ok(hipTexRefGetFormat(&mut format, &mut channels, tex));
        assert_eq!((format, channels), (FORMAT_FLOAT, 4));
        // Every combination of the three flags comes back as set.
        for flags in [0u32, 1, 2, 0x10, 0x3, 0x13] {
            ok(hipTexRefSetFlags(tex, flags));
            let mut got: c_uint = 99;
            ok(hipTexRefGetFlags(&mut got, tex));
            assert_eq!(got, flags);
        }
    }
}

#[test]
fn texture_reference_misuse_is_invalid_value() {
    let mut t = TextureReference::default();
    let tex: *mut TextureReference = &mut t;
    let mut mode: c_int = 0;
    unsafe {
        expect_code(
            hipTexRefSetFilterMode(null_mut(), 0),
            HipError::InvalidValue,
        );
        expect_code(
            hipTexRefGetFilterMode(&mut mode, null()),
            HipError::InvalidValue,
        );
        expect_code(
            hipTexRefGetFilterMode(null_mut(), tex),
            HipError::InvalidValue,
        );
        expect_code(hipTexRefSetFilterMode(tex, 2), HipError::InvalidValue);
        expect_code(hipTexRefSetAddressMode(tex, 3, 0), HipError::InvalidValue);
        expect_code(hipTexRefSetAddressMode(tex, -1, 0), HipError::InvalidValue);
        expect_code(hipTexRefSetAddressMode(tex, 0, 4), HipError::InvalidValue);
        expect_code(
            hipTexRefGetAddressMode(&mut mode, tex, 3),
            HipError::InvalidValue,
        );
        expect_code(hipTexRefSetFlags(tex, 0x4), HipError::InvalidValue);
        expect_code(hipTexRefSetFormat(tex, 0x7, 1), HipError::InvalidValue);
        expect_code(
            hipTexRefSetFormat(tex, FORMAT_U8, 3),
            HipError::InvalidValue,
        );
        let mut format: c_int = 0;
        expect_code(
            hipTexRefGetFormat(&mut format, null_mut(), tex),
            HipError::InvalidValue,
        );
    }
    // A refused call changed nothing.
    assert_eq!(
        format!("{t:?}"),
        format!("{:?}", TextureReference::default())
    );
}

#[test]
fn binding_references_and_graphics_interop_are_not_supported() {
    let mut t = TextureReference::default();
    let tex: *const c_void = (&mut t as *mut TextureReference).cast();
    let mut offset = 0usize;
    let mut pointer: *mut c_void = null_mut();
    expect_code(
        hipBindTexture(&mut offset, tex, null(), null(), 64),
        HipError::NotSupported,
    );
    expect_code(hipUnbindTexture(tex), HipError::NotSupported);
    expect_code(
        hipTexRefGetAddress(&mut pointer, tex),
        HipError::NotSupported,
    );
    expect_code(
        hipGraphicsMapResources(1, null_mut(), null_mut()),
        HipError::NotSupported,
    );
    expect_code(
        hipGraphicsResourceGetMappedPointer(&mut pointer, &mut offset, null_mut()),
        HipError::NotSupported,
    );
}
