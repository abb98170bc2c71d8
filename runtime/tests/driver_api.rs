//! The driver API on the real device: `hipDevice_t` queries, contexts (the per-thread stack,
//! created and primary contexts, their settings), error names, module launches with `extra`
//! (checked), cooperative launches, `hipFuncGetAttribute`, launches between events
//! (`hipExtLaunchKernel`, `hipExtModuleLaunchKernel`), `hipModuleGetTexRef`; every result
//! compared with a host reference, every misuse with HIP's code.

#![allow(clippy::manual_dangling_ptr)] // HIP_LAUNCH_PARAM_* are the small numbers 1, 2, 3.

mod common;

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr::null_mut;
use std::sync::OnceLock;

use common::*;
use hipmlir_rt::*;

const KERNELS: &str = r#"
__kernel void axpy(__global float* y, __global const float* x, float a, int n) {
    size_t i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
__global int tex = 5;
"#;

/// A module with `axpy` and a device variable named `tex`, loaded with `hipModuleLoadData`.
struct M {
    module: *mut c_void,
    axpy: *mut c_void,
}

unsafe impl Send for M {}
unsafe impl Sync for M {}

fn m() -> &'static M {
    static M: OnceLock<M> = OnceLock::new();
    M.get_or_init(|| {
        test_env();
        let source = format!("{KERNELS}{}", address_kernel_source("tex"));
        let spirv = compile_opencl_c(&source, "driver-api");
        let axpy = kernel(
            "axpy",
            "axpy",
            vec![
                pointer("y", "float *"),
                pointer("x", "const float *"),
                value("a", "float", 4),
                value("n", "int", 4),
            ],
        );
        let image = bundle_with_globals(spirv, vec![axpy], vec![global_var("tex", 4)]);
        // The module keeps its own copy of the image.
        let mut module = null_mut();
        ok(unsafe { hipModuleLoadData(&mut module, image.as_ptr().cast()) });
        let mut f = null_mut();
        let name = CString::new("axpy").unwrap();
        ok(unsafe { hipModuleGetFunction(&mut f, module, name.as_ptr()) });
        M { module, axpy: f }
    })
}

const N: usize = 1000;

fn inputs() -> (Vec<f32>, Vec<f32>) {
    let x: Vec<f32> = (0..N).map(|i| i as f32 * 0.5 - 7.0).collect();
    let y: Vec<f32> = (0..N).map(|i| (i % 13) as f32).collect();
    (x, y)
}

/// Runs `launch` on fresh `y`/`x` buffers and checks `y = a x + y` on every element (`times`
/// launches).
fn check_axpy(a: f32, times: usize, launch: impl FnOnce(*mut c_void, *mut c_void) -> hipError_t) {
    check_axpy_first(a, times, N, launch)
}

/// [`check_axpy`] of a launch that covers the first `count` elements (the rest unchanged).
fn check_axpy_first(
    a: f32,
    times: usize,
    count: usize,
    launch: impl FnOnce(*mut c_void, *mut c_void) -> hipError_t,
) {
    let (x, y) = inputs();
    let dx = DeviceBuffer::from_slice(&x);
    let dy = DeviceBuffer::from_slice(&y);
    ok(launch(dy.ptr, dx.ptr));
    ok(hipDeviceSynchronize());
    let got: Vec<f32> = dy.download(N);
    for i in 0..N {
        let mut want = y[i];
        for _ in 0..if i < count { times } else { 0 } {
            want += a * x[i];
        }
        assert_eq!(got[i], want, "element {i}");
    }
}

#[repr(C)]
struct AxpyArgs {
    y: *mut c_void,
    x: *mut c_void,
    a: f32,
    n: i32,
}

/// `{BUFFER_POINTER, args, BUFFER_SIZE, &size, END}`.
fn extra_list(args: &mut AxpyArgs, size: &mut usize) -> [*mut c_void; 5] {
    [
        1usize as *mut c_void,
        (args as *mut AxpyArgs).cast(),
        2usize as *mut c_void,
        (size as *mut usize).cast(),
        3usize as *mut c_void,
    ]
}

fn module_launch(grid: u32, params: *mut *mut c_void, extra: *mut *mut c_void) -> hipError_t {
    unsafe { hipModuleLaunchKernel(m().axpy, grid, 1, 1, 64, 1, 1, 0, null_mut(), params, extra) }
}

