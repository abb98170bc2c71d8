//! Runtime compilation: hiprtc (`libhiprtc.so`) compiling the benchmark kernels in one process,
//! beside the offline compile of the same kernels (`hipmlir --genco`), and beside NVIDIA's
//! NVRTC where `libnvrtc` can be loaded (the GPU machines have it; nothing here needs it).
//!
//! `bench/rtc/rtc_compile.cpp`, a plain C++ program built here with the host compiler, loads
//! either library with dlopen and times its compiles (the two APIs have the same shapes), so
//! that the same program measures NVRTC on a machine without hipmlir's toolchain.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::stats;
use crate::tools::{first_error_line, run, Tools};

/// One kernel file compiled at run time.
#[derive(Debug, Clone)]
pub struct RtcRow {
    pub name: String,
    /// hiprtc, the default targets (SPIR-V and sm_70 PTX, as `hipmlir --genco` builds), after
    /// the process's first compile: a new program each time, no cache answering.
    pub hiprtc: Result<f64, String>,
    /// The same for SPIR-V alone (`--offload-arch=spirv64`).
    pub hiprtc_spirv: Result<f64, String>,
    /// The same program compiled again: answered by hiprtc's disk cache.
    pub hiprtc_cached: Result<f64, String>,
    /// `hipmlir --genco` (whole process, through the compile server, PCH made).
    pub offline: Result<f64, String>,
    /// NVRTC (PTX), where `libnvrtc` loads.
    pub nvrtc: Result<f64, String>,
}

/// What a run measured.
#[derive(Debug, Clone)]
pub struct Rtc {
    pub rows: Vec<RtcRow>,
    /// The process's first compile with an empty cache (the PCH of `hip_runtime.h` made).
    pub first_cold: Result<f64, String>,
    /// The process's first compile with the PCH on disk (a second process).
    pub first_warm: Result<f64, String>,
    /// The NVRTC library measured, or why none.
    pub nvrtc_library: Result<String, String>,
}

/// Where NVRTC may be: `NVRTC_LIBRARY`, the loader's search path, CUDA's usual place.
const NVRTC_CANDIDATES: &[&str] = &[
    "libnvrtc.so",
    "libnvrtc.so.13",
    "libnvrtc.so.12",
    "/usr/local/cuda/lib64/libnvrtc.so",
];

/// NVRTC alone, as the GPU part measures it on the GPU machine (where hiprtc's libraries are
/// not).
#[derive(Debug, Clone)]
pub struct NvrtcRun {
    /// The library measured.
    pub library: String,
    /// The process's first compile (NVRTC's own start-up).
    pub first: Result<f64, String>,
    /// (kernel file, median compile after the first, code bytes).
    pub rows: Vec<(String, Result<f64, String>, Option<f64>)>,
}

/// The first NVRTC library the timer can load and compile with.
fn find_nvrtc(timer: &Path, probe: &Path, cache: &Path) -> Result<String, String> {
    std::env::var("NVRTC_LIBRARY")
        .ok()
        .into_iter()
        .chain(NVRTC_CANDIDATES.iter().map(|s| s.to_string()))
        .find(|candidate| {
            time(
                timer,
                candidate,
                "nvrtc",
                1,
                &[probe.to_path_buf()],
                &[],
                cache,
            )
            .is_ok()
        })
        .ok_or_else(|| "libnvrtc not found (set NVRTC_LIBRARY to measure it)".to_string())
}

/// Times NVRTC on `files` (`runs` compiles each after the process's first) with the timer built
/// by `build_timer`.
pub fn measure_nvrtc(
    timer: &Path,
    files: &[PathBuf],
    runs: usize,
    scratch: &Path,
) -> Result<NvrtcRun, String> {
    let probe = files.first().ok_or("no kernel files to compile")?;
    let library = find_nvrtc(timer, probe, scratch)?;
    let lines = time(timer, &library, "nvrtc", runs, files, &[], scratch)?;
    let name = |f: &PathBuf| {
        f.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let rows = files
        .iter()
        .map(|f| {
            let n = name(f);
            let compile = lookup(&lines, "compile", &n);
            let code = lookup(&lines, "code", &n).ok();
            (n, compile, code)
        })
        .collect();
    Ok(NvrtcRun {
        first: lookup(&lines, "first", &name(probe)),
        library,
        rows,
    })
}

/// `rtc_compile`'s tab-separated lines: (kind, file) → value.
fn parse(out: &str) -> Vec<(String, String, String)> {
    out.lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, '\t');
            let (kind, file, value) = (parts.next()?, parts.next()?, parts.next()?);
            Some((kind.to_string(), file.to_string(), value.trim().to_string()))
        })
        .collect()
}

/// The figure of `kind` for `file`; for a file that did not compile, the compiler's error.
fn lookup(lines: &[(String, String, String)], kind: &str, file: &str) -> Result<f64, String> {
    if let Some((_, _, error)) = lines.iter().find(|(k, f, _)| k == "failed" && f == file) {
        return Err(error.clone());
    }
    lines
        .iter()
        .find(|(k, f, _)| k == kind && f == file)
        .and_then(|(_, _, v)| v.parse().ok())
        .ok_or_else(|| format!("no '{kind}' time for {file}"))
}

/// Builds rtc_compile with the host's C++ compiler.
pub fn build_timer(tools: &Tools, dir: &Path) -> Result<PathBuf, String> {
    let exe = dir.join("rtc_compile");
    let f = run(Command::new("c++")
        .args(["-O2", "-std=c++17"])
        .arg(tools.root.join("bench/rtc/rtc_compile.cpp"))
        .arg("-o")
        .arg(&exe)
        .arg("-ldl"))?;
    if !f.success {
        return Err(format!("c++ rtc_compile.cpp: {}", first_error_line(&f)));
    }
    Ok(exe)
}

