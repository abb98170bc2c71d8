//! The GPU part: hipmlir on an NVIDIA GPU against nvcc and the raw CUDA driver API.
//!
//! It has two halves, because the GPU machine may have no Rust and no hipmlir:
//! - `prepare` (needs hipmlir) writes a self-contained folder: hipmlir's PTX of every bench kernel
//!   (for the GPU's architecture and for the sm_70 a default build embeds), launch_overhead.hip
//!   built by hipmlir and its PTX, libhipmlir_rt.so, and the CUDA sources of bench/cuda;
//! - `measure` (needs the GPU and nvcc) builds the CUDA twins with nvcc, then in this one process
//!   loads hipmlir's PTX and nvcc's cubin of each kernel, checks each against the host reference,
//!   and times them by CUDA events on the same buffers, the variants taking turns run by run, with
//!   the device-to-device copy bandwidth measured in the same rounds; then it runs
//!   launch_overhead (hipLaunchKernelGGL through hipmlir's runtime) and bench/cuda/launch_raw.cpp
//!   (cuLaunchKernel of the same PTX) alternately.
//!
//! Kernels are launched here by the driver API, not by hipmlir's runtime, so that the two sides of
//! a kernel row differ by the compiler only; what the runtime adds per launch is the launch row.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cases::{Case, Sizes, Work, A};
use crate::cuda::{self, Arg, DeviceBuf, GpuInfo, LaunchSpec, Module, Timer};
use crate::stats;
use crate::tools::{self, Tools};

/// The architecture a default hipmlir build embeds PTX for.
pub const DEFAULT_ARCH: &str = "sm_70";
/// What `prepare` builds for when it cannot ask a GPU (H100 and H200 are sm_90).
pub const FALLBACK_ARCH: &str = "sm_90";
/// The kernel of launch_overhead.hip.
const LAUNCH_KERNEL: &str = "tiny_kernel";

/// Repetitions of the GPU part.
#[derive(Debug, Clone, Copy)]
pub struct GpuPlan {
    pub warmup: usize,
    pub timed: usize,
    pub copy_bytes: usize,
    pub launch_iters: usize,
    pub launch_reps: usize,
    pub launch_rounds: usize,
}

impl GpuPlan {
    pub fn new(quick: bool) -> GpuPlan {
        if quick {
            GpuPlan {
                warmup: 3,
                timed: 11,
                copy_bytes: 256 << 20,
                launch_iters: 5000,
                launch_reps: 5,
                launch_rounds: 3,
            }
        } else {
            GpuPlan {
                warmup: 5,
                timed: 31,
                copy_bytes: 256 << 20,
                launch_iters: 20000,
                launch_reps: 5,
                launch_rounds: 7,
            }
        }
    }
}

/// The ways a kernel is built, in report order; the first two are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuVariant {
    /// hipmlir's PTX for the GPU's architecture (`--offload-arch=sm_XX`), JIT-compiled by the driver.
    Hipmlir,
    /// nvcc's cubin of bench/cuda/NAME.cu (`-O3 -arch=sm_XX`).
    Nvcc,
    /// hipmlir's PTX for sm_70, what a build without --offload-arch embeds (reference).
    HipmlirDefault,
    /// hipmlir's PTX for the GPU's architecture with `-fsanitize=address`, its memory checker
    /// on (see `memcheck`): the checker's cost, not a peer.
    HipmlirChecked,
}

pub const GPU_VARIANTS: [GpuVariant; 4] = [
    GpuVariant::Hipmlir,
    GpuVariant::Nvcc,
    GpuVariant::HipmlirDefault,
    GpuVariant::HipmlirChecked,
];

impl GpuVariant {
    pub fn short(self) -> &'static str {
        match self {
            GpuVariant::Hipmlir => "hipmlir",
            GpuVariant::Nvcc => "nvcc",
            GpuVariant::HipmlirDefault => "hipmlir sm_70",
            GpuVariant::HipmlirChecked => "hipmlir -fsanitize=address",
        }
    }
}

/// A measured variant: the median of the timed runs (seconds, summed over a case's launches).
#[derive(Debug, Clone, Copy)]
pub struct GpuTiming {
    pub median: f64,
}

