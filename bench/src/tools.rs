//! The programs the bench runs: hipmlir, clang-22 and the HIP programs hipmlir builds. Each run
//! is timed, bounded by a timeout, and its failure reduced to one line for the report.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use hipmlir_compile_server::{DIR_VARIABLE as SERVER_DIR_VARIABLE, SWITCH_VARIABLE};

/// Where things are.
#[derive(Debug, Clone)]
pub struct Tools {
    /// The repository root (bench/ lives under it).
    pub root: PathBuf,
    /// The hipmlir driver binary.
    pub hipmlir: PathBuf,
    /// The clang that compiles OpenCL C to SPIR-V (and HIP to LLVM IR for the reference build).
    pub clang: String,
    /// LLVM's static compiler, for the reference build's LLVM IR → SPIR-V step.
    pub llc: String,
    /// Scratch folder for everything the bench writes besides the report.
    pub work: PathBuf,
}

/// A finished process.
#[derive(Debug)]
pub struct Finished {
    pub success: bool,
    pub seconds: f64,
    pub stdout: String,
    pub stderr: String,
    pub status: String,
}

/// A private folder for the bench's compile servers, made at the start of the run and removed at
/// its end (a server whose socket is removed ends).
pub struct ServerFolder(PathBuf);

impl ServerFolder {
    /// Makes the folder and names it in this process's environment, which every hipmlir the
    /// bench runs inherits. Call before any thread starts.
    pub fn create() -> std::io::Result<ServerFolder> {
        use std::os::unix::fs::DirBuilderExt;
        let dir = std::env::temp_dir().join(format!("hipmlir-bench-{}", std::process::id()));
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        std::env::set_var(SERVER_DIR_VARIABLE, &dir);
        Ok(ServerFolder(dir))
    }
}

impl Drop for ServerFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How long any one tool or program may run before it is killed and reported.
pub const TIMEOUT: Duration = Duration::from_secs(600);

/// Runs `cmd` to completion (or kills it after `TIMEOUT`), timing it by wall clock.
pub fn run(cmd: &mut Command) -> Result<Finished, String> {
    run_within(cmd, TIMEOUT)
}

/// `run`, killing the command after `limit`.
pub fn run_within(cmd: &mut Command, limit: Duration) -> Result<Finished, String> {
    let shown = format!("{cmd:?}");
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    let out = child.stdout.take().map(reader);
    let err = child.stderr.take().map(reader);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{shown} timed out after {} s", limit.as_secs()));
            }
            Ok(None) => thread::sleep(Duration::from_micros(200)),
            Err(e) => return Err(format!("waiting for {shown}: {e}")),
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    let stdout = out.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = err.and_then(|h| h.join().ok()).unwrap_or_default();
    Ok(Finished {
        success: status.success(),
        seconds,
        stdout,
        stderr,
        status: status.to_string(),
    })
}

