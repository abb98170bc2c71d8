//! The GPU section of BENCHMARKS.md: written by a run on a GPU machine, between two markers, and
//! kept as it is by runs elsewhere (a machine without a GPU cannot measure it, and must not erase
//! it). `merge` puts a section into a report; `extract` takes it out of a file.

use std::fmt::Write as _;

use crate::cases::Work;
use crate::gpu::{GpuRun, GPU_VARIANTS};
use crate::stats::{fmt_ms, fmt_ratio, fmt_time, geomean};

pub const BEGIN: &str = "<!-- gpu-section: begin -->";
pub const END: &str = "<!-- gpu-section: end -->";

/// Targets of the GPU section.
pub const KERNEL_TARGET: f64 = 1.10;
pub const STREAM_TARGET: f64 = 0.85;
pub const LAUNCH_TARGET: f64 = 1.3;

/// The streaming kernels held against the copy bandwidth.
pub const STREAMING: [&str; 2] = ["vector_add", "saxpy"];

/// The section of `text` from its begin marker through its end marker, if it has one.
pub fn extract(text: &str) -> Option<&str> {
    extract_between(text, BEGIN, END)
}

/// `report` with its own section (if any) replaced by `section` at the end.
pub fn merge(report: &str, section: Option<&str>) -> String {
    merge_between(report, section, BEGIN, END)
}

/// The part of `text` from `begin` through `end`, if it has one.
pub fn extract_between<'t>(text: &'t str, begin: &str, end: &str) -> Option<&'t str> {
    let start = text.find(begin)?;
    let stop = text[start..].find(end)? + start + end.len();
    Some(&text[start..stop])
}

/// `report` with its part between `begin` and `end` (if any) replaced by `section` at the end.
pub fn merge_between(report: &str, section: Option<&str>, begin: &str, end: &str) -> String {
    let mut body = match extract_between(report, begin, end) {
        // The text around the old part, one blank line between (not the blank lines on both
        // sides of it, which would pile up at each merge).
        Some(old) => {
            let (before, after) = report.split_once(old).unwrap_or((report, ""));
            match (before.trim_end(), after.trim_start()) {
                (before, "") => before.to_string(),
                ("", after) => after.to_string(),
                (before, after) => format!("{before}\n\n{after}"),
            }
        }
        None => report.to_string(),
    };
    let trimmed = body.trim_end().len();
    body.truncate(trimmed);
    match section {
        Some(s) if body.is_empty() => format!("{}\n", s.trim_end()),
        Some(s) => format!("{body}\n\n{}\n", s.trim_end()),
        None => format!("{body}\n"),
    }
}

/// The kernel geomean of hipmlir / nvcc: (value, rows measured both ways).
pub fn kernel_geomean(run: &GpuRun) -> (Option<f64>, usize) {
    let ratios: Vec<f64> = run.rows.iter().filter_map(|r| r.ratio()).collect();
    (geomean(&ratios), ratios.len())
}

pub fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "missed"
    }
}

