//! The on-disk program cache on the real device: a first build stores an entry, the next module
//! with the same SPIR-V loads it (clCreateProgramWithBinary) and runs correctly, a truncated or
//! corrupted entry is detected and rebuilt, HIPMLIR_DUMP_SPIRV writes the module, and several
//! processes sharing one cache folder leave one whole entry. Own process: the cache folder is
//! chosen before the runtime reads the environment.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use hipmlir_device_image::KernelInfo;
use hipmlir_rt::*;

const SOURCE: &str = "__kernel void twice_plus(__global int* p, int n, int add) { \
    size_t i = get_global_id(0); if (i < n) p[i] = 2 * p[i] + add; }";

fn named(name: &str) -> KernelInfo {
    kernel(
        name,
        name,
        vec![
            pointer("p", "int *"),
            value("n", "int", 4),
            value("add", "int", 4),
        ],
    )
}

/// Loads the module anew (a new module: built on its first launch, through the cache) and
/// checks a launch.
fn register_and_run(spirv: &[u8], add: i32) {
    register_and_run_kernel(spirv, "twice_plus", add)
}

fn register_and_run_kernel(spirv: &[u8], kernel_name: &str, add: i32) {
    test_env();
    let image = bundle(spirv.to_vec(), vec![named(kernel_name)]);
    let mut module = std::ptr::null_mut();
    ok(unsafe { hipModuleLoadData(&mut module, image.as_ptr().cast()) });
    let mut f = std::ptr::null_mut();
    let name = std::ffi::CString::new(kernel_name).unwrap();
    ok(unsafe { hipModuleGetFunction(&mut f, module, name.as_ptr()) });
    let n = 500usize;
    let input: Vec<i32> = (0..n as i32).collect();
    let d = DeviceBuffer::from_slice(&input);
    let (mut p, mut count, mut add_v) = (d.ptr, n as i32, add);
    let mut params = [
        (&mut p as *mut *mut std::ffi::c_void).cast::<std::ffi::c_void>(),
        (&mut count as *mut i32).cast(),
        (&mut add_v as *mut i32).cast(),
    ];
    ok(unsafe {
        hipModuleLaunchKernel(
            f,
            8,
            1,
            1,
            64,
            1,
            1,
            0,
            std::ptr::null_mut(),
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    });
    let got: Vec<i32> = d.download(n);
    for (i, (&g, &x)) in got.iter().zip(&input).enumerate() {
        assert_eq!(g, 2 * x + add, "element {i}");
    }
    ok(hipModuleUnload(module));
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn cache_stores_reloads_and_repairs_entries() {
    let cache = scratch_dir("cache-parent");
    let dumps = scratch_dir("cache-dumps");
    std::env::set_var("HIPMLIR_CACHE_DIR", &cache);
    std::env::set_var("HIPMLIR_DUMP_SPIRV", &dumps);
    let spirv = compile_opencl_c(SOURCE, "cache");

    register_and_run(&spirv, 1);
    assert_eq!(build_stats(), (0, 1, 1), "(cache loads, builds, stores)");
    let files = entries(&cache);
    assert_eq!(files.len(), 1, "{files:?}");
    let entry = files[0].clone();
    assert!(entry.extension().is_some_and(|e| e == "clbin"));
    let dumped = entries(&dumps);
    assert_eq!(dumped.len(), 1);
    assert_eq!(std::fs::read(&dumped[0]).unwrap(), spirv);

    // Same SPIR-V, new module: loaded from the cache.
    register_and_run(&spirv, 2);
    assert_eq!(build_stats(), (1, 1, 1));

    // Truncated: detected, rebuilt, stored again.
    let good = std::fs::read(&entry).unwrap();
    std::fs::write(&entry, &good[..good.len() / 2]).unwrap();
    register_and_run(&spirv, 3);
    assert_eq!(build_stats(), (1, 2, 2));
    assert_eq!(std::fs::read(&entry).unwrap().len(), good.len());

    // One flipped byte in the payload: the checksum catches it.
    let mut bad = good.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0x55;
    std::fs::write(&entry, &bad).unwrap();
    register_and_run(&spirv, 4);
    assert_eq!(build_stats(), (1, 3, 3));

    // Other SPIR-V: another entry.
    let other = compile_opencl_c(&SOURCE.replace("2 * p[i]", "2 * p[i] + 0"), "cache-other");
    if other != spirv {
        register_and_run(&other, 5);
        assert_eq!(entries(&cache).len(), 2);
    }

    // A whole, checksummed entry that holds another program (no twice_plus): it loads and builds,
    // but lacks the kernel. Once: hipErrorInvalidDeviceFunction for good. Now: evicted, rebuilt.
    let before = entries(&cache);
    let renamed = compile_opencl_c(
        &SOURCE.replace("twice_plus", "other_kernel"),
        "cache-renamed",
    );
    register_and_run_kernel(&renamed, "other_kernel", 6);
    let stats = build_stats();
    let foreign = entries(&cache)
        .into_iter()
        .find(|e| !before.contains(e))
        .expect("the other program's entry");
    std::fs::copy(&foreign, &entry).unwrap();
    register_and_run(&spirv, 7);
    assert_eq!(build_stats(), (stats.0, stats.1 + 1, stats.2 + 1));
    assert_eq!(
        std::fs::read(&entry).unwrap(),
        good,
        "the rebuilt entry replaced it"
    );
    // ...and it is a cache hit again.
    register_and_run(&spirv, 8);
    assert_eq!(build_stats(), (stats.0 + 1, stats.1 + 1, stats.2 + 1));

    // An entry that is a symlink to a device that never ends: once a read that never returned;
    // now the entry is unusable, evicted and rebuilt as a regular file.
    std::fs::remove_file(&entry).unwrap();
    std::os::unix::fs::symlink("/dev/urandom", &entry).unwrap();
    register_and_run(&spirv, 9);
    assert_eq!(build_stats(), (stats.0 + 1, stats.1 + 2, stats.2 + 2));
    assert!(std::fs::symlink_metadata(&entry).unwrap().is_file());
    assert!(
        entries(&cache)
            .iter()
            .all(|e| e.extension().is_some_and(|x| x == "clbin")),
        "no temporary file is left: {:?}",
        entries(&cache)
    );

    // Four processes at once on a fresh folder: each runs correctly; one whole entry remains
    // and no temporary file.
    let shared = scratch_dir("cache-shared");
    let children: Vec<_> = (0..4)
        .map(|_| {
            Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "cache_child_process",
                    "--ignored",
                    "--test-threads=1",
                ])
                .env("HIPMLIR_CACHE_DIR", &shared)
                .env_remove("HIPMLIR_DUMP_SPIRV")
                .env("HIPMLIR_CACHE_CHILD", "1")
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("spawn child")
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success(), "a child process failed");
    }
    let left = entries(&shared);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].extension().is_some_and(|e| e == "clbin"));
    // A later process loads it.
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "cache_child_process", "--ignored", "--nocapture"])
        .env("HIPMLIR_CACHE_DIR", &shared)
        .env("HIPMLIR_CACHE_CHILD", "expect-hit")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    for d in [cache, dumps, shared] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Run by `cache_stores_reloads_and_repairs_entries` as a child process.
#[test]
#[ignore = "child process of cache_stores_reloads_and_repairs_entries"]
fn cache_child_process() {
    let Ok(mode) = std::env::var("HIPMLIR_CACHE_CHILD") else {
        return;
    };
    let spirv = compile_opencl_c(SOURCE, &format!("child-{}", std::process::id()));
    register_and_run(&spirv, 7);
    if mode == "expect-hit" {
        assert_eq!(build_stats(), (1, 0, 0));
    }
}

#[test]
fn disabled_cache_writes_nothing() {
    // Checked through the environment parser (the process-wide cache is already chosen).
    assert!(hipmlir_rt::cache::dir_from_env(|n| match n {
        "HIPMLIR_DISABLE_CACHE" => Some("1".into()),
        "HIPMLIR_CACHE_DIR" => Some("/tmp/x".into()),
        _ => None,
    })
    .is_none());
}
