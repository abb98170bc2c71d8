//! Several devices on the real OpenCL device: `HIPMLIR_DEVICE=0,0` opens it twice, a context
//! each, so the process sees two HIP devices whose memory is apart (as two GPUs' is). Per-thread
//! devices from several host threads, memory of one device copied through another's streams
//! (`hipMemcpy`, `hipMemcpyPeer[Async]`), events of one device waited for by another's stream,
//! events and streams remembering their device, peer-access answers, and `hipDeviceReset` of one
//! device leaving the other's objects alone. Every result is checked element by element.

#![allow(clippy::manual_dangling_ptr)]

mod common;

use std::ffi::{c_int, c_void, CString};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use common::*;
use hipmlir_device_image::KernelInfo;
use hipmlir_rt::*;

const KERNELS: &str = r#"
__kernel void fill(__global int* p, int n, int base) {
    size_t i = get_global_id(0);
    if (i < n) p[i] = base + (int)i;
}
__kernel void add(__global int* p, int n, int v) {
    size_t i = get_global_id(0);
    if (i < n) p[i] += v;
}
"#;

struct K {
    fill: KernelInfo,
    add: KernelInfo,
}

/// Two devices (the one device, listed twice), the kernels registered; once per process.
fn k() -> &'static K {
    static K: OnceLock<K> = OnceLock::new();
    K.get_or_init(|| {
        std::env::set_var("HIPMLIR_DEVICE", "0,0");
        let spirv = compile_opencl_c(KERNELS, "devices");
        let args = || {
            vec![
                pointer("p", "int *"),
                value("n", "int", 4),
                value("v", "int", 4),
            ]
        };
        let k = K {
            fill: kernel("fill", "fill", args()),
            add: kernel("add", "add", args()),
        };
        register(&bundle(spirv, vec![k.fill.clone(), k.add.clone()]));
        let mut count = 0;
        ok(unsafe { hipGetDeviceCount(&mut count) });
        assert_eq!(count, 2, "HIPMLIR_DEVICE=0,0 shows the device twice");
        k
    })
}

/// One test at a time: a device reset must not reach another test's objects.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn launch_on(kernel: &KernelInfo, p: *mut c_void, n: i32, v: i32, stream: hipStream_t) {
    let args = ArgBlock::new(kernel).set(0, p).set(1, n).set(2, v);
    let name = CString::new(kernel.name.as_str()).unwrap();
    ok(unsafe {
        hipLaunchKernelByName(
            name.as_ptr(),
            dim3((n as u32).div_ceil(64), 1, 1),
            dim3(64, 1, 1),
            0,
            stream,
            args.bytes.as_ptr().cast(),
            args.bytes.len(),
        )
    });
}

fn current() -> c_int {
    let mut d = -1;
    ok(unsafe { hipGetDevice(&mut d) });
    d
}

fn stream_device(s: hipStream_t) -> c_int {
    let mut d = -1;
    ok(unsafe { hipStreamGetDevice(s, &mut d) });
    d
}

fn pointer_device(p: *const c_void) -> c_int {
    let mut a = PointerAttributes::unregistered();
    ok(unsafe { hipPointerGetAttributes(&mut a, p) });
    assert_eq!(a.r#type, 2, "device memory");
    a.device
}

fn copy_out(p: *const c_void, n: usize) -> Vec<i32> {
    let mut out = vec![0i32; n];
    ok(unsafe {
        hipMemcpy(
            out.as_mut_ptr().cast(),
            p,
            n * 4,
            MemcpyKind::DeviceToHost as i32,
        )
    });
    out
}

/// Checks every element of `got` against `f(i)`, naming the first that differs.
#[track_caller]
fn check(got: &[i32], f: impl Fn(usize) -> i32, what: &str) {
    if let Some(i) = (0..got.len()).find(|&i| got[i] != f(i)) {
        panic!("{what}: element {i} is {}, expected {}", got[i], f(i));
    }
}

#[test]
fn each_thread_works_on_its_own_device() {
    let _serial = serial();
    let k = k();
    let done = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for t in 0..8 {
            let done = &done;
            scope.spawn(move || {
                let device = (t % 2) as c_int;
                // A new thread starts on device 0.
                assert_eq!(current(), 0);
                ok(hipSetDevice(device));
                assert_eq!(current(), device);
                let n = 1000 + t * 37;
                let buf = DeviceBuffer::new(n * 4);
                assert_eq!(pointer_device(buf.ptr), device);
                let mut s = null_mut();
                ok(unsafe { hipStreamCreate(&mut s) });
                assert_eq!(stream_device(s), device);
                assert_eq!(stream_device(null_mut()), device);
                assert_eq!(stream_device(hipmlir_stream_per_thread()), device);
                for round in 0..20 {
                    launch_on(&k.fill, buf.ptr, n as i32, (t * 100 + round) as i32, s);
                    launch_on(&k.add, buf.ptr, n as i32, 3, s);
                    ok(hipStreamSynchronize(s));
                    let got = copy_out(buf.ptr, n);
                    check(
                        &got,
                        |i| (t * 100 + round) as i32 + i as i32 + 3,
                        &format!("thread {t} round {round}"),
                    );
                }
                // The thread's device stays its own while others switch theirs.
                assert_eq!(current(), device);
                ok(hipStreamDestroy(s));
                done.fetch_add(1, Ordering::SeqCst);
            });
        }
    });
    assert_eq!(done.load(Ordering::SeqCst), 8);
    // hipSetValidDevices: threads that choose no device start on the first listed.
    ok(hipSetDevice(0));
    let mut order = [1, 0];
    ok(unsafe { hipSetValidDevices(order.as_mut_ptr(), 2) });
    std::thread::spawn(|| {
        assert_eq!(current(), 1);
        let buf = DeviceBuffer::new(64);
        assert_eq!(pointer_device(buf.ptr), 1);
    })
    .join()
    .unwrap();
    // A thread that chose keeps its choice.
    assert_eq!(current(), 0);
    ok(unsafe { hipSetValidDevices(null_mut(), 0) });
    std::thread::spawn(|| assert_eq!(current(), 0))
        .join()
        .unwrap();
}

