//! 2-D and 3-D memsets with pitches, copies to, from and between arrays in every direction
//! (linear byte offsets across rows, 2-D regions, the driver API's `hip_Memcpy2D` and
//! `HIP_MEMCPY3D` between host, device and array memory), driver API arrays and their
//! descriptors, and mipmapped arrays level by level: on the real device, every byte compared with
//! a host model, plus the error codes HIP gives misuse.

#![allow(clippy::too_many_arguments)]

mod common;

use std::ffi::c_void;
use std::ptr::null_mut;

use common::*;
use hipmlir_rt::*;

const H2D: i32 = MemcpyKind::HostToDevice as i32;
const D2H: i32 = MemcpyKind::DeviceToHost as i32;
const D2D: i32 = MemcpyKind::DeviceToDevice as i32;

/// `hipMemoryType`.
const HOST: i32 = 1;
const DEVICE: i32 = 2;
const ARRAY: i32 = 10;
const UNIFIED: i32 = 11;

/// `hipArray_Format`.
const FORMAT_U8: u32 = 0x01;
const FORMAT_FLOAT: u32 = 0x20;

fn pattern(len: usize, seed: u32) -> Vec<u8> {
    (0..len as u32)
        .map(|i| (i.wrapping_mul(2654435761).wrapping_add(seed) >> 13) as u8)
        .collect()
}

fn stream() -> hipStream_t {
    let mut s = null_mut();
    ok(unsafe { hipStreamCreate(&mut s) });
    s
}

fn read_device(p: *const c_void, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    ok(unsafe { hipMemcpy(out.as_mut_ptr().cast(), p, len, D2H) });
    out
}

/// An array of `width` x `height` x `depth` texels of `desc` (0: a dimension it lacks).
fn array(desc: ChannelFormatDesc, width: usize, height: usize, depth: usize) -> usize {
    let mut a = 0usize;
    let extent = Extent {
        width,
        height,
        depth,
    };
    ok(unsafe { hipMalloc3DArray(&mut a, &desc, extent, 0) });
    assert_ne!(a, 0);
    a
}

fn bytes_desc() -> ChannelFormatDesc {
    hipCreateChannelDesc(8, 0, 0, 0, 1)
}

fn float_desc() -> ChannelFormatDesc {
    hipCreateChannelDesc(32, 0, 0, 0, 2)
}

/// An array's first slice as packed rows, read by a 2-D copy.
fn read_rows(a: usize, row: usize, rows: usize) -> Vec<u8> {
    let mut out = vec![0u8; row * rows];
    ok(unsafe { hipMemcpy2DFromArray(out.as_mut_ptr().cast(), row, a, 0, 0, row, rows, D2H) });
    out
}

fn write_rows(a: usize, data: &[u8], row: usize, rows: usize) {
    ok(unsafe { hipMemcpy2DToArray(a, 0, 0, data.as_ptr().cast(), row, row, rows, H2D) });
}

#[test]
fn memset_2d_fills_rows_within_their_pitch() {
    let (width, height) = (100usize, 7usize);
    let mut p: *mut c_void = null_mut();
    let mut pitch = 0usize;
    ok(unsafe { hipMallocPitch(&mut p, &mut pitch, width, height) });
    assert!(pitch >= width);
    let total = pitch * height;
    ok(unsafe { hipMemset(p, 0x11, total) });
    let mut model = vec![0x11u8; total];
    let at = |x: usize, y: usize| (p as usize + y * pitch + x) as *mut c_void;
    // 50 bytes of 4 rows from byte 3 of row 1, synchronously.
    ok(unsafe { hipMemset2D(at(3, 1), pitch, 0xAB, 50, 4) });
    for y in 1..5 {
        model[y * pitch + 3..y * pitch + 53].fill(0xAB);
    }
    assert_eq!(read_device(p, total), model);
    // The whole width of every row, on a stream (the pitch's padding stays).
    let s = stream();
    ok(unsafe { hipMemset2DAsync(p, pitch, 0xC3, width, height, s) });
    ok(hipStreamSynchronize(s));
    for y in 0..height {
        model[y * pitch..y * pitch + width].fill(0xC3);
    }
    assert_eq!(read_device(p, total), model);
    // Rows packed into the pitch: one range.
    ok(unsafe { hipMemset2D(at(0, 5), pitch, 0x7E, pitch, 2) });
    model[5 * pitch..].fill(0x7E);
    assert_eq!(read_device(p, total), model);

    // Misuse: HIP's codes, nothing written.
    let misuse: [&dyn Fn() -> hipError_t; 6] = [
        &|| unsafe { hipMemset2D(null_mut(), pitch, 1, width, height) },
        &|| unsafe { hipMemset2D(p, 1, 1, width, height) },
        &|| unsafe { hipMemset2D(p, pitch, 1, pitch + 1, height) },
        &|| unsafe { hipMemset2D(p, pitch, 1, width, height + 1) },
        // From inside the last row past the allocation's end (a range that starts past the end
        // may well start in another allocation: that is a fill of it, not a misuse).
        &|| unsafe { hipMemset2D(at(1, height - 1), pitch, 1, width, 2) },
        &|| unsafe { hipMemset2DAsync(p, pitch, 1, width, usize::MAX, s) },
    ];
    for call in misuse {
        expect_code(call(), HipError::InvalidValue);
    }
    let mut host = vec![0u8; 64];
    expect_code(
        unsafe { hipMemset2D(host.as_mut_ptr().cast(), 64, 1, 8, 2) },
        HipError::InvalidValue,
    );
    // Empty regions are nothing to do, whatever the pointer.
    ok(unsafe { hipMemset2D(null_mut(), 0, 1, 0, 5) });
    ok(unsafe { hipMemset2D(8usize as *mut c_void, pitch, 1, width, 0) });
    assert_eq!(read_device(p, total), model);
    ok(hipStreamDestroy(s));
    ok(unsafe { hipFree(p) });
}

