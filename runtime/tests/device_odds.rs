//! A device's odds and ends on the real OpenCL device: every event flag and the timing rules,
//! stream memory operations (every comparison, 32 and 64 bits, device, pinned and managed
//! memory), user objects, the device's and kernels' settings, limits, identity and versions,
//! stream queries, host functions that block, inter-process calls OpenCL refuses, every error
//! code's name and string. Results are checked against host references; every misuse must
//! return HIP's code and leave the runtime working.

#![allow(clippy::manual_dangling_ptr)]

mod common;

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::*;
use hipmlir_device_image::KernelInfo;
use hipmlir_rt::*;

const KERNELS: &str = r#"
__kernel void mark(__global int* p, int n, int v) {
    size_t i = get_global_id(0);
    if (i < n) p[i] = v + (int)i;
}
/* Slow on purpose: many dependent steps per element. */
__kernel void spin(__global uint* p, int n, int rounds) {
    size_t i = get_global_id(0);
    if (i >= n) return;
    uint x = p[i];
    for (int r = 0; r < rounds; ++r) x = x * 1664525u + 1013904223u;
    p[i] = x;
}
"#;

struct K {
    mark: KernelInfo,
    spin: KernelInfo,
}

fn k() -> &'static K {
    static K: OnceLock<K> = OnceLock::new();
    K.get_or_init(|| {
        let spirv = compile_opencl_c(KERNELS, "odds");
        let k = K {
            mark: kernel(
                "mark",
                "mark",
                vec![
                    pointer("p", "int *"),
                    value("n", "int", 4),
                    value("v", "int", 4),
                ],
            ),
            spin: kernel(
                "spin",
                "spin",
                vec![
                    pointer("p", "uint *"),
                    value("n", "int", 4),
                    value("rounds", "int", 4),
                ],
            ),
        };
        register(&bundle(spirv, vec![k.mark.clone(), k.spin.clone()]));
        k
    })
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

fn new_stream(flags: u32) -> hipStream_t {
    let mut s = null_mut();
    ok(unsafe { hipStreamCreateWithFlags(&mut s, flags) });
    s
}

fn new_event(flags: u32) -> hipEvent_t {
    let mut e = null_mut();
    ok(unsafe { hipEventCreateWithFlags(&mut e, flags) });
    e
}

/// Checks every element of `got` against `f(i)`, naming the first that differs.
#[track_caller]
fn check(got: &[i32], f: impl Fn(usize) -> i32, what: &str) {
    if let Some(i) = (0..got.len()).find(|&i| got[i] != f(i)) {
        panic!("{what}: element {i} is {}, expected {}", got[i], f(i));
    }
}

const INTERPROCESS: u32 = 4;
const DISABLE_TIMING: u32 = 2;
const DISABLE_SYSTEM_FENCE: u32 = 0x2000_0000;
const RELEASE_TO_DEVICE: u32 = 0x4000_0000;
const RELEASE_TO_SYSTEM: u32 = 0x8000_0000;

static GATE_OPEN: AtomicBool = AtomicBool::new(false);