/// One kernel's row.
pub struct GpuRow {
    pub file: String,
    pub title: String,
    pub size: String,
    pub work: Option<Work>,
    /// In `GPU_VARIANTS` order.
    pub results: Vec<Result<GpuTiming, String>>,
    /// The D2D copy bandwidth (GB/s, bytes read + written) measured in this row's rounds.
    pub copy_bw: Option<f64>,
}

impl GpuRow {
    /// hipmlir's time over nvcc's.
    pub fn ratio(&self) -> Option<f64> {
        let h = self.results.first()?.as_ref().ok()?;
        let n = self.results.get(1)?.as_ref().ok()?;
        Some(h.median / n.median)
    }
    /// The memory checker's cost: hipmlir's time with `-fsanitize=address` over without.
    pub fn checker_ratio(&self) -> Option<f64> {
        let at = |v: GpuVariant| GPU_VARIANTS.iter().position(|&x| x == v);
        let h = self.results.get(at(GpuVariant::Hipmlir)?)?.as_ref().ok()?;
        let c = self
            .results
            .get(at(GpuVariant::HipmlirChecked)?)?
            .as_ref()
            .ok()?;
        Some(c.median / h.median)
    }
    /// hipmlir's GB/s as a fraction of the copy bandwidth (streaming kernels).
    pub fn copy_fraction(&self) -> Option<f64> {
        let Some(Work::Bytes(b)) = self.work else {
            return None;
        };
        let h = self.results.first()?.as_ref().ok()?;
        Some(b / h.median / 1e9 / self.copy_bw?)
    }
}

/// The launch-overhead figures (seconds per launch, medians over rounds).
#[derive(Debug, Clone)]
pub struct GpuLaunch {
    pub iters: usize,
    pub reps: usize,
    pub rounds: usize,
    pub hip: f64,
    pub raw: f64,
    pub hip_first: f64,
    pub raw_first: f64,
}

impl GpuLaunch {
    pub fn ratio(&self) -> f64 {
        self.hip / self.raw
    }
}

/// Everything one GPU run measured.
pub struct GpuRun {
    pub gpu: GpuInfo,
    /// The kernel driver's version (nvidia-smi), when it can be asked.
    pub driver: Option<String>,
    /// nvcc's version line, or why there is no nvcc.
    pub nvcc: Result<String, String>,
    /// The architecture hipmlir's PTX and nvcc's cubin were built for.
    pub arch: String,
    pub quick: bool,
    pub plan: GpuPlan,
    pub date: String,
    pub host: String,
    /// The copy bandwidth over all rows' copies.
    pub copy_bw: Option<f64>,
    pub rows: Vec<GpuRow>,
    pub launch: Result<GpuLaunch, String>,
    /// NVRTC compiling the benchmark kernels (hiprtc's peer; hiprtc itself is measured where
    /// hipmlir's toolchain is, in the rtc part).
    pub nvrtc: Result<crate::rtc::NvrtcRun, String>,
}

/// The folder `prepare` writes.
pub struct Layout {
    pub dir: PathBuf,
}

impl Layout {
    fn ptx(&self, arch: &str, file: &str) -> PathBuf {
        self.dir
            .join("hipmlir")
            .join(arch)
            .join(format!("{file}.ptx"))
    }
    fn error(&self, arch: &str, file: &str) -> PathBuf {
        self.ptx(arch, file).with_extension("error")
    }
    /// Where the PTX built with `-fsanitize=address` for `arch` goes (as `ptx` and `error`).
    fn checked(arch: &str) -> String {
        format!("{arch}-fsanitize=address")
    }
    fn cuda(&self, file: &str) -> PathBuf {
        self.dir.join("cuda").join(file)
    }
    fn launch_exe(&self) -> PathBuf {
        self.dir.join("launch_overhead")
    }
    fn launch_ptx(&self) -> PathBuf {
        self.dir.join("launch_overhead.ptx")
    }
    fn rtc_timer(&self) -> PathBuf {
        self.dir.join("rtc_compile")
    }
    fn rtc_kernels(&self) -> PathBuf {
        self.dir.join("rtc")
    }
    fn arch_file(&self) -> PathBuf {
        self.dir.join("arch")
    }
    /// The native architecture the folder was prepared for.
    fn arch(&self) -> Option<String> {
        std::fs::read_to_string(self.arch_file())
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))
}