fn reader(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// The line of a failed tool's output worth reporting: the first that mentions an error, else the
/// first non-empty one, else the exit status.
pub fn first_error_line(f: &Finished) -> String {
    let text = format!("{}\n{}", f.stderr, f.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("error"))
        .or_else(|| text.lines().find(|l| !l.trim().is_empty()))
        .map(|l| l.trim().to_string())
        .unwrap_or_else(|| format!("exited with {}", f.status));
    // Paths of the bench's scratch copies say nothing; keep the file name only.
    shorten_paths(&line)
}

/// Replaces absolute paths in a message by their file names.
fn shorten_paths(line: &str) -> String {
    line.split(' ')
        .map(|w| {
            if w.starts_with('/') {
                w.rsplit('/').next().unwrap_or(w)
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl Tools {
    /// `hipmlir SRC --emit-spirv -o OUT`: the wall time, or the first error line.
    pub fn hipmlir_spirv(&self, src: &Path, out: &Path) -> Result<f64, String> {
        self.hipmlir_spirv_cached(src, out, None, false)
    }

    /// `hipmlir -fsanitize=address --emit-spirv`: the memory checker's instrumented kernels.
    pub fn hipmlir_spirv_checked(&self, src: &Path, out: &Path) -> Result<f64, String> {
        let mut cmd = Command::new(&self.hipmlir);
        cmd.arg("-fsanitize=address")
            .arg(src)
            .arg("--emit-spirv")
            .arg("-o")
            .arg(out)
            .env("HIPMLIR_DISABLE_CACHE", "1");
        let f = run(&mut cmd)?;
        self.check(f, out)
    }

    /// Starts the compile server in the bench's server folder (the first launcher does) and
    /// waits until it listens, so that every timed compile after finds it.
    pub fn start_compile_server(&self) -> Result<(), String> {
        let folder = std::env::var_os(SERVER_DIR_VARIABLE)
            .map(PathBuf::from)
            .ok_or("no server folder")?;
        let listening = || {
            std::fs::read_dir(&folder)
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "sock"))
        };
        run(Command::new(&self.hipmlir).arg("--version"))?;
        let start = Instant::now();
        while !listening() {
            if start.elapsed() > Duration::from_secs(30) {
                return Err(format!(
                    "no compile server listens in {} after 30 s",
                    folder.display()
                ));
            }
            thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// `hipmlir --emit-spirv` with its precompiled-header cache in `cache`, or (None) without
    /// a cache, as a first build sees it: the bench never reads or fills the user's cache.
    /// With `own_process`, without the compile server (`HIPMLIR_COMPILE_SERVER=0`).
    pub fn hipmlir_spirv_cached(
        &self,
        src: &Path,
        out: &Path,
        cache: Option<&Path>,
        own_process: bool,
    ) -> Result<f64, String> {
        let mut cmd = Command::new(&self.hipmlir);
        cmd.arg(src).arg("--emit-spirv").arg("-o").arg(out);
        if own_process {
            cmd.env(SWITCH_VARIABLE, "0");
        }
        match cache {
            Some(dir) => cmd
                .env("HIPMLIR_CACHE_DIR", dir)
                .env_remove("HIPMLIR_DISABLE_CACHE"),
            None => cmd.env("HIPMLIR_DISABLE_CACHE", "1"),
        };
        let f = run(&mut cmd)?;
        self.check(f, out)
    }

    /// The reference build of a HIP file: clang-22 in HIP device mode for spirv64 with the bench's
    /// shim header (bench/shim), then `llc-22 -mtriple=spirv64` to SPIR-V.
    pub fn clang_hip_spirv(&self, src: &Path, out: &Path) -> Result<f64, String> {
        let bc = out.with_extension("bc");
        let f = run(Command::new(&self.clang)
            .args(["-x", "hip", "--offload=spirv64", "--cuda-device-only"])
            .args([
                "-nogpuinc",
                "-nogpulib",
                "-fdeclspec",
                "-O2",
                "-emit-llvm",
                "-c",
            ])
            .arg("-I")
            .arg(self.root.join("bench/shim"))
            .arg(src)
            .arg("-o")
            .arg(&bc))?;
        let t = self.check(f, &bc)?;
        let f = run(Command::new(&self.llc)
            .args(["-mtriple=spirv64-unknown-unknown", "-O2", "-filetype=obj"])
            .arg(&bc)
            .arg("-o")
            .arg(out))?;
        Ok(t + self.check(f, out)?)
    }

    /// `clang-22 -cl-std=CL2.0 --target=spirv64 -O2 -c SRC -o OUT`: the wall time, or the first
    /// error line.
    pub fn clang_spirv(&self, src: &Path, out: &Path) -> Result<f64, String> {
        let f = run(Command::new(&self.clang)
            .args(["-cl-std=CL2.0", "--target=spirv64", "-O2", "-c"])
            .arg(src)
            .arg("-o")
            .arg(out))?;
        self.check(f, out)
    }

    /// `hipmlir SRC -o OUT`: a full HIP program (host code by $CXX, runtime by rpath).
    pub fn hipmlir_program(&self, src: &Path, out: &Path) -> Result<f64, String> {
        let f = run(Command::new(&self.hipmlir).arg(src).arg("-o").arg(out))?;
        self.check(f, out)
    }

    /// A finished tool's wall time, or its first error line without the bench's own paths.
    fn check(&self, f: Finished, out: &Path) -> Result<f64, String> {
        if !f.success {
            return Err(self.tidy(&first_error_line(&f)));
        }
        if !out.exists() {
            return Err(format!("succeeded but wrote no {}", out.display()));
        }
        Ok(f.seconds)
    }

    /// Drops the repository and scratch folder prefixes from a message.
    pub fn tidy(&self, msg: &str) -> String {
        let mut m = msg.to_string();
        for dir in [&self.work, &self.root] {
            let prefix = format!("{}/", dir.display());
            m = m.replace(&prefix, "");
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_line_prefers_errors_and_drops_paths() {
        let f = Finished {
            success: false,
            seconds: 0.0,
            stdout: String::new(),
            stderr: "note: x\n/tmp/a/b/k.hip:3:1: error: use of undeclared identifier 'x'\n"
                .to_string(),
            status: "exit status: 1".to_string(),
        };
        assert_eq!(
            first_error_line(&f),
            "k.hip:3:1: error: use of undeclared identifier 'x'"
        );
        let silent = Finished {
            stderr: String::new(),
            ..f
        };
        assert_eq!(first_error_line(&silent), "exited with exit status: 1");
    }

    #[test]
    fn runs_and_times_a_process() {
        let f = run(Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"])).unwrap();
        assert!(!f.success);
        assert_eq!(f.stdout.trim(), "out");
        assert_eq!(f.stderr.trim(), "err");
        assert!(run(&mut Command::new("/nonexistent/tool")).is_err());
    }
}
