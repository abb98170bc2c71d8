//! Real programs on the GPU: the HeCBench programs of the development corpus (`../shared/corpus`,
//! or `$HIPMLIR_CORPUS`), each built by hipmlir here (`--gpu-prepare`) and its CUDA twin (the
//! program's `cuda/` folder, HeCBench's CUDA version of the same program) built by nvcc with its
//! own Makefile on the GPU machine. Both run with the manifest's arguments; the second of two
//! runs is timed, and the kernel times the programs print themselves ("Average kernel execution
//! time ... (us)") are compared line by line where both print the same line.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::stats::geomean;
use crate::tools::{self, first_error_line, run_within, Tools};

/// A program's run is stopped after this long (the corpus' own limit is 120 s).
const RUN_LIMIT: Duration = Duration::from_secs(100);
/// The limit of a build (hipmlir here, nvcc there).
const BUILD_LIMIT: Duration = Duration::from_secs(300);
/// The hipmlir-built program's name in its folder (the CUDA twin's Makefile makes `main`).
const HIPMLIR_EXE: &str = "hipmlir-prog";
/// What `--gpu-prepare` records of a program beside its sources: arguments, success marker,
/// failure marker, one per line.
const RUN_FILE: &str = "hipmlir-run.txt";
/// A hipmlir build's error, when it failed.
const BUILD_ERROR: &str = "hipmlir-build.error";

/// One of the manifest's programs.
struct Program {
    id: String,
    sources: String,
    args: String,
    success: String,
    failure: String,
}

/// The corpus' programs that have a CUDA twin.
fn hecbench_programs(corpus: &Path) -> Result<Vec<Program>, String> {
    let manifest = corpus.join("manifest.tsv");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| format!("no corpus manifest at {} ({e})", manifest.display()))?;
    Ok(text
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let get = |i: usize| f.get(i).map_or(String::new(), |s| s.trim().to_string());
            let p = Program {
                id: get(0),
                sources: get(4),
                args: get(5),
                success: get(6),
                failure: get(8),
            };
            corpus
                .join("programs")
                .join(&p.id)
                .join("cuda/Makefile")
                .is_file()
                .then_some(p)
        })
        .collect())
}