/// `hipStreamPerThread`.
fn hipmlir_stream_per_thread() -> hipStream_t {
    2 as hipStream_t
}

#[test]
fn memory_of_one_device_is_copied_through_another() {
    let _serial = serial();
    let k = k();
    let n = 4099usize;
    ok(hipSetDevice(1));
    let on1 = DeviceBuffer::new(n * 4);
    launch_on(&k.fill, on1.ptr, n as i32, 500, null_mut());
    ok(hipDeviceSynchronize());
    ok(hipSetDevice(0));
    let on0 = DeviceBuffer::new(n * 4);
    // hipMemcpy from device 1's memory while device 0 is current (unified addressing).
    check(&copy_out(on1.ptr, n), |i| 500 + i as i32, "copy");
    // Device 1 to device 0, ordered after device 0's own kernel on the null stream.
    launch_on(&k.fill, on0.ptr, n as i32, -7, null_mut());
    let half = n / 2;
    ok(hipMemcpyPeer(on0.ptr, 0, on1.ptr, 1, half * 4));
    let got = copy_out(on0.ptr, n);
    check(
        &got,
        |i| {
            if i < half {
                500 + i as i32
            } else {
                -7 + i as i32
            }
        },
        "hipMemcpyPeer of half",
    );
    // Asynchronously on a stream of device 0: after a kernel there, before the next one.
    let mut s = null_mut();
    ok(unsafe { hipStreamCreate(&mut s) });
    launch_on(&k.fill, on0.ptr, n as i32, 9, s);
    ok(hipMemcpyPeerAsync(on1.ptr, 1, on0.ptr, 0, n * 4, s));
    launch_on(&k.add, on0.ptr, n as i32, 1000, s);
    ok(hipStreamSynchronize(s));
    check(&copy_out(on1.ptr, n), |i| 9 + i as i32, "copy");
    check(&copy_out(on0.ptr, n), |i| 1009 + i as i32, "copy");
    // Device-to-device on one device, through the other device's null stream.
    ok(hipSetDevice(1));
    let other = DeviceBuffer::new(n * 4);
    ok(unsafe { hipMemcpy(other.ptr, on1.ptr, n * 4, MemcpyKind::DeviceToDevice as i32) });
    ok(hipSetDevice(0));
    check(&copy_out(other.ptr, n), |i| 9 + i as i32, "copy");
    // A fill of device 1's memory through device 0's null stream, after its copy.
    ok(unsafe { hipMemsetD32(on1.ptr, 0x0101_0101, n / 4) });
    check(
        &copy_out(on1.ptr, n),
        |i| if i < n / 4 { 0x0101_0101 } else { 9 + i as i32 },
        "hipMemsetD32 of another device's memory",
    );
    // Misuse: a pointer that is not the named device's memory, devices out of range.
    expect_code(
        hipMemcpyPeer(on0.ptr, 1, on1.ptr, 1, 16),
        HipError::InvalidValue,
    );
    expect_code(
        hipMemcpyPeer(on0.ptr, 0, on1.ptr, 2, 16),
        HipError::InvalidDevice,
    );
    expect_code(
        hipMemcpyPeer(on0.ptr, -1, on1.ptr, 1, 16),
        HipError::InvalidDevice,
    );
    ok(hipMemcpyPeer(on0.ptr, 0, on1.ptr, 1, 0));
    ok(hipStreamDestroy(s));
    // Freed from the device that is not current, as HIP allows.
    drop(on1);
    drop(other);
}

