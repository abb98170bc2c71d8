//! The runtime on the real OpenCL device: OpenCL C kernels built to SPIR-V by clang-22, registered
//! as device images with hand-written metadata, launched through the exported C API, and every
//! output element compared with a host reference. Misuse must return HIP error codes, not crash.

mod common;

use std::ffi::{c_void, CString};
use std::sync::OnceLock;

use common::*;
use hipmlir_device_image::KernelInfo;
use hipmlir_rt::*;

const KERNELS: &str = r#"
__kernel void vadd(__global const float* a, __global const float* b, __global float* c, int n) {
    size_t i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}

/* Mixed alignment: offsets 0, 8, 16, 24, 32 in a 40-byte block. */
__kernel void mixed(char c, double d, short s, __global int* out, long l) {
    int i = (int)get_global_id(0);
    out[i] = (int)c + (int)(d * 1000.0) + (int)s * 10 + (int)(l / 10) + i * 100000;
}

typedef struct { char tag; double scale; int offset; } Params;

/* A struct by value, a 2-D launch, and pointers that may point inside allocations. */
__kernel void affine(Params p, __global const double* in, __global double* out, int width) {
    size_t x = get_global_id(0), y = get_global_id(1);
    size_t i = y * width + x;
    out[i] = in[i] * p.scale + p.offset + p.tag;
}

__kernel void noop(void) {}

/* Pointers the kernel loads from memory, not receives as arguments (needs indirect access). */
__kernel void gather(__global float* __global const* tables, __global float* out, int n) {
    size_t i = get_global_id(0);
    if (i < n) out[i] = tables[0][i] * tables[1][i];
}

/* A kernel whose symbol is a C++ mangled name, as hipmlir's kernels have. */
__kernel void _Z5scaleIfEvPT_if(__global float* p, int n, float f) {
    size_t i = get_global_id(0);
    if (i < n) p[i] *= f;
}
"#;

struct Kernels {
    vadd: KernelInfo,
    mixed: KernelInfo,
    affine: KernelInfo,
    scale: KernelInfo,
    gather: KernelInfo,
}

/// Registers the module once per process and returns its metadata.
fn kernels() -> &'static Kernels {
    static K: OnceLock<Kernels> = OnceLock::new();
    K.get_or_init(|| {
        let k = Kernels {
            vadd: kernel(
                "vadd",
                "vadd",
                vec![
                    pointer("a", "const float *"),
                    pointer("b", "const float *"),
                    pointer("c", "float *"),
                    value("n", "int", 4),
                ],
            ),
            mixed: kernel(
                "mixed",
                "mixed",
                vec![
                    value("c", "char", 1),
                    value("d", "double", 8),
                    value("s", "short", 2),
                    pointer("out", "int *"),
                    value("l", "long", 8),
                ],
            ),
            affine: kernel(
                "affine",
                "affine",
                vec![
                    aggregate("p", "Params", 24, 8),
                    pointer("in", "const double *"),
                    pointer("out", "double *"),
                    value("width", "int", 4),
                ],
            ),
            scale: kernel(
                "_Z5scaleIfEvPT_if",
                "scale<float>",
                vec![
                    pointer("p", "float *"),
                    value("n", "int", 4),
                    value("f", "float", 4),
                ],
            ),
            gather: kernel(
                "gather",
                "gather",
                vec![
                    pointer("tables", "float *const *"),
                    pointer("out", "float *"),
                    value("n", "int", 4),
                ],
            ),
        };
        let noop = kernel("noop", "noop", vec![]);
        let spirv = compile_opencl_c(KERNELS, "main");
        register(&bundle(
            spirv,
            vec![
                k.vadd.clone(),
                k.mixed.clone(),
                k.affine.clone(),
                noop,
                k.scale.clone(),
                k.gather.clone(),
            ],
        ));
        k
    })
}