/// Where the corpus is: `$HIPMLIR_CORPUS`, else `../shared/corpus` beside the repository.
fn corpus_dir(tools: &Tools) -> PathBuf {
    std::env::var_os("HIPMLIR_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| tools.root.join("../shared/corpus"))
}

/// Copies each program (its CUDA twin included) into `dir/programs/ID` and builds it there with
/// hipmlir for `arch`. A program hipmlir cannot build keeps its error in its folder.
pub fn prepare(tools: &Tools, dir: &Path, arch: &str) -> Result<usize, String> {
    let corpus = corpus_dir(tools);
    let programs = hecbench_programs(&corpus)?;
    let root = dir.join("programs");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    for p in &programs {
        let folder = root.join(&p.id);
        let f = tools::run(
            Command::new("cp")
                .arg("-r")
                .arg(corpus.join("programs").join(&p.id))
                .arg(&folder),
        )?;
        if !f.success {
            return Err(format!("cp {}: {}", p.id, first_error_line(&f)));
        }
        let record = format!("{}\n{}\n{}\n", p.args, p.success, p.failure);
        std::fs::write(folder.join(RUN_FILE), record)
            .map_err(|e| format!("cannot write in {}: {e}", folder.display()))?;
        eprintln!("[gpu-programs] building {} with hipmlir", p.id);
        let built = run_within(
            Command::new(&tools.hipmlir)
                .current_dir(&folder)
                // As the program's own HIP Makefile builds it (HeCBench's CFLAGS hold -O3, as
                // its CUDA twin's do): hipmlir's host default is -O2.
                .arg("-O3")
                .arg("-I.")
                .arg(format!("--offload-arch={arch}"))
                .args(p.sources.split_whitespace())
                .arg("-o")
                .arg(HIPMLIR_EXE),
            BUILD_LIMIT,
        );
        let error = match built {
            Ok(f) if f.success => None,
            Ok(f) => Some(tools.tidy(&first_error_line(&f))),
            Err(e) => Some(e),
        };
        if let Some(e) = error {
            std::fs::write(
                folder.join(BUILD_ERROR),
                format!("hipmlir cannot build it: {e}"),
            )
            .map_err(|e| format!("cannot write in {}: {e}", folder.display()))?;
        }
    }
    Ok(programs.len())
}

/// A successful run.
#[derive(Debug, Clone)]
pub struct ProgramRun {
    /// Wall time of the second run, seconds.
    pub wall: f64,
    /// The kernel times the program printed: (the line with its numbers blanked, seconds).
    pub kernel: Vec<(String, f64)>,
}

/// One program, both ways.
#[derive(Debug, Clone)]
pub struct ProgramRow {
    pub id: String,
    pub hipmlir: Result<ProgramRun, String>,
    pub nvcc: Result<ProgramRun, String>,
}

impl ProgramRow {
    /// hipmlir / nvcc, wall time of the whole process.
    pub fn wall_ratio(&self) -> Option<f64> {
        match (&self.hipmlir, &self.nvcc) {
            (Ok(h), Ok(n)) if n.wall > 0.0 => Some(h.wall / n.wall),
            _ => None,
        }
    }

    /// The kernel-time lines both printed, paired in order (a program prints the same line once
    /// per configuration: the n-th of ours with the n-th of theirs): (ours, theirs) seconds.
    pub fn kernel_pairs(&self) -> Vec<(f64, f64)> {
        let (Ok(h), Ok(n)) = (&self.hipmlir, &self.nvcc) else {
            return Vec::new();
        };
        let mut used = vec![false; n.kernel.len()];
        h.kernel
            .iter()
            .filter_map(|(line, t)| {
                let i = (0..n.kernel.len()).find(|&i| !used[i] && n.kernel[i].0 == *line)?;
                used[i] = true;
                Some((*t, n.kernel[i].1))
            })
            .collect()
    }

    /// hipmlir / nvcc over the kernel-time lines both printed (geomean of the lines' ratios).
    pub fn kernel_ratio(&self) -> Option<f64> {
        let ratios: Vec<f64> = self
            .kernel_pairs()
            .into_iter()
            .filter(|&(ours, theirs)| ours > 0.0 && theirs > 0.0)
            .map(|(ours, theirs)| ours / theirs)
            .collect();
        geomean(&ratios)
    }

    /// The ratio the program is judged by: its kernels' where both printed them, else the
    /// process's wall time.
    pub fn ratio(&self) -> Option<f64> {
        self.kernel_ratio().or_else(|| self.wall_ratio())
    }
}

/// Builds the CUDA twins (in parallel: nvcc is slow and the GPU machine has cores) and runs
/// every program both ways. `only` keeps the programs named.
pub fn measure(
    prepared: &Path,
    nvcc: &str,
    arch: &str,
    only: Option<&[String]>,
) -> Result<Vec<ProgramRow>, String> {
    let root = prepared.join("programs");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&root)
        .map_err(|e| format!("no programs in the prepared folder ({e}): prepare it again"))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join(RUN_FILE).is_file())
        .filter(|p| only.is_none_or(|o| o.iter().any(|id| p.ends_with(id))))
        .collect();
    folders.sort();
    eprintln!(
        "[gpu-programs] building {} CUDA twins with nvcc",
        folders.len()
    );
    let nvcc_dir = Path::new(nvcc)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map(Path::to_path_buf);
    let builds: Vec<Result<PathBuf, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = folders
            .iter()
            .map(|folder| scope.spawn(|| build_twin(folder, nvcc_dir.as_deref(), arch)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("internal error (panic)".into()))
            })
            .collect()
    });
    let mut rows = Vec::new();
    for (folder, twin) in folders.iter().zip(builds) {
        let id = folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let record = std::fs::read_to_string(folder.join(RUN_FILE)).unwrap_or_default();
        let mut fields = record.lines();
        let args: Vec<String> = fields
            .next()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let success = fields.next().unwrap_or("").to_string();
        let failure = fields.next().unwrap_or("").to_string();
        let hipmlir = match std::fs::read_to_string(folder.join(BUILD_ERROR)) {
            Ok(e) => Err(e.trim().to_string()),
            Err(_) => run_twice(folder, &folder.join(HIPMLIR_EXE), &args, &success, &failure),
        };
        let nvcc = twin.and_then(|exe| run_twice(folder, &exe, &args, &success, &failure));
        let show = |r: &Result<ProgramRun, String>| match r {
            Ok(r) => format!("{:.3} s", r.wall),
            Err(e) => e.clone(),
        };
        eprintln!(
            "[gpu-programs] {id}: hipmlir {}, nvcc {}",
            show(&hipmlir),
            show(&nvcc)
        );
        rows.push(ProgramRow { id, hipmlir, nvcc });
    }
    Ok(rows)
}

/// `make ARCH=arch` in the program's `cuda/` folder (HeCBench's own Makefile): its `main`.
fn build_twin(folder: &Path, nvcc_dir: Option<&Path>, arch: &str) -> Result<PathBuf, String> {
    let cuda = folder.join("cuda");
    let mut cmd = Command::new("make");
    cmd.current_dir(&cuda).arg(format!("ARCH={arch}"));
    if let Some(dir) = nvcc_dir {
        let path = std::env::var("PATH").unwrap_or_default();
        cmd.env("PATH", format!("{}:{path}", dir.display()));
    }
    let f = run_within(&mut cmd, BUILD_LIMIT)?;
    let exe = cuda.join("main");
    if f.success && exe.is_file() {
        Ok(exe)
    } else {
        Err(format!("nvcc build failed: {}", first_error_line(&f)))
    }
}

