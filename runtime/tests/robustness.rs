//! Misuse that used to crash, hang or succeed wrongly, on the real device: pitched and 3-D
//! allocations whose size overflows, launch shapes beyond the device's limits, and
//! hipModuleLoadData on images whose structure claims more than the memory holds (each placed
//! right before an unreadable page, so that reading one byte too far would fault).

mod common;

use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use common::*;
use hipmlir_rt::*;

extern "C" {
    fn mmap(addr: *mut c_void, len: usize, prot: i32, flags: i32, fd: i32, off: i64)
        -> *mut c_void;
    fn mprotect(addr: *mut c_void, len: usize, prot: i32) -> i32;
    fn munmap(addr: *mut c_void, len: usize) -> i32;
    fn mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}

const PAGE: usize = 4096;

/// `bytes` placed so that they end exactly where an unreadable (PROT_NONE) page begins.
struct Guarded {
    map: *mut c_void,
    len: usize,
    start: *const c_void,
}

impl Guarded {
    fn new(bytes: &[u8]) -> Self {
        let pages = bytes.len().div_ceil(PAGE) + 1;
        let len = pages * PAGE;
        // PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS.
        let map = unsafe { mmap(null_mut(), len, 3, 0x22, -1, 0) };
        assert_ne!(map as isize, -1, "mmap");
        let guard = (map as usize + len - PAGE) as *mut c_void;
        assert_eq!(unsafe { mprotect(guard, PAGE, 0) }, 0, "mprotect");
        let start = (guard as usize - bytes.len()) as *mut u8;
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), start, bytes.len()) };
        Guarded {
            map,
            len,
            start: start.cast(),
        }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        unsafe { munmap(self.map, self.len) };
    }
}

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

const SPIRV_MAGIC: u32 = 0x0723_0203;

#[test]
fn pitched_and_3d_allocations_are_overflow_checked() {
    let mut p: *mut c_void = null_mut();
    let mut pitch = 0usize;
    // Once: the row rounded up wrapped to 0, and a null pointer came back with success. A row
    // that cannot be padded is an invalid value, more rows than memory holds out of memory (as
    // AMD's runtime answers each).
    for (w, h, code) in [
        (usize::MAX, 1, HipError::InvalidValue),
        (usize::MAX - 3, 2, HipError::InvalidValue),
        (1 << 40, 1 << 30, HipError::OutOfMemory),
    ] {
        expect_code(unsafe { hipMallocPitch(&mut p, &mut pitch, w, h) }, code);
    }
    ok(unsafe { hipMallocPitch(&mut p, &mut pitch, 100, 3) });
    assert!(!p.is_null() && pitch >= 100);
    ok(unsafe { hipFree(p) });

    let mut pp = PitchedPtr {
        ptr: null_mut(),
        pitch: 0,
        xsize: 0,
        ysize: 0,
    };
    for (w, h, d, code) in [
        (usize::MAX, 1, 1, HipError::InvalidValue),
        (4096, usize::MAX / 2, 3, HipError::OutOfMemory),
        (1 << 20, 1 << 20, 1 << 30, HipError::OutOfMemory),
    ] {
        expect_code(
            unsafe {
                hipMalloc3D(
                    &mut pp,
                    Extent {
                        width: w,
                        height: h,
                        depth: d,
                    },
                )
            },
            code,
        );
    }
    let extent = Extent {
        width: 10,
        height: 4,
        depth: 3,
    };
    ok(unsafe { hipMalloc3D(&mut pp, extent) });
    assert!(!pp.ptr.is_null());
    assert_eq!((pp.xsize, pp.ysize), (10, 4));
    assert!(pp.pitch >= 10);
    // The whole pitch x height x depth span is one allocation: a fill of all of it is accepted.
    ok(unsafe { hipMemset(pp.ptr, 7, pp.pitch * 4 * 3) });
    expect_code(
        unsafe { hipMemset(pp.ptr, 7, pp.pitch * 4 * 3 + 1) },
        HipError::InvalidValue,
    );
    ok(unsafe { hipFree(pp.ptr) });
    expect_code(
        unsafe { hipMalloc3D(std::ptr::null_mut(), extent) },
        HipError::InvalidValue,
    );
}

#[test]
fn launch_shapes_beyond_the_device_limits_are_refused() {
    let source = "__kernel void touch(__global int* p) { p[0] = 1; }";
    let touch = kernel("touch", "touch", vec![pointer("p", "int *")]);
    register(&bundle(
        compile_opencl_c(source, "robust-launch"),
        vec![touch.clone()],
    ));
    let d = DeviceBuffer::from_slice(&[0i32]);
    let args = ArgBlock::new(&touch).set(0, d.ptr);
    let mut props = HipDeviceProp::default();
    ok(unsafe { hipGetDeviceProperties(&mut props, 0) });
    let started = std::time::Instant::now();
    // Once: 2^32 - 1 blocks were enqueued and the launch ran for hours.
    for (grid, block) in [
        (dim3(u32::MAX, 1, 1), dim3(1, 1, 1)),
        (dim3(1, u32::MAX, 1), dim3(1, 1, 1)),
        (dim3(1, 1, props.maxGridSize[2] as u32 + 1), dim3(1, 1, 1)),
        (dim3(1, 1, 1), dim3(props.maxThreadsDim[0] as u32 + 1, 1, 1)),
        (dim3(1, 1, 1), dim3(1, 1, props.maxThreadsDim[2] as u32 + 1)),
        (dim3(1, 1, 1), dim3(props.maxThreadsPerBlock as u32, 2, 1)),
    ] {
        expect_code(
            launch("touch", grid, block, &args.bytes),
            HipError::InvalidConfiguration,
        );
    }
    // An empty one is HIP's invalid value.
    expect_code(
        launch("touch", dim3(0, 1, 1), dim3(1, 1, 1), &args.bytes),
        HipError::InvalidValue,
    );
    assert!(
        started.elapsed().as_secs() < 10,
        "refusals must be immediate"
    );
    ok(launch("touch", dim3(1, 1, 1), dim3(1, 1, 1), &args.bytes));
    assert_eq!(d.download::<i32>(1), vec![1]);
}