#[test]
fn vadd_matches_host() {
    let k = kernels();
    let n = 1000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 17.0).collect();
    let b: Vec<f32> = (0..n).map(|i| (i * i % 97) as f32 / 3.0).collect();
    let (da, db, dc) = (
        DeviceBuffer::from_slice(&a),
        DeviceBuffer::from_slice(&b),
        DeviceBuffer::new(n * 4),
    );
    let args = ArgBlock::new(&k.vadd)
        .set(0, da.ptr)
        .set(1, db.ptr)
        .set(2, dc.ptr)
        .set(3, n as i32);
    // 8 blocks of 128 = 1024 threads for 1000 elements; no explicit synchronize: hipMemcpy waits.
    ok(launch("vadd", dim3(8, 1, 1), dim3(128, 1, 1), &args.bytes));
    let c: Vec<f32> = dc.download(n);
    for i in 0..n {
        assert_eq!(c[i], a[i] + b[i], "element {i}");
    }
}

#[test]
fn mixed_alignment_arguments() {
    let k = kernels();
    assert_eq!(
        k.mixed.args.iter().map(|a| a.offset).collect::<Vec<_>>(),
        [0, 8, 16, 24, 32]
    );
    assert_eq!(k.mixed.args_size, 40);
    let n = 64usize;
    let out = DeviceBuffer::new(n * 4);
    let (c, d, s, l) = (5i8, 1.25f64, -7i16, 123_450i64);
    let args = ArgBlock::new(&k.mixed)
        .set(0, c)
        .set(1, d)
        .set(2, s)
        .set(3, out.ptr)
        .set(4, l);
    ok(launch("mixed", dim3(2, 1, 1), dim3(32, 1, 1), &args.bytes));
    ok(hipDeviceSynchronize());
    let got: Vec<i32> = out.download(n);
    for (i, &g) in got.iter().enumerate() {
        let want =
            c as i32 + (d * 1000.0) as i32 + s as i32 * 10 + (l / 10) as i32 + i as i32 * 100_000;
        assert_eq!(g, want, "element {i}");
    }
}

#[test]
fn struct_by_value_2d_and_interior_pointers() {
    let k = kernels();
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Params {
        tag: i8,
        scale: f64,
        offset: i32,
    }
    assert_eq!(std::mem::size_of::<Params>(), 24);
    let (width, height) = (12usize, 4usize); // grid (3, 2) x block (4, 2)
    let count = width * height;
    let input: Vec<f64> = (0..count).map(|i| i as f64 * 1.5 - 3.0).collect();
    let din = DeviceBuffer::from_slice(&input);
    // The output pointer points 8 doubles into its allocation; those 8 must stay untouched.
    let skip = 8usize;
    let dout = DeviceBuffer::new((count + skip) * 8);
    ok(unsafe { hipMemset(dout.ptr, 0, dout.bytes) });
    let p = Params {
        tag: 3,
        scale: -2.0,
        offset: 1000,
    };
    let args = ArgBlock::new(&k.affine)
        .set(0, p)
        .set(1, din.ptr)
        .set(2, dout.at(skip * 8))
        .set(3, width as i32);
    ok(launch("affine", dim3(3, 2, 1), dim3(4, 2, 1), &args.bytes));
    let got: Vec<f64> = dout.download(count + skip);
    assert!(got[..skip].iter().all(|&v| v == 0.0), "{:?}", &got[..skip]);
    for i in 0..count {
        let want = input[i] * p.scale + p.offset as f64 + p.tag as f64;
        assert_eq!(got[skip + i], want, "element {i}");
    }
}

#[test]
fn pointers_loaded_from_device_memory() {
    let k = kernels();
    let n = 200usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 + 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
    let (dx, dy, dout) = (
        DeviceBuffer::from_slice(&x),
        DeviceBuffer::from_slice(&y),
        DeviceBuffer::new(n * 4),
    );
    let tables = DeviceBuffer::from_slice(&[dx.ptr as usize, dy.ptr as usize]);
    let args = ArgBlock::new(&k.gather)
        .set(0, tables.ptr)
        .set(1, dout.ptr)
        .set(2, n as i32);
    ok(launch("gather", dim3(4, 1, 1), dim3(64, 1, 1), &args.bytes));
    let got: Vec<f32> = dout.download(n);
    for i in 0..n {
        assert_eq!(got[i], x[i] * y[i], "element {i}");
    }
}

