//! Images that cannot be registered: reported on stderr, remembered, and launches of their kernels
//! fail with hipErrorInvalidImage naming the problem. Own process: a failed image changes what
//! every later "kernel not found" reports.

mod common;

use common::*;
use hipmlir_rt::*;

#[test]
fn truncated_and_garbage_bundles() {
    let vadd = kernel(
        "vadd",
        "vadd",
        vec![
            pointer("a", "const float *"),
            pointer("b", "const float *"),
            pointer("c", "float *"),
            value("n", "int", 4),
        ],
    );
    let source = "__kernel void vadd(__global const float* a, __global const float* b, \
                  __global float* c, int n) { size_t i = get_global_id(0); if (i < n) c[i] = a[i] + b[i]; }";
    let good = bundle(compile_opencl_c(source, "bad-image"), vec![vadd.clone()]);

    // Every truncation is refused without crashing; none registers.
    for len in [0, 10, 24, 40, good.len() / 2, good.len() - 1] {
        register(&good[..len]);
    }
    // A null pointer and garbage.
    unsafe { __hipmlirRegisterImage(std::ptr::null(), 100) };
    register(b"definitely not a clang offload bundle");
    // Registration returns void but records the last error.
    assert_eq!(hipGetLastError(), HipError::InvalidImage.code());

    let args = ArgBlock::new(&vadd)
        .set(0, 0usize)
        .set(1, 0usize)
        .set(2, 0usize)
        .set(3, 0i32);
    expect_code(
        launch("vadd", dim3(1, 1, 1), dim3(1, 1, 1), &args.bytes),
        HipError::InvalidImage,
    );

    // The intact image still registers and runs.
    register(&good);
    let n = 64usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let (da, db, dc) = (
        DeviceBuffer::from_slice(&a),
        DeviceBuffer::from_slice(&a),
        DeviceBuffer::new(n * 4),
    );
    let args = ArgBlock::new(&vadd)
        .set(0, da.ptr)
        .set(1, db.ptr)
        .set(2, dc.ptr)
        .set(3, n as i32);
    ok(launch("vadd", dim3(1, 1, 1), dim3(64, 1, 1), &args.bytes));
    let c: Vec<f32> = dc.download(n);
    for i in 0..n {
        assert_eq!(c[i], 2.0 * a[i]);
    }
    // Unknown names now mention the failed images.
    expect_code(
        launch("nope", dim3(1, 1, 1), dim3(1, 1, 1), &[]),
        HipError::InvalidImage,
    );
}

/// Images whose SPIR-V is garbage behind a valid magic number, or whose metadata names a kernel
/// the SPIR-V lacks or miscounts its parameters, are refused when they register (before, the
/// first two reached the driver and the third failed at its first launch), with
/// hipErrorInvalidImage at every launch of their kernels.
#[test]
fn spirv_checked_against_metadata_at_registration() {
    let mut garbage = 0x0723_0203u32.to_le_bytes().to_vec();
    garbage.extend((0..60u8).map(|i| i.wrapping_mul(37)));
    let broken = kernel("broken_kernel", "broken_kernel", vec![value("n", "int", 4)]);
    register(&bundle(garbage, vec![broken]));
    assert_eq!(hipGetLastError(), HipError::InvalidImage.code());
    let args = 7i32.to_ne_bytes();
    for _ in 0..2 {
        expect_code(
            launch("broken_kernel", dim3(1, 1, 1), dim3(1, 1, 1), &args),
            HipError::InvalidImage,
        );
    }
    let spirv = compile_opencl_c(
        "__kernel void present(__global int* p) { p[get_global_id(0)] = 1; }",
        "present",
    );
    let ghost = kernel("ghost_kernel", "ghost_kernel", vec![]);
    register(&bundle(spirv.clone(), vec![ghost]));
    assert_eq!(hipGetLastError(), HipError::InvalidImage.code());
    expect_code(
        launch("ghost_kernel", dim3(1, 1, 1), dim3(1, 1, 1), &[]),
        HipError::InvalidImage,
    );
    let miscounted = kernel(
        "present",
        "present_miscounted",
        vec![pointer("p", "int *"), value("extra", "int", 4)],
    );
    register(&bundle(spirv.clone(), vec![miscounted.clone()]));
    assert_eq!(hipGetLastError(), HipError::InvalidImage.code());
    let args = ArgBlock::new(&miscounted).set(0, 0usize).set(1, 0i32);
    expect_code(
        launch(
            "present_miscounted",
            dim3(1, 1, 1),
            dim3(1, 1, 1),
            &args.bytes,
        ),
        HipError::InvalidImage,
    );
    // The same SPIR-V with metadata that agrees registers and runs.
    let present = kernel("present", "present", vec![pointer("p", "int *")]);
    register(&bundle(spirv, vec![present.clone()]));
    let out = DeviceBuffer::new(4);
    let args = ArgBlock::new(&present).set(0, out.ptr);
    ok(launch("present", dim3(1, 1, 1), dim3(1, 1, 1), &args.bytes));
    ok(hipDeviceSynchronize());
    assert_eq!(out.download::<i32>(1), vec![1]);
}