fn load_data(bytes: &[u8]) -> hipError_t {
    let g = Guarded::new(bytes);
    let mut m = null_mut();
    let code = unsafe { hipModuleLoadData(&mut m, g.start) };
    if code == 0 {
        ok(hipModuleUnload(m));
    }
    code
}

#[test]
fn module_images_are_read_only_as_far_as_their_structure_and_memory_allow() {
    // A real module flush against an unreadable page loads: the walk's look one word past the
    // end finds unreadable memory, which ends the module.
    let spirv = compile_opencl_c(
        "__kernel void k(__global int* p) { p[get_global_id(0)] = 3; }",
        "robust-module",
    );
    ok(load_data(&spirv));

    // SPIR-V magic, then a header no SPIR-V has.
    expect_code(
        load_data(&words(&[SPIRV_MAGIC, 0xdead_beef, 0, 100, 0, 0x0003_0011])),
        HipError::InvalidImage,
    );
    // A valid header, then an instruction claiming 65535 words: the next one would lie far past
    // the readable page.
    expect_code(
        load_data(&words(&[
            SPIRV_MAGIC,
            0x0001_0000,
            0,
            100,
            0,
            0xffff_0011,
            1,
            2,
        ])),
        HipError::InvalidImage,
    );
    // Instructions that run straight into the unreadable page, inside a function.
    let mut inside = vec![SPIRV_MAGIC, 0x0001_0300, 0, 100, 0];
    inside.extend([(5 << 16) | 54, 1, 2, 0, 3]); // OpFunction
    inside.extend(std::iter::repeat_n((1 << 16) | 253, 64)); // OpReturn, no OpFunctionEnd
    expect_code(load_data(&words(&inside)), HipError::InvalidImage);
    // Only the magic, at the very end of readable memory.
    expect_code(load_data(&words(&[SPIRV_MAGIC])), HipError::InvalidImage);

    // Bundles whose header claims more than there is.
    let mut huge_entry = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    huge_entry.extend(1u64.to_le_bytes());
    huge_entry.extend(64u64.to_le_bytes()); // offset
    huge_entry.extend((512u64 << 20).to_le_bytes()); // 512 MiB
    huge_entry.extend(4u64.to_le_bytes());
    huge_entry.extend(b"host");
    expect_code(load_data(&huge_entry), HipError::InvalidImage);
    let mut absurd = huge_entry.clone();
    absurd[40..48].copy_from_slice(&u64::MAX.to_le_bytes());
    expect_code(load_data(&absurd), HipError::InvalidImage);
    let mut many = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    many.extend(1000u64.to_le_bytes()); // 1000 entries, none present
    expect_code(load_data(&many), HipError::InvalidImage);
    expect_code(load_data(b"__CLANG_OFFLOAD_BUNDL"), HipError::InvalidImage);

    // The runtime still loads and runs a good module afterwards.
    let mut m = null_mut();
    ok(unsafe { hipModuleLoadData(&mut m, spirv.as_ptr().cast()) });
    let name = CString::new("k").unwrap();
    let mut f = null_mut();
    ok(unsafe { hipModuleGetFunction(&mut f, m, name.as_ptr()) });
    let d = DeviceBuffer::from_slice(&[0i32; 4]);
    let mut p = d.ptr;
    let mut params = [(&mut p as *mut *mut c_void).cast::<c_void>()];
    ok(unsafe {
        hipModuleLaunchKernel(
            f,
            1,
            1,
            1,
            4,
            1,
            1,
            0,
            null_mut(),
            params.as_mut_ptr(),
            null_mut(),
        )
    });
    assert_eq!(d.download::<i32>(4), vec![3; 4]);
    ok(hipModuleUnload(m));
}

#[test]
fn module_files_must_be_regular_files() {
    test_env();
    let dir = scratch_dir("robust-files");
    let random = dir.join("random.spv");
    std::os::unix::fs::symlink("/dev/urandom", &random).unwrap();
    let fifo = dir.join("fifo.spv");
    let c = CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    let started = std::time::Instant::now();
    // Once: /dev/zero and /dev/urandom were read until memory ran out, and a FIFO blocked open.
    for path in [
        random.as_path(),
        fifo.as_path(),
        std::path::Path::new("/dev/zero"),
        dir.as_path(),
    ] {
        let c = CString::new(path.to_str().unwrap()).unwrap();
        let mut m = null_mut();
        expect_code(
            unsafe { hipModuleLoad(&mut m, c.as_ptr()) },
            HipError::InvalidImage,
        );
    }
    assert!(started.elapsed().as_secs() < 10);
    let missing = CString::new(dir.join("missing.spv").to_str().unwrap()).unwrap();
    let mut m = null_mut();
    expect_code(
        unsafe { hipModuleLoad(&mut m, missing.as_ptr()) },
        HipError::FileNotFound,
    );
    // A symlink to a real module file is fine.
    let spirv = compile_opencl_c("__kernel void f(__global int* p) { p[0] = 5; }", "robust-f");
    let real = dir.join("real.spv");
    std::fs::write(&real, &spirv).unwrap();
    let link = dir.join("link.spv");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let c = CString::new(link.to_str().unwrap()).unwrap();
    ok(unsafe { hipModuleLoad(&mut m, c.as_ptr()) });
    ok(hipModuleUnload(m));
    let _ = std::fs::remove_dir_all(&dir);
}