#[test]
fn module_launches_with_checked_extra() {
    let grid = N.div_ceil(64) as u32;
    check_axpy(2.5, 1, |y, x| {
        let mut args = AxpyArgs {
            y,
            x,
            a: 2.5,
            n: N as i32,
        };
        let mut size = std::mem::size_of::<AxpyArgs>();
        let mut extra = extra_list(&mut args, &mut size);
        module_launch(grid, null_mut(), extra.as_mut_ptr())
    });
    // The keys in the other order.
    check_axpy(-1.0, 1, |y, x| {
        let mut args = AxpyArgs {
            y,
            x,
            a: -1.0,
            n: N as i32,
        };
        let mut size = std::mem::size_of::<AxpyArgs>();
        let e = extra_list(&mut args, &mut size);
        let mut extra = [e[2], e[3], e[0], e[1], e[4]];
        module_launch(grid, null_mut(), extra.as_mut_ptr())
    });

    // Misuse: each an invalid value, nothing launched.
    let (x, y) = inputs();
    let dx = DeviceBuffer::from_slice(&x);
    let dy = DeviceBuffer::from_slice(&y);
    let mut args = AxpyArgs {
        y: dy.ptr,
        x: dx.ptr,
        a: 9.0,
        n: N as i32,
    };
    let full = std::mem::size_of::<AxpyArgs>();
    let end = 3usize as *mut c_void;
    for (size, shape) in [
        (full - 4, 0),
        (full + 8, 0),
        (full, 1),
        (full, 2),
        (full, 3),
        (full, 4),
    ] {
        let mut size = size;
        let e = extra_list(&mut args, &mut size);
        let mut extra: Vec<*mut c_void> = match shape {
            0 => e.to_vec(),
            // No BUFFER_SIZE.
            1 => vec![e[0], e[1], end],
            // A null buffer.
            2 => vec![e[0], null_mut(), e[2], e[3], end],
            // A key named twice.
            3 => vec![e[0], e[1], e[0], e[1], e[2], e[3], end],
            // An unknown key.
            _ => vec![
                e[0],
                e[1],
                7usize as *mut c_void,
                null_mut(),
                e[2],
                e[3],
                end,
            ],
        };
        expect_code(
            module_launch(1, null_mut(), extra.as_mut_ptr()),
            HipError::InvalidValue,
        );
    }
    // Both kernelParams and extra.
    let mut size = full;
    let mut extra = extra_list(&mut args, &mut size);
    let (mut py, mut px, mut pa, mut pn) = (dy.ptr, dx.ptr, 1.0f32, N as i32);
    let mut params: [*mut c_void; 4] = [
        (&mut py as *mut *mut c_void).cast(),
        (&mut px as *mut *mut c_void).cast(),
        (&mut pa as *mut f32).cast(),
        (&mut pn as *mut i32).cast(),
    ];
    expect_code(
        module_launch(1, params.as_mut_ptr(), extra.as_mut_ptr()),
        HipError::InvalidValue,
    );
    expect_code(
        unsafe {
            hipModuleLaunchKernel(
                null_mut(),
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                null_mut(),
                params.as_mut_ptr(),
                null_mut(),
            )
        },
        HipError::InvalidHandle,
    );
    ok(hipDeviceSynchronize());
    assert_eq!(dy.download::<f32>(N), y, "no misuse launched anything");
}

fn params(y: &mut *mut c_void, x: &mut *mut c_void, a: &mut f32, n: &mut i32) -> [*mut c_void; 4] {
    [
        (y as *mut *mut c_void).cast(),
        (x as *mut *mut c_void).cast(),
        (a as *mut f32).cast(),
        (n as *mut i32).cast(),
    ]
}

