//! hipmlir-bench: measures hipmlir side by side with its peers, in one run, on one device —
//! kernel quality, launch overhead, compile time, runtime compilation (hiprtc) and the JIT
//! cache — writes BENCHMARKS.md and
//! prints a summary. `make bench` runs it; `make bench QUICK=1` runs the short version. Where an
//! NVIDIA GPU and nvcc exist, it also measures the GPU section (hipmlir against nvcc and the raw
//! driver API); `make gpu-bench` prepares a folder that measures it on another machine.
//!
//! Nothing here panics on a failure of what it measures: every failure (a kernel hipmlir cannot
//! compile yet, a wrong output, a missing device or tool) becomes a line of the report.

mod cases;
mod cl;
mod compile;
mod copies;
mod cuda;
mod gpu;
mod gpu_programs;
mod gpu_programs_report;
mod gpu_report;
mod kernels;
mod launch;
mod memcheck;
mod report;
mod rtc;
mod stats;
mod tools;

use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::tools::Tools;

const USAGE: &str = "\
usage: hipmlir-bench [--quick] [--out FILE] [--work DIR] [--hipmlir PATH] [--clang CMD]
                     [--llc CMD] [--only PART[,PART...]] [--kernels NAME[,NAME...]]
                     [--nvcc CMD] [--gpu-from DIR] [--programs ID[,ID...]]
       hipmlir-bench --gpu-prepare DIR [--gpu-arch sm_XX]
       hipmlir-bench --merge-gpu FILE [--out FILE]

Measures hipmlir against its peers on the OpenCL device (and, where there is one, an NVIDIA GPU)
and writes a Markdown report.
  --quick      shorter run (fewer repetitions, smaller matmul); streaming sizes stay >= 64 MB
  --out FILE   the report (default: BENCHMARKS.md at the repository root)
  --work DIR   scratch folder (default: build/bench at the repository root)
  --hipmlir P  the hipmlir binary (default: target/release/hipmlir)
  --clang CMD  the OpenCL C to SPIR-V compiler (default: clang-22)
  --llc CMD    LLVM IR to SPIR-V for the reference HIP build (default: llc-22)
  --only P,..  run only these parts: kernels, launch, copies, compile, rtc, jit, gpu,
               gpu-programs
               (--only gpu and gpu-programs replace their GPU sections and keep the rest)
  --kernels K  run only these kernels (comma-separated file stems of bench/kernels)
  --programs I run only these real programs of the gpu-programs part (corpus ids)
  --nvcc CMD   the CUDA compiler of the GPU part (default: nvcc, else /usr/local/cuda/bin/nvcc)
  --gpu-from D measure the GPU part from a folder written by --gpu-prepare (no hipmlir needed)
  --gpu-prepare D  write the folder (hipmlir's PTX and programs, the corpus' HeCBench programs
               built by hipmlir with their CUDA twins, the CUDA sources, this binary and
               run.sh) that measures the GPU sections on a machine with a GPU and nvcc
  --gpu-arch A the architecture --gpu-prepare builds for (default: this machine's GPU, or sm_90)
  --merge-gpu F  put the GPU sections of report F (written by run.sh, or bench/mpi/run.sh's
               output) into --out
";

/// The parts `--only` names.
const PARTS: [&str; 8] = [
    "kernels",
    "launch",
    "copies",
    "compile",
    "rtc",
    "jit",
    "gpu",
    "gpu-programs",
];
/// The markers of the section bench/mpi/run.sh writes (MPI strong scaling on two GPUs).
const MPI_BEGIN: &str = "<!-- mpi-section: begin -->";
const MPI_END: &str = "<!-- mpi-section: end -->";
/// A section written by hand (what each missed target's profile shows), kept by every run.
const NOTES_BEGIN: &str = "<!-- notes-section: begin -->";
const NOTES_END: &str = "<!-- notes-section: end -->";

/// The parts measured on a GPU machine, each with a section of its own.
const GPU_PARTS: [&str; 2] = ["gpu", "gpu-programs"];

/// Runs `f`, turning a panic into an error message so that one broken part cannot stop the rest.
pub fn guard<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".to_string());
        format!("internal error (panic): {msg}")
    })
}