unsafe extern "C" fn wait_for_gate(_: *mut c_void) {
    let start = Instant::now();
    while !GATE_OPEN.load(Ordering::SeqCst) && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// One gate at a time (tests run on threads of one process).
fn gate_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

#[test]
fn every_event_flag_and_the_timing_rules() {
    let k = k();
    // Every valid combination records, synchronizes and completes.
    for flags in [
        0,
        1,
        DISABLE_TIMING,
        1 | DISABLE_TIMING,
        DISABLE_TIMING | INTERPROCESS,
        DISABLE_SYSTEM_FENCE,
        RELEASE_TO_DEVICE,
        RELEASE_TO_SYSTEM,
        1 | DISABLE_TIMING | RELEASE_TO_DEVICE | DISABLE_SYSTEM_FENCE,
    ] {
        let e = new_event(flags);
        ok(hipEventRecord(e, null_mut()));
        ok(hipEventSynchronize(e));
        ok(hipEventQuery(e));
        ok(hipEventDestroy(e));
    }
    // A shared event keeps no timestamps; the release scopes exclude each other; unknown bits.
    let mut out = null_mut();
    for bad in [
        INTERPROCESS,
        8,
        0x0800_0000,
        RELEASE_TO_DEVICE | RELEASE_TO_SYSTEM,
        RELEASE_TO_DEVICE | RELEASE_TO_SYSTEM | 1 | DISABLE_TIMING | INTERPROCESS,
    ] {
        expect_code(
            unsafe { hipEventCreateWithFlags(&mut out, bad) },
            HipError::InvalidValue,
        );
    }
    expect_code(
        unsafe { hipEventCreateWithFlags(null_mut(), 0) },
        HipError::InvalidValue,
    );
    // Timing: the device's time between two records lies within the host's around them.
    let n = 1 << 14;
    let buf = DeviceBuffer::new(n * 4);
    let (start, stop) = (new_event(0), new_event(0));
    let host_start = Instant::now();
    ok(hipEventRecord(start, null_mut()));
    launch_on(&k.spin, buf.ptr, n as i32, 20_000, null_mut());
    ok(hipEventRecord(stop, null_mut()));
    ok(hipEventSynchronize(stop));
    let host_ms = host_start.elapsed().as_secs_f32() * 1000.0;
    let mut ms = -1.0f32;
    ok(unsafe { hipEventElapsedTime(&mut ms, start, stop) });
    assert!(
        ms > 0.0 && ms <= host_ms + 1.0,
        "device {ms} ms, host {host_ms} ms"
    );
    // Backwards: negative.
    ok(unsafe { hipEventElapsedTime(&mut ms, stop, start) });
    assert!(ms < 0.0, "{ms}");
    // No timestamps, null, unrecorded: hipErrorInvalidHandle; a null result: hipErrorInvalidValue.
    let untimed = new_event(DISABLE_TIMING);
    ok(hipEventRecord(untimed, null_mut()));
    ok(hipEventSynchronize(untimed));
    for (a, b) in [
        (untimed, stop),
        (start, untimed),
        (null_mut(), stop),
        (start, null_mut()),
    ] {
        expect_code(
            unsafe { hipEventElapsedTime(&mut ms, a, b) },
            HipError::InvalidHandle,
        );
    }
    let unrecorded = new_event(0);
    expect_code(
        unsafe { hipEventElapsedTime(&mut ms, start, unrecorded) },
        HipError::InvalidHandle,
    );
    expect_code(
        unsafe { hipEventElapsedTime(null_mut(), start, stop) },
        HipError::InvalidValue,
    );
    // Not complete yet: hipErrorNotReady.
    {
        let _gate = gate_lock();
        GATE_OPEN.store(false, Ordering::SeqCst);
        let s = new_stream(1);
        ok(hipEventRecord(start, s));
        ok(unsafe { hipLaunchHostFunc(s, Some(wait_for_gate), null_mut()) });
        ok(hipEventRecord(stop, s));
        expect_code(hipEventQuery(stop), HipError::NotReady);
        expect_code(
            unsafe { hipEventElapsedTime(&mut ms, start, stop) },
            HipError::NotReady,
        );
        GATE_OPEN.store(true, Ordering::SeqCst);
        ok(hipEventSynchronize(stop));
        ok(unsafe { hipEventElapsedTime(&mut ms, start, stop) });
        assert!(ms >= 0.0);
        ok(hipStreamDestroy(s));
    }
    // Inter-process events: created and used here; their handle is OpenCL's to refuse.
    let shared = new_event(DISABLE_TIMING | INTERPROCESS);
    ok(hipEventRecord(shared, null_mut()));
    ok(hipEventSynchronize(shared));
    let mut handle = HipIpcHandle { reserved: [0; 64] };
    expect_code(
        unsafe { hipIpcGetEventHandle(&mut handle, shared) },
        HipError::NotSupported,
    );
    expect_code(
        unsafe { hipIpcGetEventHandle(&mut handle, start) },
        HipError::InvalidConfiguration,
    );
    expect_code(
        unsafe { hipIpcGetEventHandle(null_mut(), shared) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipIpcOpenEventHandle(null_mut(), handle) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipIpcOpenEventHandle(&mut out, handle) },
        HipError::NotSupported,
    );
    for e in [start, stop, untimed, unrecorded, shared] {
        ok(hipEventDestroy(e));
    }
}

/// What the stream waits run against: memory of each kind the word can live in.
#[derive(Debug, Clone, Copy)]
enum WordIn {
    Device,
    Pinned,
    Managed,
}

fn allocate_words(kind: WordIn) -> *mut c_void {
    let mut p = null_mut();
    match kind {
        WordIn::Device => ok(unsafe { hipMalloc(&mut p, 64) }),
        WordIn::Pinned => ok(unsafe { hipHostMalloc(&mut p, 64, 0) }),
        WordIn::Managed => ok(unsafe { hipMallocManaged(&mut p, 64, 1) }),
    }
    ok(unsafe { hipMemset(p, 0, 64) });
    p
}

fn free_words(kind: WordIn, p: *mut c_void) {
    match kind {
        WordIn::Pinned => ok(unsafe { hipHostFree(p) }),
        _ => ok(unsafe { hipFree(p) }),
    }
}

/// Stores `value` in the word the way the test of each memory kind does: through another
/// stream (device memory), or from the host.
fn store(kind: WordIn, word: *mut c_void, value: u64, bits64: bool, writer: hipStream_t) {
    match kind {
        WordIn::Device => {
            if bits64 {
                ok(hipStreamWriteValue64(writer, word, value, 0));
            } else {
                ok(hipStreamWriteValue32(writer, word, value as u32, 0));
            }
            ok(hipStreamSynchronize(writer));
        }
        _ => unsafe {
            if bits64 {
                (word as *mut u64).write_volatile(value);
            } else {
                (word as *mut u32).write_volatile(value as u32);
            }
        },
    }
}

#[test]
fn stream_waits_hold_work_until_the_word_meets_the_comparison() {
    let k = k();
    const GTE: u32 = 0;
    const EQ: u32 = 1;
    const AND: u32 = 2;
    const NOR: u32 = 3;
    // (comparison, mask, value, a stored value that fails, one that passes)
    let cases32: [(u32, u32, u32, u32, u32); 8] = [
        (GTE, 0xF, 0x4, 0x3, 0x6),
        (EQ, 0x0000_FFFF, 0x1, 0x2, 0x7FFF_0001),
        (EQ, 0xFF, 0x11, 0x25, 0x11),
        (AND, 0xFF, 0xF4A, 0xF35, 0x02),
        (EQ, 0xFFFF_FFFF, 0x7FFF_0000, 0x7FFF_0001, 0x7FFF_0000),
        (GTE, 0xFFFF_FFFF, 0x7FFF_0001, 0x7FFF_0000, 0x8000_0000),
        (AND, 0xFFFF_FFFF, 0x70F0_F0F0, 0x0F0F_0F0F, 0x1000_0000),
        (NOR, 0xFFFF_FFFF, 0x7AAA_AAAA, 0x8555_5555, 0x0555_5555),
    ];
    let cases64: [(u32, u64, u64, u64, u64); 5] = [
        (
            GTE,
            0x0000_FFFF_FFFF_FFFF,
            0x1_0000_0000,
            0xFFFF_0000_0000_0000,
            0x2_0000_0000,
        ),
        (
            EQ,
            u64::MAX,
            0x7FFF_FFFF_FFFF_FFFF,
            0x7FFF_FFFF_FFFF_FFFE,
            0x7FFF_FFFF_FFFF_FFFF,
        ),
        (AND, 0xFF, 0xF4A, 0xF35, 0x02),
        (
            NOR,
            u64::MAX,
            0x4724_7247_4724_7247,
            !0x4724_7247_4724_7247,
            0x0800_0000_0000_0000,
        ),
        (
            GTE,
            u64::MAX,
            0x7FFF_FFFF_FFFF_0001,
            0x7FFF_FFFF_FFFF_0000,
            0x7FFF_FFFF_FFFF_0001,
        ),
    ];
    let n = 256usize;
    let out = DeviceBuffer::new(n * 4);
    let writer = new_stream(1);
    // Written in the held stream's order: the write returns at once, and lands after the wait.
    let flag = allocate_words(WordIn::Pinned) as *mut u32;
    for kind in [WordIn::Device, WordIn::Pinned, WordIn::Managed] {
        let word = allocate_words(kind);
        let all = cases32
            .iter()
            .map(|&(c, m, v, f, p)| {
                (
                    c,
                    u64::from(m),
                    u64::from(v),
                    u64::from(f),
                    u64::from(p),
                    false,
                )
            })
            .chain(cases64.iter().map(|&(c, m, v, f, p)| (c, m, v, f, p, true)));
        for (case, (comparison, mask, value, fail, pass, bits64)) in all.enumerate() {
            let what = format!("{kind:?} case {case}");
            store(kind, word, fail, bits64, writer);
            let s = new_stream(1);
            launch_on(&k.mark, out.ptr, n as i32, -1, s);
            if bits64 {
                ok(hipStreamWaitValue64(s, word, value, comparison, mask));
            } else {
                ok(hipStreamWaitValue32(
                    s,
                    word,
                    value as u32,
                    comparison,
                    mask as u32,
                ));
            }
            launch_on(&k.mark, out.ptr, n as i32, case as i32 * 1000, s);
            let before = unsafe { flag.read_volatile() };
            ok(hipStreamWriteValue32(s, flag.cast(), before + 1, 0));
            std::thread::sleep(Duration::from_millis(5));
            expect_code(hipStreamQuery(s), HipError::NotReady);
            assert_eq!(
                unsafe { flag.read_volatile() },
                before,
                "{what}: written too early"
            );
            // Still failing: still held.
            store(kind, word, fail, bits64, writer);
            std::thread::sleep(Duration::from_millis(5));
            expect_code(hipStreamQuery(s), HipError::NotReady);
            store(kind, word, pass, bits64, writer);
            ok(hipStreamSynchronize(s));
            assert_eq!(
                unsafe { flag.read_volatile() },
                before + 1,
                "{what}: not written"
            );
            check(
                &out.download::<i32>(n),
                |i| case as i32 * 1000 + i as i32,
                &what,
            );
            ok(hipStreamDestroy(s));
        }
        // A word already meeting the comparison holds nothing back.
        store(kind, word, 5, false, writer);
        ok(hipStreamWaitValue32(null_mut(), word, 5, EQ, u32::MAX));
        ok(hipStreamSynchronize(null_mut()));
        free_words(kind, word);
    }
    // Writes land in stream order, after the work before them, 32 and 64 bits.
    let words = DeviceBuffer::new(16);
    let s = new_stream(0);
    launch_on(&k.mark, words.ptr, 4, 100, s);
    ok(hipStreamWriteValue32(s, words.ptr, 0xDEAD_BEEF, 0));
    ok(hipStreamWriteValue64(
        s,
        (words.ptr as usize + 8) as *mut c_void,
        0x0123_4567_89AB_CDEF,
        0,
    ));
    ok(hipStreamSynchronize(s));
    let got: Vec<u32> = words.download(4);
    assert_eq!(got, [0xDEAD_BEEF, 101, 0x89AB_CDEF, 0x0123_4567]);
    // Misuse.
    let misaligned = (words.ptr as usize + 4) as *mut c_void;
    expect_code(
        hipStreamWriteValue32(s, null_mut(), 1, 0),
        HipError::InvalidValue,
    );
    expect_code(
        hipStreamWriteValue64(s, misaligned, 1, 0),
        HipError::InvalidValue,
    );
    expect_code(
        hipStreamWriteValue32(s, words.ptr, 1, 7),
        HipError::InvalidValue,
    );
    expect_code(
        hipStreamWaitValue32(s, null_mut(), 1, 0, !0),
        HipError::InvalidValue,
    );
    expect_code(
        hipStreamWaitValue64(s, misaligned, 1, 0, !0),
        HipError::InvalidValue,
    );
    expect_code(
        hipStreamWaitValue32(s, words.ptr, 1, 4, !0),
        HipError::InvalidValue,
    );
    let bogus = 0xdead_beef0usize as hipStream_t;
    expect_code(
        hipStreamWriteValue32(bogus, words.ptr, 1, 0),
        HipError::ContextIsDestroyed,
    );
    expect_code(
        hipStreamWaitValue32(bogus, words.ptr, 1, 0, !0),
        HipError::ContextIsDestroyed,
    );
    ok(hipStreamDestroy(s));
    ok(hipStreamDestroy(writer));
    free_words(WordIn::Pinned, flag.cast());
}

static DESTROYED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn destroy_counter(p: *mut c_void) {
    DESTROYED.fetch_add(1, Ordering::SeqCst);
    drop(unsafe { Box::from_raw(p.cast::<u64>()) });
}

#[test]
fn user_objects_run_their_destructor_once_at_the_last_release() {
    let before = DESTROYED.load(Ordering::SeqCst);
    let resource = Box::into_raw(Box::new(42u64)).cast::<c_void>();
    let mut object = null_mut();
    ok(unsafe { hipUserObjectCreate(&mut object, resource, Some(destroy_counter), 2, 1) });
    ok(hipUserObjectRetain(object, 3));
    ok(hipUserObjectRelease(object, 4));
    assert_eq!(DESTROYED.load(Ordering::SeqCst), before);
    ok(hipUserObjectRelease(object, 1));
    assert_eq!(DESTROYED.load(Ordering::SeqCst), before + 1);
    // Gone: its handle is refused, never a crash.
    expect_code(hipUserObjectRetain(object, 1), HipError::InvalidValue);
    expect_code(hipUserObjectRelease(object, 1), HipError::InvalidValue);
    // Releasing more than are held releases them all, once.
    let resource = Box::into_raw(Box::new(7u64)).cast::<c_void>();
    ok(unsafe { hipUserObjectCreate(&mut object, resource, Some(destroy_counter), 1, 1) });
    ok(hipUserObjectRelease(object, 100));
    assert_eq!(DESTROYED.load(Ordering::SeqCst), before + 2);
    // A null resource is allowed; the destructor gets it.
    let mut empty = null_mut();
    unsafe extern "C" fn ignore(_: *mut c_void) {}
    ok(unsafe { hipUserObjectCreate(&mut empty, null_mut(), Some(ignore), i32::MAX as u32, 1) });
    ok(hipUserObjectRelease(empty, i32::MAX as u32));
    // Misuse.
    let r = null_mut();
    for (out, destroy, count, flags) in [
        (
            null_mut(),
            Some(ignore as unsafe extern "C" fn(*mut c_void)),
            1,
            1,
        ),
        (&mut object as *mut _, None, 1, 1),
        (&mut object as *mut _, Some(ignore), 0, 1),
        (&mut object as *mut _, Some(ignore), i32::MAX as u32 + 1, 1),
        (&mut object as *mut _, Some(ignore), 1, 0),
        (&mut object as *mut _, Some(ignore), 1, 9),
    ] {
        expect_code(
            unsafe { hipUserObjectCreate(out, r, destroy, count, flags) },
            HipError::InvalidValue,
        );
    }
    ok(unsafe { hipUserObjectCreate(&mut object, null_mut(), Some(ignore), 1, 1) });
    expect_code(hipUserObjectRetain(null_mut(), 1), HipError::InvalidValue);
    expect_code(hipUserObjectRetain(object, 0), HipError::InvalidValue);
    expect_code(hipUserObjectRelease(null_mut(), 1), HipError::InvalidValue);
    expect_code(hipUserObjectRelease(object, 0), HipError::InvalidValue);
    ok(hipUserObjectRelease(object, 1));
}

#[test]
fn settings_limits_identity_and_versions() {
    k();
    // Cache and shared-memory configurations.
    for config in 0..4 {
        ok(hipDeviceSetCacheConfig(config));
        let mut got = -1;
        ok(unsafe { hipDeviceGetCacheConfig(&mut got) });
        assert_eq!(got, config);
    }
    for config in 0..3 {
        ok(hipDeviceSetSharedMemConfig(config));
        let mut got = -1;
        ok(unsafe { hipDeviceGetSharedMemConfig(&mut got) });
        assert_eq!(got, config);
    }
    for bad in [-1, 4] {
        expect_code(hipDeviceSetCacheConfig(bad), HipError::InvalidValue);
    }
    expect_code(hipDeviceSetSharedMemConfig(3), HipError::InvalidValue);
    expect_code(
        unsafe { hipDeviceGetCacheConfig(null_mut()) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipDeviceGetSharedMemConfig(null_mut()) },
        HipError::InvalidValue,
    );
    ok(hipDeviceSetCacheConfig(0));
    ok(hipDeviceSetSharedMemConfig(0));
    // Device flags: every valid combination is taken and its scheduling policy reads back (the
    // other flags are not reported, as in ROCm); overlapping policies are refused.
    let mut flags = 99;
    for schedule in [0, 1, 2, 4] {
        for extra in [0, 8, 0x10, 0x18] {
            ok(hipSetDeviceFlags(schedule | extra));
            ok(unsafe { hipGetDeviceFlags(&mut flags) });
            assert_eq!(flags, schedule);
        }
    }
    for bad in [3, 5, 6, 7, 0x20, 0xFFFF] {
        expect_code(hipSetDeviceFlags(bad), HipError::InvalidValue);
    }
    expect_code(
        unsafe { hipGetDeviceFlags(null_mut()) },
        HipError::InvalidValue,
    );
    ok(hipSetDeviceFlags(0));
    // Kernels' configurations, by host stub.
    let stub = 0x5151usize as *const c_void;
    let name = CString::new("mark").unwrap();
    unsafe { __hipmlirRegisterFunction(stub, name.as_ptr()) };
    ok(hipFuncSetCacheConfig(stub, 2));
    ok(hipFuncSetSharedMemConfig(stub, 1));
    expect_code(hipFuncSetCacheConfig(stub, 9), HipError::InvalidValue);
    expect_code(hipFuncSetSharedMemConfig(stub, -1), HipError::InvalidValue);
    expect_code(
        hipFuncSetCacheConfig(null(), 0),
        HipError::InvalidDeviceFunction,
    );
    expect_code(
        hipFuncSetSharedMemConfig(null(), 0),
        HipError::InvalidDeviceFunction,
    );
    // Limits: the stack size reads back, the heap's default, the printf buffer's size; an
    // unknown limit is hipErrorUnsupportedLimit.
    let mut v = 0usize;
    ok(unsafe { hipDeviceGetLimit(&mut v, 0) });
    let old = v;
    ok(hipDeviceSetLimit(0, old + 8));
    ok(unsafe { hipDeviceGetLimit(&mut v, 0) });
    assert_eq!(v, old + 8);
    ok(hipDeviceSetLimit(0, old));
    ok(unsafe { hipDeviceGetLimit(&mut v, 1) });
    assert!(v > 0, "printf buffer");
    ok(unsafe { hipDeviceGetLimit(&mut v, 2) });
    assert!(v > 0, "heap");
    for bad in [-1, 3, 100] {
        expect_code(hipDeviceSetLimit(bad, 1024), HipError::UnsupportedLimit);
        expect_code(
            unsafe { hipDeviceGetLimit(&mut v, bad) },
            HipError::UnsupportedLimit,
        );
    }
    expect_code(
        unsafe { hipDeviceGetLimit(null_mut(), 0) },
        HipError::InvalidValue,
    );
    // Identity: a UUID, the same every time; the device's clock rates.
    let mut a = HipUuid { bytes: [0; 16] };
    let mut b = HipUuid { bytes: [1; 16] };
    ok(unsafe { hipDeviceGetUuid(&mut a, 0) });
    ok(unsafe { hipDeviceGetUuid(&mut b, 0) });
    assert_eq!(a.bytes, b.bytes);
    assert!(a.bytes.iter().any(|&x| x != 0));
    expect_code(
        unsafe { hipDeviceGetUuid(null_mut(), 0) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipDeviceGetUuid(&mut a, 1) },
        HipError::InvalidDevice,
    );
    let mut prop: HipDeviceProp = unsafe { std::mem::zeroed() };
    ok(unsafe { hipGetDeviceProperties(&mut prop, 0) });
    let mut rate = 0;
    ok(unsafe { hipDeviceGetAttribute(&mut rate, 5, 0) });
    assert_eq!(rate, prop.clockRate);
    // Versions and initialization.
    ok(hipInit(0));
    expect_code(hipInit(1), HipError::InvalidValue);
    let mut version = 0;
    ok(unsafe { hipDriverGetVersion(&mut version) });
    assert!(version > 0);
    ok(unsafe { hipRuntimeGetVersion(&mut version) });
    assert_eq!(version, HIP_VERSION);
    expect_code(
        unsafe { hipDriverGetVersion(null_mut()) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipRuntimeGetVersion(null_mut()) },
        HipError::InvalidValue,
    );
    // OpenCL has no profiler switch.
    expect_code(hipProfilerStart(), HipError::NotSupported);
    expect_code(hipProfilerStop(), HipError::NotSupported);
}

#[test]
fn stream_queries_and_their_misuse() {
    k();
    let s = new_stream(1);
    let mut d = -1;
    for special in [null_mut(), 1 as hipStream_t, 2 as hipStream_t, s] {
        ok(unsafe { hipStreamGetDevice(special, &mut d) });
        assert_eq!(d, 0);
    }
    expect_code(
        unsafe { hipStreamGetDevice(s, null_mut()) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipStreamGetDevice(0xdead_beef0usize as hipStream_t, &mut d) },
        HipError::ContextIsDestroyed,
    );
    let mut flags = 0;
    ok(unsafe { hipStreamGetFlags(s, &mut flags) });
    assert_eq!(flags, 1);
    expect_code(
        unsafe { hipStreamGetFlags(s, null_mut()) },
        HipError::InvalidValue,
    );
    let mut priority = 7;
    ok(unsafe { hipStreamGetPriority(s, &mut priority) });
    assert_eq!(priority, 0);
    expect_code(
        unsafe { hipStreamGetPriority(s, null_mut()) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipStreamGetPriority(null_mut(), null_mut()) },
        HipError::InvalidValue,
    );
    ok(unsafe { hipDeviceGetStreamPriorityRange(null_mut(), null_mut()) });
    // Peers with one device: none; a device is not its own.
    let mut can = -1;
    ok(unsafe { hipDeviceCanAccessPeer(&mut can, 0, 0) });
    assert_eq!(can, 0);
    expect_code(
        unsafe { hipDeviceCanAccessPeer(&mut can, 0, 1) },
        HipError::InvalidDevice,
    );
    expect_code(hipDeviceEnablePeerAccess(0, 0), HipError::InvalidDevice);
    // Inter-process memory: OpenCL has none; bad arguments are still HIP's codes.
    let buf = DeviceBuffer::new(64);
    let mut handle = HipIpcHandle { reserved: [0; 64] };
    expect_code(
        unsafe { hipIpcGetMemHandle(&mut handle, buf.ptr) },
        HipError::NotSupported,
    );
    expect_code(
        unsafe { hipIpcGetMemHandle(null_mut(), buf.ptr) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipIpcGetMemHandle(&mut handle, null_mut()) },
        HipError::InvalidValue,
    );
    let mut mapped = null_mut();
    expect_code(
        unsafe { hipIpcOpenMemHandle(&mut mapped, handle, 1) },
        HipError::NotSupported,
    );
    expect_code(
        unsafe { hipIpcOpenMemHandle(null_mut(), handle, 1) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipIpcOpenMemHandle(&mut mapped, handle, 2) },
        HipError::InvalidValue,
    );
    expect_code(hipIpcCloseMemHandle(null_mut()), HipError::InvalidValue);
    ok(hipStreamDestroy(s));
}

#[test]
fn external_memory_and_semaphores_are_refused_with_hips_codes() {
    k();
    // An import with a valid description: no backend imports another API's objects.
    let mut description = [0u32; 40];
    description[0] = 1; // hipExternal*HandleTypeOpaqueFd
    let mut imported = null_mut();
    expect_code(
        unsafe { hipImportExternalMemory(&mut imported, description.as_ptr().cast()) },
        HipError::NotSupported,
    );
    expect_code(
        unsafe { hipImportExternalSemaphore(&mut imported, description.as_ptr().cast()) },
        HipError::NotSupported,
    );
    assert!(imported.is_null(), "a refused import wrote a handle");
    // HIP's argument checks come first.
    expect_code(
        unsafe { hipImportExternalMemory(null_mut(), description.as_ptr().cast()) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipImportExternalMemory(&mut imported, null()) },
        HipError::InvalidValue,
    );
    description[0] = 11; // no handle type of either kind
    expect_code(
        unsafe { hipImportExternalSemaphore(&mut imported, description.as_ptr().cast()) },
        HipError::InvalidValue,
    );
    // A signal or a wait: null arrays, no semaphores, a handle never imported.
    let params = [0u64; 18];
    let params = params.as_ptr().cast();
    let never_imported: *mut c_void = description.as_mut_ptr().cast();
    for operation in [
        hipSignalExternalSemaphoresAsync as unsafe extern "C" fn(_, _, _, _) -> _,
        hipWaitExternalSemaphoresAsync,
    ] {
        expect_code(
            unsafe { operation(null(), params, 1, null_mut()) },
            HipError::InvalidValue,
        );
        expect_code(
            unsafe { operation(&never_imported, null(), 1, null_mut()) },
            HipError::InvalidValue,
        );
        expect_code(
            unsafe { operation(&never_imported, params, 0, null_mut()) },
            HipError::InvalidValue,
        );
        expect_code(
            unsafe { operation(&never_imported, params, 1, null_mut()) },
            HipError::InvalidValue,
        );
    }
    expect_code(
        hipDestroyExternalSemaphore(null_mut()),
        HipError::InvalidValue,
    );
    expect_code(
        hipDestroyExternalSemaphore(never_imported),
        HipError::InvalidValue,
    );
    expect_code(hipDestroyExternalMemory(null_mut()), HipError::InvalidValue);
    let mut mapped = null_mut();
    expect_code(
        unsafe { hipExternalMemoryGetMappedBuffer(&mut mapped, never_imported, params) },
        HipError::InvalidValue,
    );
}

#[test]
fn a_blocking_host_function_never_blocks_its_caller() {
    k();
    let _gate = gate_lock();
    GATE_OPEN.store(false, Ordering::SeqCst);
    // On an idle stream the driver may run completion callbacks at once, on the calling thread:
    // the function must still run elsewhere.
    let s = new_stream(1);
    let start = Instant::now();
    ok(unsafe { hipLaunchHostFunc(s, Some(wait_for_gate), null_mut()) });
    ok(unsafe { hipStreamAddCallback(s, Some(callback), null_mut(), 0) });
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "hipLaunchHostFunc waited"
    );
    std::thread::sleep(Duration::from_millis(20));
    expect_code(hipStreamQuery(s), HipError::NotReady);
    assert_eq!(CALLBACKS.load(Ordering::SeqCst), 0);
    GATE_OPEN.store(true, Ordering::SeqCst);
    ok(hipStreamSynchronize(s));
    assert_eq!(CALLBACKS.load(Ordering::SeqCst), 1);
    expect_code(
        unsafe { hipStreamAddCallback(s, Some(callback), null_mut(), 1) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipLaunchHostFunc(s, None, null_mut()) },
        HipError::InvalidValue,
    );
    ok(hipStreamDestroy(s));
}