#[test]
fn cooperative_launches_run_or_say_why_not() {
    let f = m().axpy;
    // One block is always resident by itself.
    check_axpy_first(3.0, 1, 64, |mut y, mut x| {
        let (mut a, mut n) = (3.0f32, 64i32);
        let mut p = params(&mut y, &mut x, &mut a, &mut n);
        unsafe {
            hipModuleLaunchCooperativeKernel(f, 1, 1, 1, 64, 1, 1, 0, null_mut(), p.as_mut_ptr())
        }
    });
    let mut cooperative = 0;
    ok(unsafe { hipDeviceGetAttribute(&mut cooperative, 10, 0) });
    let (x, y) = inputs();
    let dx = DeviceBuffer::from_slice(&x);
    let dy = DeviceBuffer::from_slice(&y);
    let (mut py, mut px, mut a, mut n) = (dy.ptr, dx.ptr, 1.0f32, N as i32);
    let mut p = params(&mut py, &mut px, &mut a, &mut n);
    let grid = N.div_ceil(64) as u32;
    let code = unsafe {
        hipModuleLaunchCooperativeKernel(f, grid, 1, 1, 64, 1, 1, 0, null_mut(), p.as_mut_ptr())
    };
    if cooperative == 0 {
        expect_code(code, HipError::NotSupported);
    } else {
        ok(code);
    }
    // The runtime API's form, with the function handle.
    let code = unsafe {
        hipLaunchCooperativeKernel(
            f,
            dim3(grid, 1, 1),
            dim3(64, 1, 1),
            p.as_mut_ptr(),
            0,
            null_mut(),
        )
    };
    if cooperative == 0 {
        expect_code(code, HipError::NotSupported);
    } else {
        ok(code);
    }
    ok(hipDeviceSynchronize());
    let got: Vec<f32> = dy.download(N);
    let launches = if cooperative == 0 { 0.0 } else { 2.0 };
    for i in 0..N {
        assert_eq!(got[i], y[i] + launches * x[i], "element {i}");
    }
    expect_code(
        unsafe {
            hipModuleLaunchCooperativeKernel(
                null_mut(),
                1,
                1,
                1,
                64,
                1,
                1,
                0,
                null_mut(),
                p.as_mut_ptr(),
            )
        },
        HipError::InvalidHandle,
    );
}

#[test]
fn function_attributes_one_by_one() {
    let f = m().axpy;
    let mut all = FuncAttributes::default();
    ok(unsafe { hipFuncGetAttributes(&mut all, f) });
    let expected = [
        all.maxThreadsPerBlock,
        all.sharedSizeBytes as c_int,
        all.constSizeBytes as c_int,
        all.localSizeBytes as c_int,
        all.numRegs,
        all.ptxVersion,
        all.binaryVersion,
        all.cacheModeCA,
        all.maxDynamicSharedSizeBytes,
        all.preferredShmemCarveout,
    ];
    assert!(all.maxThreadsPerBlock > 0);
    // The versions of the code and of the binary (the device's own, as the kernel is built for it).
    assert!(
        all.ptxVersion > 0 && all.binaryVersion > 0,
        "{} {}",
        all.ptxVersion,
        all.binaryVersion
    );
    for (attribute, want) in expected.iter().enumerate() {
        let mut v = -12345;
        ok(unsafe { hipFuncGetAttribute(&mut v, attribute as c_int, f) });
        assert_eq!(v, *want, "attribute {attribute}");
    }
    let mut v = 0;
    for bad in [-1, 10, 1000] {
        expect_code(
            unsafe { hipFuncGetAttribute(&mut v, bad, f) },
            HipError::InvalidValue,
        );
    }
    expect_code(
        unsafe { hipFuncGetAttribute(null_mut(), 0, f) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipFuncGetAttribute(&mut v, 0, null_mut()) },
        HipError::InvalidHandle,
    );
}

fn event() -> hipEvent_t {
    let mut e = null_mut();
    ok(unsafe { hipEventCreate(&mut e) });
    e
}