#[test]
fn memset_3d_fills_boxes_of_slices() {
    let extent = Extent {
        width: 40,
        height: 5,
        depth: 4,
    };
    let mut pp = PitchedPtr {
        ptr: null_mut(),
        pitch: 0,
        xsize: 0,
        ysize: 0,
    };
    ok(unsafe { hipMalloc3D(&mut pp, extent) });
    let (pitch, rows) = (pp.pitch, pp.ysize);
    assert_eq!(rows, 5);
    let slice = pitch * rows;
    let total = slice * extent.depth;
    ok(unsafe { hipMemset(pp.ptr, 0, total) });
    let mut model = vec![0u8; total];
    let fill_model = |model: &mut Vec<u8>, x: usize, y: usize, z: usize, e: Extent, v: u8| {
        for k in 0..e.depth {
            for j in 0..e.height {
                let o = (z + k) * slice + (y + j) * pitch + x;
                model[o..o + e.width].fill(v);
            }
        }
    };
    // A box of 20 bytes x 3 rows x 2 slices at (8, 1, 1).
    let at = |x: usize, y: usize, z: usize| PitchedPtr {
        ptr: (pp.ptr as usize + z * slice + y * pitch + x) as *mut c_void,
        ..pp
    };
    let inner = Extent {
        width: 20,
        height: 3,
        depth: 2,
    };
    ok(unsafe { hipMemset3D(at(8, 1, 1), 0x5A, inner) });
    fill_model(&mut model, 8, 1, 1, inner, 0x5A);
    assert_eq!(read_device(pp.ptr, total), model);
    // The whole extent on a stream, then one slice's rows.
    let s = stream();
    ok(unsafe { hipMemset3DAsync(pp, 0xE1, extent, s) });
    ok(hipStreamSynchronize(s));
    fill_model(&mut model, 0, 0, 0, extent, 0xE1);
    let one = Extent {
        width: 40,
        height: 2,
        depth: 1,
    };
    ok(unsafe { hipMemset3DAsync(at(0, 3, 2), 0x09, one, s) });
    ok(hipStreamSynchronize(s));
    fill_model(&mut model, 0, 3, 2, one, 0x09);
    assert_eq!(read_device(pp.ptr, total), model);

    // Misuse.
    let wide = Extent {
        width: pitch + 1,
        ..extent
    };
    let tall = Extent {
        height: usize::MAX,
        ..extent
    };
    let deep = Extent {
        depth: usize::MAX,
        ..extent
    };
    let short_slices = PitchedPtr { ysize: 2, ..pp };
    let null = PitchedPtr {
        ptr: null_mut(),
        ..pp
    };
    // From the last slice on, past the allocation's end.
    let past_end = at(0, 0, extent.depth - 1);
    for (p, e) in [
        (null, extent),
        (pp, wide),
        (pp, tall),
        (pp, deep),
        (short_slices, extent),
        (PitchedPtr { pitch: 1, ..pp }, extent),
        (past_end, extent),
    ] {
        expect_code(unsafe { hipMemset3D(p, 1, e) }, HipError::InvalidValue);
    }
    let empty = Extent {
        width: 0,
        height: 0,
        depth: 0,
    };
    ok(unsafe { hipMemset3D(past_end, 1, empty) });
    assert_eq!(read_device(pp.ptr, total), model);
    ok(hipStreamDestroy(s));
    ok(unsafe { hipFree(pp.ptr) });
}

