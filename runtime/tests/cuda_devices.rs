//! Several devices and a device's odds and ends on NVIDIA GPUs (the CUDA backend), with the
//! vector-add fixture's PTX. Each case runs in a child process with `HIPMLIR_BACKEND=cuda`;
//! without the NVIDIA driver each says so and passes, and the pair cases need two GPUs:
//! * one GPU: every event flag, timing rules, stream writes and waits through the driver (and the
//!   comparisons it cannot make refused), the context's settings, UUID, limits, profiler switch;
//! * two GPUs: peer access as the driver answers it (enable twice, disable twice, a kernel on one
//!   GPU reading the other's memory), peer copies, an event of one GPU waited for by the other's
//!   stream, per-thread devices, a reset of one GPU leaving the other's objects alone;
//! * memory and an event shared with another process (`hipIpc*`): the child opens the parent's
//!   allocation and event, checks the parent's kernel result and writes back.
//!
//! Every result is compared with the host's, element by element.

#![allow(clippy::manual_dangling_ptr)]

mod common;

use std::ffi::{c_int, c_void, CString};
use std::process::Command;
use std::ptr::null_mut;

use common::cuda::*;
use common::*;
use hipmlir_rt::*;

/// Whether to run `name` here: in a child with the CUDA backend (the parent starts it), never
/// without the NVIDIA driver.
fn in_gpu_child(name: &str) -> bool {
    if !driver_present() {
        println!("skipped {name}: no NVIDIA driver (libcuda) on this machine");
        return false;
    }
    if !in_child() {
        println!("{}", run_child(name, Some("cuda")));
        return false;
    }
    register(&vector_add_bundle(&[("sm_70", PTX)]));
    true
}

fn device_count() -> c_int {
    let mut n = 0;
    ok(unsafe { hipGetDeviceCount(&mut n) });
    n
}

fn alloc(bytes: usize) -> *mut c_void {
    let mut p = null_mut();
    ok(unsafe { hipMalloc(&mut p, bytes) });
    p
}

fn upload(p: *mut c_void, data: &[f32]) {
    ok(unsafe { hipMemcpy(p, data.as_ptr().cast(), data.len() * 4, 1) });
}

fn download(p: *const c_void, n: usize) -> Vec<f32> {
    let mut out = vec![0f32; n];
    ok(unsafe { hipMemcpy(out.as_mut_ptr().cast(), p, n * 4, 2) });
    out
}

/// `c = a + b` on `stream` (the vector-add kernel).
fn vector_add(a: *mut c_void, b: *mut c_void, c: *mut c_void, n: usize, stream: hipStream_t) {
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
        .set(0, a)
        .set(1, b)
        .set(2, c)
        .set(3, n as i32);
    let name = CString::new("vector_add").unwrap();
    ok(unsafe {
        hipLaunchKernelByName(
            name.as_ptr(),
            dim3((n as u32).div_ceil(256), 1, 1),
            dim3(256, 1, 1),
            0,
            stream,
            args.bytes.as_ptr().cast(),
            args.bytes.len(),
        )
    });
}

fn inputs(n: usize, seed: f32) -> (Vec<f32>, Vec<f32>) {
    (
        (0..n).map(|i| (i as f32 * 0.001 + seed).sin()).collect(),
        (0..n).map(|i| 0.25 * i as f32 + seed).collect(),
    )
}

