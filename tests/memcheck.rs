//! The device memory checker (`-fsanitize=address`) on the OpenCL device: each bad access of
//! tests/memcheck_programs/bad_accesses.hip is reported with its kernel, source line, thread,
//! block and nearest allocation, the launch fails with hipErrorIllegalAddress until
//! hipDeviceReset, nothing past the bad access is written, and a program that ignores the error
//! exits non-zero. Correct programs built with the flag give the same results as without it.
mod common;

use common::*;
use std::path::Path;
use std::process::Command;

fn build_checked(source: &Path, dir: &Path) -> std::path::PathBuf {
    let exe = dir.join(source.file_stem().expect("file name"));
    let out = hipmlir()
        .arg("-fsanitize=address")
        .arg(source)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("hipmlir runs");
    assert!(
        out.status.success(),
        "building {} with -fsanitize=address failed:\n{}",
        source.display(),
        stderr(&out)
    );
    exe
}

fn run(exe: &Path, case: &str, dir: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(exe)
        .arg(case)
        .env("HIPMLIR_CACHE_DIR", dir.join("cache"))
        .output()
        .expect("program runs");
    (out.status.code(), stdout(&out), stderr(&out))
}

#[test]
fn bad_accesses_are_reported_and_fail_the_launch() {
    let dir = scratch();
    let exe = build_checked(
        &repo().join("tests/memcheck_programs/bad_accesses.hip"),
        dir.path(),
    );
    // (case, access, kernel, line of bad_kernels.h, where)
    let cases = [
        ("write_past", "write of 4 bytes", "store_at<int>", 9, "12 bytes past the end of a 64-byte allocation"),
        ("read_past", "read of 4 bytes", "load_at", 13, "8 bytes past the end of a 64-byte allocation"),
        ("use_after_free", "write of 8 bytes", "store_at<double>", 9, "inside a freed allocation: 40 bytes into 512 bytes"),
        ("wild", "write of 4 bytes", "store_at<int>", 9, "not in or near any allocation"),
        ("atomic", "atomic of 4 bytes", "add_at", 17, "0 bytes past the end of a 64-byte allocation"),
        ("cas", "atomic of 4 bytes", "cas_at", 38, "0 bytes past the end of a 64-byte allocation"),
        ("shared", "write of 4 bytes", "shared_past", 24, "12 bytes past the end of a 256-byte shared-memory variable 'shared_past(int*, int, int)::tile'"),
        ("dynamic_shared", "write of 4 bytes", "dynamic_past", 46, "12 bytes past the end of a 32-byte dynamic shared memory (extern __shared__)"),
        ("local", "write of 4 bytes", "local_past", 32, "4 bytes past the end of a 32-byte local variable"),
        // A helper's local array, inlined inside a condition (not in the entry block).
        ("helper_local", "write of 4 bytes", "helper_local_past", 110, "4 bytes past the end of a 32-byte local variable"),
        // In loops, checked once before the loop: the first bad element is the one reported.
        ("loop_past", "read of 4 bytes", "sum_range", 56, "0 bytes past the end of a 64-byte allocation"),
        ("shared_loop", "read of 4 bytes", "shared_range", 67, "0 bytes past the end of a 256-byte shared-memory variable 'shared_range(int*, int, int, int)::tile'"),
        // In a loop counting by 4, under a condition (skipping one element).
        ("strided_loop", "read of 4 bytes", "strided_range", 94, "16 bytes past the end of a 64-byte allocation"),
        // Under a condition only some threads take, checked before it.
        ("divergent", "read of 4 bytes", "read_where", 102, "0 bytes past the end of a 64-byte allocation"),
        // Through a pointer a variable's initializer holds, far past its table (what lies
        // there is the device's).
        ("through_initializer", "read of 4 bytes", "read_through_cursor", 76, ""),
        // A by-value struct is the thread's own copy, of a size the compiler knows.
        ("byval_past", "read of 4 bytes", "byval_past", 85, "4 bytes past the end of a 20-byte by-value kernel argument (the thread's copy)"),
    ];
    // Blocks of 8 x 4 (the report names HIP's threadIdx, also where a kernel using warp
    // operations runs as a linear block).
    let blocks_2d = [
        (
            "block_2d",
            "write of 4 bytes",
            "store_at_2d",
            121,
            "12 bytes past the end of a 64-byte allocation",
        ),
        (
            "warp_block_2d",
            "write of 4 bytes",
            "warp_sum_at_2d",
            129,
            "12 bytes past the end of a 64-byte allocation",
        ),
    ];
    let cases = cases
        .into_iter()
        .map(|case| (case, "(5,0,0)"))
        .chain(blocks_2d.into_iter().map(|case| (case, "(5,1,0)")));
    for ((case, access, kernel, line, place), thread) in cases {
        let (code, out, err) = run(&exe, case, dir.path());
        let text = format!("{out}{err}");
        assert_eq!(code, Some(0), "{case}: {text}");
        // The program saw hipErrorIllegalAddress, then a sticky error, then a working device
        // after hipDeviceReset (it checks each and prints REPORTED).
        assert!(out.contains("REPORTED"), "{case}: {text}");
        let report = err
            .lines()
            .find(|l| l.contains("memory checker: illegal"))
            .unwrap_or_else(|| panic!("{case}: no report:\n{text}"));
        assert!(
            report.starts_with("hipmlir: hipDeviceSynchronize: "),
            "{case}: {report}"
        );
        for part in [
            format!("illegal {access} at 0x"),
            format!("in kernel '{kernel}'"),
            format!("bad_kernels.h:{line}:"),
            format!("thread {thread} of block (1,0,0)"),
            place.to_string(),
        ] {
            assert!(
                report.contains(&part),
                "{case}: '{part}' missing from:\n{report}"
            );
        }
        assert_eq!(
            err.matches("memory checker: illegal").count(),
            1,
            "{case}: reported once:\n{err}"
        );
    }
}