#[test]
fn zero_argument_kernel() {
    kernels();
    ok(launch("noop", dim3(2, 1, 1), dim3(4, 1, 1), &[]));
    ok(hipDeviceSynchronize());
}

#[test]
fn lookup_by_mangled_and_spelled_names() {
    let k = kernels();
    let data: Vec<f32> = (0..100).map(|i| i as f32).collect();
    let d = DeviceBuffer::from_slice(&data);
    let args = ArgBlock::new(&k.scale)
        .set(0, d.ptr)
        .set(1, 100i32)
        .set(2, 2.0f32);
    ok(launch(
        "_Z5scaleIfEvPT_if",
        dim3(1, 1, 1),
        dim3(128, 1, 1),
        &args.bytes,
    ));
    ok(launch(
        "scale< float >",
        dim3(1, 1, 1),
        dim3(128, 1, 1),
        &args.bytes,
    ));
    // __hipmlirLaunchKernelGGL: an unregistered stub falls back to the spelling.
    let spelled = CString::new("::scale<float>").unwrap();
    let stub = 0x1234usize as *const c_void;
    ok(unsafe {
        __hipmlirLaunchKernelGGL(
            stub,
            spelled.as_ptr(),
            dim3(1, 1, 1),
            dim3(128, 1, 1),
            0,
            std::ptr::null_mut(),
            args.bytes.as_ptr().cast(),
            args.bytes.len(),
        )
    });
    // A registered stub wins over a wrong spelling.
    let stub2 = 0x5678usize as *const c_void;
    let mangled = CString::new("_Z5scaleIfEvPT_if").unwrap();
    unsafe { __hipmlirRegisterFunction(stub2, mangled.as_ptr()) };
    let wrong = CString::new("not_a_kernel").unwrap();
    ok(unsafe {
        __hipmlirLaunchKernelGGL(
            stub2,
            wrong.as_ptr(),
            dim3(1, 1, 1),
            dim3(128, 1, 1),
            0,
            std::ptr::null_mut(),
            args.bytes.as_ptr().cast(),
            args.bytes.len(),
        )
    });
    let got: Vec<f32> = d.download(100);
    for i in 0..100 {
        assert_eq!(got[i], data[i] * 16.0, "element {i}");
    }
}

#[test]
fn memset_and_copies_between_devices() {
    kernels();
    let a = DeviceBuffer::new(256);
    let b = DeviceBuffer::new(256);
    ok(unsafe { hipMemset(a.ptr, 0x5A, 256) });
    ok(unsafe { hipMemset((a.at(100)) as *mut c_void, 0x11, 16) });
    ok(unsafe { hipMemcpy(b.ptr, a.ptr, 256, MemcpyKind::DeviceToDevice as i32) });
    let got: Vec<u8> = b.download(256);
    for (i, &v) in got.iter().enumerate() {
        let want = if (100..116).contains(&i) { 0x11 } else { 0x5A };
        assert_eq!(v, want, "byte {i}");
    }
    // hipMemcpyDefault infers both directions from the allocation table.
    let host: Vec<u8> = (0..64).collect();
    ok(unsafe {
        hipMemcpy(
            b.at(8) as *mut c_void,
            host.as_ptr().cast(),
            64,
            MemcpyKind::Default as i32,
        )
    });
    let mut back = vec![0u8; 64];
    ok(unsafe {
        hipMemcpy(
            back.as_mut_ptr().cast(),
            b.at(8) as *const c_void,
            64,
            MemcpyKind::Default as i32,
        )
    });
    assert_eq!(back, host);
    // Zero-byte allocations are null, and freeing null is fine.
    let mut p = std::ptr::dangling_mut::<c_void>();
    ok(unsafe { hipMalloc(&mut p, 0) });
    assert!(p.is_null());
    ok(unsafe { hipFree(std::ptr::null_mut()) });
}

