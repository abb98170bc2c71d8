//! The real-program section of BENCHMARKS.md (HeCBench programs on the GPU, hipmlir against
//! nvcc): written by a run on a GPU machine between its own markers, kept by every other run.

use std::fmt::Write as _;

use crate::gpu_programs::ProgramRow;
use crate::gpu_report::{cell, verdict};
use crate::stats::{fmt_ratio, fmt_time, geomean};

pub const BEGIN: &str = "<!-- gpu-programs-section: begin -->";
pub const END: &str = "<!-- gpu-programs-section: end -->";

/// Targets (issue: ahead of nvcc on its own programs).
pub const GEOMEAN_TARGET: f64 = 0.95;
pub const WORST_TARGET: f64 = 1.15;

/// What one run measured.
pub struct ProgramsRun {
    pub gpu: String,
    pub arch: String,
    pub nvcc: String,
    pub date: String,
    pub rows: Vec<ProgramRow>,
}

/// The section's summary lines.
pub fn summary(run: &ProgramsRun) -> Vec<String> {
    let ratios: Vec<(String, f64)> = run
        .rows
        .iter()
        .filter_map(|r| Some((r.id.clone(), r.ratio()?)))
        .collect();
    let values: Vec<f64> = ratios.iter().map(|(_, r)| *r).collect();
    let above: Vec<String> = ratios
        .iter()
        .filter(|(_, r)| *r > WORST_TARGET)
        .map(|(id, r)| format!("{id} {}", fmt_ratio(*r)))
        .collect();
    let failed = |f: fn(&ProgramRow) -> bool| -> Vec<String> {
        run.rows
            .iter()
            .filter(|r| f(r))
            .map(|r| r.id.clone())
            .collect()
    };
    let ours = failed(|r| r.hipmlir.is_err());
    let theirs = failed(|r| r.nvcc.is_err());
    let mut s = Vec::new();
    s.push(match geomean(&values) {
        Some(g) => format!(
            "Real programs on the GPU, hipmlir / nvcc: geomean {} over {} of {} programs \
             (target <= {GEOMEAN_TARGET:.2}: {})",
            fmt_ratio(g),
            values.len(),
            run.rows.len(),
            verdict(g <= GEOMEAN_TARGET)
        ),
        None => format!(
            "Real programs on the GPU: no program ran both ways ({} tried)",
            run.rows.len()
        ),
    });
    s.push(format!(
        "Programs above {WORST_TARGET:.2}x nvcc: {} (target: none, {})",
        if above.is_empty() {
            "none".to_string()
        } else {
            above.join(", ")
        },
        verdict(above.is_empty())
    ));
    s.push(format!(
        "Not run by hipmlir: {}; not run by nvcc: {}",
        if ours.is_empty() {
            "none".into()
        } else {
            ours.join(", ")
        },
        if theirs.is_empty() {
            "none".into()
        } else {
            theirs.join(", ")
        }
    ));
    s
}

pub fn section(run: &ProgramsRun) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "{BEGIN}");
    let _ = writeln!(m, "## Real programs on the GPU: {}\n", cell(&run.gpu));
    let _ = writeln!(
        m,
        "Written by `hipmlir-bench --only gpu-programs` on {} on a machine with an NVIDIA GPU \
         (`make gpu-bench` prepares the folder, `hipmlir-bench --merge-gpu` puts the result \
         here). Each HeCBench program of the development corpus (`../shared/corpus`) is built \
         here by `hipmlir -O3 -I. SOURCES --offload-arch={arch}` (`-O3` as the program's own HIP \
         Makefile compiles it) and its CUDA twin (the program's `cuda/` folder) there by its own \
         Makefile (`make ARCH={arch}`, {}: `nvcc -O3`). Both run with the \
         manifest's arguments; each is checked as the corpus checks it (exit 0, its success \
         marker, no failure marker) and the second of two runs is timed. The ratio is hipmlir \
         over nvcc: of the kernel times the programs print themselves, where both print the \
         same line (geomean over the lines), else of the whole process's wall time.\n",
        if run.date.is_empty() {
            "an unknown date"
        } else {
            &run.date
        },
        cell(&run.nvcc),
        arch = run.arch,
    );
    let _ = writeln!(m, "```");
    for l in summary(run) {
        let _ = writeln!(m, "{l}");
    }
    let _ = writeln!(m, "```\n");
    let _ = writeln!(
        m,
        "| program | hipmlir (wall) | nvcc (wall) | wall ratio | kernel ratio (lines) |"
    );
    let _ = writeln!(m, "|---|---:|---:|---:|---:|");
    let mut notes = Vec::new();
    for r in &run.rows {
        let mut wall = |x: &Result<crate::gpu_programs::ProgramRun, String>, who: &str| match x {
            Ok(p) => fmt_time(p.wall),
            Err(e) => {
                notes.push(format!("- {}: {who}: {}", r.id, cell(e)));
                "n/a".to_string()
            }
        };
        let ours = wall(&r.hipmlir, "hipmlir");
        let theirs = wall(&r.nvcc, "nvcc");
        let lines = r.kernel_pairs().len();
        let _ = writeln!(
            m,
            "| {} | {ours} | {theirs} | {} | {} |",
            cell(&r.id),
            r.wall_ratio().map_or("".into(), fmt_ratio),
            r.kernel_ratio()
                .map_or("".into(), |k| format!("{} ({lines})", fmt_ratio(k))),
        );
    }
    if !notes.is_empty() {
        let _ = writeln!(m, "\n{}", notes.join("\n"));
    }
    let _ = writeln!(m, "{END}");
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu_programs::ProgramRun;

    #[test]
    fn summary_and_table_name_ratios_and_failures() {
        let ok = |wall: f64| {
            Ok(ProgramRun {
                wall,
                kernel: vec![("k # (us)".into(), wall)],
            })
        };
        let run = ProgramsRun {
            gpu: "Test GPU".into(),
            arch: "sm_90".into(),
            nvcc: "nvcc 13".into(),
            date: "today".into(),
            rows: vec![
                ProgramRow {
                    id: "hec_a".into(),
                    hipmlir: ok(1.0),
                    nvcc: ok(1.0),
                },
                ProgramRow {
                    id: "hec_b".into(),
                    hipmlir: ok(4.0),
                    nvcc: ok(2.0),
                },
                ProgramRow {
                    id: "hec_c".into(),
                    hipmlir: Err("did not finish in 100 s".into()),
                    nvcc: ok(1.0),
                },
            ],
        };
        let s = summary(&run).join("\n");
        assert!(s.contains("geomean 1.41x over 2 of 3 programs"), "{s}");
        assert!(s.contains("above 1.15x nvcc: hec_b 2.00x"), "{s}");
        assert!(
            s.contains("Not run by hipmlir: hec_c; not run by nvcc: none"),
            "{s}"
        );
        let sec = section(&run);
        assert!(sec.starts_with(BEGIN) && sec.trim_end().ends_with(END));
        assert!(
            sec.contains("- hec_c: hipmlir: did not finish in 100 s"),
            "{sec}"
        );
        assert!(
            sec.contains("| hec_b | 4.00 s | 2.00 s | 2.00x | 2.00x (1) |"),
            "{sec}"
        );
    }
}