/// Runs `exe` twice in `folder`; the second run, checked as the corpus checks it (exit 0, the
/// success marker printed, the failure marker not).
fn run_twice(
    folder: &Path,
    exe: &Path,
    args: &[String],
    success: &str,
    failure: &str,
) -> Result<ProgramRun, String> {
    let once = || -> Result<tools::Finished, String> {
        let f = run_within(Command::new(exe).current_dir(folder).args(args), RUN_LIMIT)
            .map_err(|_| format!("did not finish in {} s", RUN_LIMIT.as_secs()))?;
        let text = format!("{}\n{}", f.stdout, f.stderr);
        if !f.success {
            return Err(format!("failed: {}", first_error_line(&f)));
        }
        if !success.is_empty() && !text.contains(success) {
            return Err(format!("no '{success}' in its output"));
        }
        if !failure.is_empty() && text.contains(failure) {
            return Err(format!("printed '{failure}'"));
        }
        Ok(f)
    };
    once()?;
    let f = once()?;
    // Kept beside the program for whoever reads the table.
    let name = exe
        .file_name()
        .map_or("program".into(), |n| n.to_string_lossy().into_owned());
    let _ = std::fs::write(folder.join(format!("{name}.out")), &f.stdout);
    Ok(ProgramRun {
        wall: f.seconds,
        kernel: kernel_times(&f.stdout),
    })
}

/// The kernel-time lines of a program's output: lines that mention a time and end a number with
/// a unit (s, ms, us), keyed by the line with its numbers blanked so that the CUDA twin's same
/// line matches.
pub fn kernel_times(output: &str) -> Vec<(String, f64)> {
    output
        .lines()
        .filter(|l| l.to_ascii_lowercase().contains("time"))
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let mut found = None;
            for (i, w) in words.iter().enumerate() {
                let w = w.trim_end_matches(',');
                let split = w
                    .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e')))
                    .unwrap_or(w.len());
                let Ok(value) = w[..split].parse::<f64>() else {
                    continue;
                };
                let unit = if split < w.len() {
                    &w[split..]
                } else {
                    words.get(i + 1).copied().unwrap_or("")
                };
                let scale = match unit.trim_matches(|c| matches!(c, '(' | ')' | ',' | '.')) {
                    "s" => 1.0,
                    "ms" => 1e-3,
                    "us" | "µs" => 1e-6,
                    _ => continue,
                };
                found = Some(value * scale);
            }
            let key = words
                .iter()
                .map(
                    |w| match w.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
                        Some(0) => w.to_string(),
                        Some(end) => format!("#{}", &w[end..]),
                        None => "#".to_string(),
                    },
                )
                .collect::<Vec<_>>()
                .join(" ");
            found.map(|t| (key, t))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_time_lines_are_read_with_their_units() {
        let out = "Average execution time of kernel (TopK = 8): 12.5 (us)\n\
                   Average kernel execution time 3.0 (ms)\n\
                   total kernel time 0.25(s) for 99 iterations\n\
                   Throughput = 5.0\n\
                   PASS\n";
        let t = kernel_times(out);
        assert_eq!(t.len(), 3, "{t:?}");
        assert_eq!(
            t[0].0,
            "Average execution time of kernel (TopK = #): # (us)"
        );
        assert!((t[0].1 - 12.5e-6).abs() < 1e-12);
        assert!((t[1].1 - 3.0e-3).abs() < 1e-12);
        assert!((t[2].1 - 0.25).abs() < 1e-12);
    }

    #[test]
    fn ratios_prefer_kernel_lines_both_printed() {
        let run = |wall: f64, kernel: Vec<(&str, f64)>| {
            Ok(ProgramRun {
                wall,
                kernel: kernel
                    .into_iter()
                    .map(|(l, t)| (l.to_string(), t))
                    .collect(),
            })
        };
        let row = ProgramRow {
            id: "p".into(),
            hipmlir: run(2.0, vec![("a #", 2.0), ("b #", 8.0), ("only ours #", 1.0)]),
            nvcc: run(1.0, vec![("a #", 1.0), ("b #", 2.0)]),
        };
        assert_eq!(row.wall_ratio(), Some(2.0));
        // geomean(2, 4)
        assert!((row.kernel_ratio().unwrap() - 8f64.sqrt()).abs() < 1e-9);
        // The same line printed for several configurations pairs in order.
        let repeated = ProgramRow {
            id: "s".into(),
            hipmlir: run(1.0, vec![("t #", 1.0), ("t #", 10.0), ("t #", 100.0)]),
            nvcc: run(1.0, vec![("t #", 1.0), ("t #", 10.0), ("t #", 100.0)]),
        };
        assert_eq!(repeated.kernel_pairs().len(), 3);
        assert!((repeated.kernel_ratio().unwrap() - 1.0).abs() < 1e-9);
        let no_lines = ProgramRow {
            id: "q".into(),
            hipmlir: run(3.0, vec![]),
            nvcc: run(2.0, vec![]),
        };
        assert_eq!(no_lines.ratio(), Some(1.5));
        let failed = ProgramRow {
            id: "r".into(),
            hipmlir: Err("x".into()),
            nvcc: run(1.0, vec![]),
        };
        assert_eq!(failed.ratio(), None);
    }
}