static CALLBACKS: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn callback(_: hipStream_t, status: hipError_t, _: *mut c_void) {
    assert_eq!(status, 0);
    CALLBACKS.fetch_add(1, Ordering::SeqCst);
}

/// Every `hipError_t` of HIP 6.2 with its enumerator name.
const HIP_ERRORS: &[(c_int, &str)] = &[
    (0, "hipSuccess"),
    (1, "hipErrorInvalidValue"),
    (2, "hipErrorOutOfMemory"),
    (3, "hipErrorNotInitialized"),
    (4, "hipErrorDeinitialized"),
    (5, "hipErrorProfilerDisabled"),
    (6, "hipErrorProfilerNotInitialized"),
    (7, "hipErrorProfilerAlreadyStarted"),
    (8, "hipErrorProfilerAlreadyStopped"),
    (9, "hipErrorInvalidConfiguration"),
    (12, "hipErrorInvalidPitchValue"),
    (13, "hipErrorInvalidSymbol"),
    (17, "hipErrorInvalidDevicePointer"),
    (21, "hipErrorInvalidMemcpyDirection"),
    (35, "hipErrorInsufficientDriver"),
    (52, "hipErrorMissingConfiguration"),
    (53, "hipErrorPriorLaunchFailure"),
    (98, "hipErrorInvalidDeviceFunction"),
    (100, "hipErrorNoDevice"),
    (101, "hipErrorInvalidDevice"),
    (200, "hipErrorInvalidImage"),
    (201, "hipErrorInvalidContext"),
    (202, "hipErrorContextAlreadyCurrent"),
    (205, "hipErrorMapFailed"),
    (206, "hipErrorUnmapFailed"),
    (207, "hipErrorArrayIsMapped"),
    (208, "hipErrorAlreadyMapped"),
    (209, "hipErrorNoBinaryForGpu"),
    (210, "hipErrorAlreadyAcquired"),
    (211, "hipErrorNotMapped"),
    (212, "hipErrorNotMappedAsArray"),
    (213, "hipErrorNotMappedAsPointer"),
    (214, "hipErrorECCNotCorrectable"),
    (215, "hipErrorUnsupportedLimit"),
    (216, "hipErrorContextAlreadyInUse"),
    (217, "hipErrorPeerAccessUnsupported"),
    (218, "hipErrorInvalidKernelFile"),
    (219, "hipErrorInvalidGraphicsContext"),
    (300, "hipErrorInvalidSource"),
    (301, "hipErrorFileNotFound"),
    (302, "hipErrorSharedObjectSymbolNotFound"),
    (303, "hipErrorSharedObjectInitFailed"),
    (304, "hipErrorOperatingSystem"),
    (400, "hipErrorInvalidHandle"),
    (401, "hipErrorIllegalState"),
    (500, "hipErrorNotFound"),
    (600, "hipErrorNotReady"),
    (700, "hipErrorIllegalAddress"),
    (701, "hipErrorLaunchOutOfResources"),
    (702, "hipErrorLaunchTimeOut"),
    (704, "hipErrorPeerAccessAlreadyEnabled"),
    (705, "hipErrorPeerAccessNotEnabled"),
    (708, "hipErrorSetOnActiveProcess"),
    (709, "hipErrorContextIsDestroyed"),
    (710, "hipErrorAssert"),
    (712, "hipErrorHostMemoryAlreadyRegistered"),
    (713, "hipErrorHostMemoryNotRegistered"),
    (719, "hipErrorLaunchFailure"),
    (720, "hipErrorCooperativeLaunchTooLarge"),
    (801, "hipErrorNotSupported"),
    (900, "hipErrorStreamCaptureUnsupported"),
    (901, "hipErrorStreamCaptureInvalidated"),
    (902, "hipErrorStreamCaptureMerge"),
    (903, "hipErrorStreamCaptureUnmatched"),
    (904, "hipErrorStreamCaptureUnjoined"),
    (905, "hipErrorStreamCaptureIsolation"),
    (906, "hipErrorStreamCaptureImplicit"),
    (907, "hipErrorCapturedEvent"),
    (908, "hipErrorStreamCaptureWrongThread"),
    (910, "hipErrorGraphExecUpdateFailure"),
    (911, "hipErrorInvalidChannelDescriptor"),
    (912, "hipErrorInvalidTexture"),
    (999, "hipErrorUnknown"),
    (1052, "hipErrorRuntimeMemory"),
    (1053, "hipErrorRuntimeOther"),
    (1054, "hipErrorTbd"),
];

