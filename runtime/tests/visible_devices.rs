//! HIP's visibility variables on the real OpenCL device: `HIP_VISIBLE_DEVICES` (or, unset,
//! `CUDA_VISIBLE_DEVICES`, and `ROCR_VISIBLE_DEVICES` beneath them) hide devices as HIP's
//! runtimes do; hiding every one makes every call `hipErrorNoDevice`. `HIPMLIR_DEVICE=0,0` shows
//! the one device twice, so there are two to choose from. Each setting runs in a process of its
//! own (the backend opens once per process): this test runs itself with the variables set.

mod common;

use std::process::Command;

use common::*;
use hipmlir_rt::*;

const VARIABLES: [&str; 3] = [
    "HIP_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
];

/// The devices a child process counts with `set`, or None when it has none (NoDevice).
fn count_with(set: &[(&str, &str)]) -> Option<i32> {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "visibility_child", "--ignored", "--nocapture"])
        .env("HIPMLIR_DEVICE", "0,0")
        .env("HIPMLIR_VISIBILITY_CHILD", "1");
    for v in VARIABLES {
        cmd.env_remove(v);
    }
    cmd.envs(set.iter().copied());
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{set:?}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("visible devices: "))
        .unwrap_or_else(|| panic!("{set:?}: no count in {stdout}"));
    (line != "none").then(|| line.parse().unwrap())
}

#[test]
fn visibility_variables_hide_devices_as_hip_does() {
    assert_eq!(count_with(&[]), Some(2));
    assert_eq!(count_with(&[("HIP_VISIBLE_DEVICES", "1")]), Some(1));
    assert_eq!(count_with(&[("HIP_VISIBLE_DEVICES", "1,0")]), Some(2));
    // The list ends at its first entry that is no device's index.
    assert_eq!(count_with(&[("HIP_VISIBLE_DEVICES", "0,5,1")]), Some(1));
    assert_eq!(count_with(&[("HIP_VISIBLE_DEVICES", "-1")]), None);
    assert_eq!(count_with(&[("HIP_VISIBLE_DEVICES", "2")]), None);
    assert_eq!(count_with(&[("CUDA_VISIBLE_DEVICES", "-1")]), None);
    assert_eq!(count_with(&[("ROCR_VISIBLE_DEVICES", "-1")]), None);
    // HIP_VISIBLE_DEVICES wins over CUDA_VISIBLE_DEVICES; ROCR's applies beneath it.
    assert_eq!(
        count_with(&[("HIP_VISIBLE_DEVICES", "1"), ("CUDA_VISIBLE_DEVICES", "-1")]),
        Some(1)
    );
    assert_eq!(
        count_with(&[("ROCR_VISIBLE_DEVICES", "1"), ("HIP_VISIBLE_DEVICES", "1")]),
        None
    );
}

/// Run by the test above in a process of its own: counts the devices and uses each (a fill read
/// back on every element), or checks that every call is `hipErrorNoDevice`.
#[test]
#[ignore = "run by visibility_variables_hide_devices_as_hip_does"]
fn visibility_child() {
    if std::env::var_os("HIPMLIR_VISIBILITY_CHILD").is_none() {
        return;
    }
    let mut count = -1;
    let code = unsafe { hipGetDeviceCount(&mut count) };
    if code == HipError::NoDevice.code() {
        assert_eq!(count, 0);
        expect_code(hipSetDevice(0), HipError::NoDevice);
        let mut p = std::ptr::null_mut();
        expect_code(unsafe { hipMalloc(&mut p, 64) }, HipError::NoDevice);
        println!("visible devices: none");
        return;
    }
    ok(code);
    for device in 0..count {
        ok(hipSetDevice(device));
        let buf = DeviceBuffer::new(256);
        ok(unsafe { hipMemset(buf.ptr, 0x5a + device, 256) });
        let mut host = vec![0u8; 256];
        ok(unsafe {
            hipMemcpy(
                host.as_mut_ptr().cast(),
                buf.ptr,
                256,
                MemcpyKind::DeviceToHost as i32,
            )
        });
        assert!(host.iter().all(|&b| b == 0x5a + device as u8));
    }
    expect_code(hipSetDevice(count), HipError::InvalidDevice);
    println!("visible devices: {count}");
}