/// Runs the timer on `files` through `library`; its lines.
fn time(
    timer: &Path,
    library: &str,
    api: &str,
    runs: usize,
    files: &[PathBuf],
    options: &[&str],
    cache: &Path,
) -> Result<Vec<(String, String, String)>, String> {
    let mut cmd = Command::new(timer);
    cmd.arg(library).arg(api).arg(runs.to_string()).args(files);
    if !options.is_empty() {
        cmd.arg("--").args(options);
    }
    let f = run(cmd.env("HIPMLIR_CACHE_DIR", cache))?;
    if !f.success {
        return Err(first_error_line(&f));
    }
    Ok(parse(&f.stdout))
}

/// Measures every benchmark kernel, `runs` times each way.
pub fn run_all(tools: &Tools, runs: usize) -> Result<Rtc, String> {
    let dir = tools.work.join("rtc");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let timer = build_timer(tools, &dir)?;
    let library = tools
        .hipmlir
        .parent()
        .map(|d| d.join("libhiprtc.so"))
        .filter(|l| l.is_file())
        .ok_or("no libhiprtc.so beside hipmlir (make build builds it)")?;
    let library = library.display().to_string();
    let names: Vec<String> = crate::cases::all(crate::cases::Sizes::quick())
        .into_iter()
        .map(|(name, _)| name.to_string())
        .collect();
    let files: Vec<PathBuf> = names
        .iter()
        .map(|n| tools.root.join(format!("bench/kernels/{n}.hip")))
        .collect();
    let file_name = |n: &str| format!("{n}.hip");

    // A new cache: the first process makes the PCH at its first compile; the second finds it.
    let cache = dir.join("cache");
    eprintln!("[rtc] hiprtc, default targets");
    let cold = time(&timer, &library, "hiprtc", runs, &files, &[], &cache);
    eprintln!("[rtc] hiprtc, again in a new process");
    let warm = time(&timer, &library, "hiprtc", runs, &files[..1], &[], &cache);
    eprintln!("[rtc] hiprtc, SPIR-V only");
    let spirv = time(
        &timer,
        &library,
        "hiprtc",
        runs,
        &files,
        &["--offload-arch=spirv64"],
        &cache,
    );
    let nvrtc_library = find_nvrtc(&timer, &files[0], &cache);
    let nvrtc = match &nvrtc_library {
        Ok(lib) => {
            eprintln!("[rtc] NVRTC ({lib})");
            time(&timer, lib, "nvrtc", runs, &files, &[], &cache)
        }
        Err(e) => Err(e.clone()),
    };

    let server = tools.start_compile_server();
    let pch_cache = dir.join("offline-cache");
    let mut rows = Vec::new();
    for (name, file) in names.iter().zip(&files) {
        let f = file_name(name);
        let from = |lines: &Result<Vec<(String, String, String)>, String>, kind: &str| {
            lines
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|l| lookup(l, kind, &f))
        };
        let out = dir.join(format!("{name}.co"));
        let genco = || -> Result<f64, String> {
            let f = run(Command::new(&tools.hipmlir)
                .arg("--genco")
                .arg(file)
                .arg("-o")
                .arg(&out)
                .env("HIPMLIR_CACHE_DIR", &pch_cache))?;
            if f.success {
                Ok(f.seconds)
            } else {
                Err(first_error_line(&f))
            }
        };
        // Two compiles make the PCH of these flags; the timed ones use it.
        let offline = server
            .clone()
            .and_then(|()| genco())
            .and_then(|_| genco())
            .and_then(|_| {
                let times = (0..runs).map(|_| genco()).collect::<Result<Vec<_>, _>>()?;
                stats::median(&times).ok_or_else(|| "no run".to_string())
            });
        rows.push(RtcRow {
            name: name.clone(),
            hiprtc: from(&cold, "compile"),
            hiprtc_spirv: from(&spirv, "compile"),
            hiprtc_cached: from(&cold, "cached"),
            offline,
            nvrtc: from(&nvrtc, "compile"),
        });
    }
    let first_file = file_name(&names[0]);
    Ok(Rtc {
        rows,
        first_cold: cold
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|l| lookup(l, "first", &first_file)),
        first_warm: warm
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|l| lookup(l, "first", &first_file)),
        nvrtc_library,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timers_lines_are_read_by_kind_and_file() {
        let lines = parse(
            "first\tsaxpy.hip\t0.9\ncompile\tsaxpy.hip\t0.036\ncode\tsaxpy.hip\t3544\nbad line\n",
        );
        assert_eq!(lookup(&lines, "compile", "saxpy.hip"), Ok(0.036));
        assert_eq!(lookup(&lines, "first", "saxpy.hip"), Ok(0.9));
        assert!(lookup(&lines, "cached", "saxpy.hip").is_err());
        // A file that did not compile has its error in every figure; the others keep theirs.
        let lines = parse(
            "failed\thalf.hip\thalf.hip:6:33: error: unknown type name '__half2'\n\
             compile\tsaxpy.hip\t0.036\n",
        );
        assert_eq!(
            lookup(&lines, "compile", "half.hip"),
            Err("half.hip:6:33: error: unknown type name '__half2'".to_string())
        );
        assert_eq!(lookup(&lines, "compile", "saxpy.hip"), Ok(0.036));
    }
}