/// How much of everything to do.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub quick: bool,
    pub kernel_reps: kernels::Reps,
    pub copy_bytes: usize,
    pub launch_iters: usize,
    pub launch_reps: usize,
    pub launch_rounds: usize,
    /// Timed rounds of each pitched and contiguous copy.
    pub copy_rounds: usize,
    pub compile_runs: usize,
    pub scaling_runs: usize,
    pub jit_runs: usize,
}

impl Plan {
    fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                quick,
                kernel_reps: kernels::Reps {
                    warmup: 2,
                    timed: 7,
                },
                copy_bytes: 256 << 20,
                launch_iters: 5000,
                launch_reps: 5,
                launch_rounds: 3,
                copy_rounds: 5,
                compile_runs: 3,
                scaling_runs: 1,
                jit_runs: 3,
            }
        } else {
            Plan {
                quick,
                kernel_reps: kernels::Reps {
                    warmup: 3,
                    timed: 15,
                },
                copy_bytes: 256 << 20,
                launch_iters: 20000,
                launch_reps: 5,
                launch_rounds: 5,
                copy_rounds: 15,
                compile_runs: 5,
                scaling_runs: 3,
                jit_runs: 5,
            }
        }
    }
}

struct Options {
    quick: bool,
    out: PathBuf,
    tools: Tools,
    only: Option<Vec<String>>,
    kernels: Option<Vec<String>>,
    programs: Option<Vec<String>>,
    nvcc: Option<String>,
    gpu_from: Option<PathBuf>,
    gpu_prepare: Option<PathBuf>,
    gpu_arch: Option<String>,
    merge_gpu: Option<PathBuf>,
}

