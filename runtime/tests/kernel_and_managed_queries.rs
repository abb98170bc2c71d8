//! The query and hint APIs real programs call, on the real device: managed-memory hints and
//! prefetches read back with hipMemRangeGetAttribute, kernel attributes and cache settings,
//! occupancy from the device's limits and the kernel's work-group info, and every
//! hipDeviceAttribute_t value the header declares.

mod common;

use std::collections::BTreeMap;
use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::OnceLock;

use common::*;
use hipmlir_device_image::KernelInfo;
use hipmlir_rt::*;

const KERNELS: &str = r#"
__kernel void scale(__global float* p, float f, int n) {
    size_t i = get_global_id(0);
    if (i < n) p[i] *= f;
}
/* 16 KiB of static shared memory: occupancy must count it. */
__kernel void tiled(__global float* p) {
    __local float tile[4096];
    size_t l = get_local_id(0);
    tile[l % 4096] = p[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    p[get_global_id(0)] = tile[(l + 1) % get_local_size(0) % 4096];
}
"#;

const CPU_DEVICE: i32 = -1;
const INVALID_DEVICE: i32 = -2;
/// hipMemRangeAttribute.
const READ_MOSTLY: i32 = 1;
const PREFERRED_LOCATION: i32 = 2;
const ACCESSED_BY: i32 = 3;
const LAST_PREFETCH: i32 = 4;
const COHERENCY: i32 = 100;
/// hipMemoryAdvise.
const SET_READ_MOSTLY: i32 = 1;
const UNSET_READ_MOSTLY: i32 = 2;
const SET_PREFERRED: i32 = 3;
const UNSET_PREFERRED: i32 = 4;
const SET_ACCESSED_BY: i32 = 5;
const SET_COARSE_GRAIN: i32 = 100;

struct K {
    scale: KernelInfo,
    /// Host stubs, as a compiled program registers them.
    scale_stub: *const c_void,
    tiled_stub: *const c_void,
}
// SAFETY: the stubs are addresses of statics, only compared by the runtime.
unsafe impl Sync for K {}
unsafe impl Send for K {}

static SCALE_STUB: u8 = 0;
static TILED_STUB: u8 = 0;

fn k() -> &'static K {
    static K: OnceLock<K> = OnceLock::new();
    K.get_or_init(|| {
        let spirv = compile_opencl_c(KERNELS, "queries");
        let scale = kernel(
            "scale",
            "scale",
            vec![
                pointer("p", "float *"),
                value("f", "float", 4),
                value("n", "int", 4),
            ],
        );
        let tiled = kernel("tiled", "tiled", vec![pointer("p", "float *")]);
        register(&bundle(spirv, vec![scale.clone(), tiled]));
        let k = K {
            scale,
            scale_stub: &SCALE_STUB as *const u8 as *const c_void,
            tiled_stub: &TILED_STUB as *const u8 as *const c_void,
        };
        for (stub, name) in [(k.scale_stub, "scale"), (k.tiled_stub, "tiled")] {
            let name = CString::new(name).unwrap();
            unsafe { __hipmlirRegisterFunction(stub, name.as_ptr()) };
        }
        k
    })
}

fn range_attr(attribute: i32, p: *const c_void, bytes: usize) -> i32 {
    let mut v = 12345i32;
    ok(unsafe { hipMemRangeGetAttribute((&mut v as *mut i32).cast(), 4, attribute, p, bytes) });
    v
}

