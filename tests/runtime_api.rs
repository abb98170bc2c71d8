//! The HIP runtime API from real HIP programs built by hipmlir (tests/runtime_programs/*.hip):
//! streams and events, the memory API, eight host threads on their own streams, modules from a
//! SPIR-V file, and misuse of each. Every program compares device results with a host reference on
//! every element and prints PASSED. The program cache is a temporary folder, never the user's.
mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use common::*;

/// A temporary program cache for every program this test process runs (inherited through the
/// environment).
fn use_temporary_cache() {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch().keep();
        std::env::set_var("HIPMLIR_CACHE_DIR", &dir);
        dir
    });
}

fn program(name: &str) -> PathBuf {
    repo().join("tests/runtime_programs").join(name)
}

fn build_and_run(name: &str, cxx: Option<&str>) -> String {
    use_temporary_cache();
    let dir = scratch();
    let exe = build(&program(name), dir.path(), cxx);
    run_program(&exe)
}

#[test]
fn streams_and_events() {
    let out = build_and_run("streams_events.hip", None);
    assert!(out.contains("streams_events PASSED"), "{out}");
}

/// Which synchronous memory calls wait for the device, as AMD's HIP: fills of device memory
/// return while a kernel still holds the stream; every hipMemcpy, fills of pinned memory and of
/// SYNC_MEMOPS allocations wait.
#[test]
fn synchronous_calls_wait_as_hip_says() {
    let out = build_and_run("sync_behaviour.hip", None);
    assert!(out.contains("sync_behaviour PASSED"), "{out}");
}

/// Host functions that call back into the runtime: a wait for work queued behind the function
/// is hipErrorIllegalState, not a hang (the program's alarm fails it otherwise).
#[test]
fn host_functions_waiting_for_their_own_stream_are_refused() {
    let out = build_and_run("host_function_waits.hip", None);
    assert!(out.contains("host_function_waits PASSED"), "{out}");
}

#[test]
fn memory_api_and_misuse() {
    let out = build_and_run("memory_and_misuse.hip", None);
    // Unsupported calls say so once, not at every call.
    assert_eq!(
        out.matches("hipDeviceSetLimit: a printf buffer").count(),
        1,
        "{out}"
    );
}

/// Virtual memory management: physical memory mapped into reserved ranges, shared with a child
/// process through a file descriptor (the program runs itself as the child).
#[test]
fn virtual_memory_management() {
    let out = build_and_run("virtual_memory.hip", None);
    assert!(out.contains("virtual_memory PASSED"), "{out}");
}

/// The rest of the API (attached managed memory, driver copy nodes, functions by symbol, API
/// names, launches on every device, driver texture objects), on one device and on two
/// (`HIPMLIR_DEVICE=0,0` opens the device twice).
#[test]
fn api_odds_on_one_and_two_devices() {
    use_temporary_cache();
    let dir = scratch();
    let exe = build(&program("api_odds.hip"), dir.path(), None);
    run_program(&exe);
    let out = Command::new(&exe)
        .env("HIPMLIR_DEVICE", "0,0")
        .output()
        .expect("runs");
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        out.status.success() && text.contains("api_odds PASSED"),
        "two devices: {text}"
    );
}

/// Pitched 2-D and 3-D copies and memsets between every kind of memory (odd widths, pitches
/// past the widths, offsets inside allocations and arrays), synchronous and on a stream between
/// kernels; on both memory models (the rectangle kernels' pointers are USM or SVM pointers), and
/// as on a device that does not reach pageable memory (`HIPMLIR_SYSTEM_MEMORY=0`: staged).
#[test]
fn pitched_copies_and_memsets_on_every_memory_model() {
    use_temporary_cache();
    let dir = scratch();
    let exe = build(&program("pitched_copies.hip"), dir.path(), None);
    run_program(&exe);
    for (variable, value) in [("HIPMLIR_MEMORY", "svm"), ("HIPMLIR_SYSTEM_MEMORY", "0")] {
        let out = Command::new(&exe)
            .env(variable, value)
            .output()
            .expect("runs");
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(
            out.status.success() && text.contains("pitched_copies PASSED"),
            "{variable}={value}: {text}"
        );
    }
}

#[test]
fn eight_threads_on_their_own_streams() {
    build_and_run("threads.hip", None);
    build_and_run("threads.hip", Some("clang++-22 -stdlib=libc++"));
}