/// Copies byte ranges into and out of arrays by linear offset (rows one after the other):
/// host, device and array to array and back, synchronously and on a stream.
#[test]
fn linear_copies_cross_rows_in_every_direction() {
    // 13 floats a row (52 bytes, rows padded to 256), 5 rows: 260 bytes of texels.
    let (row, rows) = (52usize, 5usize);
    let total = row * rows;
    let a = array(float_desc(), 13, rows, 0);
    let start = pattern(total, 1);
    ok(unsafe { hipMemcpyHtoA(a, 0, start.as_ptr().cast(), total) });
    assert_eq!(read_rows(a, row, rows), start);
    let mut model = start.clone();

    // From the middle of row 0 across two row ends.
    let piece = pattern(120, 2);
    ok(unsafe { hipMemcpyHtoA(a, 20, piece.as_ptr().cast(), piece.len()) });
    model[20..140].copy_from_slice(&piece);
    assert_eq!(read_rows(a, row, rows), model);
    let mut back = vec![0u8; 150];
    ok(unsafe { hipMemcpyAtoH(back.as_mut_ptr().cast(), a, 33, back.len()) });
    assert_eq!(back, model[33..183]);

    // On a stream.
    let s = stream();
    let piece = pattern(104, 3);
    ok(unsafe { hipMemcpyHtoAAsync(a, 104, piece.as_ptr().cast(), piece.len(), s) });
    let mut late = vec![0u8; total];
    ok(unsafe { hipMemcpyAtoHAsync(late.as_mut_ptr().cast(), a, 0, total, s) });
    ok(hipStreamSynchronize(s));
    model[104..208].copy_from_slice(&piece);
    assert_eq!(late, model);

    // Device memory, both ways.
    let d = DeviceBuffer::from_slice(&pattern(200, 4));
    ok(hipMemcpyDtoA(a, 7, d.ptr, 200));
    model[7..207].copy_from_slice(&pattern(200, 4));
    assert_eq!(read_rows(a, row, rows), model);
    ok(unsafe { hipMemset(d.ptr, 0, 200) });
    ok(hipMemcpyAtoD(d.ptr, a, 50, 200));
    assert_eq!(d.download::<u8>(200), model[50..250]);

    // Array to array: same rows, and rows of another length (40 bytes, 7 rows).
    let b = array(float_desc(), 13, rows, 0);
    write_rows(b, &vec![0u8; total], row, rows);
    ok(hipMemcpyAtoA(b, 8, a, 60, 150));
    let mut model_b = vec![0u8; total];
    model_b[8..158].copy_from_slice(&model[60..210]);
    assert_eq!(read_rows(b, row, rows), model_b);
    let c = array(bytes_desc(), 40, 7, 0);
    write_rows(c, &vec![0xEEu8; 280], 40, 7);
    ok(hipMemcpyAtoA(c, 30, a, 0, 240));
    let mut model_c = vec![0xEEu8; 280];
    model_c[30..270].copy_from_slice(&model[..240]);
    assert_eq!(read_rows(c, 40, 7), model_c);
    ok(hipMemcpyAtoA(a, 52, c, 0, 104));
    model[52..156].copy_from_slice(&model_c[..104]);
    assert_eq!(read_rows(a, row, rows), model);

    // hipMemcpyToArray / FromArray: a byte and row offset, then rows one after the other.
    let piece = pattern(70, 5);
    ok(unsafe { hipMemcpyToArray(a, 10, 2, piece.as_ptr().cast(), 70, H2D) });
    model[2 * row + 10..2 * row + 80].copy_from_slice(&piece);
    let mut back = vec![0u8; 90];
    ok(unsafe { hipMemcpyFromArray(back.as_mut_ptr().cast(), a, 51, 1, 90, D2H) });
    assert_eq!(back, model[row + 51..row + 141]);
    assert_eq!(read_rows(a, row, rows), model);

    // A 3-D array: offsets run on across slices.
    let cube = array(bytes_desc(), 9, 3, 4);
    let data = pattern(9 * 3 * 4, 6);
    ok(unsafe { hipMemcpyHtoA(cube, 0, data.as_ptr().cast(), data.len()) });
    let mut back = vec![0u8; 50];
    ok(unsafe { hipMemcpyAtoH(back.as_mut_ptr().cast(), cube, 20, 50) });
    assert_eq!(back, data[20..70]);

    // Misuse: past the end, a dead array, a null host side, offsets past a row.
    expect_code(
        unsafe { hipMemcpyHtoA(a, total - 10, piece.as_ptr().cast(), 11) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemcpyAtoH(back.as_mut_ptr().cast(), a, usize::MAX, 2) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemcpyHtoA(a, 0, std::ptr::null(), 4) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemcpyToArray(a, row, 0, piece.as_ptr().cast(), 4, H2D) },
        HipError::InvalidValue,
    );
    expect_code(hipMemcpyAtoA(b, 0, c, 0, 281), HipError::InvalidValue);
    ok(hipFreeArray(c));
    expect_code(hipMemcpyAtoA(b, 0, c, 0, 4), HipError::InvalidHandle);
    expect_code(hipFreeArray(c), HipError::ContextIsDestroyed);
    expect_code(hipFreeArray(0), HipError::InvalidValue);
    assert_eq!(read_rows(a, row, rows), model);
    for x in [a, b, cube] {
        ok(hipFreeArray(x));
    }
    ok(hipStreamDestroy(s));
}

