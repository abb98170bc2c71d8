//! Pointer attributes for every kind of allocation (device, pinned host with flags, registered
//! host, managed, arrays, `hipExtMallocWithFlags`, memory nobody allocated), the driver API's
//! single attributes at HIP's widths, `hipPointerSetAttribute`, address ranges, host
//! registration with its flags (a kernel and copies using registered memory, every element
//! compared), the driver API's allocation spellings, and copies between devices; each misuse
//! with the code HIP documents.

mod common;

use std::ffi::{c_int, c_uint, c_void};
use std::ptr::null_mut;
use std::sync::OnceLock;

use common::*;
use hipmlir_device_image::KernelInfo;
use hipmlir_rt::*;

/// `hipMemoryType`.
const UNREGISTERED: i32 = 0;
const HOST: i32 = 1;
const DEVICE: i32 = 2;
const MANAGED: i32 = 3;
const ARRAY: i32 = 10;

/// `hipPointer_attribute`.
const ATTR_CONTEXT: c_int = 1;
const ATTR_MEMORY_TYPE: c_int = 2;
const ATTR_DEVICE_POINTER: c_int = 3;
const ATTR_HOST_POINTER: c_int = 4;
const ATTR_P2P_TOKENS: c_int = 5;
const ATTR_SYNC_MEMOPS: c_int = 6;
const ATTR_BUFFER_ID: c_int = 7;
const ATTR_IS_MANAGED: c_int = 8;
const ATTR_DEVICE_ORDINAL: c_int = 9;
const ATTR_RANGE_START_ADDR: c_int = 11;
const ATTR_RANGE_SIZE: c_int = 12;
const ATTR_MAPPED: c_int = 13;
const ATTR_ACCESS_FLAGS: c_int = 16;
const ATTR_MEMPOOL_HANDLE: c_int = 17;

/// `hipHostMalloc` / `hipHostRegister` flags.
const PORTABLE: c_uint = 1;
const MAPPED: c_uint = 2;
const READ_ONLY: c_uint = 8;
const COHERENT: c_uint = 0x4000_0000;
const NON_COHERENT: c_uint = 0x8000_0000;

/// `hipDeviceAttributeHostRegisterSupported`.
const HOST_REGISTER_SUPPORTED: c_int = 90;

const KERNELS: &str = r#"
__kernel void square_plus(__global int* p, int n, int add) {
    size_t i = get_global_id(0);
    if (i < n) p[i] = p[i] * p[i] + add;
}
"#;

fn square_plus() -> &'static KernelInfo {
    static K: OnceLock<KernelInfo> = OnceLock::new();
    K.get_or_init(|| {
        let k = kernel(
            "square_plus",
            "square_plus",
            vec![
                pointer("p", "int *"),
                value("n", "int", 4),
                value("add", "int", 4),
            ],
        );
        register(&bundle(
            compile_opencl_c(KERNELS, "pointers"),
            vec![k.clone()],
        ));
        k
    })
}

/// Serializes this file's tests: several check that a freed pointer is no allocation, which
/// another test's allocation on a parallel thread may take the address of.
fn alone() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn attributes(p: *const c_void) -> PointerAttributes {
    let mut a = PointerAttributes::unregistered();
    a.r#type = -7;
    ok(unsafe { hipPointerGetAttributes(&mut a, p) });
    a
}

/// One attribute into 8 bytes of 0xAA: the value, and how many bytes the call wrote.
fn attribute(attr: c_int, p: *const c_void) -> (hipError_t, u64, usize) {
    let mut raw = [0xAAu8; 8];
    let code = unsafe { hipPointerGetAttribute(raw.as_mut_ptr().cast(), attr, p) };
    let width = 8 - raw.iter().rev().take_while(|&&b| b == 0xAA).count();
    let mut value = [0u8; 8];
    value[..width].copy_from_slice(&raw[..width]);
    (code, u64::from_ne_bytes(value), width)
}