/// `hipmlir --print-runtime-dir`: where libhipmlir_rt.so is.
fn runtime_dir(tools: &Tools) -> Result<PathBuf, String> {
    let f = tools::run(Command::new(&tools.hipmlir).arg("--print-runtime-dir"))?;
    if !f.success {
        return Err(format!(
            "hipmlir --print-runtime-dir: {}",
            tools::first_error_line(&f)
        ));
    }
    Ok(PathBuf::from(f.stdout.trim()))
}

/// Writes the folder the measurement needs, for architecture `arch` (and sm_70). A kernel
/// hipmlir cannot build leaves its error in NAME.error, reported by `measure` as a result.
pub fn prepare(tools: &Tools, dir: &Path, arch: &str) -> Result<(), String> {
    let l = Layout {
        dir: dir.to_path_buf(),
    };
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(l.dir.join("cuda"))
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    write(&l.arch_file(), arch)?;
    let mut arches = vec![arch.to_string()];
    if arch != DEFAULT_ARCH {
        arches.push(DEFAULT_ARCH.to_string());
    }
    for (file, _) in crate::cases::all(Sizes::quick()) {
        let src = tools.root.join("bench/kernels").join(format!("{file}.hip"));
        // Each architecture's PTX, and the native one's with the memory checker.
        let builds = arches.iter().map(|a| (a.clone(), a.clone(), None)).chain([(
            Layout::checked(arch),
            arch.to_string(),
            Some("-fsanitize=address"),
        )]);
        for (folder, a, flag) in builds {
            let out = l.ptx(&folder, file);
            std::fs::create_dir_all(out.parent().unwrap_or(dir))
                .map_err(|e| format!("cannot create a folder in {}: {e}", dir.display()))?;
            let f = tools::run(
                Command::new(&tools.hipmlir)
                    .arg("--emit-ptx")
                    .arg(format!("--offload-arch={a}"))
                    .args(flag)
                    .arg(&src)
                    .arg("-o")
                    .arg(&out),
            )?;
            if !f.success || !out.exists() {
                let why = tools.tidy(&tools::first_error_line(&f));
                write(
                    &l.error(&folder, file),
                    &format!("does not compile yet: {why}"),
                )?;
            }
        }
    }
    let cuda_src = tools.root.join("bench/cuda");
    let entries = std::fs::read_dir(&cuda_src)
        .map_err(|e| format!("cannot read {}: {e}", cuda_src.display()))?;
    for e in entries.flatten() {
        copy(&e.path(), &l.cuda(&e.file_name().to_string_lossy()))?;
    }
    // NVRTC's timer and the kernel files it compiles (plain C++: it runs without hipmlir).
    crate::rtc::build_timer(tools, &l.dir)?;
    std::fs::create_dir_all(l.rtc_kernels())
        .map_err(|e| format!("cannot create {}: {e}", l.rtc_kernels().display()))?;
    for (file, _) in crate::cases::all(Sizes::quick()) {
        let name = format!("{file}.hip");
        copy(
            &tools.root.join("bench/kernels").join(&name),
            &l.rtc_kernels().join(&name),
        )?;
    }
    let launch_src = tools.root.join("bench/hip/launch_overhead.hip");
    tools
        .hipmlir_program(&launch_src, &l.launch_exe())
        .map_err(|e| format!("hipmlir cannot build launch_overhead.hip: {e}"))?;
    let f = tools::run(
        Command::new(&tools.hipmlir)
            .arg("--emit-ptx")
            .arg(&launch_src)
            .arg("-o")
            .arg(l.launch_ptx()),
    )?;
    if !f.success {
        return Err(format!(
            "hipmlir --emit-ptx launch_overhead.hip: {}",
            tools::first_error_line(&f)
        ));
    }
    copy(
        &runtime_dir(tools)?.join("libhipmlir_rt.so"),
        &l.dir.join("libhipmlir_rt.so"),
    )
}

/// The native architecture a folder was prepared for.
pub fn prepared_arch(dir: &Path) -> Option<String> {
    Layout {
        dir: dir.to_path_buf(),
    }
    .arch()
}

