//! `-ftime-report` (clang's flag): where a build spent its time, printed to stderr at the end.
//!
//! The phases are leaves (device parse, MLIR building, each pass of the pipeline,
//! serialization, the host compile, the link). They follow each other on the compile thread,
//! except a HIP source's host compile, which runs beside its device lowering and is named so;
//! "other" is the build's time less what the phases cover (none when they overlapped).

use std::sync::Mutex;
use std::time::{Duration, Instant};

struct Report {
    started: Instant,
    phases: Vec<(String, Duration)>,
}

/// `None` unless `-ftime-report` was given.
static REPORT: Mutex<Option<Report>> = Mutex::new(None);

/// Starts recording; passes' times are recorded by dialect-passes and collected from there.
pub fn enable() {
    if let Ok(mut report) = REPORT.lock() {
        *report = Some(Report {
            started: Instant::now(),
            phases: Vec::new(),
        });
    }
    hipmlir_dialect_passes::record_pass_times(true);
}

fn enabled() -> bool {
    REPORT.lock().map(|r| r.is_some()).unwrap_or(false)
}

/// Adds a phase that was timed elsewhere.
pub fn add(phase: impl Into<String>, time: Duration) {
    if let Ok(mut report) = REPORT.lock() {
        if let Some(report) = report.as_mut() {
            report.phases.push((phase.into(), time));
        }
    }
}

/// Runs `f` as one phase. Passes that `f` runs are part of that phase, not reported apart.
pub fn time<T>(phase: &str, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    collect_passes();
    let started = Instant::now();
    let result = f();
    hipmlir_dialect_passes::take_pass_times();
    add(phase, started.elapsed());
    result
}

/// The pipeline's passes run since the last call, each as a phase (`device pass: <name>`).
pub fn collect_passes() {
    if !enabled() {
        return;
    }
    for (pass, time) in hipmlir_dialect_passes::take_pass_times() {
        add(format!("device pass: {}", without_options(&pass)), time);
    }
}

/// `spirv-attach-target{ver=v1.3 caps=...}` → `spirv-attach-target{...}`: a row per pass, not
/// per option list.
fn without_options(pass: &str) -> String {
    let mut name = String::with_capacity(pass.len());
    let mut depth = 0;
    for c in pass.chars() {
        match c {
            '{' => {
                if depth == 0 {
                    name.push_str("{...}");
                }
                depth += 1;
            }
            '}' => depth -= 1,
            _ if depth == 0 => name.push(c),
            _ => {}
        }
    }
    name
}

/// Prints the report (if `-ftime-report` asked for one), as clang's reports look: wall time,
/// share of the total, name; the phases in the order they ran.
pub fn print() {
    collect_passes();
    let Some(report) = REPORT.lock().ok().and_then(|mut r| r.take()) else {
        return;
    };
    let total = report.started.elapsed();
    let covered: Duration = report.phases.iter().map(|(_, t)| *t).sum();
    let rule = "===".to_string() + &"-".repeat(73) + "===";
    let mut text = format!(
        "{rule}\n{:^79}\n{rule}\n  Total Execution Time: {:.4} seconds (wall clock)\n\n   \
         ---Wall Time---  --- Name ---\n",
        "hipmlir build time report",
        total.as_secs_f64()
    );
    let row = |time: Duration, name: &str| {
        let share = if total.is_zero() {
            0.0
        } else {
            100.0 * time.as_secs_f64() / total.as_secs_f64()
        };
        format!("   {:7.4} ({share:5.1}%)  {name}\n", time.as_secs_f64())
    };
    for (name, time) in &report.phases {
        text += &row(*time, name);
    }
    text += &row(total.saturating_sub(covered), "other");
    text += &row(total, "Total");
    eprint!("{text}");
}

/// A phase that lasts until the guard is dropped (for phases with several exits).
pub struct Phase {
    name: &'static str,
    started: Option<Instant>,
}

impl Phase {
    pub fn start(name: &'static str) -> Phase {
        collect_passes();
        Phase {
            name,
            started: enabled().then(Instant::now),
        }
    }
}

impl Drop for Phase {
    fn drop(&mut self) {
        if let Some(started) = self.started {
            add(self.name, started.elapsed());
        }
    }
}