static GATE_OPEN: AtomicBool = AtomicBool::new(false);
static AFTER_GATE: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn wait_for_gate(_: *mut c_void) {
    let start = Instant::now();
    while !GATE_OPEN.load(Ordering::SeqCst) && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

unsafe extern "C" fn note_gate_state(_: *mut c_void) {
    AFTER_GATE.store(
        if GATE_OPEN.load(Ordering::SeqCst) {
            1
        } else {
            2
        },
        Ordering::SeqCst,
    );
}

#[test]
fn a_stream_of_one_device_waits_for_an_event_of_another() {
    let _serial = serial();
    let k = k();
    let n = 2048usize;
    ok(hipSetDevice(0));
    let mut s0 = null_mut();
    ok(unsafe { hipStreamCreateWithFlags(&mut s0, 1) });
    let mut e0 = null_mut();
    ok(unsafe { hipEventCreate(&mut e0) });
    let on0 = DeviceBuffer::new(n * 4);
    ok(hipSetDevice(1));
    let mut s1 = null_mut();
    ok(unsafe { hipStreamCreateWithFlags(&mut s1, 1) });
    let mut e1 = null_mut();
    ok(unsafe { hipEventCreate(&mut e1) });
    let on1 = DeviceBuffer::new(n * 4);
    // Device 0: held at a gate, then a kernel, then the event.
    ok(unsafe { hipLaunchHostFunc(s0, Some(wait_for_gate), null_mut()) });
    launch_on(&k.fill, on0.ptr, n as i32, 40, s0);
    ok(hipEventRecord(e0, s0));
    // Device 1's stream waits for it, then copies device 0's result and notes the gate.
    ok(hipStreamWaitEvent(s1, e0, 0));
    ok(unsafe {
        hipMemcpyAsync(
            on1.ptr,
            on0.ptr,
            n * 4,
            MemcpyKind::DeviceToDevice as i32,
            s1,
        )
    });
    ok(unsafe { hipLaunchHostFunc(s1, Some(note_gate_state), null_mut()) });
    launch_on(&k.add, on1.ptr, n as i32, 2, s1);
    ok(hipEventRecord(e1, s1));
    std::thread::sleep(Duration::from_millis(50));
    expect_code(hipStreamQuery(s1), HipError::NotReady);
    expect_code(hipEventQuery(e0), HipError::NotReady);
    assert_eq!(AFTER_GATE.load(Ordering::SeqCst), 0);
    GATE_OPEN.store(true, Ordering::SeqCst);
    ok(hipEventSynchronize(e1));
    assert_eq!(
        AFTER_GATE.load(Ordering::SeqCst),
        1,
        "device 1 ran after the gate"
    );
    check(&copy_out(on1.ptr, n), |i| 42 + i as i32, "copy");
    // An event records only on its own device's streams; two devices' events have no common
    // clock.
    expect_code(hipEventRecord(e0, s1), HipError::InvalidHandle);
    expect_code(hipEventRecord(e0, null_mut()), HipError::InvalidHandle);
    let mut ms = 0.0f32;
    expect_code(
        unsafe { hipEventElapsedTime(&mut ms, e0, e1) },
        HipError::InvalidHandle,
    );
    ok(hipSetDevice(0));
    ok(hipEventRecord(e0, null_mut()));
    ok(hipEventSynchronize(e0));
    for e in [e0, e1] {
        ok(hipEventDestroy(e));
    }
    for s in [s0, s1] {
        ok(hipStreamDestroy(s));
    }
}

#[test]
fn peer_access_is_answered_per_pair() {
    let _serial = serial();
    k();
    let mut can = -1;
    for (d, p) in [(0, 1), (1, 0), (0, 0), (1, 1)] {
        ok(unsafe { hipDeviceCanAccessPeer(&mut can, d, p) });
        // Two OpenCL contexts never reach each other's memory; a device is not its own peer.
        assert_eq!(can, 0, "{d} -> {p}");
    }
    expect_code(
        unsafe { hipDeviceCanAccessPeer(null_mut(), 0, 1) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipDeviceCanAccessPeer(&mut can, -1, 1) },
        HipError::InvalidDevice,
    );
    expect_code(
        unsafe { hipDeviceCanAccessPeer(&mut can, 0, 2) },
        HipError::InvalidDevice,
    );
    let mut v = -1;
    for attribute in 0..4 {
        ok(unsafe { hipDeviceGetP2PAttribute(&mut v, attribute, 0, 1) });
        assert_eq!(v, 0, "attribute {attribute}");
    }
    expect_code(
        unsafe { hipDeviceGetP2PAttribute(null_mut(), 1, 0, 1) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipDeviceGetP2PAttribute(&mut v, 10, 0, 1) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipDeviceGetP2PAttribute(&mut v, 1, 0, 0) },
        HipError::InvalidDevice,
    );
    expect_code(
        unsafe { hipDeviceGetP2PAttribute(&mut v, 1, -1, 1) },
        HipError::InvalidDevice,
    );
    expect_code(
        unsafe { hipDeviceGetP2PAttribute(&mut v, 1, 0, 2) },
        HipError::InvalidDevice,
    );
    // No pair can be enabled: HIP's answer for a pair without access.
    expect_code(hipDeviceEnablePeerAccess(1, 0), HipError::InvalidDevice);
    expect_code(hipDeviceEnablePeerAccess(1, 1), HipError::InvalidValue);
    expect_code(hipDeviceEnablePeerAccess(-1, 0), HipError::InvalidDevice);
    expect_code(hipDeviceEnablePeerAccess(2, 0), HipError::InvalidDevice);
    expect_code(hipDeviceDisablePeerAccess(1), HipError::InvalidDevice);
    expect_code(hipDeviceDisablePeerAccess(2), HipError::InvalidDevice);
}

#[test]
fn settings_belong_to_each_device() {
    let _serial = serial();
    k();
    // Device flags, cache and shared-memory configurations, as each device was set.
    ok(hipSetDevice(0));
    ok(hipSetDeviceFlags(4 | 8));
    ok(hipDeviceSetCacheConfig(1));
    ok(hipSetDevice(1));
    ok(hipSetDeviceFlags(2));
    ok(hipDeviceSetCacheConfig(3));
    let mut flags = 0;
    ok(unsafe { hipGetDeviceFlags(&mut flags) });
    assert_eq!(flags, 2);
    let mut config = -1;
    ok(unsafe { hipDeviceGetCacheConfig(&mut config) });
    assert_eq!(config, 3);
    // Another thread on device 0 sees device 0's.
    std::thread::spawn(|| {
        ok(hipSetDevice(0));
        let mut flags = 0;
        ok(unsafe { hipGetDeviceFlags(&mut flags) });
        assert_eq!(flags, 4);
        let mut config = -1;
        ok(unsafe { hipDeviceGetCacheConfig(&mut config) });
        assert_eq!(config, 1);
    })
    .join()
    .unwrap();
    for d in [0, 1] {
        ok(hipSetDevice(d));
        ok(hipSetDeviceFlags(0));
        ok(hipDeviceSetCacheConfig(0));
    }
    ok(hipSetDevice(0));
}

#[test]
fn resetting_one_device_leaves_the_other_alone() {
    let _serial = serial();
    let k = k();
    let n = 512usize;
    // Device 0's objects, which must survive device 1's reset.
    ok(hipSetDevice(0));
    let keep = DeviceBuffer::new(n * 4);
    let mut s0 = null_mut();
    ok(unsafe { hipStreamCreate(&mut s0) });
    let mut e0 = null_mut();
    ok(unsafe { hipEventCreate(&mut e0) });
    launch_on(&k.fill, keep.ptr, n as i32, 77, s0);
    // Device 1's, which must go.
    ok(hipSetDevice(1));
    let mut gone = null_mut();
    ok(unsafe { hipMalloc(&mut gone, n * 4) });
    let mut s1 = null_mut();
    ok(unsafe { hipStreamCreate(&mut s1) });
    let mut e1 = null_mut();
    ok(unsafe { hipEventCreate(&mut e1) });
    launch_on(&k.fill, gone, n as i32, 1, s1);
    ok(hipDeviceReset());
    expect_code(hipStreamSynchronize(s1), HipError::ContextIsDestroyed);
    expect_code(hipEventSynchronize(e1), HipError::InvalidHandle);
    let mut a = PointerAttributes::unregistered();
    ok(unsafe { hipPointerGetAttributes(&mut a, gone) });
    assert_eq!(a.r#type, 0, "device 1's allocation was freed");
    // Device 1 works again, its kernels built anew.
    let again = DeviceBuffer::new(n * 4);
    launch_on(&k.fill, again.ptr, n as i32, 5, null_mut());
    check(&copy_out(again.ptr, n), |i| 5 + i as i32, "copy");
    // Device 0's stream, event and memory are intact.
    ok(hipSetDevice(0));
    ok(hipEventRecord(e0, s0));
    ok(hipStreamSynchronize(s0));
    ok(hipEventSynchronize(e0));
    check(&copy_out(keep.ptr, n), |i| 77 + i as i32, "copy");
    ok(hipEventDestroy(e0));
    ok(hipStreamDestroy(s0));
}