fn parse_args() -> Result<Options, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    let mut o = Options {
        quick: false,
        out: root.join("BENCHMARKS.md"),
        tools: Tools {
            hipmlir: root.join("target/release/hipmlir"),
            clang: "clang-22".to_string(),
            llc: "llc-22".to_string(),
            work: root.join("build/bench"),
            root,
        },
        only: None,
        kernels: None,
        programs: None,
        nvcc: None,
        gpu_from: None,
        gpu_prepare: None,
        gpu_arch: None,
        merge_gpu: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |flag: &str| args.next().ok_or(format!("{flag} needs a value"));
        match a.as_str() {
            "--quick" => o.quick = true,
            "--out" => o.out = PathBuf::from(value("--out")?),
            "--work" => o.tools.work = PathBuf::from(value("--work")?),
            "--hipmlir" => o.tools.hipmlir = PathBuf::from(value("--hipmlir")?),
            "--clang" => o.tools.clang = value("--clang")?,
            "--llc" => o.tools.llc = value("--llc")?,
            "--nvcc" => o.nvcc = Some(value("--nvcc")?),
            "--gpu-from" => o.gpu_from = Some(PathBuf::from(value("--gpu-from")?)),
            "--gpu-prepare" => o.gpu_prepare = Some(PathBuf::from(value("--gpu-prepare")?)),
            "--gpu-arch" => o.gpu_arch = Some(value("--gpu-arch")?),
            "--merge-gpu" => o.merge_gpu = Some(PathBuf::from(value("--merge-gpu")?)),
            "--only" => {
                let parts: Vec<String> = value("--only")?
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .collect();
                for p in &parts {
                    if !PARTS.contains(&p.as_str()) {
                        return Err(format!("unknown part '{p}'"));
                    }
                }
                o.only = Some(parts);
            }
            "--programs" => {
                o.programs = Some(
                    value("--programs")?
                        .split(',')
                        .map(|s| s.trim().to_string())
                        .collect(),
                );
            }
            "--kernels" => {
                let names: Vec<String> = value("--kernels")?
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .collect();
                let known = cases::all(cases::Sizes::quick());
                for n in &names {
                    if !known.iter().any(|(k, _)| k == n) {
                        return Err(format!("unknown kernel '{n}'"));
                    }
                }
                o.kernels = Some(names);
            }
            "-h" | "--help" => {
                print!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some(launch::BURN_ONE_CORE) {
        launch::burn_one_core();
    }
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprint!("hipmlir-bench: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let plan = Plan::new(o.quick);
    let tools = &o.tools;
    if let Some(dir) = &o.gpu_prepare {
        return gpu_prepare(tools, dir, o.gpu_arch.as_deref());
    }
    if let Some(file) = &o.merge_gpu {
        return merge_gpu(file, &o.out);
    }
    if let Err(e) = std::fs::create_dir_all(&tools.work) {
        eprintln!("hipmlir-bench: cannot create {}: {e}", tools.work.display());
        return ExitCode::FAILURE;
    }
    let _servers = match tools::ServerFolder::create() {
        Ok(folder) => folder,
        Err(e) => {
            eprintln!("hipmlir-bench: cannot make a folder for compile servers: {e}");
            return ExitCode::FAILURE;
        }
    };
    let wants = |part: &str| o.only.as_ref().is_none_or(|v| v.iter().any(|p| p == part));
    // The GPU part alone touches neither the OpenCL device nor the rest of the report.
    let only_gpu = o
        .only
        .as_ref()
        .is_some_and(|v| v.iter().all(|p| GPU_PARTS.contains(&p.as_str())));
    let mut r = report::Results {
        quick: o.quick,
        plan,
        ..Default::default()
    };

    let cl = if only_gpu {
        Err("not opened (--only gpu)".to_string())
    } else {
        eprintln!("[device] opening the OpenCL device");
        guard(cl::Cl::open).and_then(|r| r)
    };
    match &cl {
        Ok(c) => {
            eprintln!("[device] {} ({})", c.info.name, c.info.platform);
            r.device = Some(c.info.clone());
            r.copy_bandwidth = Some(
                guard(|| {
                    c.copy_bandwidth(
                        plan.copy_bytes,
                        plan.kernel_reps.warmup,
                        plan.kernel_reps.timed,
                    )
                })
                .and_then(|r| r),
            );
            if let Some(Ok(bw)) = &r.copy_bandwidth {
                eprintln!("[device] copy bandwidth {bw:.1} GB/s");
            }
        }
        Err(e) => {
            if !only_gpu {
                eprintln!("[device] {e}");
            }
            r.device_error = Some(e.clone());
        }
    }

    let sizes = if o.quick {
        cases::Sizes::quick()
    } else {
        cases::Sizes::full()
    };
    if wants("kernels") {
        r.kernels = Some(kernels::run(
            &cl,
            tools,
            sizes,
            plan.kernel_reps,
            plan.copy_bytes,
            o.kernels.as_deref(),
        ));
    }
    // The launch programs use their own OpenCL contexts; release ours first.
    drop(cl);

    if wants("launch") || wants("jit") {
        eprintln!("[launch] building launch_overhead.hip (hipmlir) and launch_raw.cpp (g++)");
        let programs = guard(|| launch::build(tools)).and_then(|r| r);
        if wants("launch") {
            r.launch = Some(programs.as_ref().map_err(Clone::clone).and_then(|p| {
                guard(|| {
                    launch::overhead(
                        p,
                        tools,
                        plan.launch_iters,
                        plan.launch_reps,
                        plan.launch_rounds,
                    )
                })
                .and_then(|r| r)
            }));
        }
        if wants("launch") {
            eprintln!("[launch] again, with one core kept busy by another process");
            r.launch_loaded = Some(programs.as_ref().map_err(Clone::clone).and_then(|p| {
                guard(|| {
                    launch::overhead_with_one_core_loaded(
                        p,
                        tools,
                        plan.launch_iters,
                        plan.launch_reps,
                        plan.launch_rounds,
                    )
                })
                .and_then(|r| r)
            }));
        }
        if wants("jit") {
            r.jit = Some(
                programs
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|p| guard(|| launch::jit(p, tools, plan.jit_runs)).and_then(|r| r)),
            );
        }
    }

    if wants("copies") {
        eprintln!("[copies] pitched_copy.hip: 4096 x 4096-byte hipMemcpy2D against hipMemcpy");
        r.copies = Some(guard(|| copies::run(tools, plan.copy_rounds)).and_then(|r| r));
    }

    if wants("compile") {
        r.compile = Some(
            guard(|| compile::per_kernel(tools, plan.compile_runs)).unwrap_or_else(|e| {
                vec![compile::CompileRow {
                    name: "all".into(),
                    hipmlir: Err(e.clone()),
                    hipmlir_warm: Err(e.clone()),
                    hipmlir_own_process: Err(e.clone()),
                    clang: Err(e),
                }]
            }),
        );
        r.large_file =
            Some(guard(|| compile::large_file(tools, plan.scaling_runs)).and_then(|r| r));
        r.corpus_build = Some(compile::corpus_builds(&tools.root));
        r.first_launch = Some(guard(|| compile::first_launch(tools)).and_then(|r| r));
        r.scaling = Some(
            guard(|| compile::scaling(tools, plan.scaling_runs)).unwrap_or_else(|e| {
                vec![compile::ScalingRow {
                    kernels: 0,
                    hipmlir: Err(e.clone()),
                    clang: Err(e),
                }]
            }),
        );
    }

    if wants("rtc") {
        r.rtc = Some(guard(|| rtc::run_all(tools, plan.compile_runs)).and_then(|r| r));
    }

    let mut gpu_section = None;
    let mut gpu_lines = Vec::new();
    if wants("gpu") {
        match guard(|| gpu_part(&o, plan.quick)).and_then(|r| r) {
            Ok(run) => {
                gpu_section = Some(gpu_report::section(&run));
                gpu_lines = gpu_report::summary(&run);
            }
            Err(e) => {
                eprintln!("[gpu] {e}");
                gpu_lines.push(format!(
                    "GPU: not measured here ({e}); the GPU section of {} is kept as it was",
                    o.out.file_name().unwrap_or_default().to_string_lossy()
                ));
            }
        }
    }

    let mut programs_section = None;
    if wants("gpu-programs") {
        match guard(|| gpu_programs_part(&o)).and_then(|r| r) {
            Ok(run) => {
                programs_section = Some(gpu_programs_report::section(&run));
                gpu_lines.extend(gpu_programs_report::summary(&run));
            }
            Err(e) => {
                eprintln!("[gpu-programs] {e}");
                gpu_lines.push(format!("GPU real programs: not measured here ({e})"));
            }
        }
    }

    r.host = report::host_description();
    r.date = report::date();
    let existing = std::fs::read_to_string(&o.out).unwrap_or_default();
    let summary = if only_gpu {
        Vec::new()
    } else {
        report::summary(&r)
    };
    let body = if only_gpu {
        existing.clone()
    } else {
        report::markdown(&r, &summary)
    };
    let section = gpu_section
        .as_deref()
        .or_else(|| gpu_report::extract(&existing));
    let programs = programs_section.as_deref().or_else(|| {
        gpu_report::extract_between(
            &existing,
            gpu_programs_report::BEGIN,
            gpu_programs_report::END,
        )
    });
    // Written by bench/mpi/run.sh on a machine with two GPUs, kept by every run here.
    let mpi = gpu_report::extract_between(&existing, MPI_BEGIN, MPI_END);
    let notes = gpu_report::extract_between(&existing, NOTES_BEGIN, NOTES_END);
    // --only gpu without a GPU has nothing to change: the report is left untouched.
    let unchanged = only_gpu && gpu_section.is_none() && programs_section.is_none();
    let written = if unchanged {
        Ok(())
    } else {
        let with_gpu = gpu_report::merge(&body, section);
        let with_programs = gpu_report::merge_between(
            &with_gpu,
            programs,
            gpu_programs_report::BEGIN,
            gpu_programs_report::END,
        );
        let with_mpi = gpu_report::merge_between(&with_programs, mpi, MPI_BEGIN, MPI_END);
        std::fs::write(
            &o.out,
            gpu_report::merge_between(&with_mpi, notes, NOTES_BEGIN, NOTES_END),
        )
    };
    println!();
    match &written {
        Ok(()) if unchanged => {}
        Ok(()) => println!("wrote {}", o.out.display()),
        Err(e) => println!("cannot write {}: {e}", o.out.display()),
    }
    // The GPU lines come first: the last two lines stay the launch overhead and kernel geomean.
    for line in gpu_lines.iter().chain(&summary) {
        println!("{line}");
    }
    if written.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The nvcc to use: `--nvcc`, else nvcc on PATH, else CUDA's usual place.
fn nvcc(o: &Options) -> String {
    if let Some(n) = &o.nvcc {
        return n.clone();
    }
    let on_path = std::process::Command::new("nvcc")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    let usual = PathBuf::from("/usr/local/cuda/bin/nvcc");
    if !on_path && usual.exists() {
        usual.to_string_lossy().into_owned()
    } else {
        "nvcc".to_string()
    }
}

/// The GPU part: from a prepared folder, or prepared here first (hipmlir is here).
fn gpu_part(o: &Options, quick: bool) -> Result<gpu::GpuRun, String> {
    let dir = match &o.gpu_from {
        Some(d) => d.clone(),
        None => {
            // No GPU, no need to build anything.
            let arch = format!("sm_{}", cuda::Gpu::open()?.info.capability);
            let dir = o.tools.work.join("gpu-prepared");
            eprintln!("[gpu] building hipmlir's PTX and programs for {arch}");
            gpu::prepare(&o.tools, &dir, &arch)?;
            dir
        }
    };
    gpu::measure(&o.tools, &nvcc(o), &dir, quick, o.kernels.as_deref())
}

/// The real programs on the GPU: from a prepared folder, or prepared here first.
fn gpu_programs_part(o: &Options) -> Result<gpu_programs_report::ProgramsRun, String> {
    // No GPU, no need to build anything.
    // (The context is closed at once: the programs open their own.)
    let gpu = cuda::Gpu::open()?.info.clone();
    let arch = format!("sm_{}", gpu.capability);
    let dir = match &o.gpu_from {
        Some(d) => d.clone(),
        None => {
            let dir = o.tools.work.join("gpu-programs-prepared");
            eprintln!("[gpu-programs] building the corpus' HeCBench programs for {arch}");
            gpu_programs::prepare(&o.tools, &dir, &arch)?;
            dir
        }
    };
    let arch = gpu::prepared_arch(&dir).unwrap_or(arch);
    let nvcc = nvcc(o);
    let version = gpu::version_line(
        std::process::Command::new(&nvcc).arg("--version"),
        "release",
    )
    .unwrap_or_else(|e| format!("nvcc: {e}"));
    let rows = gpu_programs::measure(&dir, &nvcc, &arch, o.programs.as_deref())?;
    Ok(gpu_programs_report::ProgramsRun {
        gpu: gpu.name,
        arch,
        nvcc: version,
        date: report::date(),
        rows,
    })
}

fn gpu_prepare(tools: &Tools, dir: &std::path::Path, arch: Option<&str>) -> ExitCode {
    let arch = arch.map(str::to_string).unwrap_or_else(gpu::local_arch);
    let prepared = gpu::prepare_for_another_machine(tools, dir, &arch);
    if prepared.is_ok() {
        match gpu_programs::prepare(tools, dir, &arch) {
            Ok(n) => eprintln!("[gpu-programs] {n} real programs prepared"),
            // The kernels can still be measured: the section will say why there are no programs.
            Err(e) => eprintln!("[gpu-programs] no real programs: {e}"),
        }
    }
    match prepared {
        Ok(()) => {
            println!(
                "wrote {} (for {arch}): on the GPU machine run {}/run.sh RESULT_DIR, then here \
                 hipmlir-bench --merge-gpu RESULT_DIR/BENCHMARKS.md",
                dir.display(),
                dir.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("hipmlir-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn merge_gpu(from: &std::path::Path, out: &std::path::Path) -> ExitCode {
    let text = match std::fs::read_to_string(from) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("hipmlir-bench: cannot read {}: {e}", from.display());
            return ExitCode::FAILURE;
        }
    };
    let kernels = gpu_report::extract(&text);
    let programs =
        gpu_report::extract_between(&text, gpu_programs_report::BEGIN, gpu_programs_report::END);
    let mpi = gpu_report::extract_between(&text, MPI_BEGIN, MPI_END);
    if kernels.is_none() && programs.is_none() && mpi.is_none() {
        eprintln!("hipmlir-bench: {} has no GPU section", from.display());
        return ExitCode::FAILURE;
    }
    let mut merged = std::fs::read_to_string(out).unwrap_or_default();
    if let Some(section) = kernels {
        merged = gpu_report::merge(&merged, Some(section));
    }
    if let Some(section) = programs {
        merged = gpu_report::merge_between(
            &merged,
            Some(section),
            gpu_programs_report::BEGIN,
            gpu_programs_report::END,
        );
    }
    if let Some(section) = mpi {
        merged = gpu_report::merge_between(&merged, Some(section), MPI_BEGIN, MPI_END);
    }
    // The notes stay last.
    if let Some(notes) = gpu_report::extract_between(&merged, NOTES_BEGIN, NOTES_END) {
        let notes = notes.to_string();
        merged = gpu_report::merge_between(&merged, Some(&notes), NOTES_BEGIN, NOTES_END);
    }
    match std::fs::write(out, merged) {
        Ok(()) => {
            println!(
                "merged the GPU sections of {} into {}",
                from.display(),
                out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("hipmlir-bench: cannot write {}: {e}", out.display());
            ExitCode::FAILURE
        }
    }
}
