//! Many launches of a small kernel run in bounded memory: per-launch events, stream tails and
//! argument setting must not accumulate. The quick test runs 20,000 launches; the full million is
//! `cargo test --release -p hipmlir-runtime --test endurance -- --ignored`.

mod common;

use std::ffi::CString;

use common::*;
use hipmlir_rt::*;

fn resident_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    pages * 4
}

fn launches(total: usize) {
    let k = kernel("bump", "bump", vec![pointer("p", "int *")]);
    register(&bundle(
        compile_opencl_c(
            "__kernel void bump(__global int* p) { if (get_global_id(0) == 0) p[0] += 1; }",
            &format!("endurance-{total}"),
        ),
        vec![k.clone()],
    ));
    let d = DeviceBuffer::from_slice(&[0i32]);
    let args = ArgBlock::new(&k).set(0, d.ptr);
    let name = CString::new("bump").unwrap();
    let mut stream = std::ptr::null_mut();
    ok(unsafe { hipStreamCreate(&mut stream) });
    let chunk = total / 10;
    let mut baseline = 0;
    for i in 0..total {
        // Alternate the null stream and a blocking stream: both paths, and their ordering.
        let s = if i % 2 == 0 {
            std::ptr::null_mut()
        } else {
            stream
        };
        let code = unsafe {
            hipLaunchKernelByName(
                name.as_ptr(),
                dim3(1, 1, 1),
                dim3(1, 1, 1),
                0,
                s,
                args.bytes.as_ptr().cast(),
                args.bytes.len(),
            )
        };
        assert_eq!(code, 0, "launch {i}");
        if (i + 1) % chunk == 0 {
            ok(hipDeviceSynchronize());
            let rss = resident_kib();
            if i + 1 == chunk * 2 {
                baseline = rss;
            } else if baseline > 0 {
                assert!(
                    rss < baseline + 64 * 1024,
                    "resident memory grew from {baseline} KiB to {rss} KiB after {} launches",
                    i + 1
                );
            }
        }
    }
    ok(hipDeviceSynchronize());
    assert_eq!(d.download::<i32>(1)[0], total as i32);
    ok(hipStreamDestroy(stream));
}

#[test]
fn twenty_thousand_launches_in_bounded_memory() {
    launches(20_000);
}

#[test]
#[ignore = "slow: a million launches (run with --ignored)"]
fn a_million_launches_in_bounded_memory() {
    launches(1_000_000);
}