#[test]
fn managed_hints_and_prefetches_are_recorded_and_ordered() {
    let k = k();
    let n = 1 << 16;
    let bytes = n * 4;
    let mut m: *mut c_void = null_mut();
    ok(unsafe { hipMallocManaged(&mut m, bytes, 1) });
    let half = (m as usize + bytes / 2) as *const c_void;
    let host = unsafe { std::slice::from_raw_parts_mut(m as *mut f32, n) };
    for (i, v) in host.iter_mut().enumerate() {
        *v = i as f32;
    }
    // Nothing advised yet.
    assert_eq!(range_attr(READ_MOSTLY, m, bytes), 0);
    assert_eq!(range_attr(PREFERRED_LOCATION, m, bytes), INVALID_DEVICE);
    assert_eq!(range_attr(LAST_PREFETCH, m, bytes), INVALID_DEVICE);
    assert_eq!(range_attr(COHERENCY, m, bytes), 0, "fine grain");

    // Read-mostly on the first half only: the whole range is not read-mostly.
    ok(unsafe { hipMemAdvise(m, bytes / 2, SET_READ_MOSTLY, 0) });
    assert_eq!(range_attr(READ_MOSTLY, m, bytes / 2), 1);
    assert_eq!(range_attr(READ_MOSTLY, m, bytes), 0);
    assert_eq!(range_attr(READ_MOSTLY, half, bytes / 2), 0);
    ok(unsafe { hipMemAdvise(half, bytes / 2, SET_READ_MOSTLY, 0) });
    assert_eq!(range_attr(READ_MOSTLY, m, bytes), 1);
    ok(unsafe { hipMemAdvise(m, 4, UNSET_READ_MOSTLY, 0) });
    assert_eq!(range_attr(READ_MOSTLY, m, bytes), 0);
    assert_eq!(
        range_attr(READ_MOSTLY, (m as usize + 4) as *const c_void, 4),
        1
    );

    // Preferred location: one value for the range, else hipInvalidDeviceId.
    ok(unsafe { hipMemAdvise(m, bytes, SET_PREFERRED, 0) });
    assert_eq!(range_attr(PREFERRED_LOCATION, m, bytes), 0);
    ok(unsafe { hipMemAdvise(half, bytes / 2, SET_PREFERRED, CPU_DEVICE) });
    assert_eq!(range_attr(PREFERRED_LOCATION, m, bytes), INVALID_DEVICE);
    assert_eq!(range_attr(PREFERRED_LOCATION, half, bytes / 2), CPU_DEVICE);
    ok(unsafe { hipMemAdvise(m, bytes, UNSET_PREFERRED, 0) });
    assert_eq!(range_attr(PREFERRED_LOCATION, half, 8), INVALID_DEVICE);

    // Accessed-by: a list of devices padded with hipInvalidDeviceId.
    ok(unsafe { hipMemAdvise(m, bytes, SET_ACCESSED_BY, 0) });
    ok(unsafe { hipMemAdvise(m, bytes, SET_ACCESSED_BY, CPU_DEVICE) });
    let mut list = [7i32; 4];
    ok(unsafe { hipMemRangeGetAttribute(list.as_mut_ptr().cast(), 16, ACCESSED_BY, m, bytes) });
    assert_eq!(list, [0, CPU_DEVICE, INVALID_DEVICE, INVALID_DEVICE]);

    // Coarse grain on part of the range: indeterminate for the whole.
    ok(unsafe { hipMemAdvise(m, bytes / 2, SET_COARSE_GRAIN, 0) });
    assert_eq!(range_attr(COHERENCY, m, bytes / 2), 1);
    assert_eq!(range_attr(COHERENCY, m, bytes), 2);

    // Prefetches are stream-ordered: a kernel after one on the same stream, then a
    // synchronize, leaves the result where the host reads it.
    let s = {
        let mut s = null_mut();
        ok(unsafe { hipStreamCreate(&mut s) });
        s
    };
    ok(unsafe { hipMemPrefetchAsync(m, bytes, 0, s) });
    assert_eq!(range_attr(LAST_PREFETCH, m, bytes), 0);
    let args = ArgBlock::new(&k.scale)
        .set(0, m)
        .set(1, 3.0f32)
        .set(2, n as i32);
    let name = CString::new("scale").unwrap();
    ok(unsafe {
        hipLaunchKernelByName(
            name.as_ptr(),
            dim3((n / 256) as u32, 1, 1),
            dim3(256, 1, 1),
            0,
            s,
            args.bytes.as_ptr().cast(),
            args.bytes.len(),
        )
    });
    ok(unsafe { hipMemPrefetchAsync(half, bytes / 2, CPU_DEVICE, s) });
    ok(hipStreamSynchronize(s));
    for (i, &v) in host.iter().enumerate() {
        assert_eq!(v, i as f32 * 3.0, "element {i}");
    }
    assert_eq!(range_attr(LAST_PREFETCH, m, bytes), INVALID_DEVICE);
    assert_eq!(range_attr(LAST_PREFETCH, half, bytes / 2), CPU_DEVICE);

    // Several attributes at once.
    let (mut a, mut b) = (0i32, 0i32);
    let mut data = [
        (&mut a as *mut i32).cast::<c_void>(),
        (&mut b as *mut i32).cast(),
    ];
    let mut sizes = [4usize, 4];
    let mut attrs = [LAST_PREFETCH, READ_MOSTLY];
    ok(unsafe {
        hipMemRangeGetAttributes(
            data.as_mut_ptr(),
            sizes.as_mut_ptr(),
            attrs.as_mut_ptr(),
            2,
            half,
            bytes / 2,
        )
    });
    assert_eq!((a, b), (CPU_DEVICE, 1));

    // Misuse.
    let mut v = 0i32;
    let vp = (&mut v as *mut i32).cast::<c_void>();
    expect_code(
        unsafe { hipMemAdvise(m, bytes, 42, 0) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemAdvise(m, bytes, SET_PREFERRED, 3) },
        HipError::InvalidDevice,
    );
    expect_code(
        unsafe { hipMemAdvise(m, bytes + 1, SET_READ_MOSTLY, 0) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemAdvise(m, 0, SET_READ_MOSTLY, 0) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemPrefetchAsync(m, bytes, 5, s) },
        HipError::InvalidDevice,
    );
    // A null or empty range is refused first, whatever the device.
    expect_code(
        unsafe { hipMemPrefetchAsync(std::ptr::null(), 0, 5, s) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemPrefetchAsync(m, 0, 0, s) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemRangeGetAttribute(vp, 8, READ_MOSTLY, m, bytes) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemRangeGetAttribute(vp, 4, 77, m, bytes) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemRangeGetAttribute(null_mut(), 4, READ_MOSTLY, m, bytes) },
        HipError::InvalidValue,
    );
    let d = DeviceBuffer::new(64);
    expect_code(
        unsafe { hipMemAdvise(d.ptr, 64, SET_READ_MOSTLY, 0) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemPrefetchAsync(d.ptr, 64, 0, null_mut()) },
        HipError::InvalidValue,
    );
    ok(hipStreamDestroy(s));
    ok(unsafe { hipFree(m) });
    // A freed range's hints are gone: a new allocation (often at the same address) has none.
    let mut m2: *mut c_void = null_mut();
    ok(unsafe { hipMallocManaged(&mut m2, bytes, 1) });
    assert_eq!(range_attr(READ_MOSTLY, m2, bytes), 0);
    assert_eq!(range_attr(LAST_PREFETCH, m2, bytes), INVALID_DEVICE);
    ok(unsafe { hipFree(m2) });
}

