//! The compile server (compile-server/): compiles handed to it by the `hipmlir` launcher give
//! what plain runs give (outputs, messages, exit statuses, the caller's folder, environment and
//! umask); a launcher that goes away takes its compile with it; a server ends when idle or when
//! its socket is removed. Each test has a server folder of its own.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::*;

const SERVED_NOTE: &str = "compiling in a child of the compile server";

/// hipmlir with its servers in `servers`.
fn hipmlir_with(servers: &Path) -> Command {
    let mut cmd = hipmlir();
    cmd.env("HIPMLIR_COMPILE_SERVER_DIR", servers)
        .env_remove("HIPMLIR_COMPILE_SERVER");
    cmd
}

/// The same without a server: the compiler runs in the launcher's place.
fn plain_hipmlir() -> Command {
    let mut cmd = hipmlir();
    cmd.env("HIPMLIR_COMPILE_SERVER", "0");
    cmd
}

/// A folder for servers: short, as a socket path must be, and private, as the launcher wants
/// it (it uses no server in a folder others may enter).
fn server_folder() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    // A socket path must fit in 107 bytes: a long TMPDIR gives way to /tmp.
    let base = Some(std::env::temp_dir())
        .filter(|t| t.as_os_str().len() <= 48)
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    let dir = tempfile::Builder::new()
        .prefix("hms")
        .tempdir_in(base)
        .unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

fn files_in(dir: &Path, extension: &str) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == extension))
                .collect()
        })
        .unwrap_or_default()
}

/// Waits up to a minute for `done`.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "waited for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits up to a minute for the compile's temporary folders in `dir` to go; a failure lists
/// what is left.
fn wait_until_empty(dir: &Path) {
    let start = Instant::now();
    loop {
        let left: Vec<PathBuf> = walk(dir);
        if left.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "waited for the temporary folder to go; left: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every path below `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        }
        found.push(path);
    }
    found
}

/// The "multi" project with a host compiler that hangs on its compile, having written its
/// process id: a compile of it stays in progress until something ends it.
struct HangingHostCompiler {
    project: tempfile::TempDir,
    cxx: PathBuf,
    pid_file: PathBuf,
}

impl HangingHostCompiler {
    fn new() -> Self {
        let project = scratch();
        copy_project("multi", project.path());
        let pid_file = project.path().join("cxx.pid");
        let cxx = project.path().join("slow-cxx");
        write_script(
            &cxx,
            &format!(
                "case \" $* \" in *\" -c \"*) echo $$ > '{}'; exec sleep 300;; esac\nexec g++ \"$@\"",
                pid_file.display()
            ),
        );
        HangingHostCompiler {
            project,
            cxx,
            pid_file,
        }
    }

