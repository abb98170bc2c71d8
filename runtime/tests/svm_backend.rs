//! The coarse-grained SVM memory backend, forced with HIPMLIR_MEMORY=svm on a device that would
//! pick USM. One test in this file: the variable must be set before the runtime opens the device.

mod common;

use std::ffi::c_void;

use common::*;
use hipmlir_rt::*;

const KERNELS: &str = r#"
__kernel void vadd(__global const float* a, __global const float* b, __global float* c, int n) {
    size_t i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}
__kernel void gather(__global float* __global const* tables, __global float* out, int n) {
    size_t i = get_global_id(0);
    if (i < n) out[i] = tables[0][i] * tables[1][i];
}
"#;

#[test]
fn svm_backend_runs_kernels() {
    std::env::set_var("HIPMLIR_MEMORY", "svm");
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
    let gather = kernel(
        "gather",
        "gather",
        vec![
            pointer("tables", "float *const *"),
            pointer("out", "float *"),
            value("n", "int", 4),
        ],
    );
    register(&bundle(
        compile_opencl_c(KERNELS, "svm"),
        vec![vadd.clone(), gather.clone()],
    ));

    let n = 500usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let b: Vec<f32> = (0..n).map(|i| 100.0 - i as f32).collect();
    let (da, db) = (DeviceBuffer::from_slice(&a), DeviceBuffer::from_slice(&b));
    // The output goes 16 floats into its allocation (an interior pointer).
    let dc = DeviceBuffer::new((n + 16) * 4);
    ok(unsafe { hipMemset(dc.ptr, 0, dc.bytes) });
    let args = ArgBlock::new(&vadd)
        .set(0, da.ptr)
        .set(1, db.ptr)
        .set(2, dc.at(64))
        .set(3, n as i32);
    ok(launch("vadd", dim3(4, 1, 1), dim3(128, 1, 1), &args.bytes));
    ok(hipDeviceSynchronize());
    let c: Vec<f32> = dc.download(n + 16);
    assert!(c[..16].iter().all(|&v| v == 0.0));
    for i in 0..n {
        assert_eq!(c[16 + i], a[i] + b[i], "element {i}");
    }

    let tables = DeviceBuffer::from_slice(&[da.ptr as usize, db.ptr as usize]);
    let args = ArgBlock::new(&gather)
        .set(0, tables.ptr)
        .set(1, dc.ptr)
        .set(2, n as i32);
    ok(launch(
        "gather",
        dim3(4, 1, 1),
        dim3(128, 1, 1),
        &args.bytes,
    ));
    let g: Vec<f32> = dc.download(n);
    for i in 0..n {
        assert_eq!(g[i], a[i] * b[i], "element {i}");
    }

    let (_, memory) = selected_device().expect("device opened");
    assert!(memory.contains("SVM"), "HIPMLIR_MEMORY=svm gave {memory}");
    // Managed memory is what the memory model gives: SVM has none, and the device says so
    // (hipDeviceAttributeManagedMemory, 24), though the device itself has USM.
    let mut managed = -1;
    ok(unsafe { hipDeviceGetAttribute(&mut managed, 24, 0) });
    assert_eq!(managed, 0, "managed memory attribute under SVM");
    let mut p: *mut c_void = std::ptr::null_mut();
    expect_code(
        unsafe { hipMallocManaged(&mut p, 64, 1) },
        HipError::NotSupported,
    );
    let mut local = 0u32;
    expect_code(
        unsafe { hipFree((&mut local as *mut u32).cast::<c_void>()) },
        HipError::InvalidValue,
    );
}
