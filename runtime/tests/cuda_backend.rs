//! The CUDA-driver backend. The backend is chosen once per process, so each case runs in a child
//! process of this test executable with its own `HIPMLIR_BACKEND`:
//! * without an NVIDIA driver (this machine, CI): the default choice is OpenCL, as before;
//!   `HIPMLIR_BACKEND=cuda` is `hipErrorNoDevice` with a message; `opencl` never loads libcuda;
//! * on a GPU (the test executable carried to the GPU machine): a module with PTX is loaded and
//!   launched through the HIP API, streams, events and copies included, and every output element
//!   compared with the host's. Without a GPU those cases say so and pass.
//!
//! The fixtures are `examples/vector_add.hip` built by hipmlir: its SPIR-V (`--save-temps`) and
//! PTX that mlir-opt-22 made from its outlined MLIR (`runtime/scripts/ptx-from-hip.sh`).

mod common;

use std::ffi::{c_void, CString};

use common::cuda::*;
use common::*;
use hipmlir_rt::*;

fn arch_name(p: &HipDeviceProp) -> String {
    let bytes: Vec<u8> = p
        .gcnArchName
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

// ---- without a GPU --------------------------------------------------------------------------

#[test]
fn default_choice_is_a_gpu_else_opencl() {
    if !in_child() {
        let out = run_child("default_choice_is_a_gpu_else_opencl", None);
        assert!(out.contains("chosen:"), "{out}");
        return;
    }
    let mut count = 0;
    ok(unsafe { hipGetDeviceCount(&mut count) });
    assert!(count >= 1);
    let mut p = HipDeviceProp::default();
    ok(unsafe { hipGetDeviceProperties(&mut p, 0) });
    let arch = arch_name(&p);
    if driver_present() && arch.starts_with("sm_") {
        println!("chosen: CUDA ({arch})");
    } else {
        // No NVIDIA GPU: the OpenCL device serves, exactly as before the CUDA backend existed.
        assert_eq!(arch, "spirv64");
        println!("chosen: OpenCL");
    }
}

#[test]
fn cuda_requested_without_a_driver_is_no_device() {
    if driver_present() {
        println!("skipped: this machine has the NVIDIA driver");
        return;
    }
    if !in_child() {
        let out = run_child("cuda_requested_without_a_driver_is_no_device", Some("cuda"));
        assert!(
            out.contains("HIPMLIR_BACKEND=cuda, but there is no CUDA device"),
            "{out}"
        );
        return;
    }
    // Registration needs no device.
    register(&vector_add_bundle(&[("sm_70", PTX)]));
    let mut count = -1;
    expect_code(unsafe { hipGetDeviceCount(&mut count) }, HipError::NoDevice);
    assert_eq!(count, 0);
    let mut p = std::ptr::null_mut::<c_void>();
    expect_code(unsafe { hipMalloc(&mut p, 16) }, HipError::NoDevice);
    expect_code(hipDeviceSynchronize(), HipError::NoDevice);
}

#[test]
fn opencl_requested_is_opencl() {
    if !in_child() {
        run_child("opencl_requested_is_opencl", Some("opencl"));
        return;
    }
    let mut p = HipDeviceProp::default();
    if unsafe { hipGetDeviceProperties(&mut p, 0) } == HipError::NoDevice.code() {
        println!("skipped: no OpenCL device on this machine");
        return;
    }
    assert_eq!(arch_name(&p), "spirv64");
    // An image with PTX beside its SPIR-V runs from the SPIR-V here.
    register(&vector_add_bundle(&[("sm_70", PTX)]));
    let n = 1000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    let (da, db, dc) = (
        DeviceBuffer::from_slice(&a),
        DeviceBuffer::from_slice(&b),
        DeviceBuffer::new(n * 4),
    );
    let k = kernel(
        KERNEL,
        "vector_add",
        vec![
            pointer("a", "const float *"),
            pointer("b", "const float *"),
            pointer("c", "float *"),
            value("n", "int", 4),
        ],
    );
    let args = ArgBlock::new(&k)
        .set(0, da.at(0))
        .set(1, db.at(0))
        .set(2, dc.at(0))
        .set(3, n as i32)
        .bytes;
    ok(launch(KERNEL, dim3(4, 1, 1), dim3(256, 1, 1), &args));
    let c: Vec<f32> = dc.download(n);
    for i in 0..n {
        assert_eq!(c[i], a[i] + b[i], "element {i}");
    }

    // An image with PTX only loads, and says why it cannot run here.
    let image = ptx_only_bundle();
    let mut module: Module = std::ptr::null_mut();
    ok(unsafe { hipModuleLoadData(&mut module, image.as_ptr().cast()) });
    let mut f: *mut c_void = std::ptr::null_mut();
    let name = CString::new(KERNEL).unwrap();
    ok(unsafe { hipModuleGetFunction(&mut f, module, name.as_ptr()) });
    let mut params: [*mut c_void; 4] = [std::ptr::null_mut(); 4];
    let (mut pa, mut pb, mut pc, count) = (da.at(0), db.at(0), dc.at(0), n as i32);
    params[0] = (&mut pa as *mut usize).cast();
    params[1] = (&mut pb as *mut usize).cast();
    params[2] = (&mut pc as *mut usize).cast();
    params[3] = (&count as *const i32) as *mut c_void;
    expect_code(
        unsafe {
            hipModuleLaunchKernel(
                f,
                4,
                1,
                1,
                256,
                1,
                1,
                0,
                std::ptr::null_mut(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        },
        HipError::NoBinaryForGpu,
    );
}

// ---- on a GPU -------------------------------------------------------------------------------

fn gpu_or_skip(name: &str) -> bool {
    if !driver_present() {
        println!("skipped {name}: no NVIDIA driver (libcuda) on this machine");
        return false;
    }
    true
}

type Module = *mut c_void;

#[test]
fn gpu_module_launch_streams_and_events() {
    if !gpu_or_skip("gpu_module_launch_streams_and_events") {
        return;
    }
    if !in_child() {
        let out = run_child("gpu_module_launch_streams_and_events", Some("cuda"));
        println!("{out}");
        return;
    }
    let mut p = HipDeviceProp::default();
    ok(unsafe { hipGetDeviceProperties(&mut p, 0) });
    assert!(arch_name(&p).starts_with("sm_"));
    assert_eq!(p.warpSize, 32);
    assert!(p.totalGlobalMem > 0 && p.multiProcessorCount > 0);

    let image = vector_add_bundle(&[("sm_70", PTX), ("sm_999", "not ptx")]);
    let mut module: Module = std::ptr::null_mut();
    ok(unsafe { hipModuleLoadData(&mut module, image.as_ptr().cast()) });
    let mut f: *mut c_void = std::ptr::null_mut();
    let name = CString::new(KERNEL).unwrap();
    ok(unsafe { hipModuleGetFunction(&mut f, module, name.as_ptr()) });

    let n = (1usize << 20) + 3;
    let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.001).sin()).collect();
    let b: Vec<f32> = (0..n).map(|i| 0.5 * i as f32).collect();
    let bytes = n * 4;
    let (mut da, mut db, mut dc) = (
        std::ptr::null_mut::<c_void>(),
        std::ptr::null_mut::<c_void>(),
        std::ptr::null_mut::<c_void>(),
    );
    unsafe {
        ok(hipMalloc(&mut da, bytes));
        ok(hipMalloc(&mut db, bytes));
        ok(hipMalloc(&mut dc, bytes));
        let mut stream: hipStream_t = std::ptr::null_mut();
        ok(hipStreamCreate(&mut stream));
        let (mut start, mut stop): (hipEvent_t, hipEvent_t) =
            (std::ptr::null_mut(), std::ptr::null_mut());
        ok(hipEventCreate(&mut start));
        ok(hipEventCreate(&mut stop));
        // Pinned staging, async copies, a fill, the launch, all on one stream.
        let mut host: *mut c_void = std::ptr::null_mut();
        ok(hipHostMalloc(&mut host, bytes, 0));
        std::ptr::copy_nonoverlapping(a.as_ptr().cast::<u8>(), host.cast::<u8>(), bytes);
        ok(hipMemcpyAsync(da, host, bytes, 1, stream));
        ok(hipMemcpyAsync(db, b.as_ptr().cast(), bytes, 1, stream));
        ok(hipMemsetAsync(dc, 0xff, bytes, stream));
        ok(hipEventRecord(start, stream));
        let count = n as i32;
        let mut params: [*mut c_void; 4] = [
            (&mut da as *mut *mut c_void).cast(),
            (&mut db as *mut *mut c_void).cast(),
            (&mut dc as *mut *mut c_void).cast(),
            (&count as *const i32) as *mut c_void,
        ];
        let blocks = n.div_ceil(256) as u32;
        ok(hipModuleLaunchKernel(
            f,
            blocks,
            1,
            1,
            256,
            1,
            1,
            0,
            stream,
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        ));
        ok(hipEventRecord(stop, stream));
        ok(hipStreamSynchronize(stream));
        ok(hipStreamQuery(stream));
        let mut ms = -1f32;
        ok(hipEventElapsedTime(&mut ms, start, stop));
        assert!(ms >= 0.0);
        let mut c = vec![0f32; n];
        ok(hipMemcpy(c.as_mut_ptr().cast(), dc, bytes, 2));
        for i in 0..n {
            assert_eq!(c[i], a[i] + b[i], "element {i}");
        }
        println!("vector_add through hipModuleLaunchKernel: {n} elements, kernel {ms:.3} ms");

        // Pointer attributes, memory info.
        let mut attrs = std::mem::zeroed::<PointerAttributes>();
        ok(hipPointerGetAttributes(&mut attrs, da));
        assert_eq!(attrs.r#type, 2);
        ok(hipPointerGetAttributes(&mut attrs, host));
        assert_eq!(attrs.r#type, 1);
        let (mut free, mut total) = (0usize, 0usize);
        ok(hipMemGetInfo(&mut free, &mut total));
        assert!(free > 0 && free <= total);

        // Managed memory read by the host after the kernel wrote it.
        let mut m: *mut c_void = std::ptr::null_mut();
        ok(hipMallocManaged(&mut m, bytes, 1));
        let mut mp = m;
        params[2] = (&mut mp as *mut *mut c_void).cast();
        ok(hipModuleLaunchKernel(
            f,
            blocks,
            1,
            1,
            256,
            1,
            1,
            0,
            std::ptr::null_mut(),
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        ));
        ok(hipDeviceSynchronize());
        let managed = std::slice::from_raw_parts(m.cast::<f32>(), n);
        for i in 0..n {
            assert_eq!(managed[i], a[i] + b[i], "managed element {i}");
        }

        // An image with PTX only runs the same.
        let only = ptx_only_bundle();
        let mut module2: Module = std::ptr::null_mut();
        ok(hipModuleLoadData(&mut module2, only.as_ptr().cast()));
        let mut f2: *mut c_void = std::ptr::null_mut();
        ok(hipModuleGetFunction(&mut f2, module2, name.as_ptr()));
        ok(hipMemset(dc, 0, bytes));
        params[2] = (&mut dc as *mut *mut c_void).cast();
        ok(hipModuleLaunchKernel(
            f2,
            blocks,
            1,
            1,
            256,
            1,
            1,
            0,
            std::ptr::null_mut(),
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        ));
        ok(hipMemcpy(c.as_mut_ptr().cast(), dc, bytes, 2));
        for i in 0..n {
            assert_eq!(c[i], a[i] + b[i], "PTX-only element {i}");
        }
        ok(hipModuleUnload(module2));

        // Misuse is an error code, not a crash (an empty grid is HIP's invalid value).
        expect_code(
            hipModuleLaunchKernel(
                f,
                0,
                1,
                1,
                256,
                1,
                1,
                0,
                stream,
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            ),
            HipError::InvalidValue,
        );
        expect_code(
            hipModuleLaunchKernel(
                f,
                1,
                1,
                1,
                4096,
                1,
                1,
                0,
                stream,
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            ),
            HipError::InvalidConfiguration,
        );
        expect_code(
            hipStreamSynchronize(0x1234 as hipStream_t),
            HipError::ContextIsDestroyed,
        );

        ok(hipEventDestroy(start));
        ok(hipEventDestroy(stop));
        ok(hipStreamDestroy(stream));
        ok(hipFree(m));
        ok(hipHostFree(host));
        ok(hipFree(da));
        ok(hipFree(db));
        ok(hipFree(dc));
        ok(hipModuleUnload(module));

        // After a reset the device works again from scratch: the module loads anew.
        ok(hipDeviceReset());
        let mut module3: Module = std::ptr::null_mut();
        ok(hipModuleLoadData(&mut module3, image.as_ptr().cast()));
        let mut f3: *mut c_void = std::ptr::null_mut();
        ok(hipModuleGetFunction(&mut f3, module3, name.as_ptr()));
        let (mut ra, mut rb, mut rc) = (
            std::ptr::null_mut::<c_void>(),
            std::ptr::null_mut::<c_void>(),
            std::ptr::null_mut::<c_void>(),
        );
        ok(hipMalloc(&mut ra, bytes));
        ok(hipMalloc(&mut rb, bytes));
        ok(hipMalloc(&mut rc, bytes));
        ok(hipMemcpy(ra, a.as_ptr().cast(), bytes, 1));
        ok(hipMemcpy(rb, b.as_ptr().cast(), bytes, 1));
        let mut again: [*mut c_void; 4] = [
            (&mut ra as *mut *mut c_void).cast(),
            (&mut rb as *mut *mut c_void).cast(),
            (&mut rc as *mut *mut c_void).cast(),
            (&count as *const i32) as *mut c_void,
        ];
        ok(hipModuleLaunchKernel(
            f3,
            blocks,
            1,
            1,
            256,
            1,
            1,
            0,
            std::ptr::null_mut(),
            again.as_mut_ptr(),
            std::ptr::null_mut(),
        ));
        ok(hipMemcpy(c.as_mut_ptr().cast(), rc, bytes, 2));
        for i in 0..n {
            assert_eq!(c[i], a[i] + b[i], "after reset, element {i}");
        }
        ok(hipFree(ra));
        ok(hipFree(rb));
        ok(hipFree(rc));
        ok(hipModuleUnload(module3));
    }
}

#[test]
fn gpu_images_without_runnable_ptx_are_errors() {
    if !gpu_or_skip("gpu_images_without_runnable_ptx_are_errors") {
        return;
    }
    if !in_child() {
        let out = run_child("gpu_images_without_runnable_ptx_are_errors", Some("cuda"));
        assert!(out.contains("none runs on a device"), "{out}");
        assert!(out.contains("the JIT says"), "{out}");
        assert!(out.contains("carries no PTX"), "{out}");
        return;
    }
    let launch_first = |image: &[u8]| -> hipError_t {
        let mut module: Module = std::ptr::null_mut();
        ok(unsafe { hipModuleLoadData(&mut module, image.as_ptr().cast()) });
        let mut f: *mut c_void = std::ptr::null_mut();
        let name = CString::new(KERNEL).unwrap();
        ok(unsafe { hipModuleGetFunction(&mut f, module, name.as_ptr()) });
        let mut args = [0u8; 32];
        args[24..28].copy_from_slice(&0i32.to_ne_bytes());
        let mut size = args.len();
        let mut extra: [*mut c_void; 5] = [
            std::ptr::without_provenance_mut::<c_void>(1),
            args.as_mut_ptr().cast(),
            std::ptr::without_provenance_mut::<c_void>(2),
            (&mut size as *mut usize).cast(),
            std::ptr::without_provenance_mut::<c_void>(3),
        ];
        unsafe {
            hipModuleLaunchKernel(
                f,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                extra.as_mut_ptr(),
            )
        }
    };
    expect_code(
        launch_first(&vector_add_bundle(&[("sm_999", PTX)])),
        HipError::NoBinaryForGpu,
    );
    let broken = PTX.replace("add.rn.f32", "add.nonsense.f32");
    expect_code(
        launch_first(&vector_add_bundle(&[("sm_70", &broken)])),
        HipError::InvalidImage,
    );
    expect_code(
        launch_first(&vector_add_bundle(&[])),
        HipError::NoBinaryForGpu,
    );
}

/// The driver API and the memory calls on a GPU: contexts and primary contexts (flags set in
/// the driver), `extra`, cooperative launches of several blocks, `hipFuncGetAttribute`, pointer
/// attributes of every kind of allocation (registered memory read by a kernel), 2-D/3-D memsets,
/// array and driver-API copies, mipmap levels, and peer copies between every pair of GPUs.
#[test]
fn gpu_driver_api_and_memory() {
    if !gpu_or_skip("gpu_driver_api_and_memory") {
        return;
    }
    if !in_child() {
        let out = run_child("gpu_driver_api_and_memory", Some("cuda"));
        println!("{out}");
        return;
    }
    unsafe { gpu_driver_api_and_memory_in_child() }
}

#[allow(clippy::manual_dangling_ptr)] // HIP_LAUNCH_PARAM_* are the numbers 1, 2, 3.
unsafe fn gpu_driver_api_and_memory_in_child() {
    use std::ptr::null_mut;
    let image = vector_add_bundle(&[("sm_70", PTX)]);
    let mut module: Module = null_mut();
    ok(hipModuleLoadData(&mut module, image.as_ptr().cast()));
    let mut f: *mut c_void = null_mut();
    let name = CString::new(KERNEL).unwrap();
    ok(hipModuleGetFunction(&mut f, module, name.as_ptr()));

    // Contexts: the primary one, a created one pushed and popped, the driver's flags.
    let mut primary = null_mut();
    ok(hipDevicePrimaryCtxRetain(&mut primary, 0));
    let mut current = null_mut();
    ok(hipCtxGetCurrent(&mut current));
    assert_eq!(current, primary);
    ok(hipDevicePrimaryCtxSetFlags(0, 4));
    let (mut flags, mut active) = (0u32, 0i32);
    ok(hipDevicePrimaryCtxGetState(0, &mut flags, &mut active));
    assert_eq!((flags, active), (4, 1));
    let mut created = null_mut();
    ok(hipCtxCreate(&mut created, 0, 0));
    ok(hipCtxGetCurrent(&mut current));
    assert_eq!(current, created);

    // vector_add with `extra`, then cooperatively over several blocks.
    let n = 64 * 1024usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let b: Vec<f32> = (0..n).map(|i| (i % 97) as f32).collect();
    let bytes = n * 4;
    let (da, db, dc) = (
        DeviceBuffer::from_slice(&a),
        DeviceBuffer::from_slice(&b),
        DeviceBuffer::new(bytes),
    );
    #[repr(C)]
    struct Args {
        a: *mut c_void,
        b: *mut c_void,
        c: *mut c_void,
        n: i32,
    }
    let mut args = Args {
        a: da.ptr,
        b: db.ptr,
        c: dc.ptr,
        n: n as i32,
    };
    let mut size = 28usize;
    let mut extra = [
        1usize as *mut c_void,
        (&mut args as *mut Args).cast(),
        2usize as *mut c_void,
        (&mut size as *mut usize).cast(),
        3usize as *mut c_void,
    ];
    let blocks = (n / 256) as u32;
    ok(hipModuleLaunchKernel(
        f,
        blocks,
        1,
        1,
        256,
        1,
        1,
        0,
        null_mut(),
        null_mut(),
        extra.as_mut_ptr(),
    ));
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(dc.download::<f32>(n), want);
    ok(hipMemset(dc.ptr, 0, bytes));
    let mut params: [*mut c_void; 4] = [
        (&mut args.a as *mut *mut c_void).cast(),
        (&mut args.b as *mut *mut c_void).cast(),
        (&mut args.c as *mut *mut c_void).cast(),
        (&mut args.n as *mut i32).cast(),
    ];
    let mut sms = 0;
    ok(hipDeviceGetAttribute(&mut sms, 63, 0));
    let cooperative_blocks = (sms as u32).min(blocks);
    let covered = cooperative_blocks as usize * 256;
    ok(hipModuleLaunchCooperativeKernel(
        f,
        cooperative_blocks,
        1,
        1,
        256,
        1,
        1,
        0,
        null_mut(),
        params.as_mut_ptr(),
    ));
    let got: Vec<f32> = dc.download(n);
    assert_eq!(got[..covered], want[..covered]);
    assert!(got[covered..].iter().all(|&v| v == 0.0));
    let mut threads = 0;
    ok(hipFuncGetAttribute(&mut threads, 0, f));
    assert!(threads >= 256, "{threads}");

    // Pointer attributes of every kind of allocation.
    let mut attrs = PointerAttributes::unregistered();
    ok(hipPointerGetAttributes(
        &mut attrs,
        (da.ptr as usize + 8) as *const c_void,
    ));
    assert_eq!((attrs.r#type, attrs.device), (2, 0));
    assert_eq!(attrs.devicePointer as usize, da.ptr as usize + 8);
    let mut pinned = null_mut();
    ok(hipHostMalloc(&mut pinned, 4096, 0));
    ok(hipPointerGetAttributes(&mut attrs, pinned));
    assert_eq!(attrs.r#type, 1);
    let mut managed = null_mut();
    ok(hipMallocManaged(&mut managed, 4096, 1));
    ok(hipPointerGetAttributes(&mut attrs, managed));
    assert_eq!((attrs.r#type, attrs.isManaged), (3, 1));
    let (mut base, mut range) = (null_mut(), 0usize);
    ok(hipMemGetAddressRange(
        &mut base,
        &mut range,
        (db.ptr as usize + 100) as *mut c_void,
    ));
    assert_eq!((base, range), (db.ptr, bytes));
    let mut memory_type = 0u32;
    ok(hipPointerGetAttribute(
        (&mut memory_type as *mut u32).cast(),
        2,
        managed,
    ));
    assert_eq!(memory_type, 3);

    // Registered host memory read by the kernel at its device address.
    let mut host = a.clone();
    ok(hipHostRegister(host.as_mut_ptr().cast(), bytes, 0));
    ok(hipPointerGetAttributes(&mut attrs, host.as_ptr().cast()));
    assert_eq!(attrs.r#type, 1);
    let mut dev_view = null_mut();
    ok(hipHostGetDevicePointer(
        &mut dev_view,
        host.as_mut_ptr().cast(),
        0,
    ));
    // The kernel's first parameter, through its parameter pointer.
    *params[0].cast::<*mut c_void>() = dev_view;
    ok(hipModuleLaunchKernel(
        f,
        blocks,
        1,
        1,
        256,
        1,
        1,
        0,
        null_mut(),
        params.as_mut_ptr(),
        null_mut(),
    ));
    assert_eq!(dc.download::<f32>(n), want);
    let mut host_flags = 9u32;
    ok(hipHostGetFlags(&mut host_flags, host.as_mut_ptr().cast()));
    assert_eq!(host_flags, 0);
    ok(hipHostUnregister(host.as_mut_ptr().cast()));
    expect_code(
        hipHostUnregister(host.as_mut_ptr().cast()),
        HipError::HostMemoryNotRegistered,
    );

    // 2-D and 3-D memsets in a pitched volume.
    let extent = Extent {
        width: 100,
        height: 6,
        depth: 3,
    };
    let mut vol = PitchedPtr {
        ptr: null_mut(),
        pitch: 0,
        xsize: 0,
        ysize: 0,
    };
    ok(hipMalloc3D(&mut vol, extent));
    let total = vol.pitch * vol.ysize * 3;
    ok(hipMemset(vol.ptr, 0, total));
    let inner = PitchedPtr {
        ptr: (vol.ptr as usize + vol.pitch * vol.ysize + vol.pitch + 4) as *mut c_void,
        ..vol
    };
    let box_extent = Extent {
        width: 50,
        height: 4,
        depth: 2,
    };
    ok(hipMemset3D(inner, 0x5a, box_extent));
    ok(hipMemset2D(vol.ptr, vol.pitch, 0x11, 10, 2));
    let mut out = vec![0u8; total];
    ok(hipMemcpy(out.as_mut_ptr().cast(), vol.ptr, total, 2));
    for z in 0..3 {
        for y in 0..vol.ysize {
            for x in 0..vol.pitch {
                let in_box = (1..3).contains(&z) && (1..5).contains(&y) && (4..54).contains(&x);
                let in_rect = z == 0 && y < 2 && x < 10;
                let want = if in_box {
                    0x5a
                } else if in_rect {
                    0x11
                } else {
                    0
                };
                let o = z * vol.pitch * vol.ysize + y * vol.pitch + x;
                assert_eq!(out[o], want, "({x}, {y}, {z})");
            }
        }
    }

    // Arrays: bytes in across rows, a 2-D region between arrays, out again; mipmap levels.
    let desc = hipCreateChannelDesc(32, 0, 0, 0, 2);
    let (mut arr, mut arr2) = (0usize, 0usize);
    ok(hipMallocArray(&mut arr, &desc, 33, 5, 0));
    ok(hipMallocArray(&mut arr2, &desc, 33, 5, 0));
    let pattern: Vec<u8> = (0..33 * 4 * 5).map(|i| (i * 7 % 251) as u8).collect();
    ok(hipMemcpyHtoA(
        arr,
        0,
        pattern.as_ptr().cast(),
        pattern.len(),
    ));
    ok(hipMemcpyHtoA(
        arr2,
        0,
        vec![0u8; pattern.len()].as_ptr().cast(),
        pattern.len(),
    ));
    ok(hipMemcpy2DArrayToArray(arr2, 8, 1, arr, 4, 2, 40, 3, 3));
    let mut back = vec![0u8; pattern.len()];
    ok(hipMemcpyAtoH(back.as_mut_ptr().cast(), arr2, 0, back.len()));
    let row = 33 * 4;
    for y in 0..5 {
        for x in 0..row {
            let want = if (1..4).contains(&y) && (8..48).contains(&x) {
                pattern[(y + 1) * row + x - 4]
            } else {
                0
            };
            assert_eq!(back[y * row + x], want, "({x}, {y})");
        }
    }
    ok(hipMemcpyAtoH(back.as_mut_ptr().cast(), arr, 0, back.len()));
    assert_eq!(back, pattern);
    let mut mip = 0usize;
    let mip_extent = Extent {
        width: 32,
        height: 32,
        depth: 0,
    };
    ok(hipMallocMipmappedArray(&mut mip, &desc, mip_extent, 6, 0));
    for level in 0..6u32 {
        let mut l = 0usize;
        ok(hipGetMipmappedArrayLevel(&mut l, mip, level));
        let side = 32usize >> level;
        let data: Vec<u8> = (0..side * side * 4)
            .map(|i| (i as u32 + level) as u8)
            .collect();
        ok(hipMemcpyHtoA(l, 0, data.as_ptr().cast(), data.len()));
        let mut again = vec![0u8; data.len()];
        ok(hipMemcpyAtoH(again.as_mut_ptr().cast(), l, 0, again.len()));
        assert_eq!(again, data, "level {level}");
    }
    ok(hipFreeMipmappedArray(mip));
    ok(hipFreeArray(arr));
    ok(hipFreeArray(arr2));

    // Peer copies between every pair of GPUs (each to itself included).
    let mut count = 0;
    ok(hipGetDeviceCount(&mut count));
    let pieces: Vec<*mut c_void> = (0..count)
        .map(|d| {
            ok(hipSetDevice(d));
            let mut p = null_mut();
            ok(hipMalloc(&mut p, bytes));
            p
        })
        .collect();
    ok(hipSetDevice(0));
    ok(hipMemcpy(pieces[0], a.as_ptr().cast(), bytes, 1));
    for to in 0..count as usize {
        let from = if to == 0 { 0 } else { to - 1 };
        ok(hipMemcpyPeer(
            pieces[to],
            to as i32,
            pieces[from],
            from as i32,
            bytes,
        ));
    }
    let mut last = vec![0f32; n];
    ok(hipMemcpy(
        last.as_mut_ptr().cast(),
        pieces[count as usize - 1],
        bytes,
        2,
    ));
    assert_eq!(last, a);
    println!("peer copies through {count} device(s)");
    for p in pieces {
        ok(hipFree(p));
    }

    ok(hipCtxPopCurrent(null_mut()));
    ok(hipCtxDestroy(created));
    ok(hipDevicePrimaryCtxSetFlags(0, 0));
    ok(hipDevicePrimaryCtxRelease(0));
    ok(hipHostFree(pinned));
    ok(hipFree(managed));
    ok(hipFree(vol.ptr));
    ok(hipModuleUnload(module));
}
