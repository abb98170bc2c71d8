//! BENCHMARKS.md and the printed summary.

use std::fmt::Write as _;
use std::process::Command;

use crate::cases::Work;
use crate::cl::DeviceInfo;
use crate::compile::{self, CompileRow, ScalingRow};
use crate::copies::CopyRow;
use crate::kernels::{self, KernelRow, VARIANTS};
use crate::launch::{Jit, Overhead};
use crate::rtc::Rtc;
use crate::stats::{fmt_ms, fmt_ratio, fmt_time, geomean, median};
use crate::Plan;

/// Everything measured in one run; `None` for a part that was not run.
#[derive(Default)]
pub struct Results {
    pub quick: bool,
    pub plan: Plan,
    pub date: String,
    pub host: String,
    pub device: Option<DeviceInfo>,
    pub device_error: Option<String>,
    pub copy_bandwidth: Option<Result<f64, String>>,
    pub kernels: Option<Vec<KernelRow>>,
    pub launch: Option<Result<Overhead, String>>,
    /// The same, while another process keeps one core busy.
    pub launch_loaded: Option<Result<Overhead, String>>,
    pub jit: Option<Result<Jit, String>>,
    /// Pitched 2-D copies against contiguous ones, per direction.
    pub copies: Option<Result<Vec<CopyRow>, String>>,
    pub compile: Option<Vec<CompileRow>>,
    pub scaling: Option<Vec<ScalingRow>>,
    /// Time to the first launch of one kernel of a program of many.
    pub first_launch: Option<Result<compile::FirstLaunch, String>>,
    /// hipmlir's time on the large generated file, and its line count.
    pub large_file: Option<Result<(f64, usize), String>>,
    /// The median build time of the corpus programs `make corpus` built, and how many.
    pub corpus_build: Option<Result<compile::CorpusBuilds, String>>,
    pub rtc: Option<Result<Rtc, String>>,
}

impl Default for Plan {
    fn default() -> Plan {
        Plan::new(false)
    }
}

/// The date, from `date` (the bench has no calendar of its own).
pub fn date() -> String {
    Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// The widest vector extension a `/proc/cpuinfo` flags line names, as the report says it
/// (Intel's OpenCL CPU compiler vectorizes 16 work-items wide with AVX-512, 8 with AVX2: the
/// memory checker's cost on the CPU device differs between the two).
fn vector_extension(flags: &str) -> &'static str {
    const WIDEST_FIRST: [(&str, &str); 4] = [
        ("avx512f", "AVX-512"),
        ("avx2", "AVX2"),
        ("avx", "AVX"),
        ("sse4_2", "SSE4.2"),
    ];
    let flags: Vec<&str> = flags.split_whitespace().collect();
    WIDEST_FIRST
        .iter()
        .find(|(flag, _)| flags.contains(flag))
        .map_or("no AVX", |(_, name)| name)
}

/// CPU model, its widest vector extension, core count and kernel of the host.
pub fn host_description() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    };
    let cpu = match (field("model name"), field("flags")) {
        (Some(model), Some(flags)) => format!("{model} ({})", vector_extension(&flags)),
        (Some(model), None) => model,
        _ => "unknown CPU".to_string(),
    };
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let kernel = Command::new("uname")
        .arg("-sr")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    format!("{cpu}, {cores} cores, {kernel}")
}

/// A table cell: no pipes or line breaks.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The kernel geomean: (value, rows measured, names left out with the reason).
fn kernel_geomean(rows: &[KernelRow]) -> (Option<f64>, usize, Vec<(String, String)>) {
    let mut ratios = Vec::new();
    let mut left_out = Vec::new();
    for row in rows {
        match row.ratio() {
            Some(r) => ratios.push(r),
            None => {
                let why = match row.results.first() {
                    Some(Err(e)) => format!("hipmlir: {e}"),
                    _ => "no peer measured".to_string(),
                };
                left_out.push((row.file.clone(), why));
            }
        }
    }
    (geomean(&ratios), ratios.len(), left_out)
}

/// A short reason for the summary: "does not compile yet", "wrong output", ...
fn short_reason(why: &str) -> &str {
    let why = why.strip_prefix("hipmlir: ").unwrap_or(why);
    why.split(':').next().unwrap_or(why)
}

/// The summary printed at the end and put at the top of the report. Its last two lines are the
/// launch overhead and the kernel geomean.
/// The memory checker's cost: kernel time with `-fsanitize=address` (checker on) over without.
fn memcheck_line(rows: &[KernelRow]) -> String {
    crate::memcheck::cost_line("memory checker", crate::memcheck::ratios(rows))
}