/// A `hip_Memcpy2D` between two memory kinds.
fn param_2d(
    src: (i32, *const c_void, usize, usize, usize, usize),
    dst: (i32, *mut c_void, usize, usize, usize, usize),
    width: usize,
    height: usize,
) -> Memcpy2D {
    let (st, sp, sa, spitch, sx, sy) = src;
    let (dt, dp, da, dpitch, dx, dy) = dst;
    Memcpy2D {
        srcXInBytes: sx,
        srcY: sy,
        srcMemoryType: st,
        srcHost: if st == HOST { sp } else { std::ptr::null() },
        srcDevice: if st == HOST {
            null_mut()
        } else {
            sp as *mut c_void
        },
        srcArray: sa,
        srcPitch: spitch,
        dstXInBytes: dx,
        dstY: dy,
        dstMemoryType: dt,
        dstHost: if dt == HOST { dp } else { null_mut() },
        dstDevice: if dt == HOST { null_mut() } else { dp },
        dstArray: da,
        dstPitch: dpitch,
        WidthInBytes: width,
        Height: height,
    }
}

/// 2-D regions at positions between host, device and array memory: `hipMemcpyParam2D` (every
/// pair of memory types, unified included), its `Async` form, `hipDrvMemcpy2DUnaligned`,
/// `hipMemcpy2DArrayToArray`.
#[test]
fn two_dimensional_regions_between_every_kind_of_memory() {
    let (row, rows) = (60usize, 6usize);
    let a = array(bytes_desc(), row, rows, 0);
    let mut model = pattern(row * rows, 10);
    write_rows(a, &model, row, rows);

    // Host (pitch 80) into the array at (5, 1): 30 bytes x 4 rows from (2, 1) of the host.
    let host = pattern(80 * 6, 11);
    let p = param_2d(
        (HOST, host.as_ptr().cast(), 0, 80, 2, 1),
        (ARRAY, null_mut(), a, 0, 5, 1),
        30,
        4,
    );
    ok(unsafe { hipMemcpyParam2D(&p) });
    for y in 0..4 {
        let (d, s) = ((1 + y) * row + 5, (1 + y) * 80 + 2);
        model[d..d + 30].copy_from_slice(&host[s..s + 30]);
    }
    assert_eq!(read_rows(a, row, rows), model);

    // Array to device (pitch 64), device to host (pitch 50), on a stream.
    let d = DeviceBuffer::new(64 * 6);
    ok(unsafe { hipMemset(d.ptr, 0, 64 * 6) });
    let s = stream();
    let p = param_2d(
        (ARRAY, null_mut(), a, 0, 10, 0),
        (DEVICE, d.ptr, 0, 64, 4, 1),
        40,
        5,
    );
    ok(unsafe { hipMemcpyParam2DAsync(&p, s) });
    let mut out = vec![0xFFu8; 50 * 5];
    let p = param_2d(
        (DEVICE, d.ptr, 0, 64, 4, 1),
        (HOST, out.as_mut_ptr().cast(), 0, 50, 0, 0),
        40,
        5,
    );
    ok(unsafe { hipMemcpyParam2DAsync(&p, s) });
    ok(hipStreamSynchronize(s));
    for y in 0..5 {
        let (o, m) = (y * 50, y * row + 10);
        assert_eq!(out[o..o + 40], model[m..m + 40], "row {y}");
        assert!(out[o + 40..o + 50].iter().all(|&b| b == 0xFF));
    }

    // Unified memory sides: the pointers tell (host to device, device to host).
    let src = pattern(16 * 3, 12);
    let p = param_2d(
        (UNIFIED, src.as_ptr().cast(), 0, 16, 0, 0),
        (UNIFIED, d.ptr, 0, 64, 0, 0),
        16,
        3,
    );
    ok(unsafe { hipDrvMemcpy2DUnaligned(&p) });
    let got = d.download::<u8>(64 * 3);
    for y in 0..3 {
        assert_eq!(got[y * 64..y * 64 + 16], src[y * 16..y * 16 + 16]);
    }
    // Host to host.
    let mut hh = vec![0u8; 8 * 3];
    let p = param_2d(
        (HOST, src.as_ptr().cast(), 0, 16, 8, 0),
        (HOST, hh.as_mut_ptr().cast(), 0, 8, 0, 0),
        8,
        3,
    );
    ok(unsafe { hipMemcpyParam2D(&p) });
    for y in 0..3 {
        assert_eq!(hh[y * 8..y * 8 + 8], src[y * 16 + 8..y * 16 + 16]);
    }

    // Array to array at offsets (and a float array of the same row bytes).
    let b = array(float_desc(), 15, rows, 0);
    write_rows(b, &vec![0u8; 60 * rows], 60, rows);
    ok(hipMemcpy2DArrayToArray(b, 8, 2, a, 0, 1, 24, 3, D2D));
    let mut model_b = vec![0u8; 60 * rows];
    for y in 0..3 {
        let (d, s) = ((2 + y) * 60 + 8, (1 + y) * row);
        model_b[d..d + 24].copy_from_slice(&model[s..s + 24]);
    }
    assert_eq!(read_rows(b, 60, rows), model_b);

    // Misuse: regions past an array, a pitch narrower than the row, an unknown memory type,
    // an unregistered one, a dead array, an unknown kind.
    let past = param_2d(
        (HOST, host.as_ptr().cast(), 0, 80, 0, 0),
        (ARRAY, null_mut(), a, 0, 40, 0),
        30,
        1,
    );
    expect_code(unsafe { hipMemcpyParam2D(&past) }, HipError::InvalidValue);
    let narrow = param_2d(
        (HOST, host.as_ptr().cast(), 0, 20, 0, 0),
        (ARRAY, null_mut(), a, 0, 0, 0),
        30,
        2,
    );
    // The driver API answers a pitch shorter than a row hipErrorInvalidValue (the runtime
    // API's copies hipErrorInvalidPitchValue), as HIP does.
    expect_code(unsafe { hipMemcpyParam2D(&narrow) }, HipError::InvalidValue);
    let mut odd = past;
    odd.srcMemoryType = 7;
    expect_code(unsafe { hipMemcpyParam2D(&odd) }, HipError::InvalidValue);
    odd.srcMemoryType = 0;
    expect_code(unsafe { hipMemcpyParam2D(&odd) }, HipError::InvalidValue);
    expect_code(
        unsafe { hipMemcpyParam2D(std::ptr::null()) },
        HipError::InvalidValue,
    );
    expect_code(
        hipMemcpy2DArrayToArray(b, 50, 0, a, 0, 0, 24, 1, D2D),
        HipError::InvalidValue,
    );
    expect_code(
        hipMemcpy2DArrayToArray(b, 0, 0, a, 0, 0, 4, 1, 9),
        HipError::InvalidMemcpyDirection,
    );
    ok(hipFreeArray(b));
    expect_code(
        hipMemcpy2DArrayToArray(b, 0, 0, a, 0, 0, 4, 1, D2D),
        HipError::InvalidHandle,
    );
    assert_eq!(read_rows(a, row, rows), model);
    ok(hipFreeArray(a));
    ok(hipStreamDestroy(s));
}