/// The same module program with a SPIR-V file (`--emit-spirv`) and with a code object
/// (`--genco`, as hipcc writes one: SPIR-V and PTX with the kernels' metadata).
#[test]
fn modules_from_a_spirv_file_and_a_code_object() {
    use_temporary_cache();
    let dir = scratch();
    let source = program("modules.hip");
    // -rdynamic: hipLaunchKernel finds the kernel's host stub by its symbol.
    let exe = build(&source, dir.path(), Some("g++ -rdynamic"));
    for (flag, file, extra) in [
        ("--emit-spirv", "modules.spv", None),
        ("--genco", "modules.co", Some("--code-object")),
    ] {
        let module = dir.path().join(file);
        let out = run_hipmlir(&[
            source.to_str().unwrap(),
            flag,
            "-o",
            module.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{flag}: {}", stderr(&out));
        let out = Command::new(&exe)
            .arg(&module)
            .args(extra)
            .output()
            .expect("runs");
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(
            out.status.success() && text.contains("modules PASSED"),
            "{flag}: {text}"
        );
    }
}

#[test]
fn a_code_object_of_a_source_without_kernels_loads_empty() {
    use_temporary_cache();
    let dir = scratch();
    let source = program("empty_module.hip");
    let exe = build(&source, dir.path(), None);
    let module = dir.path().join("empty.co");
    let out = run_hipmlir(&[
        source.to_str().unwrap(),
        "--genco",
        "-o",
        module.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = Command::new(&exe).arg(&module).output().expect("runs");
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        out.status.success() && text.contains("empty_module PASSED"),
        "{text}"
    );
    // SPIR-V without an entry point is no kernel module: that stays an error.
    let out = run_hipmlir(&[source.to_str().unwrap(), "--emit-spirv", "-o", "-"]);
    assert!(
        !out.status.success() && stderr(&out).contains("defines no kernels"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn environment_selects_devices_and_logs() {
    use_temporary_cache();
    let dir = scratch();
    let exe = build(&program("threads.hip"), dir.path(), None);
    // The device's name as the runtime itself reports it (it differs between machines: the Intel
    // CPU runtime names the host CPU), then selection by a substring of it and by index.
    let out = Command::new(&exe)
        .env("HIPMLIR_LOG", "debug")
        .output()
        .unwrap();
    let log = stderr(&out);
    let reported = log
        .split("hipmlir: device '")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .unwrap_or_else(|| panic!("no device line in the debug log: {log}"));
    let word = reported
        .split_whitespace()
        .max_by_key(|w| w.len())
        .expect("the device has a name")
        .to_lowercase();
    for (var, value) in [
        ("HIPMLIR_DEVICE", "0"),
        ("HIPMLIR_DEVICE", word.as_str()),
        ("HIPMLIR_PLATFORM", "0"),
    ] {
        let out = Command::new(&exe).env(var, value).output().unwrap();
        assert!(out.status.success(), "{var}={value}: {}", stderr(&out));
    }
    // A device that does not exist: one clear message, and the program's HIP_CHECK fails.
    let out = Command::new(&exe)
        .env("HIPMLIR_DEVICE", "no-such-gpu")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("HIPMLIR_DEVICE=no-such-gpu matches none"),
        "{}",
        stderr(&out)
    );
    // No OpenCL platform at all: says how to get a device.
    let empty = scratch();
    let out = Command::new(&exe)
        .env("OCL_ICD_VENDORS", empty.path())
        .env("OCL_ICD_FILENAMES", "")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("make setup") && err.contains("SPIR-V"),
        "{err}"
    );
    // HIPMLIR_LOG=debug shows the device and the cache; =off silences errors.
    let out = Command::new(&exe)
        .env("HIPMLIR_LOG", "debug")
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("hipmlir: device '") && err.contains("program cache"),
        "{err}"
    );
    let out = Command::new(&exe)
        .env("HIPMLIR_LOG", "off")
        .env("HIPMLIR_DEVICE", "none-such")
        .output()
        .unwrap();
    assert!(!stderr(&out).contains("hipmlir:"), "{}", stderr(&out));
    // HIPMLIR_DUMP_SPIRV writes the module.
    let dumps = scratch();
    let out = Command::new(&exe)
        .env("HIPMLIR_DUMP_SPIRV", dumps.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let dumped: Vec<_> = std::fs::read_dir(dumps.path()).unwrap().collect();
    assert_eq!(dumped.len(), 1);
}

/// A module of many kernels is built one kernel at a time, at each kernel's first launch, and
/// its kernels still share one instance of each device variable (split_jit.hip checks the values);
/// the per-kernel programs are cached, and the whole-module build gives the same results.
#[test]
fn many_kernels_are_built_one_at_a_time_sharing_their_variables() {
    let dir = scratch();
    let cache = scratch();
    let exe = build(&program("split_jit.hip"), dir.path(), None);
    let run = |jit: Option<&str>| {
        let mut cmd = Command::new(&exe);
        cmd.env("HIPMLIR_CACHE_DIR", cache.path())
            .env("HIPMLIR_LOG", "debug")
            .env_remove("HIPMLIR_DISABLE_CACHE");
        if let Some(jit) = jit {
            cmd.env("HIPMLIR_JIT", jit);
        }
        let out = cmd.output().expect("runs");
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(
            out.status.success() && text.contains("split_jit PASSED"),
            "HIPMLIR_JIT={jit:?}: {text}"
        );
        text
    };
    let built_kernels = |log: &str| log.matches("hipmlir: built kernel '").count();
    // (27 kernels: per kernel as asked; by default only modules of more than 256 are.)
    let first = run(Some("kernel"));
    assert!(first.contains("is built per kernel"), "{first}");
    // Each launched kernel (and address kernel used) once; never the whole module.
    let launched = ["_Z7producei", "_Z7consumePi", "_Z11add_throughPii"];
    for kernel in launched {
        assert_eq!(
            first.matches(&format!("built kernel '{kernel}'")).count(),
            1,
            "{first}"
        );
    }
    assert!(!first.contains("built device image"), "{first}");
    assert!(first.contains("built the variables of"), "{first}");
    // The second run finds every program in the cache.
    let second = run(Some("kernel"));
    assert_eq!(built_kernels(&second), 0, "{second}");
    assert!(
        second.matches("program cache hit").count() >= built_kernels(&first),
        "{second}"
    );
    // The whole module at once: the same results.
    let whole = run(Some("module"));
    assert!(!whole.contains("is built per kernel"), "{whole}");
}
