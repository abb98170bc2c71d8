//! MPI programs (tests/mpi: a Jacobi solver with halo exchange, one rank per device) built the
//! ways users build them — `CXX=mpicxx`, the flags `mpicxx --showme` gives, hipcc under Open
//! MPI's wrapper — and run by mpirun on the OpenCL device, which the ranks share; and the
//! one-process program that splits the grid over every device with peer copies. Every run
//! compares every point with a one-process run (and the host). `make setup` installs Open MPI;
//! without it the MPI tests say so and pass.
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

const SOURCES: [&str; 2] = ["problem.cpp", "device_block.cpp"];

fn sources(main: &str) -> Vec<PathBuf> {
    SOURCES
        .iter()
        .chain([&main])
        .map(|s| repo().join("tests/mpi").join(s))
        .collect()
}

fn skip_without_mpi() -> bool {
    let missing = !have_mpi();
    if missing {
        eprintln!("skipped: Open MPI (mpirun, mpicxx) is not installed; `make setup` installs it");
    }
    missing
}

fn built(mut cmd: Command, exe: &Path) -> PathBuf {
    let out = cmd.output().expect("the build runs");
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        stdout(&out),
        stderr(&out)
    );
    exe.to_path_buf()
}

fn mpicxx_shows(what: &str) -> Vec<String> {
    let out = Command::new("mpicxx")
        .arg(format!("--showme:{what}"))
        .output()
        .expect("mpicxx runs");
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out).split_whitespace().map(String::from).collect()
}

fn jacobi_mpi(exe: &Path, ranks: usize, args: &[&str]) -> String {
    let mut cmd = mpirun(ranks);
    cmd.arg(exe).args(args);
    let out = run_job(cmd, "jacobi_mpi PASSED");
    assert!(
        out.contains(&format!("points on {ranks} ranks match one process")),
        "{out}"
    );
    // No MPI knows an OpenCL device's memory: the halos go through pinned host memory.
    assert!(
        out.contains("halos staged through pinned host memory"),
        "{out}"
    );
    out
}

/// `CXX=mpicxx hipmlir ...`: the host code is built by the MPI wrapper, and the device parse
/// finds `mpi.h` in the folders the wrapper adds. Runs on 2 ranks split across and down, 1
/// rank, 4 ranks (rows and columns exchanged), and in double precision.
#[test]
fn jacobi_built_with_mpicxx_as_host_compiler_runs_on_1_2_and_4_ranks() {
    if skip_without_mpi() {
        return;
    }
    let dir = scratch();
    let exe = dir.path().join("jacobi_mpi");
    let mut cmd = hipmlir();
    cmd.args(sources("jacobi_mpi.cpp"))
        .arg("-o")
        .arg(&exe)
        .env("CXX", "mpicxx");
    let exe = built(cmd, &exe);
    let out = jacobi_mpi(&exe, 2, &["--nx", "97", "--ny", "83"]);
    assert!(
        out.contains("2 x 1 blocks") && out.contains("rank 1: device 0 of 1"),
        "{out}"
    );
    let out = jacobi_mpi(&exe, 1, &["--nx", "97", "--ny", "83"]);
    assert!(out.contains("1 x 1 blocks"), "{out}");
    let out = jacobi_mpi(
        &exe,
        2,
        &[
            "--nx",
            "64",
            "--ny",
            "101",
            "--px",
            "1",
            "--precision",
            "double",
        ],
    );
    assert!(out.contains("1 x 2 blocks, double"), "{out}");
    let out = jacobi_mpi(
        &exe,
        4,
        &["--nx", "75", "--ny", "66", "--iterations", "120"],
    );
    assert!(out.contains("2 x 2 blocks"), "{out}");
}

/// `hipmlir $(mpicxx --showme:compile) ... $(mpicxx --showme:link)`, and hipcc called by Open
/// MPI's wrapper (`OMPI_CXX=hipcc mpicxx ...`, as ROCm's documentation builds MPI programs).
#[test]
fn jacobi_built_with_the_wrappers_flags_and_under_the_wrapper_runs_on_2_ranks() {
    if skip_without_mpi() {
        return;
    }
    let dir = scratch();
    let exe = dir.path().join("jacobi_flags");
    let mut cmd = hipmlir();
    cmd.args(mpicxx_shows("compile"))
        .args(sources("jacobi_mpi.cpp"))
        .args(mpicxx_shows("link"))
        .arg("-o")
        .arg(&exe);
    let exe = built(cmd, &exe);
    jacobi_mpi(&exe, 2, &["--nx", "50", "--ny", "61", "--py", "2"]);

    // hipcc by that name on the PATH, as an install has it.
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hipmlir"), bin.join("hipcc")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let exe = dir.path().join("jacobi_wrapped");
    let mut cmd = Command::new("mpicxx");
    compiler_env(&mut cmd);
    cmd.env("OMPI_CXX", "hipcc")
        .env("PATH", path)
        .args(sources("jacobi_mpi.cpp"))
        .arg("-o")
        .arg(&exe);
    let exe = built(cmd, &exe);
    jacobi_mpi(
        &exe,
        2,
        &["--nx", "40", "--ny", "40", "--precision", "double"],
    );
}

/// One process over every device: on one device the grid is still split in two parts (copies
/// between them on the one device); with `HIPMLIR_DEVICE=0,0` there are two HIP devices whose
/// memory is apart (two contexts), and the parts' halos cross between them as peer copies.
#[test]
fn jacobi_over_every_device_of_one_process_with_peer_copies() {
    let dir = scratch();
    let exe = dir.path().join("jacobi_devices");
    let mut cmd = hipmlir();
    cmd.args(sources("jacobi_devices.cpp")).arg("-o").arg(&exe);
    let exe = built(cmd, &exe);
    let run = |devices: Option<&str>, args: &[&str], expect: &str| {
        let mut cmd = Command::new(&exe);
        cmd.args(args).env(
            "HIPMLIR_CACHE_DIR",
            std::env::temp_dir().join(format!("hipmlir-test-cache-{}", std::process::id())),
        );
        if let Some(devices) = devices {
            cmd.env("HIPMLIR_DEVICE", devices);
        }
        let out = run_job(cmd, "jacobi_devices PASSED");
        assert!(out.contains(expect), "{out}");
        out
    };
    run(None, &[], "in 2 parts on 1 devices match one part");
    let out = run(
        Some("0,0"),
        &["--nx", "90", "--ny", "77"],
        "in 2 parts on 2 devices",
    );
    // OpenCL devices never reach each other's memory: the copies go through the host.
    assert!(
        out.contains("device 0 does not reach device 1's memory"),
        "{out}"
    );
    run(
        Some("0,0"),
        &[
            "--parts",
            "5",
            "--precision",
            "double",
            "--iterations",
            "150",
        ],
        "in 5 parts on 2 devices",
    );
}