/// The summary lines of a GPU run.
pub fn summary(run: &GpuRun) -> Vec<String> {
    let mut s = vec![format!(
        "GPU: {} (sm_{}), driver {}, CUDA {}, nvcc {}",
        run.gpu.name,
        run.gpu.capability,
        run.driver.as_deref().unwrap_or("unknown"),
        run.gpu.cuda_version,
        match &run.nvcc {
            Ok(v) => v.rsplit(',').next().unwrap_or(v).trim().to_string(),
            Err(e) => format!("missing ({e})"),
        }
    )];
    if let Some(bw) = run.copy_bw {
        s.push(format!(
            "GPU device-to-device copy bandwidth: {bw:.0} GB/s (bytes read + written)"
        ));
    }
    let (g, n) = kernel_geomean(run);
    let left_out: Vec<&str> = run
        .rows
        .iter()
        .filter(|r| r.ratio().is_none())
        .map(|r| r.file.as_str())
        .collect();
    let out = if left_out.is_empty() {
        String::new()
    } else {
        format!("; left out: {}", left_out.join(", "))
    };
    s.push(match g {
        Some(g) => format!(
            "GPU kernel geomean hipmlir / nvcc: {g:.2} over {n} of {} kernels{out} (target <= \
             {KERNEL_TARGET:.2}: {})",
            run.rows.len(),
            verdict(g <= KERNEL_TARGET)
        ),
        None => format!("GPU kernel geomean hipmlir / nvcc: n/a{out}"),
    });
    let streams: Vec<String> = run
        .rows
        .iter()
        .filter(|r| STREAMING.contains(&r.file.as_str()))
        .map(|r| match r.copy_fraction() {
            Some(f) => format!("{} {:.1}%", r.title, 100.0 * f),
            None => format!("{} n/a", r.title),
        })
        .collect();
    if !streams.is_empty() {
        let all_ok = run
            .rows
            .iter()
            .filter(|r| STREAMING.contains(&r.file.as_str()))
            .all(|r| r.copy_fraction().is_some_and(|f| f >= STREAM_TARGET));
        s.push(format!(
            "GPU streaming kernels (hipmlir) as a fraction of the copy bandwidth: {} (target >= \
             {:.0}%: {})",
            streams.join(", "),
            100.0 * STREAM_TARGET,
            verdict(all_ok)
        ));
    }
    let checker: std::collections::HashMap<String, f64> = run
        .rows
        .iter()
        .filter_map(|r| Some((r.file.clone(), r.checker_ratio()?)))
        .collect();
    s.push(crate::memcheck::cost_line("GPU memory checker", checker));
    s.push(match &run.launch {
        Ok(l) => format!(
            "GPU launch overhead hipLaunchKernelGGL / raw cuLaunchKernel: {:.2} ({} vs {} per \
             launch; target <= {LAUNCH_TARGET:.1}: {})",
            l.ratio(),
            fmt_time(l.hip),
            fmt_time(l.raw),
            verdict(l.ratio() <= LAUNCH_TARGET)
        ),
        Err(e) => format!("GPU launch overhead: n/a ({e})"),
    });
    s.push(match &run.nvrtc {
        Ok(n) => {
            let times: Vec<f64> = n
                .rows
                .iter()
                .filter_map(|(_, t, _)| t.clone().ok())
                .collect();
            format!(
                "NVRTC on the GPU machine's host: {} per kernel file after the process's first \
                 compile (median over {} files; hiprtc's figures are in the runtime-compilation \
                 section, measured on the OpenCL machine's host)",
                crate::stats::median(&times).map_or("n/a".into(), fmt_time),
                times.len()
            )
        }
        Err(e) => format!("NVRTC: n/a ({e})"),
    });
    s
}

pub fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn gbs(work: Option<Work>, t: f64) -> String {
    match work {
        Some(Work::Bytes(b)) => format!("{:.0} GB/s", b / t / 1e9),
        Some(Work::Flops(f)) => format!("{:.0} GFLOP/s", f / t / 1e9),
        None => String::new(),
    }
}

