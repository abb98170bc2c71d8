//! Without a usable OpenCL device every call fails politely: hipErrorNoDevice (device discovery
//! reported once on stderr), registration, versions and error names still work, and nothing
//! crashes. The ICD loader is
//! pointed at an empty vendor directory before the first call.

mod common;

use std::ffi::c_void;

use common::*;
use hipmlir_rt::*;

#[test]
fn everything_reports_no_device() {
    let empty = scratch_dir("no-vendors");
    std::env::set_var("OCL_ICD_VENDORS", &empty);

    // Registration (which reads the SPIR-V) needs no device.
    let k = kernel("k", "k", vec![value("n", "int", 4)]);
    let spirv = compile_opencl_c("__kernel void k(int n) {}", "no-device");
    register(&bundle(spirv, vec![k]));
    assert_eq!(hipGetLastError(), 0);

    let mut count = -1;
    expect_code(unsafe { hipGetDeviceCount(&mut count) }, HipError::NoDevice);
    assert_eq!(count, 0);
    let mut p = std::ptr::null_mut::<c_void>();
    expect_code(unsafe { hipMalloc(&mut p, 16) }, HipError::NoDevice);
    expect_code(hipDeviceSynchronize(), HipError::NoDevice);
    expect_code(hipSetDevice(0), HipError::NoDevice);
    expect_code(
        launch("k", dim3(1, 1, 1), dim3(1, 1, 1), &7i32.to_ne_bytes()),
        HipError::NoDevice,
    );
    // As HIP initializes its runtime at every call, the missing device is the answer before
    // any other check, also for calls that would need none (as HIP's own tests expect).
    expect_code(
        launch("k", dim3(1, 1, 1), dim3(1, 1, 1), &[0u8; 3]),
        HipError::NoDevice,
    );
    expect_code(unsafe { hipFree(std::ptr::null_mut()) }, HipError::NoDevice);
    expect_code(
        unsafe { hipHostFree(std::ptr::null_mut()) },
        HipError::NoDevice,
    );
    let (mut from, mut to) = ([1u8; 8], [0u8; 8]);
    expect_code(
        unsafe {
            hipMemcpy(
                to.as_mut_ptr().cast(),
                from.as_mut_ptr().cast(),
                8,
                MemcpyKind::HostToHost as i32,
            )
        },
        HipError::NoDevice,
    );
    assert_eq!(to, [0u8; 8]);
    // What HIP answers without a device: versions, error names.
    let mut v = 0;
    ok(unsafe { hipRuntimeGetVersion(&mut v) });
    let name = unsafe { std::ffi::CStr::from_ptr(hipGetErrorName(HipError::NoDevice.code())) };
    assert_eq!(name.to_str(), Ok("hipErrorNoDevice"));
    assert!(selected_device().is_none());
    let _ = std::fs::remove_dir_all(&empty);
}