#[test]
fn launches_between_events() {
    let f = m().axpy;
    let (start, stop) = (event(), event());
    let grid = N.div_ceil(64) as u32;
    check_axpy(0.25, 1, |mut y, mut x| {
        let (mut a, mut n) = (0.25f32, N as i32);
        let mut p = params(&mut y, &mut x, &mut a, &mut n);
        unsafe {
            hipExtLaunchKernel(
                f,
                dim3(grid, 1, 1),
                dim3(64, 1, 1),
                p.as_mut_ptr(),
                0,
                null_mut(),
                start,
                stop,
                1,
            )
        }
    });
    let mut ms = -1.0f32;
    ok(unsafe { hipEventElapsedTime(&mut ms, start, stop) });
    assert!(ms >= 0.0, "{ms}");
    // Sized in work-items: 1024 of 64-item groups (the kernel checks n); no events.
    check_axpy(4.0, 2, |mut y, mut x| {
        let (mut a, mut n) = (4.0f32, N as i32);
        let mut p = params(&mut y, &mut x, &mut a, &mut n);
        let one = unsafe {
            hipExtModuleLaunchKernel(
                f,
                1024,
                1,
                1,
                64,
                1,
                1,
                0,
                null_mut(),
                p.as_mut_ptr(),
                null_mut(),
                start,
                null_mut(),
                0,
            )
        };
        if one != 0 {
            return one;
        }
        unsafe {
            hipHccModuleLaunchKernel(
                f,
                1024,
                1,
                1,
                64,
                1,
                1,
                0,
                null_mut(),
                p.as_mut_ptr(),
                null_mut(),
                null_mut(),
                stop,
            )
        }
    });
    ok(unsafe { hipEventElapsedTime(&mut ms, start, stop) });
    assert!(ms >= 0.0, "{ms}");
    // Misuse.
    let d = DeviceBuffer::new(N * 4);
    let (mut py, mut px, mut a, mut n) = (d.ptr, d.ptr, 1.0f32, 0i32);
    let mut p = params(&mut py, &mut px, &mut a, &mut n);
    let mut ext = |flags: c_int, start: hipEvent_t| unsafe {
        hipExtLaunchKernel(
            f,
            dim3(1, 1, 1),
            dim3(64, 1, 1),
            p.as_mut_ptr(),
            0,
            null_mut(),
            start,
            null_mut(),
            flags,
        )
    };
    expect_code(ext(2, null_mut()), HipError::InvalidValue);
    expect_code(ext(0, 0x1234usize as hipEvent_t), HipError::InvalidHandle);
    let mut in_items = |global: u32, local: u32| unsafe {
        hipExtModuleLaunchKernel(
            f,
            global,
            1,
            1,
            local,
            1,
            1,
            0,
            null_mut(),
            p.as_mut_ptr(),
            null_mut(),
            null_mut(),
            null_mut(),
            0,
        )
    };
    expect_code(in_items(100, 64), HipError::NotSupported);
    expect_code(in_items(128, 0), HipError::InvalidValue);
    ok(hipEventDestroy(start));
    ok(hipEventDestroy(stop));
}

#[test]
fn texture_references_are_the_runtimes_own_per_module_variable() {
    let module = m().module;
    let mut out: *mut c_void = null_mut();
    let name = |s: &str| CString::new(s).unwrap();
    ok(unsafe { hipModuleGetTexRef(&mut out, module, name("tex").as_ptr()) });
    assert!(!out.is_null());
    let mut again: *mut c_void = null_mut();
    ok(unsafe { hipModuleGetTexRef(&mut again, module, name("tex").as_ptr()) });
    assert_eq!(out, again, "one reference per module variable");
    expect_code(
        unsafe { hipModuleGetTexRef(&mut out, module, name("missing").as_ptr()) },
        HipError::NotFound,
    );
    expect_code(
        unsafe { hipModuleGetTexRef(&mut out, module, name("").as_ptr()) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipModuleGetTexRef(null_mut(), module, name("tex").as_ptr()) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipModuleGetTexRef(&mut out, module, std::ptr::null()) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipModuleGetTexRef(&mut out, null_mut(), name("tex").as_ptr()) },
        HipError::InvalidHandle,
    );
}

