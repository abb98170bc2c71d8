//! Legacy texture references: their state set and read back through `hipTexRefSet*` and
//! `hipTexRefGet*` with HIP's checks; binding one makes (and rebinding replaces) its texture
//! object, on the device; graphics interop answers `hipErrorNotSupported`.

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
fn binding_a_reference_makes_and_replaces_its_texture_object() {
    let mut t = TextureReference::default();
    let tex: *mut TextureReference = &mut t;
    let desc = hipCreateChannelDesc(32, 0, 0, 0, 2);
    let mut memory: *mut c_void = null_mut();
    let mut other: *mut c_void = null_mut();
    ok(unsafe { hipMalloc(&mut memory, 1024) });
    ok(unsafe { hipMalloc(&mut other, 1024) });
    let mut offset = 7usize;
    let mut pointer: *mut c_void = null_mut();
    unsafe {
        // Not bound yet: no memory to name.
        expect_code(
            hipTexRefGetAddress(&mut pointer, tex),
            HipError::InvalidValue,
        );
        ok(hipBindTexture(&mut offset, tex, memory, &desc, 1024));
        assert_eq!(offset, 0);
        let first = (*tex).texture_object;
        assert_ne!(first, 0);
        ok(hipTexRefGetAddress(&mut pointer, tex));
        assert_eq!(pointer, memory);
        // Rebinding replaces the object (the old one is destroyed).
        ok(hipBindTexture(null_mut(), tex, other, &desc, 1024));
        assert_ne!((*tex).texture_object, 0);
        let mut resource = std::mem::zeroed();
        expect_code(
            hipGetTextureObjectResourceDesc(&mut resource, first),
            HipError::InvalidValue,
        );
        ok(hipTexRefGetAddress(&mut pointer, tex));
        assert_eq!(pointer, other);
        // Memory that is not texture-aligned needs somewhere to return its offset.
        let inside = memory.cast::<u8>().add(4).cast::<c_void>();
        expect_code(
            hipBindTexture(null_mut(), tex, inside, &desc, 64),
            HipError::InvalidValue,
        );
        ok(hipBindTexture(&mut offset, tex, inside, &desc, 64));
        assert_eq!(offset, 4);
        let mut queried = 0usize;
        ok(hipGetTextureAlignmentOffset(&mut queried, tex));
        assert_eq!(queried, 4);
        // Memory the runtime did not allocate, and no memory, are refused.
        let mut host = [0u8; 64];
        expect_code(
            hipBindTexture(null_mut(), tex, host.as_mut_ptr().cast(), &desc, 64),
            HipError::InvalidValue,
        );
        expect_code(
            hipBindTexture(null_mut(), tex, null(), &desc, 64),
            HipError::InvalidValue,
        );
        ok(hipUnbindTexture(tex));
        assert_eq!((*tex).texture_object, 0);
        expect_code(
            hipTexRefGetAddress(&mut pointer, tex),
            HipError::InvalidValue,
        );
        expect_code(hipUnbindTexture(null()), HipError::InvalidValue);
        ok(hipFree(memory));
        ok(hipFree(other));
    }
}

#[test]
fn graphics_interop_is_not_supported() {
    let mut offset = 0usize;
    let mut pointer: *mut c_void = null_mut();
    expect_code(
        hipGraphicsMapResources(1, null_mut(), null_mut()),
        HipError::NotSupported,
    );
    expect_code(
        hipGraphicsResourceGetMappedPointer(&mut pointer, &mut offset, null_mut()),
        HipError::NotSupported,
    );
}