#[track_caller]
fn check_sum(got: &[f32], a: &[f32], b: &[f32], what: &str) {
    if let Some(i) = (0..got.len()).find(|&i| got[i] != a[i] + b[i]) {
        panic!(
            "{what}: element {i} is {}, expected {}",
            got[i],
            a[i] + b[i]
        );
    }
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

#[test]
fn gpu_events_stream_values_and_settings() {
    if !in_gpu_child("gpu_events_stream_values_and_settings") {
        return;
    }
    // Every valid event flag; the invalid combinations refused before the driver sees them.
    for flags in [0, 1, 2, 3, 2 | 4, 0x2000_0000, 0x4000_0000, 0x8000_0000] {
        let e = new_event(flags);
        ok(hipEventRecord(e, null_mut()));
        ok(hipEventSynchronize(e));
        ok(hipEventDestroy(e));
    }
    let mut out = null_mut();
    for bad in [4, 8, 0xC000_0000] {
        expect_code(
            unsafe { hipEventCreateWithFlags(&mut out, bad) },
            HipError::InvalidValue,
        );
    }
    // Timing, and none without timestamps.
    let n = 1 << 22;
    let (a, b) = inputs(n, 1.0);
    let (da, db, dc) = (alloc(n * 4), alloc(n * 4), alloc(n * 4));
    upload(da, &a);
    upload(db, &b);
    let (start, stop, untimed) = (new_event(0), new_event(0), new_event(2));
    ok(hipEventRecord(start, null_mut()));
    vector_add(da, db, dc, n, null_mut());
    ok(hipEventRecord(stop, null_mut()));
    ok(hipEventRecord(untimed, null_mut()));
    ok(hipEventSynchronize(untimed));
    let mut ms = -1.0f32;
    ok(unsafe { hipEventElapsedTime(&mut ms, start, stop) });
    assert!(ms > 0.0, "{ms}");
    expect_code(
        unsafe { hipEventElapsedTime(&mut ms, start, untimed) },
        HipError::InvalidHandle,
    );
    check_sum(&download(dc, n), &a, &b, "vector_add");
    // Stream writes through the driver, in order after the kernel.
    let words = alloc(16);
    let s = new_stream(1);
    vector_add(da, db, dc, n, s);
    ok(hipStreamWriteValue32(s, words, 0xDEAD_BEEF, 0));
    ok(hipStreamWriteValue64(
        s,
        (words as usize + 8) as *mut c_void,
        0x0123_4567_89AB_CDEF,
        0,
    ));
    ok(hipStreamSynchronize(s));
    let mut got = [0u32; 4];
    ok(unsafe { hipMemcpy(got.as_mut_ptr().cast(), words, 16, 2) });
    assert_eq!(got, [0xDEAD_BEEF, 0, 0x89AB_CDEF, 0x0123_4567]);
    // Stream waits on a word of pinned memory the host sets: equality, a common bit, a bit in
    // neither; the driver's greater-or-equal and masked waits are refused, not approximated.
    let mut word = null_mut();
    ok(unsafe { hipHostMalloc(&mut word, 8, 0) });
    let set = |v: u32| unsafe { (word as *mut u32).write_volatile(v) };
    for (comparison, value, fail, pass) in [
        (1u32, 7u32, 6u32, 7u32),
        (2, 0x0F00, 0x00F0, 0x0100),
        (3, 0x7AAA_AAAA, 0x8555_5555, 0x0555_5555),
    ] {
        set(fail);
        let s = new_stream(1);
        ok(hipStreamWaitValue32(s, word, value, comparison, u32::MAX));
        vector_add(da, db, dc, n, s);
        std::thread::sleep(std::time::Duration::from_millis(20));
        expect_code(hipStreamQuery(s), HipError::NotReady);
        set(pass);
        ok(hipStreamSynchronize(s));
        ok(hipStreamDestroy(s));
    }
    expect_code(
        hipStreamWaitValue32(s, word, 1, 0, u32::MAX),
        HipError::NotSupported,
    );
    expect_code(
        hipStreamWaitValue32(s, word, 1, 1, 0xFF),
        HipError::NotSupported,
    );
    ok(unsafe { hipHostFree(word) });
    ok(hipStreamDestroy(s));
    // The context's settings, as the driver keeps them.
    ok(hipDeviceSetCacheConfig(1));
    let mut config = -1;
    ok(unsafe { hipDeviceGetCacheConfig(&mut config) });
    assert_eq!(config, 1);
    ok(hipDeviceSetCacheConfig(0));
    ok(hipSetDeviceFlags(2 | 8));
    let mut flags = 0;
    ok(unsafe { hipGetDeviceFlags(&mut flags) });
    assert_eq!(flags & 7, 2, "flags {flags:#x}");
    expect_code(hipSetDeviceFlags(3), HipError::InvalidValue);
    let mut uuid = HipUuid { bytes: [0; 16] };
    ok(unsafe { hipDeviceGetUuid(&mut uuid, 0) });
    assert!(uuid.bytes.iter().any(|&b| b != 0));
    ok(hipDeviceSetLimit(0, 4096));
    let mut limit = 0usize;
    ok(unsafe { hipDeviceGetLimit(&mut limit, 0) });
    assert!(limit >= 4096, "{limit}");
    expect_code(hipDeviceSetLimit(7, 1), HipError::UnsupportedLimit);
    ok(hipProfilerStart());
    ok(hipProfilerStop());
    let mut d = -1;
    ok(unsafe { hipStreamGetDevice(null_mut(), &mut d) });
    assert_eq!(d, 0);
    for p in [da, db, dc, words] {
        ok(unsafe { hipFree(p) });
    }
    println!("gpu_events_stream_values_and_settings PASSED");
}

#[test]
fn gpu_pairs_of_devices() {
    if !in_gpu_child("gpu_pairs_of_devices") {
        return;
    }
    if device_count() < 2 {
        println!("skipped gpu_pairs_of_devices: one GPU");
        return;
    }
    let n = (1 << 20) + 5;
    let (a, b) = inputs(n, 2.0);
    ok(hipSetDevice(0));
    let (a0, b0, c0) = (alloc(n * 4), alloc(n * 4), alloc(n * 4));
    upload(a0, &a);
    upload(b0, &b);
    ok(hipSetDevice(1));
    let c1 = alloc(n * 4);
    // The driver's answer per pair, and the attributes agreeing with it.
    let mut can = -1;
    ok(unsafe { hipDeviceCanAccessPeer(&mut can, 0, 1) });
    let mut v = -1;
    ok(unsafe { hipDeviceGetP2PAttribute(&mut v, 1, 0, 1) });
    assert_eq!(v, can, "access supported");
    ok(unsafe { hipDeviceGetP2PAttribute(&mut v, 0, 0, 1) });
    expect_code(
        unsafe { hipDeviceGetP2PAttribute(&mut v, 1, 1, 1) },
        HipError::InvalidDevice,
    );
    println!("peer access 0 -> 1: {can}");
    if can == 1 {
        ok(hipSetDevice(1));
        ok(hipDeviceEnablePeerAccess(0, 0));
        expect_code(
            hipDeviceEnablePeerAccess(0, 0),
            HipError::PeerAccessAlreadyEnabled,
        );
        // A kernel of device 1 reads device 0's memory directly.
        vector_add(a0, b0, c1, n, null_mut());
        check_sum(&download(c1, n), &a, &b, "kernel on GPU 1 reading GPU 0");
        ok(hipDeviceDisablePeerAccess(0));
        expect_code(
            hipDeviceDisablePeerAccess(0),
            HipError::PeerAccessNotEnabled,
        );
    } else {
        expect_code(hipDeviceEnablePeerAccess(0, 0), HipError::InvalidDevice);
    }
    expect_code(hipDeviceEnablePeerAccess(1, 0), HipError::InvalidDevice);
    // Device 0 computes; device 1's stream waits for its event, then copies the result over.
    ok(hipSetDevice(0));
    let s0 = new_stream(1);
    let e0 = new_event(0);
    ok(unsafe { hipMemset(c0, 0, n * 4) });
    vector_add(a0, b0, c0, n, s0);
    ok(hipEventRecord(e0, s0));
    ok(hipSetDevice(1));
    ok(unsafe { hipMemset(c1, 0, n * 4) });
    let s1 = new_stream(1);
    let e1 = new_event(0);
    ok(hipStreamWaitEvent(s1, e0, 0));
    ok(hipMemcpyPeerAsync(c1, 1, c0, 0, n * 4, s1));
    ok(hipEventRecord(e1, s1));
    ok(hipStreamSynchronize(s1));
    check_sum(&download(c1, n), &a, &b, "copied after device 0's event");
    expect_code(hipEventRecord(e0, s1), HipError::InvalidHandle);
    let mut ms = 0.0f32;
    expect_code(
        unsafe { hipEventElapsedTime(&mut ms, e0, e1) },
        HipError::InvalidHandle,
    );
    let mut d = -1;
    ok(unsafe { hipStreamGetDevice(s1, &mut d) });
    assert_eq!(d, 1);
    // Synchronous peer copy back.
    let back = alloc(n * 4);
    ok(hipMemcpyPeer(back, 1, c0, 0, n * 4));
    check_sum(&download(back, n), &a, &b, "hipMemcpyPeer");
    // Each thread on its own GPU.
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (a, b) = (&a, &b);
            scope.spawn(move || {
                let device = t % 2;
                ok(hipSetDevice(device));
                let (x, y, z) = (alloc(n * 4), alloc(n * 4), alloc(n * 4));
                upload(x, a);
                upload(y, b);
                let s = new_stream(0);
                vector_add(x, y, z, n, s);
                ok(hipStreamSynchronize(s));
                let mut attributes = PointerAttributes::unregistered();
                ok(unsafe { hipPointerGetAttributes(&mut attributes, z) });
                assert_eq!(attributes.device, device);
                check_sum(&download(z, n), a, b, &format!("thread {t}"));
                ok(hipStreamDestroy(s));
                for p in [x, y, z] {
                    ok(unsafe { hipFree(p) });
                }
            });
        }
    });
    // A reset of device 1 leaves device 0's stream and memory.
    ok(hipSetDevice(1));
    ok(hipDeviceReset());
    expect_code(hipStreamSynchronize(s1), HipError::ContextIsDestroyed);
    ok(hipSetDevice(0));
    ok(hipEventRecord(e0, s0));
    ok(hipStreamSynchronize(s0));
    check_sum(&download(c0, n), &a, &b, "device 0 after device 1's reset");
    println!("gpu_pairs_of_devices PASSED");
}