/// `HIP_MEMCPY3D` between a padded host box, a pitched device volume and 3-D arrays, at
/// positions, synchronously and on a stream; `hipMemcpy3D` between arrays.
#[test]
fn three_dimensional_copies_with_the_driver_description() {
    // A 3-D array of 7 x 4 x 3 floats (28-byte rows).
    let (w, h, dp) = (7usize, 4usize, 3usize);
    let row = w * 4;
    let cube = array(float_desc(), w, h, dp);
    // A host box with a 40-byte pitch and 5 rows a slice, the array's region 5 x 3 x 2 texels
    // at (1, 1, 1) of the array, from (4 bytes, 2, 0) of the box.
    let (hp, hh) = (40usize, 5usize);
    let host = pattern(hp * hh * 2, 20);
    let mut c = Memcpy3D {
        srcXInBytes: 4,
        srcY: 2,
        srcZ: 0,
        srcLOD: 0,
        srcMemoryType: HOST,
        srcHost: host.as_ptr().cast(),
        srcDevice: null_mut(),
        srcArray: 0,
        srcPitch: hp,
        srcHeight: hh,
        dstXInBytes: 4,
        dstY: 1,
        dstZ: 1,
        dstLOD: 0,
        dstMemoryType: ARRAY,
        dstHost: null_mut(),
        dstDevice: null_mut(),
        dstArray: cube,
        dstPitch: 0,
        dstHeight: 0,
        WidthInBytes: 5 * 4,
        Height: 3,
        Depth: 2,
    };
    let zero = vec![0u8; row * h * dp];
    ok(unsafe { hipMemcpyHtoA(cube, 0, zero.as_ptr().cast(), zero.len()) });
    ok(unsafe { hipDrvMemcpy3D(&c) });
    let mut model = zero.clone();
    for z in 0..2 {
        for y in 0..3 {
            let d = (1 + z) * row * h + (1 + y) * row + 4;
            let s = z * hp * hh + (2 + y) * hp + 4;
            model[d..d + 20].copy_from_slice(&host[s..s + 20]);
        }
    }
    let mut all = vec![0u8; model.len()];
    ok(unsafe { hipMemcpyAtoH(all.as_mut_ptr().cast(), cube, 0, all.len()) });
    assert_eq!(all, model);

    // The whole array into a pitched device volume and back out to a host box, on a stream.
    let mut vol = PitchedPtr {
        ptr: null_mut(),
        pitch: 0,
        xsize: 0,
        ysize: 0,
    };
    let volume = Extent {
        width: row,
        height: h,
        depth: dp,
    };
    ok(unsafe { hipMalloc3D(&mut vol, volume) });
    let s = stream();
    let whole = Memcpy3D {
        srcXInBytes: 0,
        srcY: 0,
        srcZ: 0,
        srcMemoryType: ARRAY,
        srcHost: std::ptr::null(),
        srcArray: cube,
        dstXInBytes: 0,
        dstY: 0,
        dstZ: 0,
        dstMemoryType: DEVICE,
        dstDevice: vol.ptr,
        dstArray: 0,
        dstPitch: vol.pitch,
        dstHeight: vol.ysize,
        WidthInBytes: row,
        Height: h,
        Depth: dp,
        ..c
    };
    ok(unsafe { hipDrvMemcpy3DAsync(&whole, s) });
    let mut boxed = vec![0u8; 32 * h * dp];
    let out = Memcpy3D {
        srcMemoryType: DEVICE,
        srcDevice: vol.ptr,
        srcArray: 0,
        srcPitch: vol.pitch,
        srcHeight: vol.ysize,
        dstMemoryType: HOST,
        dstHost: boxed.as_mut_ptr().cast(),
        dstDevice: null_mut(),
        dstPitch: 32,
        dstHeight: h,
        ..whole
    };
    ok(unsafe { hipDrvMemcpy3DAsync(&out, s) });
    ok(hipStreamSynchronize(s));
    for z in 0..dp {
        for y in 0..h {
            let (o, m) = (z * 32 * h + y * 32, z * row * h + y * row);
            assert_eq!(boxed[o..o + row], model[m..m + row], "slice {z} row {y}");
        }
    }

    // hipMemcpy3D from the cube into a second one at another position.
    let other = array(float_desc(), w, h, dp);
    ok(unsafe { hipMemcpyHtoA(other, 0, zero.as_ptr().cast(), zero.len()) });
    let p = Memcpy3DParms {
        src_array: cube,
        src_pos: Pos { x: 1, y: 1, z: 1 },
        src_ptr: PitchedPtr {
            ptr: null_mut(),
            pitch: 0,
            xsize: 0,
            ysize: 0,
        },
        dst_array: other,
        dst_pos: Pos { x: 2, y: 0, z: 0 },
        dst_ptr: PitchedPtr {
            ptr: null_mut(),
            pitch: 0,
            xsize: 0,
            ysize: 0,
        },
        extent: Extent {
            width: 5,
            height: 3,
            depth: 2,
        },
        kind: D2D,
    };
    ok(unsafe { hipMemcpy3D(&p) });
    let mut model_other = zero.clone();
    for z in 0..2 {
        for y in 0..3 {
            let d = z * row * h + y * row + 8;
            let s = (1 + z) * row * h + (1 + y) * row + 4;
            model_other[d..d + 20].copy_from_slice(&model[s..s + 20]);
        }
    }
    ok(unsafe { hipMemcpyAtoH(all.as_mut_ptr().cast(), other, 0, all.len()) });
    assert_eq!(all, model_other);

    // Misuse: a mipmap level, slices of too few rows, a region past the array.
    c.srcLOD = 1;
    expect_code(unsafe { hipDrvMemcpy3D(&c) }, HipError::InvalidValue);
    c.srcLOD = 0;
    c.srcHeight = 2;
    expect_code(unsafe { hipDrvMemcpy3D(&c) }, HipError::InvalidValue);
    c.srcHeight = hh;
    c.dstZ = 2;
    expect_code(unsafe { hipDrvMemcpy3D(&c) }, HipError::InvalidValue);
    expect_code(
        unsafe { hipDrvMemcpy3D(std::ptr::null()) },
        HipError::InvalidValue,
    );
    ok(unsafe { hipMemcpyAtoH(all.as_mut_ptr().cast(), cube, 0, all.len()) });
    assert_eq!(all, model);
    ok(hipFreeArray(cube));
    ok(hipFreeArray(other));
    ok(unsafe { hipFree(vol.ptr) });
    ok(hipStreamDestroy(s));
}