/// The section, markers included.
pub fn section(run: &GpuRun) -> String {
    let mut m = String::new();
    let p = &run.plan;
    let _ = writeln!(m, "{BEGIN}");
    let _ = writeln!(m, "## Measured on the GPU: {}\n", cell(&run.gpu.name));
    let _ = writeln!(
        m,
        "Written by `hipmlir-bench --only gpu` ({}) on {} on a machine with an NVIDIA GPU \
         (`make gpu-bench` prepares the folder to run there, `hipmlir-bench --merge-gpu` puts \
         its result here; runs without a GPU keep this section as it is). Every figure below \
         was measured in that one run.\n",
        if run.quick { "quick run" } else { "full run" },
        if run.date.is_empty() {
            "an unknown date"
        } else {
            &run.date
        }
    );
    let _ = writeln!(m, "```");
    for l in summary(run) {
        let _ = writeln!(m, "{l}");
    }
    let _ = writeln!(m, "```\n");
    let _ = writeln!(m, "| | |\n|---|---|");
    let _ = writeln!(
        m,
        "| GPU | {} (sm_{}, {} SMs, {:.1} GiB) |",
        cell(&run.gpu.name),
        run.gpu.capability,
        run.gpu.sms,
        run.gpu.memory_gib
    );
    let _ = writeln!(
        m,
        "| driver | {} (CUDA {}) |",
        cell(run.driver.as_deref().unwrap_or("unknown")),
        run.gpu.cuda_version
    );
    let _ = writeln!(
        m,
        "| nvcc | {} |",
        cell(match &run.nvcc {
            Ok(v) => v,
            Err(e) => e,
        })
    );
    let _ = writeln!(m, "| host | {} |", cell(&run.host));
    if let Some(bw) = run.copy_bw {
        let _ = writeln!(
            m,
            "| copy bandwidth | {bw:.0} GB/s (cuMemcpyDtoDAsync of {} MB, bytes read + written, \
             median over every kernel's rounds) |",
            p.copy_bytes >> 20
        );
    }
    let _ = writeln!(m);

    let arch = &run.arch;
    let _ = writeln!(m, "### Kernels: hipmlir against nvcc\n");
    let _ = writeln!(
        m,
        "Each kernel of `bench/kernels/NAME.hip` is compiled by `hipmlir --emit-ptx \
         --offload-arch={arch}` (PTX, compiled to machine code by the driver at load time, as \
         hipmlir's runtime does) and its CUDA twin `bench/cuda/NAME.cu` (the same algorithm and \
         launch shape) by `nvcc -O3 -arch={arch} -cubin`. A third column, not compared, is \
         hipmlir's PTX for sm_70, what a build without `--offload-arch` embeds, and a fourth is \
         the first built with `-fsanitize=address`, its memory checker on (a state and a table of \
         the case's buffers bound as hipmlir's runtime binds them; no report may be raised), \
         with its time over the unchecked one's. All run in one \
         process through the CUDA driver API (`cuModuleLoadData`, `cuLaunchKernel` on the default \
         stream), with the same buffers, inputs and launch shapes, so that a row differs by the \
         compiler only. Each variant's first run, on fresh inputs, is checked against the host \
         reference; then {} warm-up and {} timed rounds, each a {} MB `cuMemcpyDtoDAsync` and then every \
         variant once, starting from a different variant each round (the kernel right after the \
         copy pays for its dirty L2 lines: that must not always be the same variant), each timed \
         by CUDA events (summed over a case's launches). \
         Times are medians in milliseconds. GB/s counts the bytes the algorithm must read plus \
         write; the copy column is the device-to-device bandwidth measured in that row's \
         rounds. The 1-D arrays hold 2^26 elements (BabelStream's array size), four times the \
         OpenCL section's: a GPU streams 2^24 floats in tens of microseconds, where a launch \
         and the ramp to full bandwidth are a visible part of the time.\n",
        p.warmup,
        p.timed,
        p.copy_bytes >> 20
    );
    let _ = writeln!(
        m,
        "| kernel | size | hipmlir ({arch} PTX) | nvcc ({arch}) | hipmlir / nvcc | hipmlir \
         throughput | nvcc throughput | hipmlir default build (sm_70 PTX) | hipmlir \
         -fsanitize=address ({arch} PTX, checked / unchecked) | copy bandwidth |"
    );
    let _ = writeln!(m, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut notes = Vec::new();
    for row in &run.rows {
        let mut t = |i: usize| -> String {
            match &row.results[i] {
                Ok(t) => fmt_ms(t.median),
                Err(e) => {
                    notes.push(format!(
                        "- {}: {}: {}",
                        row.file,
                        GPU_VARIANTS[i].short(),
                        e
                    ));
                    e.split(':').next().unwrap_or(e).to_string()
                }
            }
        };
        let (h, n, d) = (t(0), t(1), t(2));
        let c = match (row.results.len() > 3).then(|| t(3)) {
            Some(c) => match row.checker_ratio() {
                Some(r) => format!("{c} ({r:.2}x)"),
                None => c,
            },
            None => "—".into(),
        };
        let tp = |i: usize| match &row.results[i] {
            Ok(t) => {
                let mut s = gbs(row.work, t.median);
                if let (Some(Work::Bytes(b)), Some(c)) = (row.work, row.copy_bw) {
                    let _ = write!(s, " ({:.0}% of copy)", 100.0 * b / t.median / 1e9 / c);
                }
                s
            }
            Err(_) => "—".into(),
        };
        let _ = writeln!(
            m,
            "| {} | {} | {h} | {n} | {} | {} | {} | {d} | {c} | {} |",
            cell(&row.title),
            cell(&row.size),
            row.ratio()
                .map(|r| format!("**{}**", fmt_ratio(r)))
                .unwrap_or_else(|| "—".into()),
            tp(0),
            tp(1),
            row.copy_bw
                .map(|c| format!("{c:.0} GB/s"))
                .unwrap_or_else(|| "—".into())
        );
    }
    let (g, n) = kernel_geomean(run);
    let _ = writeln!(m);
    match g {
        Some(g) => {
            let _ = writeln!(
                m,
                "**Geomean of hipmlir / nvcc: {g:.2}** over {n} of {} kernels (target: <= \
                 {KERNEL_TARGET:.2}, {}).",
                run.rows.len(),
                verdict(g <= KERNEL_TARGET)
            );
        }
        None => {
            let _ = writeln!(
                m,
                "**Geomean of hipmlir / nvcc: n/a** (no kernel measured both ways)."
            );
        }
    }
    if !notes.is_empty() {
        let _ = writeln!(m, "\nNot measured:\n");
        for n in &notes {
            let _ = writeln!(m, "{}", cell(n));
        }
    }
    let _ = writeln!(m);

    let _ = writeln!(m, "### Launch overhead\n");
    let _ = writeln!(
        m,
        "`bench/hip/launch_overhead.hip` built by hipmlir (a default build: its sm_70 PTX, run \
         by hipmlir's runtime on its CUDA backend, `HIPMLIR_BACKEND=cuda`) launches a trivial \
         kernel with `hipLaunchKernelGGL`; `bench/cuda/launch_raw.cpp` (built by nvcc, linked \
         with libcuda) loads hipmlir's PTX of the same file with `cuModuleLoadData` and launches \
         the same kernel with the same shape by `cuLaunchKernel`. Each program times N launches \
         plus one synchronization, median of its rounds; the two programs alternate, and the \
         figure is the median over the rounds.\n"
    );
    match &run.launch {
        Ok(l) => {
            let _ = writeln!(m, "| | per launch | first launch (load + JIT + launch) |");
            let _ = writeln!(m, "|---|---:|---:|");
            let _ = writeln!(
                m,
                "| hipLaunchKernelGGL (hipmlir runtime) | {} | {} |",
                fmt_time(l.hip),
                fmt_time(l.hip_first)
            );
            let _ = writeln!(
                m,
                "| cuLaunchKernel (raw driver API) | {} | {} |",
                fmt_time(l.raw),
                fmt_time(l.raw_first)
            );
            let _ = writeln!(
                m,
                "\n**hipLaunchKernelGGL / cuLaunchKernel: {:.2}** ({} launches x {} rounds per \
                 program run, {} runs each; target <= {LAUNCH_TARGET:.1}, {}).",
                l.ratio(),
                l.iters,
                l.reps,
                l.rounds,
                verdict(l.ratio() <= LAUNCH_TARGET)
            );
        }
        Err(e) => {
            let _ = writeln!(m, "Not measured: {}", cell(e));
        }
    }
    nvrtc_section(&mut m, run);
    let _ = writeln!(m, "{END}");
    m
}

/// NVRTC, hiprtc's peer, compiling the benchmark kernel files on the GPU machine's host.
fn nvrtc_section(m: &mut String, run: &GpuRun) {
    let _ = writeln!(m, "\n### Runtime compilation: NVRTC\n");
    let _ = writeln!(
        m,
        "`bench/rtc/rtc_compile.cpp` (the program the runtime-compilation section times hiprtc \
         with) loads NVIDIA's `libnvrtc` and times `nvrtcCreateProgram` + `nvrtcCompileProgram` + \
         `nvrtcGetPTX` of each `bench/kernels/NAME.hip`, each compile of a new program, median of \
         the compiles after the process's first. NVRTC makes PTX for its default architecture; \
         hiprtc makes SPIR-V and PTX. The two run on different hosts (hiprtc's libraries are not \
         on the GPU machine), so compare them as orders of magnitude.\n"
    );
    match &run.nvrtc {
        Ok(n) => {
            let _ = writeln!(
                m,
                "Library: `{}`; the process's first compile: {}.\n",
                cell(&n.library),
                n.first.as_ref().map_or_else(|e| cell(e), |t| fmt_time(*t))
            );
            let _ = writeln!(m, "| kernel file | NVRTC compile | PTX bytes |");
            let _ = writeln!(m, "|---|---:|---:|");
            for (file, t, bytes) in &n.rows {
                let _ = writeln!(
                    m,
                    "| {} | {} | {} |",
                    cell(file),
                    t.as_ref().map_or_else(|e| cell(e), |t| fmt_time(*t)),
                    bytes.map_or("".into(), |b| format!("{b:.0}"))
                );
            }
        }
        Err(e) => {
            let _ = writeln!(m, "Not measured: {}", cell(e));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::GpuInfo;
    use crate::gpu::{GpuLaunch, GpuPlan, GpuRow, GpuTiming};

    fn timing(ms: f64) -> Result<GpuTiming, String> {
        Ok(GpuTiming { median: ms / 1e3 })
    }

    fn run() -> GpuRun {
        GpuRun {
            gpu: GpuInfo {
                name: "Test GPU".into(),
                capability: 90,
                cuda_version: "13.0".into(),
                memory_gib: 80.0,
                sms: 132,
            },
            driver: Some("580.1".into()),
            nvcc: Ok("Cuda compilation tools, release 13.0, V13.0.1".into()),
            arch: "sm_90".into(),
            quick: true,
            plan: GpuPlan::new(true),
            date: "today".into(),
            host: "host".into(),
            copy_bw: Some(3000.0),
            rows: vec![
                GpuRow {
                    file: "vector_add".into(),
                    title: "vector add".into(),
                    size: "n".into(),
                    // 3e9 bytes in 1.2 ms = 2500 GB/s, 83% of 3000.
                    work: Some(Work::Bytes(3e9)),
                    results: vec![timing(1.2), timing(1.0), timing(1.3), timing(1.8)],
                    copy_bw: Some(3000.0),
                },
                GpuRow {
                    file: "histogram".into(),
                    title: "histogram".into(),
                    size: "n".into(),
                    work: Some(Work::Bytes(1e9)),
                    results: vec![
                        Err("does not compile yet: x".into()),
                        timing(2.0),
                        timing(2.0),
                        Err("does not compile yet: y".into()),
                    ],
                    copy_bw: None,
                },
            ],
            launch: Ok(GpuLaunch {
                iters: 10,
                reps: 1,
                rounds: 1,
                hip: 3e-6,
                raw: 2e-6,
                hip_first: 0.1,
                raw_first: 0.05,
            }),
            nvrtc: Ok(crate::rtc::NvrtcRun {
                library: "libnvrtc.so".into(),
                first: Ok(0.4),
                rows: vec![
                    ("saxpy.hip".into(), Ok(0.011), Some(1136.0)),
                    ("scan.hip".into(), Err("does not compile".into()), None),
                ],
            }),
        }
    }

    #[test]
    fn summary_states_figures_and_targets() {
        let s = summary(&run()).join("\n");
        assert!(s.contains("hipmlir / nvcc: 1.20 over 1 of 2 kernels; left out: histogram"));
        assert!(s.contains("vector add 83.3%"));
        assert!(s.contains("target >= 85%: missed"));
        assert!(s.contains("cuLaunchKernel: 1.50"));
        assert!(s.contains("nvcc V13.0.1"));
        assert!(
            s.contains("GPU memory checker (-fsanitize=address) kernel time / without: geomean 1.50 over 1 kernels (vector_add 1.50; target <= 2)"),
            "{s}"
        );
        assert!(
            s.contains("NVRTC on the GPU machine's host: 11.00 ms per kernel file"),
            "{s}"
        );
    }

    #[test]
    fn section_is_delimited_and_names_failures() {
        let sec = section(&run());
        assert!(sec.starts_with(BEGIN));
        assert!(sec.trim_end().ends_with(END));
        assert!(sec.contains("## Measured on the GPU: Test GPU"));
        assert!(sec.contains("- histogram: hipmlir: does not compile yet: x"));
        assert!(sec.contains("| 1.80 (1.50x) |"), "{sec}");
        assert!(sec.contains("- histogram: hipmlir -fsanitize=address: does not compile yet: y"));
        assert!(sec.contains("| scan.hip | does not compile |  |"), "{sec}");
        assert_eq!(extract(&format!("a\n{sec}\nb")), Some(sec.trim_end()));
    }

    #[test]
    fn merge_replaces_keeps_and_appends() {
        let old = format!("# report\n\nold body\n\n{BEGIN}\nold gpu\n{END}\n");
        // A new body without a section keeps the old one when asked to.
        let kept = merge("# report\n\nnew body\n", extract(&old));
        assert_eq!(
            kept,
            format!("# report\n\nnew body\n\n{BEGIN}\nold gpu\n{END}\n")
        );
        // A new section replaces the old one, wherever it was.
        let new = format!("{BEGIN}\nnew gpu\n{END}");
        let replaced = merge(&old, Some(&new));
        assert_eq!(replaced, format!("# report\n\nold body\n\n{new}\n"));
        assert_eq!(merge(&replaced, None), "# report\n\nold body\n");
        assert_eq!(merge("", Some(&new)), format!("{new}\n"));
        assert_eq!(extract("no section"), None);
        // A part in the middle leaves one blank line, however often it is merged.
        let middle = format!("# report\n\n{BEGIN}\nold gpu\n{END}\n\n## notes\n");
        let once = merge(&middle, Some(&new));
        assert_eq!(once, format!("# report\n\n## notes\n\n{new}\n"));
        assert_eq!(merge(&once, Some(&new)), once);
    }
}
