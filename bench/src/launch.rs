//! Launch overhead (hipLaunchKernelGGL through hipmlir's runtime versus raw clEnqueueNDRangeKernel
//! of the same SPIR-V kernel) and the JIT cache (time to first launch, cold versus warm).
//!
//! Both sides are C++ programs in bench/hip timed the same way with <chrono>: launch_overhead.hip
//! built by hipmlir, launch_raw.cpp built by g++ against the OpenCL ICD loader and given hipmlir's
//! SPIR-V of launch_overhead.hip (on USM, its counter's address set as an integer, as hipmlir's
//! runtime sets it) or clang-22's SPIR-V of the same kernel in OpenCL C, launch_raw.cl (on a
//! cl_mem buffer, which needs a pointer parameter). They run alternately, several rounds, medians.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cl;
use crate::stats;
use crate::tools::{self, Tools};

/// The kernel both programs launch.
const KERNEL: &str = "tiny_kernel";

/// The two built programs.
pub struct Programs {
    pub hip: PathBuf,
    pub raw: PathBuf,
    pub spv: PathBuf,
    pub entry_point: String,
    /// clang-22's SPIR-V of launch_raw.cl (entry point [`KERNEL`]), for the raw launch on buffers.
    pub buffer_spv: PathBuf,
}

/// Builds launch_overhead.hip with hipmlir, its SPIR-V, and launch_raw.cpp with g++.
pub fn build(tools: &Tools) -> Result<Programs, String> {
    let dir = tools.work.join("launch");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let src = tools.root.join("bench/hip/launch_overhead.hip");
    let hip = dir.join("launch_overhead");
    tools
        .hipmlir_program(&src, &hip)
        .map_err(|e| format!("hipmlir cannot build launch_overhead.hip: {e}"))?;
    let spv = dir.join("launch_overhead.spv");
    tools
        .hipmlir_spirv(&src, &spv)
        .map_err(|e| format!("hipmlir --emit-spirv launch_overhead.hip: {e}"))?;
    let bytes = std::fs::read(&spv).map_err(|e| format!("cannot read {}: {e}", spv.display()))?;
    let eps = cl::spirv_entry_points(&bytes)?;
    let entry_point = cl::find_entry_point(&eps, KERNEL)
        .ok_or_else(|| format!("no entry point for {KERNEL} in {}", eps.join(", ")))?
        .to_string();
    let buffer_spv = dir.join("launch_raw.cl.spv");
    tools
        .clang_spirv(&tools.root.join("bench/hip/launch_raw.cl"), &buffer_spv)
        .map_err(|e| format!("clang-22 cannot compile launch_raw.cl: {e}"))?;
    let raw = dir.join("launch_raw");
    let f = tools::run(
        Command::new("g++")
            .args(["-O2", "-std=c++17"])
            .arg(tools.root.join("bench/hip/launch_raw.cpp"))
            .arg("-o")
            .arg(&raw)
            .arg("-lOpenCL"),
    )?;
    if !f.success {
        return Err(format!(
            "g++ cannot build launch_raw.cpp: {}",
            tools::first_error_line(&f)
        ));
    }
    Ok(Programs {
        hip,
        raw,
        spv,
        entry_point,
        buffer_spv,
    })
}