pub fn summary(r: &Results) -> Vec<String> {
    let mut s = Vec::new();
    let mode = if r.quick { "quick run" } else { "full run" };
    match &r.device {
        Some(d) => s.push(format!(
            "hipmlir bench ({mode}) on {} ({}, driver {})",
            d.name, d.platform, d.driver
        )),
        None => s.push(format!(
            "hipmlir bench ({mode}) without a device: {}",
            r.device_error.as_deref().unwrap_or("not opened")
        )),
    }
    if let Some(Ok(bw)) = &r.copy_bandwidth {
        s.push(format!("device copy bandwidth: {bw:.1} GB/s"));
    }
    if let Some(rows) = &r.compile {
        let ratios: Vec<f64> = rows.iter().filter_map(CompileRow::ratio).collect();
        let warm: Vec<f64> = rows.iter().filter_map(CompileRow::warm_ratio).collect();
        let own: Vec<f64> = rows
            .iter()
            .filter_map(CompileRow::own_process_ratio)
            .collect();
        let f = |v: Option<f64>| v.map(|v| format!("{v:.2}")).unwrap_or_else(|| "n/a".into());
        match geomean(&ratios) {
            Some(g) => s.push(format!(
                "compile time hipmlir / clang-22: {g:.2} without a cache, {} with hipmlir's \
                 precompiled header made (target <= 1.0; {} in a process of its own, without the \
                 compile server) (geomean over {} of {} kernel files)",
                f(geomean(&warm)),
                f(geomean(&own)),
                ratios.len(),
                rows.len()
            )),
            None => s.push(
                "compile time hipmlir / clang-22: n/a (no kernel file compiled both ways)".into(),
            ),
        }
    }
    if let Some(rows) = &r.scaling {
        let h = compile::growth(rows, |x| &x.hipmlir);
        let c = compile::growth(rows, |x| &x.clang);
        let f = |v: Option<f64>| v.map(|v| format!("{v:.2}")).unwrap_or_else(|| "n/a".into());
        s.push(format!(
            "compile time 1000 kernels / 100 kernels: hipmlir {}, clang-22 {} (target < 10)",
            f(h),
            f(c)
        ));
    }
    if let Some(first) = &r.first_launch {
        s.push(match first {
            Ok(f) => format!(
                "first launch of 1 of {} kernels: {} (whole module {}; target <= 1 s)",
                compile::FIRST_LAUNCH_KERNELS,
                fmt_time(f.per_kernel),
                fmt_time(f.whole_module)
            ),
            Err(e) => format!("first launch: not measured: {e}"),
        });
    }
    if let Some(large) = &r.large_file {
        let (kernels, _) = compile::LARGE_FILE;
        s.push(match large {
            Ok((t, lines)) => format!(
                "frontend + lowering of a {lines}-line file with {kernels} kernels: {} (target < 2 s)",
                fmt_time(*t)
            ),
            Err(e) => format!("large file: not measured: {e}"),
        });
    }
    if let Some(c) = &r.corpus_build {
        s.push(match c {
            Ok(c) => format!(
                "whole-program build, median over the {} real programs `make corpus` built: {} \
                 (target <= 0.6 s; caches before that run: {})",
                c.programs,
                fmt_time(c.median),
                c.caches.as_deref().unwrap_or("not recorded")
            ),
            Err(e) => format!("whole-program build of the corpus: not measured: {e}"),
        });
    }
    if let Some(rtc) = &r.rtc {
        s.push(rtc_summary(rtc));
    }
    if let Some(j) = &r.jit {
        s.push(match j {
            Err(e) => format!("JIT cache: not measured: {e}"),
            Ok(j) => match j.speedup() {
                Some(x) => format!(
                    "JIT cache first launch cold / warm: {x:.2} ({} cold, {} warm; target >= 10)",
                    fmt_time(Jit::median_first(&j.cold).unwrap_or(0.0)),
                    fmt_time(Jit::median_first(&j.warm).unwrap_or(0.0))
                ),
                None => format!(
                    "JIT cache first launch cold / warm: not available yet (the runtime wrote \
                     nothing to HIPMLIR_CACHE_DIR; first launch {} without a cache)",
                    fmt_time(Jit::median_first(&j.cold).unwrap_or(0.0))
                ),
            },
        });
    }
    if let Some(copies) = &r.copies {
        s.push(match copies {
            Ok(rows) => format!(
                "pitched 4096 x 4096-byte hipMemcpy2D / contiguous hipMemcpy of the same bytes: {} \
                 (GB/s ratios; 1.00 is a pitched copy at memory speed)",
                rows.iter()
                    .map(|c| format!("{} {:.2}", c.direction, c.ratio()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Err(e) => format!("pitched copies: n/a ({e})"),
        });
    }
    if let Some(rows) = &r.kernels {
        s.push(memcheck_line(rows));
    }
    if let Some(loaded) = &r.launch_loaded {
        s.push(match loaded {
            Ok(o) => match o.same_memory_ratio() {
                Some(ratio) => format!(
                    "launch overhead with one core loaded, vs raw OpenCL on cl_mem buffers: \
                     {:.2} ({} against {}; target <= 1.3); on the same memory: {ratio:.2} ({})",
                    o.ratio(),
                    fmt_time(o.hip),
                    fmt_time(o.raw),
                    fmt_time(o.raw_usm.unwrap_or(o.raw))
                ),
                None => format!(
                    "launch overhead with one core loaded, vs raw OpenCL: {:.2} ({} against {}; \
                     target <= 1.3)",
                    o.ratio(),
                    fmt_time(o.hip),
                    fmt_time(o.raw)
                ),
            },
            Err(e) => format!("launch overhead with one core loaded: n/a ({e})"),
        });
    }
    if let Some(launch) = &r.launch {
        s.push(match launch {
            Ok(o) => match (o.same_memory_ratio(), o.raw_usm) {
                (Some(ratio), Some(usm)) => format!(
                    "launch overhead vs raw OpenCL on cl_mem buffers: {:.2} ({} per \
                     hipLaunchKernelGGL, {} per raw clSetKernelArg x2 + clEnqueueNDRangeKernel; \
                     target <= 1.2); vs raw on the same memory (USM, address by value): \
                     {ratio:.2} ({})",
                    o.ratio(),
                    fmt_time(o.hip),
                    fmt_time(o.raw),
                    fmt_time(usm)
                ),
                _ => format!(
                    "launch overhead vs raw OpenCL: {:.2} ({} per hipLaunchKernelGGL, {} per raw \
                     clSetKernelArg x2 + clEnqueueNDRangeKernel; target <= 1.2)",
                    o.ratio(),
                    fmt_time(o.hip),
                    fmt_time(o.raw)
                ),
            },
            Err(e) => format!("launch overhead vs raw OpenCL: n/a ({e})"),
        });
    }
    if let Some(rows) = &r.kernels {
        let (g, n, left_out) = kernel_geomean(rows);
        let out = if left_out.is_empty() {
            String::new()
        } else {
            format!(
                "; left out: {}",
                left_out
                    .iter()
                    .map(|(k, why)| format!("{k} ({})", short_reason(why)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        s.push(match g {
            Some(g) => format!(
                "kernel geomean vs best peer: {g:.2} (hipmlir time / best peer time over {n} of \
                 {} kernels{out}; target <= 1.05)",
                rows.len()
            ),
            None => format!("kernel geomean vs best peer: n/a (no kernel measured both ways{out})"),
        });
    }
    s
}

fn throughput(work: Option<Work>, t: f64, copy_bw: Option<f64>) -> String {
    match work {
        Some(Work::Bytes(b)) => {
            let gbs = b / t / 1e9;
            match copy_bw {
                Some(c) => format!("{gbs:.1} GB/s ({:.0}% of copy)", 100.0 * gbs / c),
                None => format!("{gbs:.1} GB/s"),
            }
        }
        Some(Work::Flops(f)) => format!("{:.1} GFLOP/s", f / t / 1e9),
        None => String::new(),
    }
}

/// The whole report.
pub fn markdown(r: &Results, summary: &[String]) -> String {
    let mut m = String::new();
    let p = &r.plan;
    let _ = writeln!(m, "# hipmlir benchmarks\n");
    let _ =
        writeln!(
        m,
        "Written by `{}` on {} ({}). Every figure below was measured in this one run, hipmlir and \
         its peers side by side on the same device; ratios are hipmlir over the peer, so below \
         1.00 hipmlir is faster. Absolute times drift on a shared machine; the ratios are what to \
         compare across runs. Sources: `bench/` (driver `bench/src`, kernels `bench/kernels`, \
         launch programs `bench/hip`). The GPU section at the end comes from its own run on a \
         GPU machine (`bench/cuda`, `make gpu-bench`).\n",
        if r.quick { "make bench QUICK=1" } else { "make bench" },
        if r.date.is_empty() { "an unknown date" } else { &r.date },
        if r.quick { "quick run" } else { "full run" },
    );
    let _ = writeln!(m, "## Summary\n\n```");
    for l in summary {
        let _ = writeln!(m, "{l}");
    }
    let _ = writeln!(m, "```\n");

    // Device.
    let _ = writeln!(m, "## Device\n");
    match &r.device {
        Some(d) => {
            let _ = writeln!(m, "| | |\n|---|---|");
            let _ = writeln!(m, "| device | {} |", cell(&d.name));
            let _ = writeln!(m, "| platform | {} |", cell(&d.platform));
            let _ = writeln!(m, "| version | {} |", cell(&d.version));
            let _ = writeln!(m, "| driver | {} |", cell(&d.driver));
            let _ = writeln!(m, "| compute units | {} |", d.compute_units);
            let _ = writeln!(
                m,
                "| global memory | {:.1} GiB |",
                d.global_mem as f64 / (1u64 << 30) as f64
            );
            let _ = writeln!(m, "| host | {} |", cell(&r.host));
            match &r.copy_bandwidth {
                Some(Ok(bw)) => {
                    let _ = writeln!(
                        m,
                        "| copy bandwidth | {bw:.1} GB/s (clEnqueueCopyBuffer of {} MB, bytes \
                         read + written, median of {} after {} warm-up) |",
                        p.copy_bytes >> 20,
                        p.kernel_reps.timed,
                        p.kernel_reps.warmup
                    );
                }
                Some(Err(e)) => {
                    let _ = writeln!(m, "| copy bandwidth | not measured: {} |", cell(e));
                }
                None => {}
            }
        }
        None => {
            let _ = writeln!(
                m,
                "No device: {}\n",
                r.device_error.as_deref().unwrap_or("not opened")
            );
        }
    }
    let _ = writeln!(m);

    if let Some(rows) = &r.kernels {
        kernel_section(&mut m, r, rows);
    }
    if let Some(l) = &r.launch {
        launch_section(&mut m, r, l);
    }
    if let Some(c) = &r.copies {
        copies_section(&mut m, r, c);
    }
    if r.compile.is_some() || r.scaling.is_some() {
        compile_section(&mut m, r);
    }
    if let Some(rtc) = &r.rtc {
        rtc_section(&mut m, r, rtc);
    }
    if let Some(j) = &r.jit {
        jit_section(&mut m, r, j);
    }
    m
}

fn kernel_section(m: &mut String, r: &Results, rows: &[KernelRow]) {
    let p = &r.plan;
    let global_copy_bw = r
        .copy_bandwidth
        .as_ref()
        .and_then(|c| c.as_ref().ok().copied());
    let _ = writeln!(m, "## Kernel quality\n");
    let _ = writeln!(
        m,
        "Each kernel is written once in HIP (`bench/kernels/NAME.hip`, compiled by `hipmlir \
         --emit-spirv`) and once in OpenCL C (`bench/kernels/NAME.cl`), the latter run two ways — \
         the peers: compiled to SPIR-V by `clang-22 -cl-std=CL2.0 --target=spirv64 -O2`, and \
         built by the driver from source (`clCreateProgramWithSource`, `{}`). A reference column \
         builds the same HIP source with clang-22 in HIP device mode for spirv64 (with the small \
         header `bench/shim/hip/hip_runtime.h`) and `llc-22` to SPIR-V, the route clang-based HIP \
         compilers take; it is not counted as a peer, and when it passes the output check while \
         hipmlir does not, the HIP source is right and hipmlir is wrong.\n\n\
         All variants run in this process on the same device with the same inputs and launch \
         shapes (global = grid x block, local = block, as hipmlir's runtime launches), on OpenCL \
         buffers (hipmlir's kernels, whose entry points take global pointers as 64-bit integers, \
         get the same buffers' device addresses, read by a probe kernel). Each variant's first run is checked against a host reference; then {} warm-up \
         and {} timed runs, the variants taking turns run by run (each round after the copy \
         below, starting from the next variant), timed by profiling events \
         (`CL_QUEUE_PROFILING_ENABLE`, end - start, summed over a case's launches). Times are \
         medians in milliseconds; the best peer is in bold. GB/s counts the bytes the algorithm \
         must read plus write; the percentage is of the device's clEnqueueCopyBuffer bandwidth \
         (bytes read + written, {} MB copies) measured in turn with that kernel's runs, in the \
         last column, so that both see the same load (a kernel can exceed it: that copy is not \
         the device's peak).\n",
        kernels::DRIVER_OPTIONS,
        p.kernel_reps.warmup,
        p.kernel_reps.timed,
        p.copy_bytes >> 20
    );
    let _ = write!(m, "| kernel | size |");
    for v in VARIANTS {
        let _ = write!(m, " {} |", v.label());
    }
    let _ = writeln!(
        m,
        " hipmlir / best peer | hipmlir throughput | best peer throughput | copy bandwidth |"
    );
    let _ = writeln!(
        m,
        "|---|---|{}---:|---:|---:|---:|",
        "---:|".repeat(VARIANTS.len())
    );
    let mut notes = Vec::new();
    for row in rows {
        let copy_bw = row.copy_bw.or(global_copy_bw);
        let _ = write!(m, "| {} | {} |", cell(&row.title), cell(&row.size));
        let best = row.best_peer();
        for (i, (v, res)) in VARIANTS.iter().zip(&row.results).enumerate() {
            match res {
                Ok(t) => {
                    let s = fmt_ms(t.median);
                    if best.map(|b| b.0) == Some(i) {
                        let _ = write!(m, " **{s}** |");
                    } else {
                        let _ = write!(m, " {s} |");
                    }
                }
                Err(e) => {
                    let _ = write!(m, " {} |", short_reason(e));
                    notes.push(format!("- {}: {}: {}", row.file, v.short(), e));
                }
            }
        }
        let ratio = row.ratio().map(fmt_ratio).unwrap_or_else(|| "—".into());
        let hip_tp = match row.results.first() {
            Some(Ok(t)) => throughput(row.work, t.median, copy_bw),
            _ => "—".into(),
        };
        let best_tp = best
            .map(|(i, t)| {
                format!(
                    "{} ({})",
                    throughput(row.work, t.median, copy_bw),
                    VARIANTS[i].short()
                )
            })
            .unwrap_or_else(|| "—".into());
        let copy = row
            .copy_bw
            .map(|c| format!("{c:.1} GB/s"))
            .unwrap_or_else(|| "—".into());
        let _ = writeln!(m, " {ratio} | {hip_tp} | {best_tp} | {copy} |");
    }
    let (g, n, left_out) = kernel_geomean(rows);
    let _ = writeln!(m);
    match g {
        Some(g) => {
            let _ = writeln!(
                m,
                "**Geomean of hipmlir / best peer: {g:.2}** over {n} of {} kernels (target: <= 1.05, \
                 then < 1.0).",
                rows.len()
            );
        }
        None => {
            let _ = writeln!(
                m,
                "**Geomean of hipmlir / best peer: n/a** (no kernel measured both ways)."
            );
        }
    }
    if !left_out.is_empty() {
        let _ = writeln!(
            m,
            "Left out of the geomean: {}.",
            left_out
                .iter()
                .map(|(k, why)| format!("{k} ({})", short_reason(why)))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if !notes.is_empty() {
        let _ = writeln!(m, "\nWhat failed, in full:\n");
        for n in notes {
            let _ = writeln!(m, "{}", n.replace("\n", " "));
        }
    }
    let _ = writeln!(
        m,
        "\nFor reference: each variant's program build time (`clBuildProgram`, wall clock) and the \
         range of its timed runs (min–max, ms):\n"
    );
    let _ = write!(m, "| kernel |");
    for v in VARIANTS {
        let _ = write!(m, " {} |", v.short());
    }
    let _ = writeln!(m, "\n|---|{}", "---:|".repeat(VARIANTS.len()));
    for row in rows {
        let _ = write!(m, "| {} |", row.file);
        for res in &row.results {
            match res {
                Ok(t) => {
                    let _ = write!(
                        m,
                        " {}; {}–{} |",
                        fmt_time(t.build),
                        fmt_ms(t.min),
                        fmt_ms(t.max)
                    );
                }
                Err(_) => {
                    let _ = write!(m, " — |");
                }
            }
        }
        let _ = writeln!(m);
    }
    let _ = writeln!(m);
}

fn launch_section(m: &mut String, r: &Results, l: &Result<Overhead, String>) {
    let _ = writeln!(m, "## Launch overhead\n");
    let _ = writeln!(
        m,
        "`bench/hip/launch_overhead.hip`, built by `hipmlir -o`, launches a trivial kernel \
         (1 block of 64 threads, two arguments, adds 1 to a counter) with `hipLaunchKernelGGL` in \
         a loop; `bench/hip/launch_raw.cpp`, built by g++ against the OpenCL ICD loader, launches \
         the same kernel (hipmlir's `--emit-spirv` of that file, or its OpenCL C twin: see below) \
         with the same shape on an in-order queue without profiling, passing no event. Each program times rounds of N \
         launches followed by one synchronization with `<chrono>` and reports the median per \
         launch; the two alternate, and the table gives the median over the rounds. Both check \
         the counter at the end. hipmlir's runtime passes USM (or SVM) addresses, which its \
         SPIR-V entry points take as 64-bit integers, set by `clSetKernelArg` of the 8 bytes \
         (the driver told once per kernel that it reaches device memory indirectly): \
         `clSetKernelArgMemPointerINTEL` costs several times more per launch. The raw side runs \
         twice: its counter an OpenCL buffer set as a `cl_mem`, the cheapest launch the device \
         offers (the same kernel in OpenCL C, `bench/hip/launch_raw.cl`, by clang-22, since a \
         `cl_mem` needs a pointer parameter), and a USM device allocation passed as hipmlir's \
         runtime passes it, to hipmlir's SPIR-V, so that what the memory kind costs in the \
         driver is told apart from what hipmlir adds.\n"
    );
    match l {
        Err(e) => {
            let _ = writeln!(m, "Not measured: {}\n", e);
        }
        Ok(o) => {
            let _ = writeln!(
                m,
                "N = {} launches per round, {} rounds per program run, {} runs of each program.\n",
                o.iters, o.reps, o.rounds
            );
            let _ = writeln!(
                m,
                "| path | per launch | launches/s | vs raw |\n|---|---:|---:|---:|"
            );
            let row = |m: &mut String, name: &str, t: f64| {
                let _ = writeln!(
                    m,
                    "| {name} | {} | {:.0} | {} |",
                    fmt_time(t),
                    1.0 / t,
                    fmt_ratio(t / o.raw)
                );
            };
            row(m, "hipLaunchKernelGGL (hipmlir runtime)", o.hip);
            row(
                m,
                "raw OpenCL: clSetKernelArg x2 + clEnqueueNDRangeKernel",
                o.raw,
            );
            row(
                m,
                "raw OpenCL: clEnqueueNDRangeKernel only (arguments set once)",
                o.raw_enqueue_only,
            );
            if let Some(usm) = o.raw_usm {
                row(
                    m,
                    "raw OpenCL on USM: clSetKernelArg x2 (the address by value) + \
                     clEnqueueNDRangeKernel",
                    usm,
                );
            }
            match o.same_memory_ratio() {
                Some(ratio) => {
                    let _ = writeln!(
                        m,
                        "\n**Launch overhead vs raw OpenCL on cl_mem buffers: {:.2}** (target \
                         <= 1.2). Against raw OpenCL on the same memory (USM): {ratio:.2}, what \
                         hipmlir's runtime adds.\n",
                        o.ratio()
                    );
                }
                None => {
                    let _ = writeln!(
                        m,
                        "\n**Launch overhead vs raw OpenCL: {:.2}** (hipLaunchKernelGGL over \
                         clSetKernelArg + clEnqueueNDRangeKernel; target <= 1.2).\n",
                        o.ratio()
                    );
                }
            }
        }
    }
    if let Some(loaded) = &r.launch_loaded {
        let _ = writeln!(m, "### With one core loaded\n");
        let _ = writeln!(
            m,
            "The same programs, the same way, while another process (the bench itself, spinning) \
             keeps one core busy: a launch path that takes contended locks or wakes other threads \
             degrades under load far more than a raw enqueue.\n"
        );
        match loaded {
            Err(e) => {
                let _ = writeln!(m, "Not measured: {e}\n");
            }
            Ok(o) => {
                let _ = writeln!(
                    m,
                    "| path | per launch | vs raw on cl_mem buffers | vs raw on the same memory \
                     |\n|---|---:|---:|---:|"
                );
                let same = o.raw_usm.unwrap_or(o.raw);
                for (name, t) in [
                    ("hipLaunchKernelGGL (hipmlir runtime)", o.hip),
                    ("raw OpenCL, the same memory kind", same),
                    ("raw OpenCL on cl_mem buffers", o.raw),
                ] {
                    let _ = writeln!(
                        m,
                        "| {name} | {} | {} | {} |",
                        fmt_time(t),
                        fmt_ratio(t / o.raw),
                        fmt_ratio(t / same)
                    );
                }
                let _ = writeln!(
                    m,
                    "\n**Launch overhead with one core loaded, vs raw OpenCL on cl_mem buffers: \
                     {:.2}** (target <= 1.3); on the same memory: {:.2}.\n",
                    o.ratio(),
                    o.hip / same
                );
            }
        }
    }
    let _ = r;
}

fn compile_section(m: &mut String, r: &Results) {
    let p = &r.plan;
    let _ = writeln!(m, "## Compile time\n");
    if let Some(rows) = &r.compile {
        let _ = writeln!(
            m,
            "Wall time of `hipmlir NAME.hip --emit-spirv` versus `clang-22 -cl-std=CL2.0 \
             --target=spirv64 -O2 -c NAME.cl` (both whole processes), median of {} runs. hipmlir \
             runs without a cache (`HIPMLIR_DISABLE_CACHE=1`: every header parsed, as in a \
             first build) and with its precompiled header of `hip/hip_runtime.h` already made in a \
             cache of the bench's own (as every later build with the same flags). The `hipmlir` \
             launcher hands each compile to the compile server (a resident `hipmlir-compiler` \
             that forks a child per compile; the bench starts one in a folder of its own before \
             timing), as it does for users; the last hipmlir column is the same compile in a \
             process of its own (`HIPMLIR_COMPILE_SERVER=0`), which pays for loading, \
             relocating and initializing libLLVM, libclang and MLIR each time.\n",
            p.compile_runs
        );
        let _ = writeln!(
            m,
            "| kernel file | hipmlir | hipmlir, PCH made | PCH made, own process | clang-22 | \
             hipmlir / clang-22 | PCH made / clang-22 | own process / clang-22 |\n\
             |---|---:|---:|---:|---:|---:|---:|---:|"
        );
        let mut notes = Vec::new();
        for row in rows {
            let mut show = |m: &mut String, res: &Result<f64, String>, who: &str| match res {
                Ok(t) => {
                    let _ = write!(m, " {} |", fmt_time(*t));
                }
                Err(e) => {
                    let _ = write!(m, " {} |", short_reason(e));
                    notes.push(format!("- {}: {who}: {e}", row.name));
                }
            };
            let _ = write!(m, "| {} |", row.name);
            show(m, &row.hipmlir, "hipmlir");
            show(m, &row.hipmlir_warm, "hipmlir with its PCH");
            show(
                m,
                &row.hipmlir_own_process,
                "hipmlir with its PCH, own process",
            );
            show(m, &row.clang, "clang-22");
            let ratio = |r: Option<f64>| r.map(fmt_ratio).unwrap_or_else(|| "—".into());
            let _ = writeln!(
                m,
                " {} | {} | {} |",
                ratio(row.ratio()),
                ratio(row.warm_ratio()),
                ratio(row.own_process_ratio())
            );
        }
        let ratios: Vec<f64> = rows.iter().filter_map(CompileRow::ratio).collect();
        let warm: Vec<f64> = rows.iter().filter_map(CompileRow::warm_ratio).collect();
        let own: Vec<f64> = rows
            .iter()
            .filter_map(CompileRow::own_process_ratio)
            .collect();
        let f = |v: Option<f64>| v.map(|v| format!("{v:.2}")).unwrap_or_else(|| "n/a".into());
        if let Some(g) = geomean(&ratios) {
            let _ = writeln!(
                m,
                "\nGeomean hipmlir / clang-22: **{g:.2}** without a cache, **{}** with the \
                 precompiled header made (target <= 1.0), {} with the precompiled header made in \
                 a process of its own, over {} of {} files.",
                f(geomean(&warm)),
                f(geomean(&own)),
                ratios.len(),
                rows.len()
            );
        }
        if !notes.is_empty() {
            let _ = writeln!(m, "\n{}", notes.join("\n"));
        }
        let _ = writeln!(m);
    }
    if let Some(rows) = &r.scaling {
        let _ = writeln!(
            m,
            "Scaling: generated files of 10, 100 and 1000 distinct kernels (a loop and arithmetic \
             each; the HIP and OpenCL C versions are the same kernels), median of {} run(s); the \
             module must have one entry point per kernel.\n",
            p.scaling_runs
        );
        let _ = writeln!(
            m,
            "| kernels | hipmlir | per kernel | clang-22 | per kernel |\n|---:|---:|---:|---:|---:|"
        );
        for row in rows {
            let show = |res: &Result<f64, String>| match res {
                Ok(t) => format!(
                    "{} | {}",
                    fmt_time(*t),
                    fmt_time(t / row.kernels.max(1) as f64)
                ),
                Err(e) => format!("{} | —", cell(e)),
            };
            let _ = writeln!(
                m,
                "| {} | {} | {} |",
                row.kernels,
                show(&row.hipmlir),
                show(&row.clang)
            );
        }
        let f = |v: Option<f64>| v.map(|v| format!("{v:.2}")).unwrap_or_else(|| "n/a".into());
        let _ = writeln!(
            m,
            "\nTime for 1000 kernels over time for 100: hipmlir **{}**, clang-22 {} (linear growth \
             gives at most 10; target < 10).\n",
            f(compile::growth(rows, |x| &x.hipmlir)),
            f(compile::growth(rows, |x| &x.clang))
        );
    }
    if let Some(first) = &r.first_launch {
        let _ = writeln!(
            m,
            "First launch: a program of {} generated kernels launches one of them on an empty \
             program cache (launch + synchronize, the result checked): {}.\n",
            compile::FIRST_LAUNCH_KERNELS,
            match first {
                Ok(f) => format!(
                    "**{}** with the module built per kernel (the default), {} built whole \
                     (`HIPMLIR_JIT=module`); target <= 1 s",
                    fmt_time(f.per_kernel),
                    fmt_time(f.whole_module)
                ),
                Err(e) => format!("not measured: {}", cell(e)),
            }
        );
    }
    if let Some(c) = &r.corpus_build {
        let _ = writeln!(
            m,
            "Whole-program builds: `make corpus` builds each real program of `../shared/corpus` \
             as a user does (`hipmlir -I. SOURCES -o prog`: device and host compile, link; the \
             compile in a child of the compile server, which the run's first build starts) and \
             records the time in `build/corpus.tsv`; the bench reports its median, {} (target \
             <= 0.6 s). A source's first builds parse its headers in full; from its third build \
             on, its precompiled preambles (its leading system `#include`s with hipmlir's \
             header, for the device parse and the host compile) are loaded instead. The corpus \
             copies each program to a new folder for every build, so preambles that hold a \
             program's own headers (made for sources rebuilt where they are) do not show here.\n",
            match c {
                Ok(c) => format!(
                    "**{}** over {} programs (the caches before that run: {})",
                    fmt_time(c.median),
                    c.programs,
                    c.caches.as_deref().unwrap_or("not recorded")
                ),
                Err(e) => cell(e),
            }
        );
    }
    if let Some(large) = &r.large_file {
        let (kernels, _) = compile::LARGE_FILE;
        let _ = writeln!(
            m,
            "Large file: a generated HIP source of {kernels} kernels, each calling its own device \
             helper with branches, using shared memory and a barrier, and running a long run of \
             statements; `hipmlir --emit-spirv` (frontend, outlining, lowering, serialization), \
             median of {} run(s): {} (target < 2 s).\n",
            p.scaling_runs,
            match large {
                Ok((t, lines)) => format!("**{}** for {lines} lines", fmt_time(*t)),
                Err(e) => cell(e),
            }
        );
    }
}

/// The kernel the runtime-compilation target is stated for: a small one.
const RTC_SMALL_KERNEL: &str = "saxpy";

/// The summary's line on hiprtc.
fn rtc_summary(rtc: &Result<Rtc, String>) -> String {
    let rtc = match rtc {
        Ok(rtc) => rtc,
        Err(e) => return format!("hiprtc: not measured: {e}"),
    };
    let show = |r: &Result<f64, String>| match r {
        Ok(t) => fmt_time(*t),
        Err(e) => format!("n/a ({})", short_reason(e)),
    };
    let small = rtc.rows.iter().find(|r| r.name == RTC_SMALL_KERNEL);
    let nvrtc = match (&rtc.nvrtc_library, small) {
        (Ok(_), Some(r)) => show(&r.nvrtc),
        _ => "not measured here (no libnvrtc)".to_string(),
    };
    format!(
        "hiprtc: {RTC_SMALL_KERNEL} compiles in {} after the process's first compile (target \
         <= 50 ms; SPIR-V only {}, cached {}); first compile {} with an empty cache, {} with \
         the PCH made; NVRTC {nvrtc}",
        small.map_or("n/a".into(), |r| show(&r.hiprtc)),
        small.map_or("n/a".into(), |r| show(&r.hiprtc_spirv)),
        small.map_or("n/a".into(), |r| show(&r.hiprtc_cached)),
        show(&rtc.first_cold),
        show(&rtc.first_warm),
    )
}

fn rtc_section(m: &mut String, r: &Results, rtc: &Result<Rtc, String>) {
    let _ = writeln!(m, "## Runtime compilation (hiprtc)\n");
    let _ = writeln!(
        m,
        "Each kernel file compiled at run time, in one process, by `bench/rtc/rtc_compile.cpp`, \
         which loads `libhiprtc.so` (or NVIDIA's `libnvrtc.so`, whose API has the same shapes) \
         with dlopen and times `CreateProgram` + `CompileProgram` + `GetCode` of each program, \
         median of {} compiles after the process's first. Each compile is of a new program (a \
         comment naming the run added), so that hiprtc's disk cache answers none of them; \
         \"cached\" is the same program compiled again, answered by it. hiprtc builds the \
         default targets (SPIR-V and sm_70 PTX, as `hipmlir --genco` does) or SPIR-V alone \
         (`--offload-arch=spirv64`). Beside them, the offline compile of the same file, \
         `hipmlir --genco` (a whole process, through the compile server, its precompiled header \
         made), and NVRTC (PTX for its default architecture) where `libnvrtc` loads \
         (`NVRTC_LIBRARY` names it).\n",
        r.plan.compile_runs
    );
    let rtc = match rtc {
        Ok(rtc) => rtc,
        Err(e) => {
            let _ = writeln!(m, "Not measured: {}\n", cell(e));
            return;
        }
    };
    let _ = writeln!(
        m,
        "| kernel file | hiprtc | hiprtc, SPIR-V only | hiprtc, cached | hipmlir --genco | NVRTC |\n\
         |---|---:|---:|---:|---:|---:|"
    );
    let mut notes = Vec::new();
    for row in &rtc.rows {
        let mut show = |res: &Result<f64, String>, who: &str| match res {
            Ok(t) => fmt_time(*t),
            Err(e) => {
                notes.push(format!("- {}: {who}: {e}", row.name));
                cell(short_reason(e))
            }
        };
        let line = format!(
            "| {} | {} | {} | {} | {} |",
            row.name,
            show(&row.hiprtc, "hiprtc"),
            show(&row.hiprtc_spirv, "hiprtc, SPIR-V only"),
            show(&row.hiprtc_cached, "hiprtc, cached"),
            show(&row.offline, "hipmlir --genco"),
        );
        let nvrtc = match &rtc.nvrtc_library {
            Ok(_) => show(&row.nvrtc, "NVRTC"),
            Err(_) => "—".to_string(),
        };
        let _ = writeln!(m, "{line} {nvrtc} |");
    }
    let show = |r: &Result<f64, String>| match r {
        Ok(t) => format!("**{}**", fmt_time(*t)),
        Err(e) => cell(e),
    };
    let _ = writeln!(
        m,
        "\nThe process's first compile: {} with an empty cache (it makes the precompiled header \
         of `hip/hip_runtime.h` for hiprtc's flags), {} in a later process (it loads it). \
         NVRTC: {}.\n",
        show(&rtc.first_cold),
        show(&rtc.first_warm),
        match &rtc.nvrtc_library {
            Ok(lib) => format!("`{lib}`"),
            Err(e) => cell(e),
        }
    );
    if !notes.is_empty() {
        let _ = writeln!(m, "{}\n", notes.join("\n"));
    }
}

fn copies_section(m: &mut String, r: &Results, c: &Result<Vec<CopyRow>, String>) {
    let _ = writeln!(m, "## Pitched copies\n");
    let _ = writeln!(
        m,
        "`bench/hip/pitched_copy.hip`, built by `hipmlir -o`, copies a 4096 x 4096-byte rectangle \
         with `hipMemcpy2D` between pitched device memory (rows 4352 bytes apart) and contiguous \
         host rows, and between two pitched allocations, and the same 16 MiB with one `hipMemcpy`, \
         each direction; every row of each direction's result is checked first. GB/s are bytes \
         copied per second, the median of {} rounds (`<chrono>` around each synchronous call).\n",
        r.plan.copy_rounds
    );
    match c {
        Err(e) => {
            let _ = writeln!(m, "Not measured: {e}\n");
        }
        Ok(rows) => {
            let _ = writeln!(
                m,
                "| direction | hipMemcpy2D (pitched) | hipMemcpy (contiguous) | pitched / contiguous |\n\
                 |---|---:|---:|---:|"
            );
            for c in rows {
                let _ = writeln!(
                    m,
                    "| {} | {:.2} GB/s | {:.2} GB/s | {:.2} |",
                    c.direction,
                    c.pitched,
                    c.contiguous,
                    c.ratio()
                );
            }
            let _ = writeln!(m);
        }
    }
}

fn jit_section(m: &mut String, r: &Results, j: &Result<Jit, String>) {
    let _ = writeln!(m, "## JIT cache\n");
    let _ = writeln!(
        m,
        "Time to first launch of `launch_overhead.hip`'s kernel: from just before the program's \
         first `hipLaunchKernelGGL` to the end of the following `hipDeviceSynchronize` (the device \
         is initialized before, by `hipMalloc`), so it holds the JIT (SPIR-V → device code, or a \
         cache load) and one launch. Cold: `HIPMLIR_CACHE_DIR` set to a new empty folder; warm: \
         the same program again with that folder; disabled: `HIPMLIR_DISABLE_CACHE=1`. Also the \
         whole process's wall time. Medians of {} runs each.\n",
        r.plan.jit_runs
    );
    match j {
        Err(e) => {
            let _ = writeln!(m, "Not measured: {}\n", e);
        }
        Ok(j) => {
            let _ = writeln!(
                m,
                "| run | first launch | process wall time |\n|---|---:|---:|"
            );
            let row = |m: &mut String, name: &str, v: &[(f64, f64)]| {
                let first = Jit::median_first(v)
                    .map(fmt_time)
                    .unwrap_or_else(|| "—".into());
                let wall = Jit::median_wall(v)
                    .map(fmt_time)
                    .unwrap_or_else(|| "—".into());
                let _ = writeln!(m, "| {name} | {first} | {wall} |");
            };
            if j.cache_available() {
                row(m, "cold cache", &j.cold);
                row(m, "warm cache", &j.warm);
            } else {
                row(m, "first run (no cache written)", &j.cold);
                row(m, "second run (no cache written)", &j.warm);
            }
            row(m, "HIPMLIR_DISABLE_CACHE=1", &j.disabled);
            if let Some(Ok(o)) = &r.launch {
                if let Some(t) = median(&o.raw_first_launch) {
                    let _ = writeln!(
                        m,
                        "| raw OpenCL, for reference (clCreateProgramWithIL + build + launch) | {} | — |",
                        fmt_time(t)
                    );
                }
            }
            match j.speedup() {
                Some(x) => {
                    let _ = writeln!(
                        m,
                        "\n**Cold / warm first launch: {x:.2}** (target >= 10); the cache held {} \
                         file(s) after a cold run.\n",
                        j.files_written.iter().max().unwrap_or(&0)
                    );
                }
                None => {
                    let _ = writeln!(
                        m,
                        "\n**Cache: not available yet** — the runtime wrote nothing to \
                         `HIPMLIR_CACHE_DIR`, so cold and warm are the same uncached first launch.\n"
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_widest_vector_extension_is_named() {
        let cases = [
            ("fpu sse4_2 avx avx2 avx512f avx512bw", "AVX-512"),
            ("fpu sse4_2 avx avx2 bmi2", "AVX2"),
            ("fpu sse4_2 avx", "AVX"),
            ("fpu sse4_2", "SSE4.2"),
            ("fpu sse2", "no AVX"),
            // (A flag is a whole word: avx512_vnni alone is not avx512f.)
            ("avx2 avx512_vnni", "AVX2"),
        ];
        for (flags, want) in cases {
            assert_eq!(vector_extension(flags), want, "{flags}");
        }
    }

    fn timing(median: f64) -> kernels::Timing {
        kernels::Timing {
            median,
            min: median,
            max: median,
            build: 0.01,
        }
    }

    fn sample() -> Results {
        let row = |file: &str, hip: Result<f64, &str>| KernelRow {
            file: file.into(),
            title: file.into(),
            size: "n = 2^24".into(),
            work: Some(Work::Bytes(1e8)),
            results: vec![
                hip.map(timing).map_err(String::from),
                Ok(timing(2.0)),
                Ok(timing(1.0)),
                Err("reference build failed: x | y".into()),
                hip.map(|t| timing(2.0 * t)).map_err(String::from),
            ],
            copy_bw: Some(25.0),
        };
        Results {
            quick: true,
            device: Some(DeviceInfo {
                name: "dev".into(),
                platform: "plat".into(),
                version: "OpenCL 3.0".into(),
                driver: "1".into(),
                compute_units: 2,
                global_mem: 1 << 30,
            }),
            copy_bandwidth: Some(Ok(20.0)),
            kernels: Some(vec![
                row("a", Ok(1.1)),
                row("b", Err("does not compile yet: b.hip:1:1: error: no")),
            ]),
            launch: Some(Ok(Overhead {
                iters: 10,
                reps: 1,
                rounds: 1,
                hip: 2e-6,
                raw: 1e-6,
                raw_usm: Some(1.5e-6),
                raw_enqueue_only: 0.9e-6,
                raw_first_launch: vec![0.05],
            })),
            launch_loaded: Some(Ok(Overhead {
                iters: 10,
                reps: 1,
                rounds: 1,
                hip: 3e-6,
                raw: 1e-6,
                raw_usm: Some(2e-6),
                raw_enqueue_only: 0.9e-6,
                raw_first_launch: vec![0.05],
            })),
            jit: Some(Ok(Jit {
                cold: vec![(0.09, 0.1)],
                warm: vec![(0.009, 0.02)],
                disabled: vec![(0.09, 0.1)],
                files_written: vec![1],
            })),
            compile: Some(vec![CompileRow {
                hipmlir_warm: Ok(0.05),
                hipmlir_own_process: Ok(0.07),
                name: "a".into(),
                hipmlir: Ok(0.06),
                clang: Ok(0.03),
            }]),
            first_launch: Some(Ok(compile::FirstLaunch {
                per_kernel: 0.2,
                whole_module: 19.0,
            })),
            scaling: Some(vec![
                ScalingRow {
                    kernels: 100,
                    hipmlir: Ok(0.1),
                    clang: Ok(0.2),
                },
                ScalingRow {
                    kernels: 1000,
                    hipmlir: Ok(0.8),
                    clang: Err("boom".into()),
                },
            ]),
            ..Default::default()
        }
    }

    #[test]
    fn summary_ends_with_the_two_headline_lines() {
        let s = summary(&sample());
        let n = s.len();
        assert!(
            s[n - 2].starts_with("launch overhead vs raw OpenCL on cl_mem buffers: 2.00 ")
                && s[n - 2].ends_with("on the same memory (USM, address by value): 1.33 (1.50 µs)"),
            "{}",
            s[n - 2]
        );
        assert!(
            s[n - 1].starts_with("kernel geomean vs best peer: 1.10 "),
            "{}",
            s[n - 1]
        );
        assert!(
            s.iter().any(|l| l.starts_with(
                "memory checker (-fsanitize=address) kernel time / without: geomean 2.00 over 1 \
                 kernels (a 2.00;"
            )),
            "{s:?}"
        );
        assert!(
            s[n - 3].starts_with(
                "launch overhead with one core loaded, vs raw OpenCL on cl_mem buffers: 3.00 "
            ),
            "{}",
            s[n - 3]
        );
        assert!(s[n - 1].contains("1 of 2 kernels"));
        assert!(s[n - 1].contains("b (does not compile yet)"));
    }

    #[test]
    fn tables_have_as_many_cells_in_every_row() {
        let r = sample();
        let md = markdown(&r, &summary(&r));
        let cells = |l: &str| l.replace("\\|", "").matches('|').count();
        let mut table: Vec<&str> = Vec::new();
        for line in md.lines().chain(std::iter::once("")) {
            if line.starts_with('|') {
                table.push(line);
                continue;
            }
            if let Some(first) = table.first() {
                for l in &table {
                    assert_eq!(cells(l), cells(first), "in table:\n{}", table.join("\n"));
                }
            }
            table.clear();
        }
        assert!(md.contains("hipmlir: does not compile yet: b.hip:1:1: error: no"));
        assert!(md.contains("**Cold / warm first launch: 10.00**"));
    }

    #[test]
    fn a_missing_cache_is_reported_not_faked() {
        let mut r = sample();
        if let Some(Ok(j)) = &mut r.jit {
            j.files_written = vec![0];
        }
        let s = summary(&r);
        assert!(s.iter().any(|l| l.contains("not available yet")));
    }
}