#[test]
fn function_attributes_and_cache_settings_are_kept() {
    let k = k();
    let mut attr = FuncAttributes::default();
    ok(unsafe { hipFuncGetAttributes(&mut attr, k.tiled_stub) });
    assert!(attr.sharedSizeBytes >= 16 * 1024, "{attr:?}");
    assert_eq!(attr.preferredShmemCarveout, -1);
    let mut props = HipDeviceProp::default();
    ok(unsafe { hipGetDeviceProperties(&mut props, 0) });
    assert_eq!(
        attr.maxDynamicSharedSizeBytes as usize,
        props.sharedMemPerBlock - attr.sharedSizeBytes
    );
    ok(hipFuncSetAttribute(k.tiled_stub, 8, 1024));
    ok(hipFuncSetAttribute(k.tiled_stub, 9, 50));
    ok(unsafe { hipFuncGetAttributes(&mut attr, k.tiled_stub) });
    assert_eq!(
        (attr.maxDynamicSharedSizeBytes, attr.preferredShmemCarveout),
        (1024, 50)
    );
    // The other kernel is untouched.
    ok(unsafe { hipFuncGetAttributes(&mut attr, k.scale_stub) });
    assert_eq!(attr.preferredShmemCarveout, -1);
    let too_much = (props.sharedMemPerBlock + 1) as i32;
    expect_code(
        hipFuncSetAttribute(k.tiled_stub, 8, too_much),
        HipError::InvalidValue,
    );
    expect_code(
        hipFuncSetAttribute(k.tiled_stub, 9, 101),
        HipError::InvalidValue,
    );
    expect_code(
        hipFuncSetAttribute(k.tiled_stub, 7, 0),
        HipError::InvalidValue,
    );
    expect_code(
        hipFuncSetAttribute(null(), 8, 0),
        HipError::InvalidDeviceFunction,
    );
    for config in 0..4 {
        ok(hipFuncSetCacheConfig(k.scale_stub, config));
    }
    expect_code(
        hipFuncSetCacheConfig(k.scale_stub, 4),
        HipError::InvalidValue,
    );
    expect_code(
        hipFuncSetCacheConfig(0x1234 as *const c_void, 0),
        HipError::InvalidDeviceFunction,
    );
}