#[test]
fn device_queries() {
    let mut count = -1;
    ok(unsafe { hipGetDeviceCount(&mut count) });
    assert_eq!(count, 1);
    ok(hipSetDevice(0));
    let mut dev = -1;
    ok(unsafe { hipGetDevice(&mut dev) });
    assert_eq!(dev, 0);
    expect_code(hipSetDevice(1), HipError::InvalidDevice);
    let mut prop = HipDeviceProp::default();
    ok(unsafe { hipGetDeviceProperties(&mut prop, 0) });
    let name = unsafe { std::ffi::CStr::from_ptr(prop.name.as_ptr()) };
    assert!(!name.to_bytes().is_empty());
    assert_eq!(
        prop.warpSize, 32,
        "Intel's CPU runtime supports subgroups of 32"
    );
    assert!(prop.maxThreadsPerBlock >= 256);
    assert!(prop.totalGlobalMem > 0 && prop.sharedMemPerBlock > 0);
    assert!(
        prop.major >= 2,
        "OpenCL version {}.{}",
        prop.major,
        prop.minor
    );
    expect_code(
        unsafe { hipGetDeviceProperties(&mut prop, 3) },
        HipError::InvalidDevice,
    );
    expect_code(
        unsafe { hipGetDeviceProperties(std::ptr::null_mut(), 0) },
        HipError::InvalidValue,
    );
    let (mut rv, mut dv) = (0, 0);
    ok(unsafe { hipRuntimeGetVersion(&mut rv) });
    ok(unsafe { hipDriverGetVersion(&mut dv) });
    assert_eq!((rv, dv), (HIP_VERSION, HIP_VERSION));
    expect_code(
        unsafe { hipGetDeviceCount(std::ptr::null_mut()) },
        HipError::InvalidValue,
    );
    let (device, memory) = selected_device().expect("device opened");
    assert!(!device.is_empty());
    assert!(
        memory.contains("USM"),
        "auto-selection on Intel picks USM, got {memory}"
    );
}