/// Kernels whose accesses are affine in the work-item's ids have their checks hoisted out of
/// the work-group (a copy without checks runs where a block's corners pass): with the checker
/// they give the host's results on every element (unsigned indices that wrap, conditions on
/// the thread id, a tile loop with barriers, a device lambda), and a bad access in the grid's
/// last block or in a block in its middle is still reported exactly.
#[test]
fn checks_hoisted_out_of_the_work_group_keep_results_and_reports() {
    let dir = scratch();
    let exe = build_checked(
        &repo().join("tests/memcheck_programs/workgroup_checks.hip"),
        dir.path(),
    );
    // The copies, their corners and the work-group's verdict make a valid module.
    let source = repo().join("tests/memcheck_programs/workgroup_checks.hip");
    let spv = dir.path().join("workgroup_checks.spv");
    let built = run_hipmlir(&[
        "-fsanitize=address",
        source.to_str().expect("utf-8 path"),
        "--emit-spirv",
        "-o",
        spv.to_str().expect("utf-8 path"),
    ]);
    assert!(built.status.success(), "{}", stderr(&built));
    spirv_val(&spv);
    let (code, out, err) = run(&exe, "correct", dir.path());
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("RESULTS OK"), "{out}{err}");
    assert!(!err.contains("memory checker"), "{out}{err}");
    let cases = [
        (
            "past_end",
            "in kernel 'fill_through'",
            "thread (232,0,0) of block (3,0,0): 0 bytes past the end of a 4000-byte allocation",
        ),
        (
            "middle_block",
            "in kernel 'fill_shifted'",
            "of block (2,0,0): ",
        ),
    ];
    for (case, kernel, place) in cases {
        let (code, out, err) = run(&exe, case, dir.path());
        let text = format!("{out}{err}");
        assert_eq!(code, Some(0), "{case}: {text}");
        assert!(out.contains("REPORTED"), "{case}: {text}");
        let report = err
            .lines()
            .find(|l| l.contains("memory checker: illegal write of 4 bytes"))
            .unwrap_or_else(|| panic!("{case}: no report:\n{text}"));
        assert!(report.contains(kernel), "{case}: {report}");
        assert!(report.contains(place), "{case}: {report}");
        assert!(report.contains("workgroup_kernels.h:"), "{case}: {report}");
    }
}