/// The `key value` lines a program printed, once it said `check ok`.
pub fn parse(f: &tools::Finished, what: &str) -> Result<HashMap<String, f64>, String> {
    if !f.success || !f.stdout.lines().any(|l| l.trim() == "check ok") {
        return Err(format!("{what}: {}", tools::first_error_line(f)));
    }
    Ok(f.stdout
        .lines()
        .filter_map(|l| {
            let (k, v) = l.trim().split_once(' ')?;
            Some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect())
}

pub fn value(m: &HashMap<String, f64>, key: &str, what: &str) -> Result<f64, String> {
    m.get(key)
        .copied()
        .ok_or_else(|| format!("{what} printed no {key}"))
}

/// Runs the HIP program once with the given environment; returns its figures and wall time.
fn run_hip(
    p: &Programs,
    iters: usize,
    reps: usize,
    env: &[(&str, String)],
    unset: &[&str],
) -> Result<(HashMap<String, f64>, f64), String> {
    let mut cmd = Command::new(&p.hip);
    cmd.arg(iters.to_string()).arg(reps.to_string());
    for (k, v) in env {
        cmd.env(k, v);
    }
    for k in unset {
        cmd.env_remove(k);
    }
    let f = tools::run(&mut cmd)?;
    Ok((parse(&f, "launch_overhead")?, f.seconds))
}

/// The raw OpenCL program, its counter in a buffer or (`usm`) in a USM device allocation.
fn run_raw(
    p: &Programs,
    iters: usize,
    reps: usize,
    memory: &str,
) -> Result<HashMap<String, f64>, String> {
    let (spv, entry_point) = match memory {
        "buffer" => (&p.buffer_spv, KERNEL),
        _ => (&p.spv, p.entry_point.as_str()),
    };
    let f = tools::run(
        Command::new(&p.raw)
            .arg(spv)
            .arg(entry_point)
            .arg(iters.to_string())
            .arg(reps.to_string())
            .arg(memory),
    )?;
    parse(&f, "launch_raw")
}

/// Launch overhead, medians over rounds.
#[derive(Debug, Clone)]
pub struct Overhead {
    pub iters: usize,
    pub reps: usize,
    pub rounds: usize,
    /// Seconds per hipLaunchKernelGGL.
    pub hip: f64,
    /// Seconds per clSetKernelArg x2 + clEnqueueNDRangeKernel, the pointer an OpenCL buffer.
    pub raw: f64,
    /// The same with the counter a USM device allocation, its address set as an integer (the
    /// memory hipmlir's runtime uses, passed as it passes it); `None` on a device without USM.
    pub raw_usm: Option<f64>,
    /// Seconds per clEnqueueNDRangeKernel with arguments set once.
    pub raw_enqueue_only: f64,
    /// First launch of the raw program (program built from SPIR-V, no cache), per round.
    pub raw_first_launch: Vec<f64>,
}

impl Overhead {
    /// hipLaunchKernelGGL over the raw launch on cl_mem buffers.
    pub fn ratio(&self) -> f64 {
        self.hip / self.raw
    }

    /// hipLaunchKernelGGL over the raw launch on the same memory kind (USM): what hipmlir adds.
    pub fn same_memory_ratio(&self) -> Option<f64> {
        self.raw_usm.map(|usm| self.hip / usm)
    }
}

/// The flag on which the bench's own binary only keeps one core busy (see [`CoreLoad`]).
pub const BURN_ONE_CORE: &str = "--burn-one-core";

/// Another process keeping one core busy while it lives: the loaded-machine variant of the
/// launch measurement (a launch path that waits on locks or wakes threads degrades under load
/// far more than a raw enqueue).
pub struct CoreLoad(std::process::Child);

impl CoreLoad {
    pub fn start() -> Result<CoreLoad, String> {
        let exe = std::env::current_exe().map_err(|e| format!("the bench's own path: {e}"))?;
        Command::new(exe)
            .arg(BURN_ONE_CORE)
            .spawn()
            .map(CoreLoad)
            .map_err(|e| format!("cannot start the load process: {e}"))
    }
}

impl Drop for CoreLoad {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// What the load process does until it is killed.
pub fn burn_one_core() -> ! {
    let mut x: u64 = 0;
    loop {
        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
    }
}

/// [`overhead`] measured while another process keeps one core busy.
pub fn overhead_with_one_core_loaded(
    p: &Programs,
    tools: &Tools,
    iters: usize,
    reps: usize,
    rounds: usize,
) -> Result<Overhead, String> {
    let _load = CoreLoad::start()?;
    overhead(p, tools, iters, reps, rounds)
}

pub fn overhead(
    p: &Programs,
    tools: &Tools,
    iters: usize,
    reps: usize,
    rounds: usize,
) -> Result<Overhead, String> {
    // The runtime's own JIT cache (when there is one) goes to the bench's folder, not the user's.
    let cache = tools.work.join("launch/cache");
    let (mut hip, mut raw, mut raw_eo, mut raw_first) = (vec![], vec![], vec![], vec![]);
    let mut raw_usm = Vec::new();
    let mut usm_missing = false;
    for round in 0..rounds {
        let env = [("HIPMLIR_CACHE_DIR", path_string(&cache))];
        let (h, _) = run_hip(p, iters, reps, &env, &[])?;
        let r = run_raw(p, iters, reps, "buffer")?;
        hip.push(value(&h, "launch_s_median", "launch_overhead")?);
        raw.push(value(&r, "launch_s_median", "launch_raw")?);
        raw_eo.push(value(&r, "enqueue_only_s_median", "launch_raw")?);
        raw_first.push(value(&r, "first_launch_s", "launch_raw")?);
        match run_raw(p, iters, reps, "usm") {
            Ok(u) => raw_usm.push(value(&u, "launch_s_median", "launch_raw usm")?),
            Err(e) => {
                if !usm_missing {
                    eprintln!("[launch] raw OpenCL on USM not measured: {e}");
                }
                usm_missing = true;
            }
        }
        eprintln!(
            "[launch] round {}: hipLaunchKernelGGL {} per launch, raw OpenCL {}",
            round + 1,
            stats::fmt_time(hip[round]),
            stats::fmt_time(raw[round])
        );
    }
    let med = |v: &[f64]| stats::median(v).ok_or("no rounds");
    Ok(Overhead {
        iters,
        reps,
        rounds,
        hip: med(&hip)?,
        raw: med(&raw)?,
        raw_usm: if usm_missing {
            None
        } else {
            stats::median(&raw_usm)
        },
        raw_enqueue_only: med(&raw_eo)?,
        raw_first_launch: raw_first,
    })
}

/// Time to first launch with the runtime's on-disk cache cold, warm and disabled.
#[derive(Debug, Clone)]
pub struct Jit {
    /// First launch (s) and process wall time (s) per run.
    pub cold: Vec<(f64, f64)>,
    pub warm: Vec<(f64, f64)>,
    pub disabled: Vec<(f64, f64)>,
    /// Files the runtime left in HIPMLIR_CACHE_DIR after each cold run.
    pub files_written: Vec<usize>,
}

impl Jit {
    /// Whether the runtime wrote a cache at all.
    pub fn cache_available(&self) -> bool {
        self.files_written.iter().any(|&n| n > 0)
    }
    pub fn median_first(v: &[(f64, f64)]) -> Option<f64> {
        stats::median(&v.iter().map(|x| x.0).collect::<Vec<_>>())
    }
    pub fn median_wall(v: &[(f64, f64)]) -> Option<f64> {
        stats::median(&v.iter().map(|x| x.1).collect::<Vec<_>>())
    }
    /// Cold first launch over warm first launch.
    pub fn speedup(&self) -> Option<f64> {
        if !self.cache_available() {
            return None;
        }
        Some(Self::median_first(&self.cold)? / Self::median_first(&self.warm)?)
    }
}

fn path_string(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn count_files(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| {
            let path = e.path();
            if path.is_dir() {
                count_files(&path)
            } else {
                1
            }
        })
        .sum()
}

pub fn jit(p: &Programs, tools: &Tools, runs: usize) -> Result<Jit, String> {
    let dir = tools.work.join("jit-cache");
    let mut j = Jit {
        cold: vec![],
        warm: vec![],
        disabled: vec![],
        files_written: vec![],
    };
    for run in 0..runs {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let env = [("HIPMLIR_CACHE_DIR", path_string(&dir))];
        let off = ["HIPMLIR_DISABLE_CACHE"];
        let (cold, cold_wall) = run_hip(p, 10, 1, &env, &off)?;
        j.cold.push((
            value(&cold, "first_launch_s", "launch_overhead")?,
            cold_wall,
        ));
        j.files_written.push(count_files(&dir));
        let (warm, warm_wall) = run_hip(p, 10, 1, &env, &off)?;
        j.warm.push((
            value(&warm, "first_launch_s", "launch_overhead")?,
            warm_wall,
        ));
        let mut disabled_env = env.to_vec();
        disabled_env.push(("HIPMLIR_DISABLE_CACHE", "1".to_string()));
        let (dis, dis_wall) = run_hip(p, 10, 1, &disabled_env, &[])?;
        j.disabled
            .push((value(&dis, "first_launch_s", "launch_overhead")?, dis_wall));
        eprintln!(
            "[jit] run {}: first launch cold {}, warm {}, cache disabled {} ({} file(s) in the cache)",
            run + 1,
            stats::fmt_time(j.cold[run].0),
            stats::fmt_time(j.warm[run].0),
            stats::fmt_time(j.disabled[run].0),
            j.files_written[run]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(j)
}