#[test]
fn driver_arrays_and_their_descriptors() {
    let d = ArrayDescriptor {
        Width: 10,
        Height: 3,
        Format: FORMAT_FLOAT,
        NumChannels: 4,
    };
    let mut a = 0usize;
    ok(unsafe { hipArrayCreate(&mut a, &d) });
    let mut back = ArrayDescriptor::default();
    ok(unsafe { hipArrayGetDescriptor(&mut back, a) });
    assert_eq!(back, d);
    let mut back3 = Array3DDescriptor::default();
    ok(unsafe { hipArray3DGetDescriptor(&mut back3, a) });
    assert_eq!((back3.Width, back3.Height, back3.Depth), (10, 3, 0));
    assert_eq!(
        (back3.Format, back3.NumChannels, back3.Flags),
        (FORMAT_FLOAT, 4, 0)
    );
    let mut desc = ChannelFormatDesc::default();
    let mut extent = Extent::default();
    let mut flags = 9u32;
    ok(unsafe { hipArrayGetInfo(&mut desc, &mut extent, &mut flags, a) });
    assert_eq!(
        (desc.x, desc.y, desc.z, desc.w, desc.f),
        (32, 32, 32, 32, 2)
    );
    assert_eq!(
        (extent.width, extent.height, extent.depth, flags),
        (10, 3, 0, 0)
    );
    // Texels of 16 bytes: a row is 160 bytes.
    let data = pattern(160 * 3, 30);
    ok(unsafe { hipMemcpyHtoA(a, 0, data.as_ptr().cast(), data.len()) });
    assert_eq!(read_rows(a, 160, 3), data);

    // A layered 1-D array of bytes: 3 layers of 50.
    let layered = Array3DDescriptor {
        Width: 50,
        Height: 0,
        Depth: 3,
        Format: FORMAT_U8,
        NumChannels: 1,
        Flags: 1,
    };
    let mut l = 0usize;
    ok(unsafe { hipArray3DCreate(&mut l, &layered) });
    ok(unsafe { hipArray3DGetDescriptor(&mut back3, l) });
    assert_eq!(back3, layered);
    let data = pattern(150, 31);
    ok(unsafe { hipMemcpyHtoA(l, 0, data.as_ptr().cast(), 150) });
    let mut out = vec![0u8; 150];
    ok(unsafe { hipMemcpyAtoH(out.as_mut_ptr().cast(), l, 0, 150) });
    assert_eq!(out, data);

    // Misuse.
    for bad in [
        ArrayDescriptor {
            NumChannels: 3,
            ..d
        },
        ArrayDescriptor { Format: 0x04, ..d },
        ArrayDescriptor { Width: 0, ..d },
    ] {
        let mut x = 0usize;
        expect_code(
            unsafe { hipArrayCreate(&mut x, &bad) },
            HipError::InvalidValue,
        );
    }
    expect_code(
        unsafe { hipArrayCreate(null_mut(), &d) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipArrayCreate(&mut a.clone(), std::ptr::null()) },
        HipError::InvalidValue,
    );
    let not_layered = Array3DDescriptor {
        Flags: 0,
        ..layered
    };
    let mut x = 0usize;
    expect_code(
        unsafe { hipArray3DCreate(&mut x, &not_layered) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipArrayGetDescriptor(null_mut(), a) },
        HipError::InvalidValue,
    );
    ok(hipArrayDestroy(a));
    expect_code(hipArrayDestroy(a), HipError::ContextIsDestroyed);
    expect_code(hipArrayDestroy(0), HipError::InvalidValue);
    expect_code(
        unsafe { hipArrayGetDescriptor(&mut back, a) },
        HipError::InvalidHandle,
    );
    expect_code(
        unsafe { hipArray3DGetDescriptor(&mut back3, 0) },
        HipError::InvalidHandle,
    );
    ok(hipArrayDestroy(l));
}