/// An attribute that must succeed, with the width HIP writes it at (at most).
fn attribute_ok(attr: c_int, p: *const c_void, width: usize) -> u64 {
    let (code, value, written) = attribute(attr, p);
    ok(code);
    assert!(written <= width, "attribute {attr} wrote {written} bytes");
    value
}

#[test]
fn every_kind_of_allocation_has_its_memory_type() {
    let _alone = alone();
    // Device memory, at its base and inside.
    let d = DeviceBuffer::new(1000);
    let a = attributes(d.ptr);
    assert_eq!(
        (a.r#type, a.device, a.isManaged, a.allocationFlags),
        (DEVICE, 0, 0, 0)
    );
    assert_eq!((a.devicePointer, a.hostPointer), (d.ptr, null_mut()));
    let inner = attributes((d.at(999)) as *const c_void);
    assert_eq!(inner.devicePointer as usize, d.at(999));
    assert_eq!(inner.r#type, DEVICE);

    // Pinned host memory keeps its flags.
    let mut h: *mut c_void = null_mut();
    ok(unsafe { hipHostMalloc(&mut h, 4096, PORTABLE | MAPPED) });
    let a = attributes(unsafe { h.cast::<u8>().add(100) }.cast());
    assert_eq!((a.r#type, a.allocationFlags), (HOST, PORTABLE | MAPPED));
    assert_eq!(a.hostPointer as usize, h as usize + 100);
    let mut flags = 0;
    ok(unsafe { hipHostGetFlags(&mut flags, h) });
    assert_eq!(flags, PORTABLE | MAPPED);
    let mut dp: *mut c_void = null_mut();
    ok(unsafe { hipHostGetDevicePointer(&mut dp, h, 0) });
    assert_eq!(dp, a.devicePointer.wrapping_sub(100));
    assert!(!dp.is_null());

    // Managed memory.
    let mut m: *mut c_void = null_mut();
    ok(unsafe { hipMallocManaged(&mut m, 512, 1) });
    let a = attributes(m);
    assert_eq!((a.r#type, a.isManaged), (MANAGED, 1));
    assert_eq!((a.devicePointer, a.hostPointer), (m, m));
    assert_eq!(attribute_ok(ATTR_IS_MANAGED, m, 1), 1);

    // An array: its handle is no address, but HIP names it.
    let desc = hipCreateChannelDesc(32, 0, 0, 0, 2);
    let mut arr = 0usize;
    ok(unsafe { hipMallocArray(&mut arr, &desc, 8, 8, 0) });
    assert_eq!(attributes(arr as *const c_void).r#type, ARRAY);
    assert_eq!(
        attribute_ok(ATTR_MEMORY_TYPE, arr as *const c_void, 4),
        ARRAY as u64
    );
    ok(hipFreeArray(arr));
    assert_eq!(attributes(arr as *const c_void).r#type, UNREGISTERED);

    // hipExtMallocWithFlags: default memory is device memory; fine-grained memory is coherent,
    // the backends' managed memory.
    let mut e: *mut c_void = null_mut();
    ok(unsafe { hipExtMallocWithFlags(&mut e, 100, 0) });
    assert_eq!(e as usize % 256, 0);
    assert_eq!(attributes(e).r#type, DEVICE);
    ok(unsafe { hipFree(e) });
    let mut managed_memory = 0;
    ok(unsafe { hipDeviceGetAttribute(&mut managed_memory, 24, 0) });
    if managed_memory == 1 {
        for flag in [1, 2, 3] {
            let size = if flag == 2 { 8 } else { 64 };
            ok(unsafe { hipExtMallocWithFlags(&mut e, size, flag) });
            assert_eq!(attributes(e).r#type, MANAGED, "flag {flag}");
            ok(unsafe { hipFree(e) });
        }
    }
    ok(unsafe { hipExtMallocWithFlags(&mut e, 0, 0) });
    assert!(e.is_null());
    expect_code(
        unsafe { hipExtMallocWithFlags(&mut e, 16, 2) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipExtMallocWithFlags(&mut e, 16, 7) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipExtMallocWithFlags(null_mut(), 16, 0) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipExtMallocWithFlags(&mut e, usize::MAX, 0) },
        HipError::OutOfMemory,
    );

    // Memory nobody allocated: HIP 6's success with an unregistered type.
    let plain = [0u8; 64];
    let a = attributes(plain.as_ptr().cast());
    assert_eq!((a.r#type, a.device), (UNREGISTERED, -2));
    assert!(a.devicePointer.is_null() && a.hostPointer.is_null());
    let local = 5u64;
    assert_eq!(
        attributes((&local as *const u64).cast()).r#type,
        UNREGISTERED
    );
    expect_code(
        unsafe {
            hipPointerGetAttributes(&mut PointerAttributes::unregistered(), std::ptr::null())
        },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipPointerGetAttributes(null_mut(), d.ptr) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipHostGetFlags(&mut flags, d.ptr) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipHostGetFlags(&mut flags, plain.as_ptr() as *mut c_void) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipHostGetFlags(null_mut(), h) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipHostGetDevicePointer(&mut dp, plain.as_ptr() as *mut c_void, 0) },
        HipError::InvalidValue,
    );
    ok(unsafe { hipHostFree(h) });
    ok(unsafe { hipFree(m) });
}

#[test]
fn single_attributes_have_hips_values_and_widths() {
    let _alone = alone();
    let d = DeviceBuffer::new(300);
    let inside = d.at(40) as *const c_void;
    assert_eq!(attribute_ok(ATTR_MEMORY_TYPE, inside, 4), DEVICE as u64);
    assert_eq!(
        attribute_ok(ATTR_DEVICE_POINTER, inside, 8),
        d.at(40) as u64
    );
    assert_eq!(attribute_ok(ATTR_RANGE_START_ADDR, inside, 8), d.ptr as u64);
    assert_eq!(attribute_ok(ATTR_RANGE_SIZE, inside, 4), 300);
    assert_eq!(attribute_ok(ATTR_DEVICE_ORDINAL, inside, 4), 0);
    assert_eq!(attribute_ok(ATTR_IS_MANAGED, inside, 1), 0);
    assert_eq!(attribute_ok(ATTR_MAPPED, inside, 1), 1);
    assert_eq!(attribute_ok(ATTR_ACCESS_FLAGS, inside, 4), 3);
    assert_eq!(attribute_ok(ATTR_SYNC_MEMOPS, inside, 1), 0);
    // Device memory has no host address: an error, its value written as null.
    let (code, value, _) = attribute(ATTR_HOST_POINTER, inside);
    expect_code(code, HipError::InvalidValue);
    assert_eq!(value, 0);
    // Buffer ids differ for every allocation, even one at a freed one's address.
    let first = attribute_ok(ATTR_BUFFER_ID, d.ptr, 4);
    let mut p: *mut c_void = null_mut();
    ok(unsafe { hipMalloc(&mut p, 300) });
    let second = attribute_ok(ATTR_BUFFER_ID, p, 4);
    ok(unsafe { hipFree(p) });
    ok(unsafe { hipMalloc(&mut p, 300) });
    let third = attribute_ok(ATTR_BUFFER_ID, p, 4);
    assert!(first != second && second != third && first != third);
    ok(unsafe { hipFree(p) });
    expect_code(attribute(ATTR_DEVICE_POINTER, p).0, HipError::InvalidValue);

    // SYNC_MEMOPS is the one attribute to set.
    let on = true;
    ok(unsafe {
        hipPointerSetAttribute((&on as *const bool).cast(), ATTR_SYNC_MEMOPS as _, inside)
    });
    assert_eq!(attribute_ok(ATTR_SYNC_MEMOPS, d.ptr, 1), 1);
    let off = 0u32;
    ok(unsafe {
        hipPointerSetAttribute((&off as *const u32).cast(), ATTR_SYNC_MEMOPS as _, d.ptr)
    });
    assert_eq!(attribute_ok(ATTR_SYNC_MEMOPS, d.ptr, 1), 0);

    // The driver API's several attributes at once: unanswerable ones get zero, no error.
    let mut memory_type = 0u32;
    let mut ordinal = -1i32;
    let mut device_pointer: *mut c_void = null_mut();
    let mut size = 0u32;
    let mut host_pointer: *mut c_void = std::ptr::dangling_mut();
    let attrs = [
        ATTR_MEMORY_TYPE,
        ATTR_DEVICE_ORDINAL,
        ATTR_DEVICE_POINTER,
        ATTR_RANGE_SIZE,
        ATTR_HOST_POINTER,
    ];
    let mut data: [*mut c_void; 5] = [
        (&mut memory_type as *mut u32).cast(),
        (&mut ordinal as *mut i32).cast(),
        (&mut device_pointer as *mut *mut c_void).cast(),
        (&mut size as *mut u32).cast(),
        (&mut host_pointer as *mut *mut c_void).cast(),
    ];
    ok(unsafe { hipDrvPointerGetAttributes(5, attrs.as_ptr(), data.as_mut_ptr(), inside) });
    assert_eq!((memory_type, ordinal, size), (DEVICE as u32, 0, 300));
    assert_eq!(device_pointer as usize, d.at(40));
    assert!(host_pointer.is_null());

    // Misuse.
    let mut word = 0u64;
    let host = [0u8; 16];
    let hp = host.as_ptr().cast::<c_void>();
    for (attr, ptr, code) in [
        (ATTR_DEVICE_POINTER, hp, HipError::InvalidValue),
        (ATTR_RANGE_START_ADDR, hp, HipError::InvalidValue),
        (ATTR_DEVICE_ORDINAL, hp, HipError::InvalidValue),
        (ATTR_MEMORY_TYPE, hp, HipError::InvalidValue),
        (-1, inside, HipError::InvalidValue),
        (99, inside, HipError::InvalidValue),
        (ATTR_CONTEXT, inside, HipError::NotSupported),
        (ATTR_P2P_TOKENS, inside, HipError::NotSupported),
        (ATTR_MEMPOOL_HANDLE, inside, HipError::NotSupported),
    ] {
        let got = unsafe { hipPointerGetAttribute((&mut word as *mut u64).cast(), attr, ptr) };
        expect_code(got, code);
    }
    expect_code(
        unsafe { hipPointerGetAttribute(null_mut(), ATTR_MEMORY_TYPE, inside) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe {
            hipPointerGetAttribute(
                (&mut word as *mut u64).cast(),
                ATTR_MEMORY_TYPE,
                std::ptr::null(),
            )
        },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipDrvPointerGetAttributes(0, attrs.as_ptr(), data.as_mut_ptr(), inside) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipDrvPointerGetAttributes(5, attrs.as_ptr(), null_mut(), inside) },
        HipError::InvalidValue,
    );
    let two = 2u32;
    for (value, attr, ptr, code) in [
        (
            std::ptr::null(),
            ATTR_SYNC_MEMOPS,
            inside,
            HipError::InvalidValue,
        ),
        (
            (&on as *const bool).cast(),
            ATTR_SYNC_MEMOPS,
            std::ptr::null(),
            HipError::InvalidValue,
        ),
        (
            (&on as *const bool).cast(),
            ATTR_SYNC_MEMOPS,
            hp,
            HipError::InvalidDevicePointer,
        ),
        (
            (&on as *const bool).cast(),
            ATTR_SYNC_MEMOPS,
            p as *const c_void,
            HipError::InvalidDevicePointer,
        ),
        (
            (&on as *const bool).cast(),
            ATTR_MEMORY_TYPE,
            inside,
            HipError::InvalidValue,
        ),
        (
            (&two as *const u32).cast(),
            ATTR_SYNC_MEMOPS,
            inside,
            HipError::InvalidValue,
        ),
    ] {
        expect_code(
            unsafe { hipPointerSetAttribute(value, attr as _, ptr) },
            code,
        );
    }
}

#[test]
fn address_ranges_and_sizes_of_allocations() {
    let _alone = alone();
    let mut p: *mut c_void = null_mut();
    let mut pitch = 0usize;
    ok(unsafe { hipMallocPitch(&mut p, &mut pitch, 40, 9) });
    let mut pinned: *mut c_void = null_mut();
    ok(unsafe { hipHostMalloc(&mut pinned, 2048, 0) });
    let d = DeviceBuffer::new(4096);
    for (base, size) in [(p, pitch * 9), (pinned, 2048), (d.ptr, 4096)] {
        for offset in [0, 1, size / 2, size - 1] {
            let inner = (base as usize + offset) as *mut c_void;
            let (mut b, mut s): (*mut c_void, usize) = (null_mut(), 0);
            ok(unsafe { hipMemGetAddressRange(&mut b, &mut s, inner) });
            assert_eq!((b, s), (base, size), "offset {offset}");
            let mut info = 0usize;
            ok(unsafe { hipMemPtrGetInfo(inner, &mut info) });
            assert_eq!(info, size);
        }
        let past = (base as usize + size) as *mut c_void;
        let (mut b, mut s): (*mut c_void, usize) = (null_mut(), 0);
        if attributes(past).r#type == UNREGISTERED {
            expect_code(
                unsafe { hipMemGetAddressRange(&mut b, &mut s, past) },
                HipError::NotFound,
            );
        }
    }
    let host = [0u8; 8];
    let (mut b, mut s): (*mut c_void, usize) = (null_mut(), 0);
    expect_code(
        unsafe { hipMemGetAddressRange(&mut b, &mut s, host.as_ptr() as *mut c_void) },
        HipError::NotFound,
    );
    expect_code(
        unsafe { hipMemGetAddressRange(&mut b, &mut s, null_mut()) },
        HipError::NotFound,
    );
    expect_code(
        unsafe { hipMemPtrGetInfo(host.as_ptr() as *mut c_void, &mut s) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemPtrGetInfo(d.ptr, null_mut()) },
        HipError::InvalidValue,
    );
    ok(unsafe { hipFree(p) });
    ok(unsafe { hipHostFree(pinned) });
}

#[test]
fn registered_host_memory_serves_copies_fills_and_kernels() {
    let _alone = alone();
    let k = square_plus();
    let mut supported = 0;
    ok(unsafe { hipDeviceGetAttribute(&mut supported, HOST_REGISTER_SUPPORTED, 0) });
    let n = 4096usize;
    let mut host: Vec<i32> = (0..n as i32).map(|i| i - 1000).collect();
    let bytes = n * 4;
    let hp = host.as_mut_ptr().cast::<c_void>();
    if supported == 0 {
        // A device that cannot reach the host's memory says so.
        expect_code(hipHostRegister(hp, bytes, 0), HipError::NotSupported);
        return;
    }
    ok(hipHostRegister(hp, bytes, PORTABLE | MAPPED));
    let a = attributes(unsafe { hp.cast::<i32>().add(7) }.cast());
    assert_eq!((a.r#type, a.allocationFlags), (HOST, PORTABLE | MAPPED));
    assert_eq!(a.hostPointer as usize, hp as usize + 28);
    let mut flags = 0;
    ok(unsafe { hipHostGetFlags(&mut flags, hp) });
    assert_eq!(flags, PORTABLE | MAPPED);
    let mut dp: *mut c_void = null_mut();
    ok(unsafe { hipHostGetDevicePointer(&mut dp, hp, 0) });

    // A kernel reads and writes it through its device address.
    let args = ArgBlock::new(k).set(0, dp).set(1, n as i32).set(2, 3i32);
    ok(launch(
        "square_plus",
        dim3(n as u32 / 64, 1, 1),
        dim3(64, 1, 1),
        &args.bytes,
    ));
    ok(hipDeviceSynchronize());
    for (i, &v) in host.iter().enumerate() {
        let x = i as i32 - 1000;
        assert_eq!(v, x * x + 3, "element {i}");
    }
    // Copies to and from device memory, and fills of part of it.
    let d = DeviceBuffer::from_slice(&(0..n as i32).map(|i| i * 5).collect::<Vec<_>>());
    ok(unsafe { hipMemcpy(hp, d.ptr, bytes / 2, MemcpyKind::DeviceToHost as i32) });
    ok(unsafe { hipMemsetD32(hp.cast::<u8>().add(bytes / 2).cast(), -9, n / 4) });
    let s = {
        let mut s = null_mut();
        ok(unsafe { hipStreamCreate(&mut s) });
        s
    };
    ok(unsafe { hipMemcpyHtoDAsync(d.ptr, hp, bytes, s) });
    ok(hipStreamSynchronize(s));
    let got: Vec<i32> = d.download(n);
    for i in 0..n {
        let want = if i < n / 2 {
            i as i32 * 5
        } else if i < 3 * n / 4 {
            -9
        } else {
            let x = i as i32 - 1000;
            x * x + 3
        };
        assert_eq!((host[i], got[i]), (want, want), "element {i}");
    }
    // Async copies of the driver API: device to host, device to device.
    let other = DeviceBuffer::new(bytes);
    ok(hipMemcpyDtoDAsync(other.ptr, d.ptr, bytes, s));
    let mut back = vec![0i32; n];
    ok(unsafe { hipMemcpyDtoHAsync(back.as_mut_ptr().cast(), other.ptr, bytes, s) });
    ok(hipStreamSynchronize(s));
    assert_eq!(back, got);

    // Registration's misuse.
    expect_code(
        hipHostRegister(hp, bytes, 0),
        HipError::HostMemoryAlreadyRegistered,
    );
    expect_code(
        hipHostRegister(unsafe { hp.cast::<u8>().add(100) }.cast(), 8, 0),
        HipError::HostMemoryAlreadyRegistered,
    );
    expect_code(
        hipHostUnregister(unsafe { hp.cast::<u8>().add(4) }.cast()),
        HipError::HostMemoryNotRegistered,
    );
    expect_code(unsafe { hipHostFree(hp) }, HipError::InvalidValue);
    ok(hipHostUnregister(hp));
    expect_code(hipHostUnregister(hp), HipError::HostMemoryNotRegistered);
    expect_code(hipHostUnregister(null_mut()), HipError::InvalidValue);
    expect_code(
        unsafe { hipHostGetDevicePointer(&mut dp, hp, 0) },
        HipError::InvalidValue,
    );
    assert_eq!(attributes(hp).r#type, UNREGISTERED);
    for bad in [0xF0, 0xFFF2, 0xFFFF_FFFF] {
        expect_code(hipHostRegister(hp, bytes, bad), HipError::InvalidValue);
    }
    expect_code(hipHostRegister(null_mut(), 8, 0), HipError::InvalidValue);
    expect_code(hipHostRegister(hp, 0, 0), HipError::InvalidValue);
    // Far more than is mapped after it.
    expect_code(hipHostRegister(hp, 1 << 46, 0), HipError::InvalidValue);
    // Read-only registration, reported through the access flags.
    ok(hipHostRegister(hp, bytes, READ_ONLY));
    assert_eq!(attribute_ok(ATTR_ACCESS_FLAGS, hp, 4), 1);
    ok(unsafe { hipHostGetFlags(&mut flags, hp) });
    assert_eq!(flags, READ_ONLY);
    ok(hipHostUnregister(hp));
    ok(hipStreamDestroy(s));
}

#[test]
fn driver_allocation_spellings_and_host_malloc_flags() {
    let _alone = alone();
    let mut p: *mut c_void = null_mut();
    let mut pitch = 0usize;
    ok(unsafe { hipMemAllocPitch(&mut p, &mut pitch, 100, 3, 16) });
    assert!(pitch >= 100 && pitch.is_multiple_of(256));
    assert_eq!(attributes(p).r#type, DEVICE);
    ok(unsafe { hipFree(p) });
    for (w, h, e) in [(100, 3, 3), (0, 3, 4), (100, 0, 8)] {
        expect_code(
            unsafe { hipMemAllocPitch(&mut p, &mut pitch, w, h, e) },
            HipError::InvalidValue,
        );
    }
    ok(unsafe { hipMemAllocHost(&mut p, 64) });
    assert_eq!(attributes(p).r#type, HOST);
    ok(unsafe { hipHostFree(p) });
    ok(unsafe { hipHostAlloc(&mut p, 64, MAPPED) });
    let mut flags = 0;
    ok(unsafe { hipHostGetFlags(&mut flags, p) });
    // The flags asked for, and any the backend adds (CUDA's pinned memory is also portable).
    assert_eq!(flags & MAPPED, MAPPED, "{flags:#x}");
    ok(unsafe { hipHostFree(p) });
    ok(unsafe { hipHostMalloc(&mut p, 64, COHERENT | MAPPED) });
    ok(unsafe { hipHostFree(p) });
    expect_code(
        unsafe { hipHostMalloc(&mut p, 64, COHERENT | NON_COHERENT) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipHostMalloc(&mut p, 64, 0x100) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipMemAllocHost(null_mut(), 64) },
        HipError::InvalidValue,
    );
}

#[test]
fn peer_copies_check_their_devices() {
    let _alone = alone();
    let n = 1000usize;
    let data: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let src = DeviceBuffer::from_slice(&data);
    let dst = DeviceBuffer::new(n * 4);
    ok(hipMemcpyPeer(dst.ptr, 0, src.ptr, 0, n * 4));
    assert_eq!(dst.download::<u32>(n), data);
    ok(unsafe { hipMemset(dst.ptr, 0, n * 4) });
    let mut s = null_mut();
    ok(unsafe { hipStreamCreate(&mut s) });
    ok(hipMemcpyPeerAsync(
        dst.at(40) as *mut c_void,
        0,
        src.ptr,
        0,
        400,
        s,
    ));
    ok(hipStreamSynchronize(s));
    let got = dst.download::<u32>(n);
    assert_eq!(got[10..110], data[..100]);
    assert!(got[..10].iter().chain(&got[110..]).all(|&v| v == 0));
    let mut count = 0;
    ok(unsafe { hipGetDeviceCount(&mut count) });
    for (d, s_) in [(count, 0), (0, count), (-1, 0)] {
        expect_code(
            hipMemcpyPeer(dst.ptr, d, src.ptr, s_, 4),
            HipError::InvalidDevice,
        );
    }
    expect_code(
        hipMemcpyPeerAsync(dst.ptr, 0, src.ptr, count, 4, s),
        HipError::InvalidDevice,
    );
    expect_code(
        hipMemcpyPeer(dst.ptr, 0, src.ptr, 0, n * 4 + 1),
        HipError::InvalidValue,
    );
    expect_code(
        hipMemcpyPeer(null_mut(), 0, src.ptr, 0, 4),
        HipError::InvalidValue,
    );
    ok(hipStreamDestroy(s));
}

#[test]
fn managed_advice_checks_the_device_it_names() {
    let _alone = alone();
    let mut managed_memory = 0;
    ok(unsafe { hipDeviceGetAttribute(&mut managed_memory, 24, 0) });
    if managed_memory == 0 {
        return;
    }
    let mut m: *mut c_void = null_mut();
    ok(unsafe { hipMallocManaged(&mut m, 4096, 1) });
    let mut count = 0;
    ok(unsafe { hipGetDeviceCount(&mut count) });
    // Read-mostly advice names no device (its device argument is ignored); every other advice
    // checks it.
    ok(unsafe { hipMemAdvise(m, 4096, 1, -2) });
    let mut read_mostly = -1i32;
    ok(unsafe { hipMemRangeGetAttribute((&mut read_mostly as *mut i32).cast(), 4, 1, m, 4096) });
    assert_eq!(read_mostly, 1);
    // Unsetting it names none either.
    ok(unsafe { hipMemAdvise(m, 4096, 2, -2) });
    for advice in 3..=6 {
        for device in [-2, count] {
            expect_code(
                unsafe { hipMemAdvise(m, 4096, advice, device) },
                HipError::InvalidDevice,
            );
        }
    }
    // Memory that is not managed takes no advice.
    let d = DeviceBuffer::new(4096);
    expect_code(
        unsafe { hipMemAdvise(d.ptr, 4096, 1, 0) },
        HipError::InvalidValue,
    );
    ok(unsafe { hipFree(m) });
}