const HANDLES: &str = "HIPMLIR_IPC_TEST_HANDLES";

fn hex(bytes: &[std::ffi::c_char]) -> String {
    bytes.iter().map(|&b| format!("{:02x}", b as u8)).collect()
}

fn unhex(text: &str) -> [std::ffi::c_char; 64] {
    let mut out = [0 as std::ffi::c_char; 64];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap() as std::ffi::c_char;
    }
    out
}

#[test]
fn gpu_memory_and_events_shared_with_another_process() {
    if !in_gpu_child("gpu_memory_and_events_shared_with_another_process") {
        return;
    }
    let n = (1 << 20) + 9;
    let (a, b) = inputs(n, 3.0);
    let (da, db, dc) = (alloc(n * 4), alloc(n * 4), alloc(n * 4));
    upload(da, &a);
    upload(db, &b);
    let shared = new_event(2 | 4);
    vector_add(da, db, dc, n, null_mut());
    ok(hipEventRecord(shared, null_mut()));
    let mut memory = HipIpcHandle { reserved: [0; 64] };
    let mut event = HipIpcHandle { reserved: [0; 64] };
    ok(unsafe { hipIpcGetMemHandle(&mut memory, dc) });
    ok(unsafe { hipIpcGetEventHandle(&mut event, shared) });
    // Opened in the process that made it: hipErrorInvalidContext, as in HIP.
    let mut mapped = null_mut();
    expect_code(
        unsafe { hipIpcOpenMemHandle(&mut mapped, memory, 1) },
        HipError::InvalidContext,
    );
    // The other process opens both, checks the sum after the event, and writes back.
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args([
            "gpu_ipc_open_side",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env("HIPMLIR_BACKEND", "cuda")
        .env(
            HANDLES,
            format!("{}{}{n}", hex(&memory.reserved), hex(&event.reserved)),
        )
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains("ipc open side PASSED"),
        "{text}"
    );
    let got = download(dc, n);
    if let Some(i) = (0..n).find(|&i| got[i] != a[i] + b[i] + 1.0) {
        panic!("element {i} after the other process: {}", got[i]);
    }
    expect_code(
        unsafe { hipIpcGetEventHandle(&mut event, new_event(0)) },
        HipError::InvalidConfiguration,
    );
    println!("gpu_memory_and_events_shared_with_another_process PASSED");
}

/// The other process of the test above (does nothing unless started by it).
#[test]
fn gpu_ipc_open_side() {
    let Ok(handles) = std::env::var(HANDLES) else {
        return;
    };
    register(&vector_add_bundle(&[("sm_70", PTX)]));
    let memory = HipIpcHandle {
        reserved: unhex(&handles[..128]),
    };
    let event = HipIpcHandle {
        reserved: unhex(&handles[128..256]),
    };
    let n: usize = handles[256..].parse().unwrap();
    let mut c = null_mut();
    ok(unsafe { hipIpcOpenMemHandle(&mut c, memory, 1) });
    let mut e = null_mut();
    ok(unsafe { hipIpcOpenEventHandle(&mut e, event) });
    let s = new_stream(1);
    ok(hipStreamWaitEvent(s, e, 0));
    ok(hipStreamSynchronize(s));
    let (a, b) = inputs(n, 3.0);
    let got = download(c, n);
    check_sum(&got, &a, &b, "the parent's sum, read in another process");
    let plus_one: Vec<f32> = got.iter().map(|v| v + 1.0).collect();
    upload(c, &plus_one);
    ok(hipDeviceSynchronize());
    ok(hipEventDestroy(e));
    ok(hipIpcCloseMemHandle(c));
    ok(hipStreamDestroy(s));
    println!("ipc open side PASSED");
}