/// The bad write never reaches the host memory after the registered range (the program
/// checks), and a program that goes on as if nothing happened exits with status 1.
#[test]
fn a_program_that_ignores_the_error_exits_non_zero() {
    let dir = scratch();
    let exe = build_checked(
        &repo().join("tests/memcheck_programs/bad_accesses.hip"),
        dir.path(),
    );
    let (code, out, err) = run(&exe, "ignore", dir.path());
    assert!(out.contains("IGNORED hipErrorIllegalAddress"), "{out}{err}");
    assert_eq!(code, Some(1), "{out}{err}");
}

/// Reads through a pointer a device variable's initializer holds (`int* p = &table[8];`), at
/// every element of its table, are not reported: the module's variables are among the
/// allocations the checker knows.
#[test]
fn reads_through_initialized_pointers_are_not_reported() {
    let dir = scratch();
    let exe = build_checked(
        &repo().join("tests/memcheck_programs/bad_accesses.hip"),
        dir.path(),
    );
    let (code, out, err) = run(&exe, "within_initializer", dir.path());
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("NOT REPORTED"), "{out}{err}");
    assert!(!err.contains("memory checker"), "{err}");
}

/// Correct programs (device globals and pointers their initializers set, managed memory and variables, dynamic shared memory,
/// device malloc, atomics, pointer walks) pass with the checker and draw no report, each within
/// two minutes (the device compiler builds its kernels at the first launch).
#[test]
fn correct_programs_pass_with_the_checker() {
    let dir = scratch();
    let programs = [
        "examples/vector_add.hip",
        "tests/programs/device_globals.hip",
        "tests/programs/managed_variables.hip",
        "tests/programs/dynamic_shared.hip",
        "tests/programs/device_malloc.hip",
        "tests/programs/shared_and_atomics.hip",
        "tests/programs/atomic_spellings.hip",
        "tests/programs/pointer_walk.hip",
        "tests/programs/device_pointer_variables.hip",
        "tests/programs/device_pointer_initializers.hip",
        "tests/programs/large_device_arrays.hip",
        "tests/programs/linked_structures.hip",
        // Shapes once reported (or refused with an internal error): by-value structs, locals of
        // loop bodies, pointers in device variables' initial values, locals inlined mid-kernel.
        "tests/memcheck_programs/correct_patterns.hip",
        // Hundreds of checks calling the slow path in one kernel, and an early return unless
        // thread 0 of block 0 before a pointer walk: Intel's CPU compiler took minutes to build
        // the one (or did not finish) and crashed on the other.
        "tests/memcheck_programs/many_checks.hip",
        "tests/programs/control_flow.hip",
        // By-value arguments the runtime spills behind a pointer, over several launches in
        // flight (each kernel reads the table when it runs).
        "tests/programs/kernel_abi.hip",
        "tests/programs/large_struct_arguments.hip",
    ];
    for program in programs {
        let exe = build_checked(&repo().join(program), dir.path());
        // A device compiler that does not finish building a checked kernel fails the test.
        let text = run_program_within(&exe, Some(std::time::Duration::from_secs(120)));
        assert!(!text.contains("memory checker"), "{program}: {text}");
    }
}