#[test]
fn concurrent_launches_from_threads() {
    let k = kernels();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let vadd = k.vadd.clone();
            std::thread::spawn(move || {
                for round in 0..5 {
                    let n = 300 + t * 7 + round;
                    let a: Vec<f32> = (0..n).map(|i| (i + t) as f32).collect();
                    let b: Vec<f32> = (0..n).map(|i| (i * round) as f32).collect();
                    let (da, db, dc) = (
                        DeviceBuffer::from_slice(&a),
                        DeviceBuffer::from_slice(&b),
                        DeviceBuffer::new(n * 4),
                    );
                    let args = ArgBlock::new(&vadd)
                        .set(0, da.ptr)
                        .set(1, db.ptr)
                        .set(2, dc.ptr)
                        .set(3, n as i32);
                    ok(launch(
                        "vadd",
                        dim3(n.div_ceil(64) as u32, 1, 1),
                        dim3(64, 1, 1),
                        &args.bytes,
                    ));
                    let c: Vec<f32> = dc.download(n);
                    for i in 0..n {
                        assert_eq!(c[i], a[i] + b[i]);
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

// ---- misuse: error codes, never crashes ----------------------------------------------------------

#[test]
fn unknown_kernel_name() {
    let k = kernels();
    let args = ArgBlock::new(&k.vadd);
    expect_code(
        launch("no_such_kernel", dim3(1, 1, 1), dim3(1, 1, 1), &args.bytes),
        HipError::InvalidDeviceFunction,
    );
    expect_code(
        unsafe {
            hipLaunchKernelByName(
                std::ptr::null(),
                dim3(1, 1, 1),
                dim3(1, 1, 1),
                0,
                std::ptr::null_mut(),
                std::ptr::null(),
                0,
            )
        },
        HipError::InvalidValue,
    );
}

#[test]
fn argument_block_size_mismatch() {
    let k = kernels();
    let args = ArgBlock::new(&k.vadd);
    expect_code(
        launch("vadd", dim3(1, 1, 1), dim3(1, 1, 1), &args.bytes[..20]),
        HipError::InvalidValue,
    );
    let mut longer = args.bytes.clone();
    longer.extend([0; 8]);
    expect_code(
        launch("vadd", dim3(1, 1, 1), dim3(1, 1, 1), &longer),
        HipError::InvalidValue,
    );
    // A null block with a non-zero size.
    let name = CString::new("vadd").unwrap();
    expect_code(
        unsafe {
            hipLaunchKernelByName(
                name.as_ptr(),
                dim3(1, 1, 1),
                dim3(1, 1, 1),
                0,
                std::ptr::null_mut(),
                std::ptr::null(),
                32,
            )
        },
        HipError::InvalidValue,
    );
}

#[test]
fn bad_launch_configurations() {
    let k = kernels();
    let args = ArgBlock::new(&k.vadd)
        .set(0, 0usize)
        .set(1, 0usize)
        .set(2, 0usize)
        .set(3, 0i32);
    // An empty shape is HIP's invalid value; one too large, its invalid configuration.
    for (grid, block, code) in [
        (dim3(0, 1, 1), dim3(1, 1, 1), HipError::InvalidValue),
        (dim3(1, 1, 1), dim3(1, 1, 0), HipError::InvalidValue),
        (
            dim3(1, 1, 1),
            dim3(1 << 20, 1, 1),
            HipError::InvalidConfiguration,
        ),
        (
            dim3(1, 1, 1),
            dim3(1024, 1024, 1),
            HipError::InvalidConfiguration,
        ),
    ] {
        expect_code(launch("vadd", grid, block, &args.bytes), code);
    }
    let name = CString::new("vadd").unwrap();
    expect_code(
        unsafe {
            hipLaunchKernelByName(
                name.as_ptr(),
                dim3(1, 1, 1),
                dim3(1, 1, 1),
                0,
                0x10 as *mut c_void,
                args.bytes.as_ptr().cast(),
                args.bytes.len(),
            )
        },
        // A launch on a handle naming no live stream, as HIP answers it.
        HipError::InvalidValue,
    );
}

#[test]
fn freeing_what_was_not_allocated() {
    kernels();
    let mut local = [0u8; 16];
    expect_code(
        unsafe { hipFree(local.as_mut_ptr().cast()) },
        HipError::InvalidValue,
    );
    let buf = DeviceBuffer::new(64);
    expect_code(
        unsafe { hipFree(buf.at(8) as *mut c_void) },
        HipError::InvalidValue,
    );
    let mut p = std::ptr::null_mut();
    ok(unsafe { hipMalloc(&mut p, 32) });
    ok(unsafe { hipFree(p) });
    expect_code(unsafe { hipFree(p) }, HipError::InvalidValue);
    expect_code(
        unsafe { hipMalloc(std::ptr::null_mut(), 8) },
        HipError::InvalidValue,
    );
}

#[test]
fn out_of_range_copies() {
    kernels();
    let buf = DeviceBuffer::new(64);
    let host = [0u8; 128];
    let mut sink = [0u8; 128];
    // Past the end of the allocation, from its start and from inside it.
    expect_code(
        unsafe {
            hipMemcpy(
                buf.ptr,
                host.as_ptr().cast(),
                65,
                MemcpyKind::HostToDevice as i32,
            )
        },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe {
            hipMemcpy(
                sink.as_mut_ptr().cast(),
                buf.at(60) as *const c_void,
                8,
                MemcpyKind::DeviceToHost as i32,
            )
        },
        HipError::InvalidValue,
    );
    // A "device" pointer that is not in any allocation.
    expect_code(
        unsafe {
            hipMemcpy(
                sink.as_mut_ptr().cast(),
                host.as_ptr().cast(),
                8,
                MemcpyKind::DeviceToDevice as i32,
            )
        },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemset(buf.at(32) as *mut c_void, 0, 33) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemset(sink.as_mut_ptr().cast(), 0, 8) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemcpy(buf.ptr, host.as_ptr().cast(), 8, 17) },
        HipError::InvalidMemcpyDirection,
    );
    // In range still works afterwards.
    buf.upload(&host[..64]);
}

#[test]
fn error_strings() {
    let s = |c| {
        unsafe { std::ffi::CStr::from_ptr(hipGetErrorString(c)) }
            .to_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(s(0), "no error");
    assert_eq!(s(1), "invalid argument");
    assert_eq!(name_of(98), "hipErrorInvalidDeviceFunction");
    assert_eq!(name_of(-5), "hipErrorUnknown");
}