/// `prepare`, plus this binary and run.sh: the folder to carry to a GPU machine.
pub fn prepare_for_another_machine(tools: &Tools, dir: &Path, arch: &str) -> Result<(), String> {
    prepare(tools, dir, arch)?;
    let me = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    copy(&me, &dir.join("hipmlir-bench"))?;
    let run = dir.join("run.sh");
    write(&run, RUN_SH)?;
    let f = tools::run(Command::new("chmod").arg("+x").arg(&run))?;
    if f.success {
        Ok(())
    } else {
        Err(format!("chmod +x run.sh: {}", tools::first_error_line(&f)))
    }
}

const RUN_SH: &str = r#"#!/usr/bin/env bash
# Written by hipmlir-bench --gpu-prepare (make gpu-bench): measures the GPU section of
# BENCHMARKS.md on this machine (an NVIDIA GPU, its driver and nvcc; no Rust or hipmlir needed).
#
#   run.sh [RESULT_DIR] [--quick] [--only gpu|gpu-programs] [--programs ID,...]
#
# writes RESULT_DIR/BENCHMARKS.md (the GPU section only) and RESULT_DIR/work. Back where the
# repository is: target/release/hipmlir-bench --merge-gpu RESULT_DIR/BENCHMARKS.md
set -u
here=$(cd "$(dirname "$0")" && pwd)
result=${1:-$here/result}
[ $# -gt 0 ] && shift
mkdir -p "$result"
export LD_LIBRARY_PATH=$here${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$PATH:/usr/local/cuda/bin
exec "$here/hipmlir-bench" --only gpu,gpu-programs --gpu-from "$here" --work "$result/work" \
  --out "$result/BENCHMARKS.md" "$@"
"#;

/// The first line of `cmd`'s output that contains `marker`, trimmed.
pub fn version_line(cmd: &mut Command, marker: &str) -> Result<String, String> {
    let f = tools::run(cmd)?;
    if !f.success {
        return Err(tools::first_error_line(&f));
    }
    f.stdout
        .lines()
        .find(|l| l.contains(marker))
        .map(|l| l.trim().to_string())
        .ok_or_else(|| "no version printed".to_string())
}

/// Measures the GPU section from a prepared folder. `Err` when there is no GPU to measure on.
pub fn measure(
    tools: &Tools,
    nvcc: &str,
    prepared: &Path,
    quick: bool,
    only: Option<&[String]>,
) -> Result<GpuRun, String> {
    let l = Layout {
        dir: prepared.to_path_buf(),
    };
    let plan = GpuPlan::new(quick);
    let gpu = cuda::Gpu::open()?;
    let info = gpu.info.clone();
    eprintln!(
        "[gpu] {} (sm_{}, {} SMs, CUDA {})",
        info.name, info.capability, info.sms, info.cuda_version
    );
    let arch = l.arch().unwrap_or_else(|| FALLBACK_ARCH.to_string());
    let nvcc_version = version_line(Command::new(nvcc).arg("--version"), "release");
    let driver = version_line(
        Command::new("nvidia-smi").args(["--query-gpu=driver_version", "--format=csv,noheader"]),
        ".",
    )
    .ok();
    let work = tools.work.join("gpu");
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;

    let sizes = Sizes::gpu(quick);
    let mut rows = Vec::new();
    let mut all_copies = Vec::new();
    for (name, make) in crate::cases::all(sizes) {
        if only.is_some_and(|o| !o.iter().any(|k| k == name)) {
            continue;
        }
        eprintln!("[gpu] {name}: preparing inputs");
        let row = match crate::guard(make) {
            Ok(case) => {
                let images = GPU_VARIANTS
                    .iter()
                    .map(|&v| image(&l, &arch, nvcc, &nvcc_version, &work, &case, v))
                    .collect();
                crate::guard(|| run_case(&case, images, plan, &mut all_copies))
                    .unwrap_or_else(|e| failed_row(&case, &e))
            }
            Err(e) => GpuRow {
                file: name.to_string(),
                title: name.to_string(),
                size: String::new(),
                work: None,
                results: GPU_VARIANTS.iter().map(|_| Err(e.clone())).collect(),
                copy_bw: None,
            },
        };
        for (v, r) in GPU_VARIANTS.iter().zip(&row.results) {
            match r {
                Ok(t) => eprintln!(
                    "[gpu] {name}: {}: {} ms",
                    v.short(),
                    stats::fmt_ms(t.median)
                ),
                Err(e) => eprintln!("[gpu] {name}: {}: {e}", v.short()),
            }
        }
        rows.push(row);
    }
    let copy_bw = stats::median(&all_copies).map(|t| 2.0 * plan.copy_bytes as f64 / t / 1e9);
    // The launch programs open their own contexts; release ours first.
    drop(gpu);
    eprintln!("[gpu] launch overhead: hipLaunchKernelGGL against cuLaunchKernel");
    let launch = crate::guard(|| launch(&l, nvcc, &work, plan)).and_then(|r| r);
    eprintln!("[gpu] runtime compilation: NVRTC");
    let nvrtc = crate::guard(|| nvrtc(&l, &work, quick)).and_then(|r| r);
    Ok(GpuRun {
        gpu: info,
        driver,
        nvcc: nvcc_version,
        arch,
        quick,
        plan,
        date: crate::report::date(),
        host: crate::report::host_description(),
        copy_bw,
        rows,
        launch,
        nvrtc,
    })
}

/// NVRTC on the prepared kernel files: compiles after the process's first, as the rtc part
/// times hiprtc.
fn nvrtc(l: &Layout, work: &Path, quick: bool) -> Result<crate::rtc::NvrtcRun, String> {
    let timer = l.rtc_timer();
    if !timer.is_file() {
        return Err(
            "the prepared folder has no rtc_compile (prepared by an older hipmlir-bench)".into(),
        );
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(l.rtc_kernels())
        .map_err(|e| format!("cannot read {}: {e}", l.rtc_kernels().display()))?
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    let scratch = work.join("nvrtc");
    std::fs::create_dir_all(&scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    crate::rtc::measure_nvrtc(&timer, &files, if quick { 3 } else { 9 }, &scratch)
}

fn failed_row(case: &Case, e: &str) -> GpuRow {
    GpuRow {
        file: case.file.to_string(),
        title: case.title.to_string(),
        size: case.size.clone(),
        work: Some(case.work),
        results: GPU_VARIANTS.iter().map(|_| Err(e.to_string())).collect(),
        copy_bw: None,
    }
}

/// A variant's image: hipmlir's PTX (prepared) or nvcc's cubin (built now).
fn image(
    l: &Layout,
    arch: &str,
    nvcc: &str,
    nvcc_version: &Result<String, String>,
    work: &Path,
    case: &Case,
    v: GpuVariant,
) -> Result<Vec<u8>, String> {
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()));
    match v {
        GpuVariant::Hipmlir | GpuVariant::HipmlirDefault | GpuVariant::HipmlirChecked => {
            let folder = match v {
                GpuVariant::HipmlirDefault => DEFAULT_ARCH.to_string(),
                GpuVariant::HipmlirChecked => Layout::checked(arch),
                _ => arch.to_string(),
            };
            if let Ok(e) = std::fs::read_to_string(l.error(&folder, case.file)) {
                return Err(e.trim().to_string());
            }
            read(&l.ptx(&folder, case.file))
        }
        GpuVariant::Nvcc => {
            if let Err(e) = nvcc_version {
                return Err(format!("no nvcc: {e}"));
            }
            let out = work.join(format!("{}.cubin", case.file));
            let f = tools::run(
                Command::new(nvcc)
                    .args(["-O3", &format!("-arch={arch}"), "-cubin", "-o"])
                    .arg(&out)
                    .arg(l.cuda(&format!("{}.cu", case.file))),
            )?;
            if !f.success {
                return Err(format!("nvcc failed: {}", tools::first_error_line(&f)));
            }
            read(&out)
        }
    }
}

/// A variant ready to time: its launches (functions resolved), checked once.
struct Ready {
    launches: Vec<LaunchSpec>,
    times: Vec<f64>,
    /// The memory checker's state, for the checked variant.
    checker: Option<crate::memcheck::CudaBound>,
    _module: Module,
}

fn run_case(
    case: &Case,
    images: Vec<Result<Vec<u8>, String>>,
    plan: GpuPlan,
    all_copies: &mut Vec<f64>,
) -> GpuRow {
    let buffers: Result<Vec<DeviceBuf>, String> = case
        .buffers
        .iter()
        .map(|b| DeviceBuf::new(b.init.len()))
        .collect();
    let buffers = match buffers {
        Ok(b) => b,
        Err(e) => return failed_row(case, &e),
    };
    let mut ready: Vec<Result<Ready, String>> = images
        .into_iter()
        .zip(GPU_VARIANTS)
        .map(|(img, v)| img.and_then(|img| check_variant(case, &buffers, &img, v)))
        .collect();
    let timer = Timer::new();
    let mut probe = cuda::CopyProbe::new(plan.copy_bytes).ok();
    if let Ok(timer) = &timer {
        // Each round starts with the copy, then runs every variant once, starting from a
        // different one each round: the kernel right after the 256 MB copy pays for the copy's
        // dirty L2 lines, and that must not always be the same variant.
        let n = ready.len();
        for i in 0..plan.warmup + plan.timed {
            let keep = i >= plan.warmup;
            if let Some(p) = &mut probe {
                if p.run(keep).is_err() {
                    probe = None;
                }
            }
            for k in (0..n).map(|j| (i + j) % n) {
                let r = &mut ready[k];
                let Ok(v) = r else { continue };
                match timer.time(|| v.launches.iter().try_for_each(cuda::launch)) {
                    Ok(t) if keep => v.times.push(t),
                    Ok(_) => {}
                    Err(e) => *r = Err(format!("failed in a timed run: {e}")),
                }
            }
        }
    }
    let copy_bw = probe.as_ref().and_then(|p| p.bandwidth());
    if let Some(p) = &probe {
        all_copies.extend(&p.times);
    }
    let results = ready
        .into_iter()
        .map(|r| {
            let r = r?;
            if let Err(e) = &timer {
                return Err(e.clone());
            }
            if let Some(checker) = &r.checker {
                checker.check_quiet()?;
            }
            Ok(GpuTiming {
                median: stats::median(&r.times).ok_or("no run timed")?,
            })
        })
        .collect();
    GpuRow {
        file: case.file.to_string(),
        title: case.title.to_string(),
        size: case.size.clone(),
        work: Some(case.work),
        results,
        copy_bw,
    }
}

/// Loads the image, resolves the case's kernels, runs the case once on fresh inputs and checks
/// the outputs against the host reference.
fn check_variant(
    case: &Case,
    buffers: &[DeviceBuf],
    image: &[u8],
    v: GpuVariant,
) -> Result<Ready, String> {
    let module = Module::load(image)?;
    let checker = match v {
        GpuVariant::HipmlirChecked => Some(crate::memcheck::bind_cuda(&module, buffers)?),
        _ => None,
    };
    let text = String::from_utf8_lossy(image);
    let mut launches = Vec::new();
    for l in &case.launches {
        let function = module.function(l.kernel)?;
        // A PTX entry with other parameters than the source's would read garbage. (Where the
        // count is unknown, a checked kernel is given extents: the driver reads no more
        // parameters than the kernel has.)
        let mut extents = v == GpuVariant::HipmlirChecked;
        if !image.starts_with(b"\x7fELF") {
            if let Some(entry) = cuda::find_entry(&module.entries, l.kernel) {
                if let Some(n) = cuda::ptx_param_count(&text, entry) {
                    extents = crate::memcheck::takes_extents(&l.args, n).ok_or_else(|| {
                        format!("{entry} has {n} parameters, the source {}", l.args.len())
                    })?;
                }
            }
        }
        let dims = |v: &[usize]| -> [u32; 3] {
            let mut d = [1u32; 3];
            for (i, x) in v.iter().take(3).enumerate() {
                d[i] = *x as u32;
            }
            d
        };
        let block = dims(&l.local);
        let global = dims(&l.global);
        launches.push(LaunchSpec {
            function,
            grid: [
                global[0] / block[0],
                global[1] / block[1],
                global[2] / block[2],
            ],
            block,
            args: l
                .args
                .iter()
                .map(|a| match *a {
                    A::Buf(i) => Arg::Ptr(buffers[i].ptr),
                    A::I32(v) => Arg::I32(v),
                    A::F32(v) => Arg::F32(v),
                })
                .chain(
                    crate::memcheck::extents(&l.args, &case.buffers)
                        .into_iter()
                        .filter(|_| extents)
                        .map(Arg::U64),
                )
                .collect(),
        });
    }
    for (buf, b) in buffers.iter().zip(&case.buffers) {
        buf.upload(&b.init)?;
    }
    launches.iter().try_for_each(cuda::launch)?;
    cuda::synchronize()?;
    let mut out = Vec::new();
    for (buf, b) in buffers.iter().zip(&case.buffers) {
        out.push(if b.output {
            buf.download()?
        } else {
            Vec::new()
        });
    }
    (case.check)(&out).map_err(|e| format!("wrong output: {e}"))?;
    if let Some(checker) = &checker {
        checker.check_quiet()?;
    }
    Ok(Ready {
        launches,
        times: Vec::new(),
        checker,
        _module: module,
    })
}

/// `key value` lines of a launch program that said `check ok`.
fn parse(f: &tools::Finished, what: &str) -> Result<(f64, f64), String> {
    if !f.success || !f.stdout.lines().any(|l| l.trim() == "check ok") {
        return Err(format!("{what}: {}", tools::first_error_line(f)));
    }
    let get = |key: &str| {
        f.stdout
            .lines()
            .filter_map(|l| l.trim().split_once(' '))
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.trim().parse::<f64>().ok())
            .ok_or_else(|| format!("{what} printed no {key}"))
    };
    Ok((get("launch_s_median")?, get("first_launch_s")?))
}

fn launch(l: &Layout, nvcc: &str, work: &Path, plan: GpuPlan) -> Result<GpuLaunch, String> {
    let raw = work.join("launch_raw");
    let f = tools::run(
        Command::new(nvcc)
            .args(["-O2", "-o"])
            .arg(&raw)
            .arg(l.cuda("launch_raw.cpp"))
            .arg("-lcuda"),
    )?;
    if !f.success {
        return Err(format!(
            "nvcc cannot build launch_raw.cpp: {}",
            tools::first_error_line(&f)
        ));
    }
    let ptx = std::fs::read(l.launch_ptx())
        .map_err(|e| format!("cannot read {}: {e}", l.launch_ptx().display()))?;
    let entry = cuda::find_entry(&cuda::ptx_entries(&ptx), LAUNCH_KERNEL)
        .ok_or_else(|| format!("no {LAUNCH_KERNEL} in launch_overhead.ptx"))?
        .to_string();
    let lib_path = match std::env::var("LD_LIBRARY_PATH") {
        Ok(p) if !p.is_empty() => format!("{}:{p}", l.dir.display()),
        _ => l.dir.display().to_string(),
    };
    let (iters, reps) = (plan.launch_iters.to_string(), plan.launch_reps.to_string());
    let (mut hip, mut rawt, mut hip_first, mut raw_first) = (vec![], vec![], vec![], vec![]);
    for round in 0..plan.launch_rounds {
        let f = tools::run(
            Command::new(l.launch_exe())
                .args([&iters, &reps])
                .env("HIPMLIR_BACKEND", "cuda")
                .env("LD_LIBRARY_PATH", &lib_path),
        )?;
        let (h, hf) = parse(&f, "launch_overhead")?;
        let f = tools::run(
            Command::new(&raw)
                .arg(l.launch_ptx())
                .arg(&entry)
                .args([&iters, &reps]),
        )?;
        let (r, rf) = parse(&f, "launch_raw")?;
        eprintln!(
            "[gpu] launch round {}: hipLaunchKernelGGL {}, cuLaunchKernel {}",
            round + 1,
            stats::fmt_time(h),
            stats::fmt_time(r)
        );
        hip.push(h);
        rawt.push(r);
        hip_first.push(hf);
        raw_first.push(rf);
    }
    let med = |v: &[f64]| stats::median(v).ok_or("no rounds".to_string());
    Ok(GpuLaunch {
        iters: plan.launch_iters,
        reps: plan.launch_reps,
        rounds: plan.launch_rounds,
        hip: med(&hip)?,
        raw: med(&rawt)?,
        hip_first: med(&hip_first)?,
        raw_first: med(&raw_first)?,
    })
}

/// The architecture to prepare for: the GPU's here, if there is one, else `FALLBACK_ARCH`.
pub fn local_arch() -> String {
    match cuda::Gpu::open() {
        Ok(g) => format!("sm_{}", g.info.capability),
        Err(_) => FALLBACK_ARCH.to_string(),
    }
}
