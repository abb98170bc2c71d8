//! hipDeviceReset on the real device, in a test binary of its own (a reset frees every
//! allocation and destroys every stream of the process, so no other test may run beside it):
//! everything created before is gone, with error codes for the stale handles, and the runtime
//! works after it.

mod common;

use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use common::*;
use hipmlir_rt::*;

const KERNELS: &str = r#"
__kernel void add_one(__global int* p, int n) {
    size_t i = get_global_id(0);
    if (i < n) p[i] += 1;
}
"#;

#[test]
fn reset_releases_everything_and_the_runtime_keeps_working() {
    let spirv = compile_opencl_c(KERNELS, "reset");
    let add_one = kernel(
        "add_one",
        "add_one",
        vec![pointer("p", "int *"), value("n", "int", 4)],
    );
    register(&bundle(spirv, vec![add_one.clone()]));
    let name = CString::new("add_one").unwrap();
    let n = 1024usize;
    let run = |p: *mut c_void, stream: hipStream_t| {
        let args = ArgBlock::new(&add_one).set(0, p).set(1, n as i32);
        unsafe {
            hipLaunchKernelByName(
                name.as_ptr(),
                dim3((n / 64) as u32, 1, 1),
                dim3(64, 1, 1),
                0,
                stream,
                args.bytes.as_ptr().cast(),
                args.bytes.len(),
            )
        }
    };

    let mut d: *mut c_void = null_mut();
    ok(unsafe { hipMalloc(&mut d, n * 4) });
    let mut m: *mut c_void = null_mut();
    ok(unsafe { hipMallocManaged(&mut m, n * 4, 1) });
    ok(unsafe { hipMemAdvise(m, n * 4, 1, 0) });
    let mut s = null_mut();
    ok(unsafe { hipStreamCreate(&mut s) });
    let mut e = null_mut();
    ok(unsafe { hipEventCreate(&mut e) });
    ok(unsafe { hipMemset(d, 0, n * 4) });
    ok(run(d, s));
    ok(hipEventRecord(e, s));

    ok(hipDeviceReset());

    // Stale handles and pointers are errors, not crashes.
    expect_code(unsafe { hipFree(d) }, HipError::InvalidValue);
    expect_code(unsafe { hipFree(m) }, HipError::InvalidValue);
    // The reset destroyed the stream: named again, it is a destroyed stream, as HIP says.
    expect_code(hipStreamSynchronize(s), HipError::ContextIsDestroyed);
    expect_code(hipStreamDestroy(s), HipError::ContextIsDestroyed);
    expect_code(hipEventSynchronize(e), HipError::InvalidHandle);
    expect_code(unsafe { hipMemset(d, 0, 4) }, HipError::InvalidValue);
    let mut rm = 0i32;
    expect_code(
        unsafe { hipMemRangeGetAttribute((&mut rm as *mut i32).cast(), 4, 1, m, n * 4) },
        HipError::InvalidValue,
    );

    // A fresh start: new memory, streams and launches of the already loaded module.
    let buffer = DeviceBuffer::from_slice(&vec![41i32; n]);
    let mut s2 = null_mut();
    ok(unsafe { hipStreamCreate(&mut s2) });
    ok(run(buffer.ptr, s2));
    ok(run(buffer.ptr, null_mut()));
    let got: Vec<i32> = buffer.download(n);
    assert!(got.iter().all(|&v| v == 43), "{:?}", &got[..4]);
    ok(hipStreamDestroy(s2));
    let mut m2: *mut c_void = null_mut();
    ok(unsafe { hipMallocManaged(&mut m2, n * 4, 1) });
    ok(unsafe { hipMemRangeGetAttribute((&mut rm as *mut i32).cast(), 4, 1, m2, n * 4) });
    assert_eq!(rm, 0, "no read-mostly advice survives a reset");
    ok(unsafe { hipFree(m2) });
}