fn text(p: *const c_char) -> String {
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

#[test]
fn error_names_and_strings() {
    let mut s: *const c_char = std::ptr::null();
    for (code, name, description) in [
        (0, "hipSuccess", "no error"),
        (1, "hipErrorInvalidValue", "invalid argument"),
        (709, "hipErrorContextIsDestroyed", "context is destroyed"),
        (801, "hipErrorNotSupported", "operation not supported"),
    ] {
        ok(unsafe { hipDrvGetErrorName(code, &mut s) });
        assert_eq!(text(s), name);
        ok(unsafe { hipDrvGetErrorString(code, &mut s) });
        assert_eq!(text(s), description);
    }
    for bad in [-1, 5000] {
        expect_code(
            unsafe { hipDrvGetErrorName(bad, &mut s) },
            HipError::InvalidValue,
        );
        expect_code(
            unsafe { hipDrvGetErrorString(bad, &mut s) },
            HipError::InvalidValue,
        );
    }
    expect_code(
        unsafe { hipDrvGetErrorString(0, null_mut()) },
        HipError::InvalidValue,
    );
}

#[test]
fn devices_by_hip_device_t() {
    let mut count = 0;
    ok(unsafe { hipGetDeviceCount(&mut count) });
    let mut d: c_int = -1;
    ok(unsafe { hipDeviceGet(&mut d, 0) });
    assert_eq!(d, 0);
    let mut name = [0 as c_char; 256];
    ok(unsafe { hipDeviceGetName(name.as_mut_ptr(), 256, d) });
    let mut props: HipDeviceProp = unsafe { std::mem::zeroed() };
    ok(unsafe { hipGetDeviceProperties(&mut props, d) });
    assert_eq!(text(name.as_ptr()), text(props.name.as_ptr()));
    let mut total = 0usize;
    ok(unsafe { hipDeviceTotalMem(&mut total, d) });
    assert_eq!(total, props.totalGlobalMem);
    let (mut major, mut minor) = (-1, -1);
    ok(unsafe { hipDeviceComputeCapability(&mut major, &mut minor, d) });
    assert_eq!((major, minor), (props.major, props.minor));
    let mut warp = 0;
    ok(unsafe { hipDeviceGetAttribute(&mut warp, 87, d) });
    assert_eq!(warp, props.warpSize);
    expect_code(
        unsafe { hipDeviceGet(&mut d, count) },
        HipError::InvalidDevice,
    );
    expect_code(unsafe { hipDeviceGet(&mut d, -1) }, HipError::InvalidDevice);
    expect_code(
        unsafe { hipDeviceGet(null_mut(), 0) },
        HipError::InvalidValue,
    );
}

fn current() -> *mut c_void {
    let mut c = null_mut();
    ok(unsafe { hipCtxGetCurrent(&mut c) });
    assert!(!c.is_null());
    c
}

#[test]
fn contexts_stack_per_thread_and_share_their_device() {
    // With nothing pushed, the current context is the device's primary one.
    let primary = current();
    let mut retained = null_mut();
    ok(unsafe { hipDevicePrimaryCtxRetain(&mut retained, 0) });
    assert_eq!(retained, primary);
    let (mut flags, mut active) = (99u32, -1);
    ok(unsafe { hipDevicePrimaryCtxGetState(0, &mut flags, &mut active) });
    assert_eq!(active, 1);
    let mut device = -1;
    ok(unsafe { hipCtxGetDevice(&mut device) });
    assert_eq!(device, 0);

    // A created context is pushed and current; the primary one above it, then popped.
    let mut created = null_mut();
    // (Blocking sync, hipDeviceMapHost and hipDeviceLmemResizeToMax.)
    ok(unsafe { hipCtxCreate(&mut created, 4 | 8 | 0x10, 0) });
    assert!(!created.is_null() && created != primary);
    assert_eq!(current(), created);
    ok(unsafe { hipCtxGetFlags(&mut flags) });
    assert_eq!(flags, 4 | 8 | 0x10);
    // The device's flags, as the runtime API reads them, are the current context's.
    let mut device_flags = 0;
    ok(unsafe { hipGetDeviceFlags(&mut device_flags) });
    assert_eq!(device_flags, 4 | 8 | 0x10);
    ok(hipCtxPushCurrent(primary));
    assert_eq!(current(), primary);
    ok(unsafe { hipCtxGetFlags(&mut flags) });
    let mut primary_flags = 0;
    ok(unsafe { hipDevicePrimaryCtxGetState(0, &mut primary_flags, null_mut()) });
    assert_eq!(flags, primary_flags);
    ok(unsafe { hipGetDeviceFlags(&mut device_flags) });
    assert_eq!(device_flags, primary_flags & 7);
    let mut popped = null_mut();
    ok(unsafe { hipCtxPopCurrent(&mut popped) });
    assert_eq!((popped, current()), (primary, created));

    // Settings are the context's own.
    ok(hipCtxSetCacheConfig(2));
    ok(hipCtxSetSharedMemConfig(2));
    let (mut cache, mut shared) = (-1, -1);
    ok(unsafe { hipCtxGetCacheConfig(&mut cache) });
    ok(unsafe { hipCtxGetSharedMemConfig(&mut shared) });
    assert_eq!((cache, shared), (2, 2));
    ok(hipCtxPushCurrent(primary));
    ok(unsafe { hipCtxGetCacheConfig(&mut cache) });
    ok(unsafe { hipCtxGetSharedMemConfig(&mut shared) });
    assert_eq!((cache, shared), (0, 1));
    ok(unsafe { hipCtxPopCurrent(null_mut()) });
    expect_code(hipCtxSetCacheConfig(4), HipError::InvalidValue);
    expect_code(hipCtxSetSharedMemConfig(-1), HipError::InvalidValue);
    let mut version = 0;
    ok(unsafe { hipCtxGetApiVersion(created, &mut version) });
    assert_eq!(version, HIP_VERSION);

    // Memory of one context of the device is every context's: allocated under the created
    // one, a kernel under it, then read back under the primary one.
    check_axpy(1.5, 1, |y, x| {
        let (mut py, mut px, mut a, mut n) = (y, x, 1.5f32, N as i32);
        let mut p = params(&mut py, &mut px, &mut a, &mut n);
        unsafe {
            hipModuleLaunchKernel(
                m().axpy,
                N.div_ceil(64) as u32,
                1,
                1,
                64,
                1,
                1,
                0,
                null_mut(),
                p.as_mut_ptr(),
                null_mut(),
            )
        }
    });
    ok(hipCtxSynchronize());

    // Another thread has a stack of its own.
    let other = created as usize;
    std::thread::spawn(move || {
        assert_eq!(current(), primary_of_thread());
        ok(hipCtxSetCurrent(other as *mut c_void));
        assert_eq!(current() as usize, other);
        ok(hipCtxSetCurrent(null_mut()));
        expect_code(
            unsafe { hipCtxPopCurrent(null_mut()) },
            HipError::InvalidContext,
        );
    })
    .join()
    .unwrap();
    assert_eq!(current(), created, "this thread's stack is unchanged");

    // Destroyed contexts are gone; the primary one is not destroyed.
    ok(hipCtxDestroy(created));
    assert_eq!(current(), primary);
    for code in [
        hipCtxPushCurrent(created),
        hipCtxSetCurrent(created),
        unsafe { hipCtxGetApiVersion(created, &mut version) },
        hipCtxDestroy(created),
        hipCtxDestroy(primary),
        hipCtxPushCurrent(null_mut()),
    ] {
        assert_eq!(code, HipError::InvalidContext.code());
    }
    assert_eq!(hipGetLastError(), HipError::InvalidContext.code());
    expect_code(hipCtxDestroy(null_mut()), HipError::InvalidValue);
    expect_code(
        unsafe { hipCtxPopCurrent(null_mut()) },
        HipError::InvalidContext,
    );
    let mut count = 0;
    ok(unsafe { hipGetDeviceCount(&mut count) });
    let mut c = null_mut();
    expect_code(
        unsafe { hipCtxCreate(&mut c, 0, count) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipCtxCreate(&mut c, 3, 0) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipCtxCreate(null_mut(), 0, 0) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipCtxGetCurrent(null_mut()) },
        HipError::InvalidValue,
    );
    // A context of one device names no peer of its own device.
    assert_ne!(hipCtxEnablePeerAccess(primary, 0), 0);
    let _ = hipGetLastError();

    // Primary contexts: flags, retain and release by count.
    ok(hipDevicePrimaryCtxSetFlags(0, 4));
    ok(unsafe { hipDevicePrimaryCtxGetState(0, &mut flags, &mut active) });
    assert_eq!((flags, active), (4, 1));
    ok(hipDevicePrimaryCtxSetFlags(0, 0));
    ok(hipDevicePrimaryCtxRelease(0));
    ok(unsafe { hipDevicePrimaryCtxGetState(0, &mut flags, &mut active) });
    assert_eq!(active, 0);
    expect_code(hipDevicePrimaryCtxRelease(0), HipError::InvalidContext);
    expect_code(
        hipDevicePrimaryCtxSetFlags(0, 0x100),
        HipError::InvalidValue,
    );
    expect_code(
        hipDevicePrimaryCtxSetFlags(count, 0),
        HipError::InvalidDevice,
    );
    expect_code(hipDevicePrimaryCtxRelease(count), HipError::InvalidDevice);
    expect_code(
        unsafe { hipDevicePrimaryCtxRetain(null_mut(), 0) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipDevicePrimaryCtxGetState(count, &mut flags, &mut active) },
        HipError::InvalidDevice,
    );
}

/// The current context of a thread that pushed nothing: its device's primary context.
fn primary_of_thread() -> *mut c_void {
    let mut p = null_mut();
    ok(unsafe { hipDevicePrimaryCtxRetain(&mut p, 0) });
    ok(hipDevicePrimaryCtxRelease(0));
    p
}