#[test]
fn occupancy_follows_device_limits_and_kernel_resources() {
    let k = k();
    let mut props = HipDeviceProp::default();
    ok(unsafe { hipGetDeviceProperties(&mut props, 0) });
    let attr = |a: i32| {
        let mut v = -1;
        ok(unsafe { hipDeviceGetAttribute(&mut v, a, 0) });
        v
    };
    let max_blocks = attr(25);
    assert!(max_blocks >= 1);
    let active = |stub: *const c_void, block: i32, shmem: usize| {
        let mut n = -1;
        ok(unsafe { hipOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, stub, block, shmem) });
        n
    };
    let mut fattr = FuncAttributes::default();
    ok(unsafe { hipFuncGetAttributes(&mut fattr, k.scale_stub) });
    let warp = props.warpSize;
    for block in [1, warp, 64, 256, fattr.maxThreadsPerBlock] {
        let n = active(k.scale_stub, block, 0);
        // Whole warps per block, within the unit's threads and block slots.
        let warps = (block + warp - 1) / warp * warp;
        assert_eq!(
            n,
            (props.maxThreadsPerMultiProcessor / warps).min(max_blocks),
            "block {block}"
        );
    }
    assert_eq!(active(k.scale_stub, fattr.maxThreadsPerBlock + 1, 0), 0);
    // Shared memory limits blocks: the tiled kernel's 16 KiB, plus any dynamic share.
    let mut tattr = FuncAttributes::default();
    ok(unsafe { hipFuncGetAttributes(&mut tattr, k.tiled_stub) });
    let per_block = tattr.sharedSizeBytes + 8192;
    let n = active(k.tiled_stub, warp, 8192);
    assert!(n >= 1);
    assert!(
        n as usize <= props.sharedMemPerMultiprocessor / per_block,
        "{n}"
    );
    assert!(n <= active(k.tiled_stub, warp, 0));

    // The suggested block keeps at least as many threads resident as any other.
    let (mut grid, mut block) = (0, 0);
    ok(unsafe { hipOccupancyMaxPotentialBlockSize(&mut grid, &mut block, k.scale_stub, 0, 0) });
    let best = active(k.scale_stub, block, 0) * block;
    for other in [warp, 64, 128, 256, 512, 1024] {
        if other <= fattr.maxThreadsPerBlock {
            assert!(active(k.scale_stub, other, 0) * other <= best, "{other}");
        }
    }
    assert_eq!(
        grid,
        props.multiProcessorCount * active(k.scale_stub, block, 0)
    );
    ok(unsafe { hipOccupancyMaxPotentialBlockSize(&mut grid, &mut block, k.scale_stub, 0, 100) });
    assert!(block <= 100 && block > 0);

    let mut n = 0;
    expect_code(
        unsafe { hipOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, k.scale_stub, 0, 0) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe {
            hipOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut n,
                k.scale_stub,
                32,
                props.sharedMemPerBlock + 1,
            )
        },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, null(), 32, 0) },
        HipError::InvalidDeviceFunction,
    );
    ok(unsafe {
        hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&mut n, k.scale_stub, 64, 0, 1)
    });
    assert_eq!(n, active(k.scale_stub, 64, 0));
}

/// The module forms (`hipModuleOccupancy*`, a `hipFunction_t` of `hipModuleGetFunction`) answer
/// as the forms taking a host stub do, for the same kernel.
#[test]
fn module_occupancy_answers_as_the_stub_forms() {
    let k = k();
    let image = bundle(compile_opencl_c(KERNELS, "queries"), vec![k.scale.clone()]);
    let mut module = null_mut();
    ok(unsafe { hipModuleLoadData(&mut module, image.as_ptr().cast()) });
    let mut f = null_mut();
    ok(unsafe { hipModuleGetFunction(&mut f, module, c"scale".as_ptr()) });
    let mut props = HipDeviceProp::default();
    ok(unsafe { hipGetDeviceProperties(&mut props, 0) });
    for block in [1, props.warpSize, 64, 100, 256] {
        let (mut by_stub, mut by_module, mut with_flags) = (-1, -2, -3);
        ok(unsafe {
            hipOccupancyMaxActiveBlocksPerMultiprocessor(&mut by_stub, k.scale_stub, block, 64)
        });
        ok(unsafe {
            hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&mut by_module, f, block, 64)
        });
        ok(unsafe {
            hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                &mut with_flags,
                f,
                block,
                64,
                1,
            )
        });
        assert!(by_stub > 0, "block {block}");
        assert_eq!((by_module, with_flags), (by_stub, by_stub), "block {block}");
    }
    for limit in [0, 100] {
        let (mut grid, mut block) = (0, 0);
        ok(unsafe {
            hipOccupancyMaxPotentialBlockSize(&mut grid, &mut block, k.scale_stub, 0, limit)
        });
        let (mut mgrid, mut mblock) = (-1, -1);
        ok(unsafe {
            hipModuleOccupancyMaxPotentialBlockSize(&mut mgrid, &mut mblock, f, 0, limit)
        });
        assert_eq!((mgrid, mblock), (grid, block), "limit {limit}");
        let (mut fgrid, mut fblock) = (-1, -1);
        ok(unsafe {
            hipModuleOccupancyMaxPotentialBlockSizeWithFlags(
                &mut fgrid,
                &mut fblock,
                f,
                0,
                limit,
                0,
            )
        });
        assert_eq!((fgrid, fblock), (grid, block), "limit {limit}");
    }

    // Misuse: null results, a block of 0, unknown flags, a function that is no module's.
    let (mut n, mut grid) = (0, 0);
    let (n, grid) = (&mut n as *mut i32, &mut grid as *mut i32);
    let calls: [&dyn Fn() -> hipError_t; 6] = [
        &|| unsafe { hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(null_mut(), f, 64, 0) },
        &|| unsafe { hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(n, f, 0, 0) },
        &|| unsafe { hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, f, 64, 0, 2) },
        &|| unsafe { hipModuleOccupancyMaxPotentialBlockSize(null_mut(), n, f, 0, 0) },
        &|| unsafe { hipModuleOccupancyMaxPotentialBlockSize(grid, null_mut(), f, 0, 0) },
        &|| unsafe { hipModuleOccupancyMaxPotentialBlockSizeWithFlags(grid, n, f, 0, 0, 2) },
    ];
    for call in calls {
        expect_code(call(), HipError::InvalidValue);
    }
    expect_code(
        unsafe { hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(n, k.scale_stub as _, 64, 0) },
        HipError::InvalidHandle,
    );
    ok(hipModuleUnload(module));
}

