//! `hipDevicePrimaryCtxReset` on the real device, in a test binary of its own (it resets the
//! device as `hipDeviceReset` does): memory, streams, registered ranges and arrays made before
//! are gone with HIP's error codes, a created context and the primary one stay usable, and the
//! runtime works after it.

mod common;

use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use common::*;
use hipmlir_rt::*;

const KERNELS: &str = r#"
__kernel void times_three(__global int* p, int n) {
    size_t i = get_global_id(0);
    if (i < n) p[i] *= 3;
}
"#;

#[test]
fn primary_context_reset_releases_the_device_state() {
    let times_three = kernel(
        "times_three",
        "times_three",
        vec![pointer("p", "int *"), value("n", "int", 4)],
    );
    register(&bundle(
        compile_opencl_c(KERNELS, "ctx-reset"),
        vec![times_three.clone()],
    ));
    let name = CString::new("times_three").unwrap();
    let n = 512usize;
    let run = |p: *mut c_void| {
        let args = ArgBlock::new(&times_three).set(0, p).set(1, n as i32);
        unsafe {
            hipLaunchKernelByName(
                name.as_ptr(),
                dim3((n / 64) as u32, 1, 1),
                dim3(64, 1, 1),
                0,
                null_mut(),
                args.bytes.as_ptr().cast(),
                args.bytes.len(),
            )
        }
    };
    let mut primary = null_mut();
    ok(unsafe { hipDevicePrimaryCtxRetain(&mut primary, 0) });
    let mut created = null_mut();
    ok(unsafe { hipCtxCreate(&mut created, 0, 0) });
    let mut d: *mut c_void = null_mut();
    ok(unsafe { hipMalloc(&mut d, n * 4) });
    ok(unsafe { hipMemset(d, 0, n * 4) });
    let mut s = null_mut();
    ok(unsafe { hipStreamCreate(&mut s) });
    let desc = hipCreateChannelDesc(32, 0, 0, 0, 1);
    let mut array = 0usize;
    ok(unsafe { hipMallocArray(&mut array, &desc, 16, 4, 0) });
    let mut host = vec![0u32; 1024];
    let mut supported = 0;
    ok(unsafe { hipDeviceGetAttribute(&mut supported, 90, 0) });
    if supported != 0 {
        ok(hipHostRegister(host.as_mut_ptr().cast(), 4096, 0));
    }
    ok(run(d));

    ok(hipDevicePrimaryCtxReset(0));

    expect_code(unsafe { hipFree(d) }, HipError::InvalidValue);
    expect_code(hipStreamSynchronize(s), HipError::ContextIsDestroyed);
    let mut extent = Extent::default();
    expect_code(
        unsafe { hipArrayGetInfo(null_mut(), &mut extent, null_mut(), array) },
        HipError::InvalidHandle,
    );
    if supported != 0 {
        expect_code(
            hipHostUnregister(host.as_mut_ptr().cast()),
            HipError::HostMemoryNotRegistered,
        );
    }
    expect_code(hipDevicePrimaryCtxReset(-1), HipError::InvalidDevice);
    // The contexts are the device's, which is there still: the created one is current.
    let mut current = null_mut();
    ok(unsafe { hipCtxGetCurrent(&mut current) });
    assert_eq!(current, created);
    let buffer = DeviceBuffer::from_slice(&(0..n as i32).collect::<Vec<_>>());
    ok(run(buffer.ptr));
    ok(hipCtxSynchronize());
    let got: Vec<i32> = buffer.download(n);
    assert!(got.iter().enumerate().all(|(i, &v)| v == 3 * i as i32));
    ok(hipCtxDestroy(created));
    ok(hipDevicePrimaryCtxRelease(0));
}