fn text(p: *const c_char) -> String {
    assert!(!p.is_null());
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

#[test]
fn every_error_code_has_its_name_and_string() {
    let unknown = text(hipGetErrorString(999));
    let mut seen = std::collections::HashSet::new();
    for &(code, name) in HIP_ERRORS {
        assert_eq!(text(hipGetErrorName(code)), name);
        let description = text(hipGetErrorString(code));
        assert!(!description.is_empty(), "{name}");
        if code != 999 && code != 1054 {
            assert_ne!(description, unknown, "{name} has a description of its own");
            assert!(
                seen.insert(description.clone()) || code == 300,
                "{name}: {description}"
            );
        }
        let mut p: *const c_char = null();
        ok(unsafe { hipDrvGetErrorName(code, &mut p) });
        assert_eq!(text(p), name);
        ok(unsafe { hipDrvGetErrorString(code, &mut p) });
        assert_eq!(text(p), description);
    }
    // Values HIP does not define: the unknown error's name and string; the driver forms say
    // hipErrorInvalidValue.
    for code in [-1, 10, 11, 1055, 123_456] {
        assert_eq!(text(hipGetErrorName(code)), "hipErrorUnknown");
        assert_eq!(text(hipGetErrorString(code)), unknown);
        let mut p: *const c_char = null();
        expect_code(
            unsafe { hipDrvGetErrorName(code, &mut p) },
            HipError::InvalidValue,
        );
        assert_eq!(text(p), "hipErrorUnknown");
        expect_code(
            unsafe { hipDrvGetErrorString(code, &mut p) },
            HipError::InvalidValue,
        );
        assert_eq!(text(p), unknown);
    }
    expect_code(
        unsafe { hipDrvGetErrorName(0, null_mut()) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipDrvGetErrorString(0, null_mut()) },
        HipError::InvalidValue,
    );
    // hipExtGetLastError takes the last error as hipGetLastError does.
    expect_code_keep(hipInit(3));
    assert_eq!(hipExtGetLastError(), HipError::InvalidValue.code());
    assert_eq!(hipExtGetLastError(), 0);
}

/// A failing call whose last error the caller reads itself.
fn expect_code_keep(code: hipError_t) {
    assert_eq!(code, HipError::InvalidValue.code());
}

#[test]
fn launch_configurations_names_and_compute_unit_masks() {
    let k = k();
    // The configuration stack: pushed, popped, and launched from by host stub.
    let (g, b) = (dim3(3, 2, 1), dim3(64, 1, 1));
    ok(__hipPushCallConfiguration(g, b, 128, 2 as hipStream_t));
    let (mut g2, mut b2, mut shared, mut s2) = (dim3(0, 0, 0), dim3(0, 0, 0), 0usize, null_mut());
    ok(unsafe { __hipPopCallConfiguration(&mut g2, &mut b2, &mut shared, &mut s2) });
    assert_eq!((g2, b2, shared, s2 as usize), (g, b, 128, 2));
    expect_code(
        unsafe { __hipPopCallConfiguration(&mut g2, &mut b2, &mut shared, &mut s2) },
        HipError::MissingConfiguration,
    );
    let stub = 0x7373usize as *const c_void;
    let name = CString::new("mark").unwrap();
    unsafe { __hipmlirRegisterFunction(stub, name.as_ptr()) };
    let n = 300i32;
    let out = DeviceBuffer::new(n as usize * 4);
    ok(hipConfigureCall(
        dim3(5, 1, 1),
        dim3(64, 1, 1),
        0,
        null_mut(),
    ));
    let (p, v) = (out.ptr, 40i32);
    ok(unsafe { hipSetupArgument((&p as *const *mut c_void).cast(), 8, 0) });
    ok(unsafe { hipSetupArgument((&v as *const i32).cast(), 4, 12) });
    ok(unsafe { hipSetupArgument((&n as *const i32).cast(), 4, 8) });
    ok(hipLaunchByPtr(stub));
    check(
        &out.download::<i32>(n as usize),
        |i| 40 + i as i32,
        "hipLaunchByPtr",
    );
    expect_code(hipLaunchByPtr(stub), HipError::MissingConfiguration);
    expect_code(
        unsafe { hipSetupArgument((&n as *const i32).cast(), 4, 0) },
        HipError::MissingConfiguration,
    );
    ok(hipConfigureCall(
        dim3(1, 1, 1),
        dim3(1, 1, 1),
        0,
        null_mut(),
    ));
    expect_code(
        unsafe { hipSetupArgument((&n as *const i32).cast(), 4, usize::MAX) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipSetupArgument(null(), 4, 0) },
        HipError::InvalidValue,
    );
    expect_code(hipLaunchByPtr(null()), HipError::InvalidDeviceFunction);
    // Names of kernels, by host stub and by module function; a stream's device.
    let by_stub = hipKernelNameRefByPtr(stub, null_mut());
    assert_eq!(text(by_stub), "mark");
    assert!(hipKernelNameRefByPtr(0x9999usize as *const c_void, null_mut()).is_null());
    let image = bundle(
        compile_opencl_c(KERNELS, "odds-module"),
        vec![k.mark.clone()],
    );
    let mut module = null_mut();
    ok(unsafe { hipModuleLoadData(&mut module, image.as_ptr().cast()) });
    let mut function = null_mut();
    ok(unsafe { hipModuleGetFunction(&mut function, module, name.as_ptr()) });
    assert_eq!(text(hipKernelNameRef(function)), "mark");
    assert!(hipKernelNameRef(null()).is_null());
    ok(hipModuleUnload(module));
    assert_eq!(hipGetStreamDeviceId(null_mut()), 0);
    assert_eq!(hipGetStreamDeviceId(0xdead_beef0usize as hipStream_t), -1);
    // Masks of compute units: every unit, the only mask a stream can have here.
    let mut prop: HipDeviceProp = unsafe { std::mem::zeroed() };
    ok(unsafe { hipGetDeviceProperties(&mut prop, 0) });
    let units = prop.multiProcessorCount as usize;
    let words = units.div_ceil(32) + 1;
    let mut mask = vec![0u32; words];
    ok(unsafe { hipExtStreamGetCUMask(null_mut(), words as u32, mask.as_mut_ptr()) });
    let set: u32 = mask.iter().map(|w| w.count_ones()).sum();
    assert_eq!(set as usize, units);
    expect_code(
        unsafe { hipExtStreamGetCUMask(null_mut(), 0, mask.as_mut_ptr()) },
        HipError::InvalidValue,
    );
    let mut s = null_mut();
    ok(unsafe { hipExtStreamCreateWithCUMask(&mut s, words as u32, mask.as_ptr()) });
    launch_on(&k.mark, out.ptr, n, 7, s);
    ok(hipStreamSynchronize(s));
    check(
        &out.download::<i32>(n as usize),
        |i| 7 + i as i32,
        "a stream of every unit",
    );
    ok(hipStreamDestroy(s));
    mask[0] &= !1;
    expect_code(
        unsafe { hipExtStreamCreateWithCUMask(&mut s, words as u32, mask.as_ptr()) },
        HipError::NotSupported,
    );
    expect_code(
        unsafe { hipExtStreamCreateWithCUMask(null_mut(), 1, mask.as_ptr()) },
        HipError::InvalidValue,
    );
    let (mut link, mut hops) = (0u32, 0u32);
    expect_code(
        hipExtGetLinkTypeAndHopCount(0, 0, &mut link, &mut hops),
        HipError::NotSupported,
    );
    // HIP 6's names of the property calls.
    let mut r0600: HipDeviceProp = unsafe { std::mem::zeroed() };
    ok(unsafe { hipGetDevicePropertiesR0600(&mut r0600, 0) });
    assert_eq!(r0600.name, prop.name);
    let mut chosen = -1;
    ok(unsafe { hipChooseDeviceR0600(&mut chosen, &prop) });
    assert_eq!(chosen, 0);
    // Valid devices: one here.
    let mut list = [0, 0];
    ok(unsafe { hipSetValidDevices(list.as_mut_ptr(), 1) });
    expect_code(
        unsafe { hipSetValidDevices(list.as_mut_ptr(), 2) },
        HipError::InvalidValue,
    );
    list[0] = 1;
    expect_code(
        unsafe { hipSetValidDevices(list.as_mut_ptr(), 1) },
        HipError::InvalidDevice,
    );
    expect_code(
        unsafe { hipSetValidDevices(null_mut(), 1) },
        HipError::InvalidValue,
    );
    expect_code(
        unsafe { hipSetValidDevices(list.as_mut_ptr(), -1) },
        HipError::InvalidValue,
    );
    ok(unsafe { hipSetValidDevices(null_mut(), 0) });
}