/// The enumerators of `hipDeviceAttribute_t` in the header, with their values.
fn header_device_attributes() -> BTreeMap<String, i64> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../headers/hip/hip_runtime_api.h"
    );
    let text = std::fs::read_to_string(path).expect("read the header");
    let start = text.find("typedef enum hipDeviceAttribute_t {").unwrap();
    let end = start + text[start..].find("} hipDeviceAttribute_t;").unwrap();
    let body = &text[start..end];
    let body = body[body.find('{').unwrap() + 1..].to_string();
    let mut values: BTreeMap<String, i64> = BTreeMap::new();
    let mut next = 0i64;
    for line in body.lines() {
        let line = line
            .split("//")
            .next()
            .unwrap()
            .trim()
            .trim_end_matches(',');
        if line.is_empty() {
            continue;
        }
        let (name, value) = match line.split_once('=') {
            Some((n, v)) => {
                let v = v.trim();
                let v = v
                    .parse::<i64>()
                    .unwrap_or_else(|_| *values.get(v).unwrap_or_else(|| panic!("{v}")));
                (n.trim().to_string(), v)
            }
            None => (line.to_string(), next),
        };
        values.insert(name, value);
        next = value + 1;
    }
    values
}

#[test]
fn every_header_device_attribute_is_answered() {
    k();
    let attrs = header_device_attributes();
    assert!(attrs.len() > 100, "{} enumerators", attrs.len());
    let mut props = HipDeviceProp::default();
    ok(unsafe { hipGetDeviceProperties(&mut props, 0) });
    for (name, &value) in &attrs {
        let mut v = i32::MIN;
        let code = unsafe { hipDeviceGetAttribute(&mut v, value as i32, 0) };
        let marker = name.ends_with("Begin") || name.ends_with("End");
        let hdp = name.contains("FlushCntl");
        if hdp {
            expect_code(code, HipError::NotSupported);
        } else if marker && code != 0 {
            // A range marker that is no attribute of its own is refused.
            expect_code(code, HipError::InvalidValue);
        } else {
            assert_eq!(name_of(code), "hipSuccess", "{name} ({value})");
            assert_ne!(v, i32::MIN, "{name} was not written");
        }
    }
    let get = |name: &str| {
        let mut v = 0;
        ok(unsafe { hipDeviceGetAttribute(&mut v, attrs[name] as i32, 0) });
        v
    };
    assert_eq!(
        get("hipDeviceAttributeMaxSharedMemoryPerMultiprocessor") as usize,
        props.maxSharedMemoryPerMultiProcessor
    );
    assert_eq!(
        get("hipDeviceAttributePhysicalMultiProcessorCount"),
        props.multiProcessorCount
    );
    assert_eq!(get("hipDeviceAttributeWarpSize"), props.warpSize);
    assert_eq!(
        get("hipDeviceAttributeMaxThreadsPerMultiProcessor"),
        props.maxThreadsPerMultiProcessor
    );
}