    /// `hipmlir` set to compile util.cpp with it, its temporary folders in `temporaries`.
    fn compile(&self, mut hipmlir: Command, temporaries: &Path) -> Command {
        let _ = std::fs::remove_file(&self.pid_file);
        hipmlir
            .current_dir(self.project.path())
            .env("CXX", &self.cxx)
            .env("TMPDIR", temporaries)
            .env("HIPMLIR_DISABLE_CACHE", "1")
            .args(["-c", "util.cpp", "-o", "util.o"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        hipmlir
    }

    /// Waits for the host compiler to start: its process id.
    fn started(&self) -> String {
        wait_until("the host compiler to start", || {
            std::fs::read_to_string(&self.pid_file).is_ok_and(|s| s.ends_with('\n'))
        });
        std::fs::read_to_string(&self.pid_file)
            .unwrap()
            .trim()
            .to_string()
    }

    /// Waits for the host compiler `pid` to end.
    fn wait_for_end(pid: &str) {
        wait_until("the host compiler to end", || {
            !Path::new(&format!("/proc/{pid}")).exists()
        });
    }
}

/// Starts a server in `servers` (the first launcher starts one) and waits until it listens.
fn start_server(servers: &Path, extra_env: &[(&str, &str)]) {
    let out = hipmlir_with(servers)
        .envs(extra_env.iter().copied())
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    wait_until("the server's socket", || {
        !files_in(servers, "sock").is_empty()
    });
}

/// An executable shell script at `path` running `body`.
fn write_script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn copy_project(name: &str, to: &Path) {
    copy_tree(&repo().join("tests/driver").join(name), to);
}

const MULTI: &[&str] = &[
    "main.hip",
    "kernels.hip",
    "square.cu",
    "util.cpp",
    "-O2",
    "-Iinclude",
    "-DFACTOR=3",
];

#[test]
fn builds_through_the_server_equal_plain_builds() {
    let servers = server_folder();
    let project = scratch();
    let dir = project.path();
    copy_project("multi", dir);
    start_server(servers.path(), &[]);

    // A whole program of four sources, relative paths from the caller's folder.
    let cache = dir.join("cache");
    let served = hipmlir_with(servers.path())
        .current_dir(dir)
        .env("HIPMLIR_CACHE_DIR", &cache)
        .args(MULTI)
        .args(["-v", "-o", "app"])
        .output()
        .unwrap();
    assert!(served.status.success(), "{}", stderr(&served));
    assert!(stderr(&served).contains(SERVED_NOTE), "{}", stderr(&served));
    assert!(run_program(&dir.join("app")).contains("multi-file PASSED"));
    // The caller's environment reached the compile: its cache folder was used.
    assert!(cache.is_dir() && std::fs::read_dir(&cache).unwrap().next().is_some());

    let plain = plain_hipmlir()
        .current_dir(dir)
        .args(MULTI)
        .args(["-v", "-o", "app_plain"])
        .output()
        .unwrap();
    assert!(plain.status.success(), "{}", stderr(&plain));
    assert!(!stderr(&plain).contains(SERVED_NOTE), "{}", stderr(&plain));
    run_program(&dir.join("app_plain"));

    // The same SPIR-V either way.
    let spirv = |cmd: &mut Command, out: &str| {
        let o = cmd
            .current_dir(dir)
            .args([
                "kernels.hip",
                "-Iinclude",
                "-DFACTOR=3",
                "--emit-spirv",
                "-o",
                out,
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read(dir.join(out)).unwrap()
    };
    assert_eq!(
        spirv(&mut hipmlir_with(servers.path()), "served.spv"),
        spirv(&mut plain_hipmlir(), "plain.spv")
    );

    // The caller's umask decides the executable's mode.
    let out = Command::new("sh")
        .current_dir(dir)
        .args(["-c", "umask 077 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_hipmlir"))
        .args(MULTI)
        .args(["-o", "app_private"])
        .env("HIPMLIR_COMPILE_SERVER_DIR", servers.path())
        .env("HIPMLIR_DISABLE_CACHE", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir.join("app_private"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0, "mode {mode:o}");
}

#[test]
fn the_callers_limits_niceness_and_umask_reach_the_host_compiler() {
    let servers = server_folder();
    let project = scratch();
    let dir = project.path();
    copy_project("multi", dir);
    // A host compiler that writes down what it inherited, then compiles.
    let cxx = dir.join("recording-cxx");
    write_script(
        &cxx,
        "echo \"$(ulimit -n) $(ulimit -c) $(umask) $(nice)\" >> \"$RECORD\"\nexec g++ \"$@\"",
    );
    start_server(servers.path(), &[]);
    let record = |name: &str, server: &str| {
        let file = dir.join(name);
        let out = Command::new("sh")
            .current_dir(dir)
            .args([
                "-c",
                "ulimit -S -n 200 && ulimit -c 0 && umask 027 && exec nice -n 3 \"$0\" \"$@\"",
            ])
            .arg(env!("CARGO_BIN_EXE_hipmlir"))
            .args(["-v", "-c", "util.cpp", "-o", "util.o"])
            .env("HIPMLIR_COMPILE_SERVER_DIR", servers.path())
            .env("HIPMLIR_COMPILE_SERVER", server)
            .env("HIPMLIR_DISABLE_CACHE", "1")
            .env("CXX", &cxx)
            .env("RECORD", &file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stderr(&out).contains(SERVED_NOTE), server == "1");
        std::fs::read_to_string(file).unwrap()
    };
    let served = record("served.txt", "1");
    assert!(served.starts_with("200 0 0027 "), "{served}");
    assert_eq!(served, record("plain.txt", "0"));
}

#[test]
fn errors_through_the_server_read_as_in_plain_runs() {
    let servers = server_folder();
    let project = scratch();
    let dir = project.path();
    std::fs::write(
        dir.join("broken.hip"),
        "#include <hip/hip_runtime.h>\n__global__ void k(int *p) { p[0] = ; }\n",
    )
    .unwrap();
    start_server(servers.path(), &[]);
    let both = |args: &[&str]| -> (Output, Output) {
        let served = hipmlir_with(servers.path())
            .current_dir(dir)
            .args(args)
            .output()
            .unwrap();
        let plain = plain_hipmlir()
            .current_dir(dir)
            .args(args)
            .output()
            .unwrap();
        (served, plain)
    };
    for args in [
        &["broken.hip", "--emit-spirv", "-o", "b.spv"][..],
        &["missing.hip", "-o", "m"][..],
        &["--no-such-flag", "broken.hip"][..],
    ] {
        let (served, plain) = both(args);
        assert_eq!(
            served.status.code(),
            Some(1),
            "{args:?}: {}",
            stderr(&served)
        );
        assert_eq!(served.status.code(), plain.status.code(), "{args:?}");
        assert_eq!(stderr(&served), stderr(&plain), "{args:?}");
        assert_eq!(stdout(&served), stdout(&plain), "{args:?}");
    }
    let (served, plain) = both(&["--version"]);
    assert!(served.status.success());
    assert_eq!(stdout(&served), stdout(&plain));
    assert!(stderr(&both(&["broken.hip", "-fsyntax-only"]).0).contains("broken.hip:2:"));
}

#[test]
fn a_launcher_killed_mid_compile_takes_the_compile_with_it() {
    let servers = server_folder();
    let hanging = HangingHostCompiler::new();
    start_server(servers.path(), &[]);
    let temporaries = scratch();

    let mut launcher = hanging
        .compile(hipmlir_with(servers.path()), temporaries.path())
        .spawn()
        .unwrap();
    let pid = hanging.started();
    assert!(Path::new(&format!("/proc/{pid}")).exists());
    launcher.kill().unwrap();
    launcher.wait().unwrap();
    HangingHostCompiler::wait_for_end(&pid);
    // The compile's temporary folder went with it.
    wait_until_empty(temporaries.path());
    // The server serves on.
    let out = hipmlir_with(servers.path())
        .args(["--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(files_in(servers.path(), "sock").len(), 1);
}

#[test]
fn a_server_ends_when_idle_or_when_its_socket_is_removed() {
    let idle = server_folder();
    start_server(idle.path(), &[("HIPMLIR_COMPILE_SERVER_IDLE", "1")]);
    wait_until("the idle server to end", || {
        files_in(idle.path(), "sock").is_empty() && files_in(idle.path(), "lock").is_empty()
    });

    let stopped = server_folder();
    start_server(stopped.path(), &[]);
    assert_eq!(files_in(stopped.path(), "lock").len(), 1);
    for socket in files_in(stopped.path(), "sock") {
        std::fs::remove_file(socket).unwrap();
    }
    wait_until("the server without a socket to end", || {
        files_in(stopped.path(), "lock").is_empty()
    });
}

/// A launcher that connects and stalls mid-request holds up nobody: a compile that comes after it
/// is served while the stalled request still waits (the server reads requests as they arrive).
#[test]
fn a_stalled_request_delays_no_other_compile() {
    use std::io::{ErrorKind, Read, Write};
    use std::os::unix::net::UnixStream;
    let servers = server_folder();
    start_server(servers.path(), &[]);
    let socket = files_in(servers.path(), "sock").remove(0);
    // Half a frame: a count of strings, the first string's length, then nothing.
    let mut stalled = UnixStream::connect(&socket).unwrap();
    stalled.write_all(&3u32.to_le_bytes()).unwrap();
    stalled.write_all(&100u32.to_le_bytes()).unwrap();
    // A second one that never sends a byte.
    let silent = UnixStream::connect(&socket).unwrap();

    let dir = scratch();
    let source = repo().join("examples/vector_add.hip");
    let out = hipmlir_with(servers.path())
        .current_dir(dir.path())
        .args([
            source.to_str().unwrap(),
            "-v",
            "--emit-spirv",
            "-o",
            "k.spv",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains(SERVED_NOTE), "{}", stderr(&out));
    // Both stalled launchers are still waited for: the compile did not wait for them to be
    // dropped (a server that read requests one at a time would have dropped them first).
    for mut stream in [stalled, silent] {
        stream.set_nonblocking(true).unwrap();
        let mut byte = [0u8; 1];
        let still_open =
            matches!(stream.read(&mut byte), Err(e) if e.kind() == ErrorKind::WouldBlock);
        assert!(
            still_open,
            "the server dropped a stalled request before serving the compile"
        );
    }
}

/// A compile ended by SIGINT, SIGTERM or SIGHUP (a plain compile, with no server) ends its host
/// compiler, leaves no temporary folder behind and ends by the same signal.
#[test]
fn a_signal_leaves_no_temporary_folder_behind() {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let hanging = HangingHostCompiler::new();
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let temporaries = scratch();
        let mut compile = hanging.compile(plain_hipmlir(), temporaries.path());
        // As a terminal's foreground job has them: a test run in the background of a
        // non-interactive shell inherits SIGINT ignored, which hipmlir rightly leaves ignored.
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            compile.pre_exec(move || {
                libc::signal(signal, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut compile = compile.spawn().unwrap();
        let cxx_pid = hanging.started();
        let killed = Command::new("kill")
            .args([format!("-{signal}"), compile.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = compile.wait().unwrap();
        assert_eq!(status.signal(), Some(signal), "{status:?}");
        HangingHostCompiler::wait_for_end(&cxx_pid);
        let left: Vec<_> = std::fs::read_dir(temporaries.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(left.is_empty(), "signal {signal} left {left:?}");
    }
}

/// SIGINT, SIGTERM or SIGHUP sent to a launcher whose compile a server's child runs, or to that
/// child itself, ends the host compiler and leaves no temporary folder behind; the launcher
/// ends by the same signal either way, as a plain compile does.
#[test]
fn a_signal_to_a_served_compile_leaves_no_temporary_folder_behind() {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let servers = server_folder();
    let hanging = HangingHostCompiler::new();
    // The server started by a launcher that ignores these signals (a background job's SIGINT,
    // nohup's SIGHUP): a compile it serves takes its own launcher's dispositions, not the
    // server's (it lost the signal and ran on until the host compiler ended).
    let mut starter = hipmlir_with(servers.path());
    starter.arg("--version");
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        starter.pre_exec(|| {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::signal(signal, libc::SIG_IGN);
            }
            Ok(())
        });
    }
    assert!(starter.status().unwrap().success());
    wait_until("the server's socket", || {
        !files_in(servers.path(), "sock").is_empty()
    });
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        for to_child in [false, true] {
            let what = format!(
                "signal {signal} to the {}",
                if to_child { "child" } else { "launcher" }
            );
            let temporaries = scratch();
            let mut compile = hanging.compile(hipmlir_with(servers.path()), temporaries.path());
            // As a terminal's foreground job has them (see a_signal_leaves_no_temporary_folder_behind).
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                compile.pre_exec(move || {
                    libc::signal(signal, libc::SIG_DFL);
                    Ok(())
                });
            }
            let mut launcher = compile.spawn().unwrap();
            let cxx_pid = hanging.started();
            // The host compiler's parent is the compile: the server's child, not the launcher.
            let stat = std::fs::read_to_string(format!("/proc/{cxx_pid}/stat")).unwrap();
            let child: i32 = stat
                .rsplit(')')
                .next()
                .and_then(|rest| rest.split_whitespace().nth(1))
                .and_then(|ppid| ppid.parse().ok())
                .unwrap();
            assert_ne!(
                child as u32,
                launcher.id(),
                "{what}: the compile was not served"
            );
            let target = if to_child {
                child
            } else {
                launcher.id() as i32
            };
            // SAFETY: signals a process this test started (directly or through the server).
            assert_eq!(unsafe { libc::kill(target, signal) }, 0, "{what}");
            let status = launcher.wait().unwrap();
            assert_eq!(status.signal(), Some(signal), "{what}: {status:?}");
            HangingHostCompiler::wait_for_end(&cxx_pid);
            wait_until_empty(temporaries.path());
        }
    }
    assert_eq!(
        files_in(servers.path(), "sock").len(),
        1,
        "the server serves on"
    );
}
