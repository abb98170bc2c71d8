//! Helpers for the end-to-end tests: run the hipmlir binary, build and run HIP programs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn hipmlir() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipmlir"));
    compiler_env(&mut cmd);
    cmd
}

/// The environment the tests give hipmlir, also where another program runs it (an MPI wrapper).
pub fn compiler_env(cmd: &mut Command) {
    // The compiler caches precompiled headers: shared by the tests, kept out of the user's cache.
    cmd.env(
        "HIPMLIR_CACHE_DIR",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("compile-cache"),
    );
    // So is the compile server: one for the tests, ending soon after them.
    cmd.env(
        "HIPMLIR_COMPILE_SERVER_DIR",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("servers"),
    )
    .env("HIPMLIR_COMPILE_SERVER_IDLE", "120");
}

/// Runs hipmlir with `args`; returns its output whatever the exit status.
pub fn run_hipmlir(args: &[&str]) -> Output {
    hipmlir().args(args).output().expect("hipmlir runs")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Copies the folder `from` into `to`, subfolders included.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A fresh folder for one test's outputs.
pub fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("hipmlir-test-")
        .tempdir()
        .expect("temp dir")
}

/// Builds `source` into an executable in `dir` with the given `CXX` (None: the default).
pub fn build(source: &Path, dir: &Path, cxx: Option<&str>) -> PathBuf {
    let exe = dir.join(source.file_stem().expect("file name"));
    let mut cmd = hipmlir();
    cmd.arg(source).arg("-o").arg(&exe);
    if let Some(cxx) = cxx {
        cmd.env("CXX", cxx);
    }
    let out = cmd.output().expect("hipmlir runs");
    assert!(
        out.status.success(),
        "building {} failed:\n{}",
        source.display(),
        stderr(&out)
    );
    exe
}

/// Runs `cmd` and collects its output. A program this process just wrote may be held open for a
/// moment by another test's child between its fork and its exec (the kernel then refuses to
/// run it: ETXTBSY); that is retried.
pub fn output_of(cmd: &mut Command) -> std::process::Output {
    for _ in 0..50 {
        match cmd.output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            result => return result.expect("program runs"),
        }
    }
    cmd.output().expect("program runs")
}

/// Runs `cmd` as [`output_of`] does, for at most `limit`: None (the child killed) when it has
/// not ended by then. Its output goes to temporary files, read once it ended.
pub fn output_within(cmd: &mut Command, limit: std::time::Duration) -> Option<Output> {
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let (out_path, err_path) = (scratch.path().join("out"), scratch.path().join("err"));
    let file = |p: &Path| std::fs::File::create(p).expect("an output file");
    cmd.stdout(file(&out_path)).stderr(file(&err_path));
    let mut child = None;
    for _ in 0..50 {
        match cmd.spawn() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            result => {
                child = Some(result.expect("program runs"));
                break;
            }
        }
    }
    let mut child = child.unwrap_or_else(|| cmd.spawn().expect("program runs"));
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the program") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let read = |p: &Path| std::fs::read(p).unwrap_or_default();
    Some(Output {
        status,
        stdout: read(&out_path),
        stderr: read(&err_path),
    })
}

/// Runs a built test program; it must exit 0 and print PASSED (it checked every element).
pub fn run_program(exe: &Path) -> String {
    run_program_within(exe, None)
}

/// [`run_program`], failing when the program has not ended within `limit` (it is killed): a
/// device compiler that does not finish building a kernel is a failure, not a hang of the test.
pub fn run_program_within(exe: &Path, limit: Option<std::time::Duration>) -> String {
    // Built programs cache their device code: keep that out of the user's cache.
    let cache = std::env::temp_dir().join(format!("hipmlir-test-cache-{}", std::process::id()));
    let mut cmd = Command::new(exe);
    cmd.env("HIPMLIR_CACHE_DIR", &cache);
    let out = match limit {
        None => output_of(&mut cmd),
        Some(limit) => output_within(&mut cmd, limit)
            .unwrap_or_else(|| panic!("{} did not end within {limit:?}", exe.display())),
    };
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        out.status.success() && text.contains("PASSED"),
        "{} failed ({}):\n{text}",
        exe.display(),
        out.status
    );
    text
}

/// Validates a SPIR-V binary with spirv-val.
pub fn spirv_val(path: &Path) {
    if let Some(why) = spirv_val_rejection(path) {
        panic!("spirv-val rejected {}:\n{why}", path.display());
    }
}

/// What spirv-val says against a SPIR-V binary; None when it is valid.
pub fn spirv_val_rejection(path: &Path) -> Option<String> {
    use hipmlir_device_image::spirv_validator::{self, Verdict};
    let spirv = std::fs::read(path).expect("a SPIR-V file to validate");
    let scratch = tempfile::tempdir().expect("a temporary folder");
    match spirv_validator::validate(&spirv, scratch.path()) {
        Verdict::Valid => None,
        Verdict::Invalid(why) => Some(why),
        Verdict::NotRun(why) => panic!("spirv-val {why} (spirv-tools is installed by make setup)"),
    }
}

/// The HIP programs of the test suite: the example and tests/programs/*.hip.
pub fn programs() -> Vec<PathBuf> {
    let mut out = vec![repo().join("examples/vector_add.hip")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/programs"))
        .expect("tests/programs")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "hip"))
        .collect();
    more.sort();
    out.extend(more);
    out
}

/// Whether Open MPI's `mpirun` and `mpicxx` are on the PATH (`make setup` installs them).
pub fn have_mpi() -> bool {
    ["mpirun", "mpicxx"].iter().all(|tool| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// `mpirun -np RANKS` as the tests run it: ranks may outnumber the cores (`--oversubscribe`),
/// Open MPI refuses root without `--allow-run-as-root` (CI runs as root), the programs' device
/// code cache is kept out of the user's, and a job that hangs is ended.
pub fn mpirun(ranks: usize) -> Command {
    let mut cmd = Command::new("timeout");
    cmd.args(["--kill-after=10", "300", "mpirun", "--oversubscribe"]);
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        cmd.arg("--allow-run-as-root");
    }
    cmd.arg("-np").arg(ranks.to_string()).env(
        "HIPMLIR_CACHE_DIR",
        std::env::temp_dir().join(format!("hipmlir-test-cache-{}", std::process::id())),
    );
    cmd
}

/// Runs an MPI job or a program; it must exit 0 and print `passed` (it checked every point).
pub fn run_job(mut cmd: Command, passed: &str) -> String {
    let out = cmd.output().expect("runs");
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        out.status.success() && text.contains(passed),
        "{cmd:?} failed ({}):\n{text}",
        out.status
    );
    text
}