/// Level `level`'s array of a mipmapped array.
fn level(m: usize, level: u32) -> usize {
    let mut a = 0usize;
    ok(unsafe { hipGetMipmappedArrayLevel(&mut a, m, level) });
    a
}

fn extent_of(a: usize) -> (usize, usize, usize) {
    let mut e = Extent::default();
    ok(unsafe { hipArrayGetInfo(null_mut(), &mut e, null_mut(), a) });
    (e.width, e.height, e.depth)
}

#[test]
fn mipmapped_arrays_have_levels_of_halved_extents() {
    // 2-D: 16 x 8 floats, 4 levels.
    let desc = float_desc();
    let mut m = 0usize;
    let e = Extent {
        width: 16,
        height: 8,
        depth: 0,
    };
    ok(unsafe { hipMallocMipmappedArray(&mut m, &desc, e, 4, 0) });
    // The handle is HIP's public description.
    let description = unsafe { &*(m as *const MipmappedArrayDescription) };
    assert_eq!(
        (description.width, description.height, description.depth),
        (16, 8, 0)
    );
    assert_eq!(
        (description.min_mipmap_level, description.max_mipmap_level),
        (0, 3)
    );
    assert_eq!(
        (description.format, description.num_channels),
        (FORMAT_FLOAT, 1)
    );
    let expected = [(16, 8, 0), (8, 4, 0), (4, 2, 0), (2, 1, 0)];
    let levels: Vec<usize> = (0..4).map(|l| level(m, l)).collect();
    for (l, (&a, &want)) in levels.iter().zip(&expected).enumerate() {
        assert_eq!(extent_of(a), want, "level {l}");
    }
    // Each level holds its own texels: write them all, then read them all.
    let data: Vec<Vec<u8>> = expected
        .iter()
        .enumerate()
        .map(|(l, &(w, h, _))| pattern(w * 4 * h, 40 + l as u32))
        .collect();
    for ((&a, &(w, h, _)), bytes) in levels.iter().zip(&expected).zip(&data) {
        write_rows(a, bytes, w * 4, h);
    }
    for ((&a, &(w, h, _)), bytes) in levels.iter().zip(&expected).zip(&data) {
        assert_eq!(&read_rows(a, w * 4, h), bytes);
    }
    // A level array serves every copy; it is freed with the mipmapped array, not alone.
    let mut two = vec![0u8; 8];
    ok(unsafe { hipMemcpyAtoH(two.as_mut_ptr().cast(), levels[3], 0, 8) });
    assert_eq!(two, data[3]);
    expect_code(hipFreeArray(levels[1]), HipError::InvalidValue);
    expect_code(
        unsafe { hipGetMipmappedArrayLevel(&mut 0, m, 4) },
        HipError::InvalidValue,
    );
    ok(hipFreeMipmappedArray(m));
    expect_code(hipFreeMipmappedArray(m), HipError::ContextIsDestroyed);
    expect_code(
        unsafe { hipGetMipmappedArrayLevel(&mut 0, m, 0) },
        HipError::InvalidHandle,
    );
    expect_code(extent_code(levels[0]), HipError::InvalidHandle);

    // 3-D and layered through the driver API: depth halves, layers stay.
    let cube = Array3DDescriptor {
        Width: 8,
        Height: 8,
        Depth: 8,
        Format: FORMAT_U8,
        NumChannels: 2,
        Flags: 0,
    };
    let mut m3 = 0usize;
    ok(unsafe { hipMipmappedArrayCreate(&mut m3, &cube, 4) });
    for (l, want) in [(8, 8, 8), (4, 4, 4), (2, 2, 2), (1, 1, 1)]
        .iter()
        .enumerate()
    {
        let mut a = 0usize;
        ok(unsafe { hipMipmappedArrayGetLevel(&mut a, m3, l as u32) });
        assert_eq!(extent_of(a), *want);
        // Two bytes a texel, every byte of the level written and read.
        let bytes = pattern(want.0 * 2 * want.1 * want.2, l as u32);
        ok(unsafe { hipMemcpyHtoA(a, 0, bytes.as_ptr().cast(), bytes.len()) });
        let mut back = vec![0u8; bytes.len()];
        ok(unsafe { hipMemcpyAtoH(back.as_mut_ptr().cast(), a, 0, back.len()) });
        assert_eq!(back, bytes);
    }
    ok(hipMipmappedArrayDestroy(m3));
    let layered = Array3DDescriptor {
        Width: 16,
        Height: 0,
        Depth: 5,
        Flags: 1,
        ..cube
    };
    let mut ml = 0usize;
    ok(unsafe { hipMipmappedArrayCreate(&mut ml, &layered, 0) });
    assert_eq!(extent_of(level(ml, 0)), (16, 0, 5), "0 levels means 1");
    ok(hipMipmappedArrayDestroy(ml));
    ok(unsafe { hipMipmappedArrayCreate(&mut ml, &layered, 5) });
    assert_eq!(extent_of(level(ml, 4)), (1, 0, 5));
    ok(hipMipmappedArrayDestroy(ml));

    // Misuse.
    let mut x = 0usize;
    let big = Extent {
        width: 6,
        height: 6,
        depth: 6,
    };
    // More levels than the extent halves into are clamped, as CUDA documents: 6 x 6 x 6 has 3.
    ok(unsafe { hipMallocMipmappedArray(&mut x, &desc, big, 4, 0) });
    assert_eq!(extent_of(level(x, 2)), (1, 1, 1));
    let mut past = 0usize;
    expect_code(
        unsafe { hipGetMipmappedArrayLevel(&mut past, x, 3) },
        HipError::InvalidValue,
    );
    ok(hipFreeMipmappedArray(x));
    expect_code(
        unsafe { hipMallocMipmappedArray(null_mut(), &desc, big, 1, 0) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMallocMipmappedArray(&mut x, std::ptr::null(), big, 1, 0) },
        HipError::InvalidValue,
    );
    let bad_desc = hipCreateChannelDesc(8, 16, 0, 0, 1);
    expect_code(
        unsafe { hipMallocMipmappedArray(&mut x, &bad_desc, big, 1, 0) },
        HipError::InvalidValue,
    );
    let no_height = Extent {
        width: 6,
        height: 0,
        depth: 6,
    };
    expect_code(
        unsafe { hipMallocMipmappedArray(&mut x, &desc, no_height, 1, 0) },
        HipError::InvalidValue,
    );
    let huge = Extent {
        width: usize::MAX,
        height: 6,
        depth: 6,
    };
    expect_code(
        unsafe { hipMallocMipmappedArray(&mut x, &desc, huge, 1, 0) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMallocMipmappedArray(&mut x, &desc, big, 1, 0xDEAD_BEEF) },
        HipError::InvalidValue,
    );
    expect_code(hipFreeMipmappedArray(0), HipError::InvalidValue);
    expect_code(
        unsafe { hipGetMipmappedArrayLevel(&mut x, 0, 0) },
        HipError::InvalidHandle,
    );
}

fn extent_code(a: usize) -> hipError_t {
    let mut e = Extent::default();
    unsafe { hipArrayGetInfo(null_mut(), &mut e, null_mut(), a) }
}