/// The fast checks compute an access's offset from its subscript (a 32-bit index against the
/// range of indices that stay inside): at both ends of allocations of several element sizes,
/// with constant offsets and signed, unsigned and 64-bit indices, and sizes that end inside an
/// element, the last element inside passes and reads its value and the first outside is
/// reported (tests/memcheck_programs/index_bounds.hip checks each against the host's answer).
#[test]
fn fast_checks_draw_the_line_at_each_end_of_an_allocation() {
    let dir = scratch();
    let exe = build_checked(
        &repo().join("tests/memcheck_programs/index_bounds.hip"),
        dir.path(),
    );
    let text = run_program_within(&exe, Some(std::time::Duration::from_secs(300)));
    assert!(text.contains("memory checker"), "no report at all:\n{text}");
}

/// A checked kernel of thousands of branches is hinted to compute on scalars (Intel's CPU
/// compiler then emulates its subgroups), and its checks then decide each work-item alone: no
/// subgroup vote is left in the SPIR-V (nor is the slow path inlined, there or in the PTX), and
/// the program, whose stores go through pointers read from memory under conditions that differ
/// between work-items, gives the host's results (with the votes kept, objects lost their stores
/// unreported and the program stopped).
#[test]
fn kernels_hinted_scalar_check_each_work_item_alone() {
    let dir = scratch();
    let source = repo().join("tests/memcheck_programs/scalar_kernels.hip");
    let spv = dir.path().join("scalar_kernels.spv");
    let out = run_hipmlir(&[
        "-fsanitize=address",
        source.to_str().expect("utf-8 path"),
        "--emit-spirv",
        "-o",
        spv.to_str().expect("utf-8 path"),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    spirv_val(&spv);
    let dis = Command::new("spirv-dis")
        .arg(&spv)
        .output()
        .expect("spirv-dis runs");
    let text = String::from_utf8_lossy(&dis.stdout);
    assert!(
        text.contains("VecTypeHint 65538"),
        "the kernel is not hinted"
    );
    assert!(!text.contains("OpGroupNonUniformAny"), "a vote is left");
    // Its hundreds of checks call the slow path's copy that is not inlined, on both targets
    // (inlined at each, the PTX took ptxas minutes to build).
    assert!(
        text.contains("%__hipmlir_memcheck_slow_path_not_inlined = OpFunction %bool DontInline"),
        "the slow path is inlined on SPIR-V"
    );
    let ptx = dir.path().join("scalar_kernels.ptx");
    let out = run_hipmlir(&[
        "-fsanitize=address",
        source.to_str().expect("utf-8 path"),
        "--emit-ptx",
        "-o",
        ptx.to_str().expect("utf-8 path"),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let ptx = std::fs::read_to_string(&ptx).expect("the PTX");
    assert!(
        ptx.matches("__hipmlir_memcheck_slow_path_not_inlined,")
            .count()
            > 100,
        "the slow path is inlined on NVPTX"
    );
    let exe = build_checked(&source, dir.path());
    let text = run_program_within(&exe, Some(std::time::Duration::from_secs(120)));
    assert!(text.contains("scalar_kernels PASSED"), "{text}");
}

/// With Intel's vectorizer turned off (`CL_CONFIG_CPU_VECTORIZER_MODE=1`), whose emulated
/// subgroups get the checker's votes wrong, a checked program is warned at its first launch;
/// without that setting it is not.
#[test]
fn a_checked_program_is_warned_when_the_vectorizer_is_off() {
    let dir = scratch();
    let exe = build_checked(&repo().join("examples/vector_add.hip"), dir.path());
    let warning = "CL_CONFIG_CPU_VECTORIZER_MODE=1 turns off the vectorizer";
    for (mode, warned) in [(None, false), (Some("1"), true)] {
        let mut cmd = Command::new(&exe);
        cmd.env("HIPMLIR_CACHE_DIR", dir.path().join("cache"))
            .env("HIPMLIR_BACKEND", "opencl")
            .env_remove("CL_CONFIG_CPU_VECTORIZER_MODE");
        if let Some(mode) = mode {
            cmd.env("CL_CONFIG_CPU_VECTORIZER_MODE", mode);
        }
        let out = cmd.output().expect("program runs");
        assert_eq!(
            stderr(&out).contains(warning),
            warned,
            "{mode:?}: {}",
            stderr(&out)
        );
    }
}

/// Without the flag no module carries the checker.
#[test]
fn without_the_flag_nothing_is_checked() {
    let dir = scratch();
    let exe = build(&repo().join("examples/vector_add.hip"), dir.path(), None);
    let out = run_hipmlir(&["inspect", exe.to_str().expect("utf-8 path")]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("memcheck"), "{}", stdout(&out));
    let checked = build_checked(&repo().join("examples/vector_add.hip"), dir.path());
    let out = run_hipmlir(&["inspect", checked.to_str().expect("utf-8 path")]);
    assert!(
        stdout(&out).contains("__hipmlir_memcheck_state"),
        "{}",
        stdout(&out)
    );
}

/// The host side gets the host compiler's AddressSanitizer with the same flag: host-side
/// overruns and uses after free are reported by it, and a correct program exits 0 with nothing
/// reported (the device drivers' own leaks at exit are suppressed by the runtime header). The
/// link adds the default option the CUDA driver needs, unless the program has its own.
/// `-fno-gpu-sanitize` keeps the host's sanitizer and drops the device checker.
#[test]
fn the_host_side_gets_address_sanitizer() {
    let dir = scratch();
    let source = repo().join("tests/memcheck_programs/host_bugs.hip");
    let exe = build_checked(&source, dir.path());
    let (code, out, err) = run(&exe, "clean", dir.path());
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("PASSED"), "{out}{err}");
    assert!(!err.contains("Sanitizer"), "{err}");
    for (case, report) in [
        ("heap_overflow", "AddressSanitizer: heap-buffer-overflow"),
        ("use_after_free", "AddressSanitizer: heap-use-after-free"),
    ] {
        let (code, out, err) = run(&exe, case, dir.path());
        assert_ne!(code, Some(0), "{case}: {out}{err}");
        assert!(err.contains(report), "{case}: {err}");
    }

    // The link gave AddressSanitizer the option the CUDA driver needs (`verbosity=1` names it).
    let out = Command::new(&exe)
        .env("ASAN_OPTIONS", "verbosity=1")
        .env("HIPMLIR_CACHE_DIR", dir.path().join("cache"))
        .output()
        .expect("program runs");
    assert!(
        stderr(&out).contains("not protecting shadow gap"),
        "{}",
        stderr(&out)
    );
    // A program with options of its own keeps them (and links: no second definition).
    let own = dir.path().join("own_options");
    let out = hipmlir()
        .arg("-fsanitize=address")
        .arg(&source)
        .arg(repo().join("tests/memcheck_programs/own_asan_options.cpp"))
        .arg("-o")
        .arg(&own)
        .output()
        .expect("hipmlir runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let out = Command::new(&own)
        .env("ASAN_OPTIONS", "verbosity=1")
        .env("HIPMLIR_CACHE_DIR", dir.path().join("cache"))
        .output()
        .expect("program runs");
    assert!(stdout(&out).contains("PASSED"), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("not protecting shadow gap"),
        "{}",
        stderr(&out)
    );

    let host_only = dir.path().join("host_only");
    let out = hipmlir()
        .args(["-fsanitize=address", "-fno-gpu-sanitize"])
        .arg(&source)
        .arg("-o")
        .arg(&host_only)
        .output()
        .expect("hipmlir runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let (code, _, err) = run(&host_only, "heap_overflow", dir.path());
    assert_ne!(code, Some(0), "{err}");
    assert!(
        err.contains("AddressSanitizer: heap-buffer-overflow"),
        "{err}"
    );
    let out = run_hipmlir(&["inspect", host_only.to_str().expect("utf-8 path")]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("memcheck"), "{}", stdout(&out));
}
