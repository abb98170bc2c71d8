//! Damaged sources never crash the compiler: every test program, truncated at random points and
//! with lines deleted, duplicated or swapped (a fixed seed, so failures reproduce), goes through
//! the whole device pipeline (`--emit-spirv`). Each run must end in a clean error (exit 1, no
//! panic, no signal) or in SPIR-V that passes spirv-val.
mod common;

use std::path::{Path, PathBuf};

use common::*;

/// Damaged variants made of each program.
const VARIANTS_PER_PROGRAM: usize = 8;

/// A small deterministic generator (64-bit LCG): the same variants on every run.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

fn damage(source: &str, variant: usize, rng: &mut Lcg) -> (String, String) {
    let lines: Vec<&str> = source.lines().collect();
    let mut out: Vec<&str> = lines.clone();
    let what = match variant % 4 {
        0 | 1 => {
            // Truncated anywhere, mid-token included (at a character boundary).
            let mut at = rng.below(source.len());
            while !source.is_char_boundary(at) {
                at -= 1;
            }
            return (source[..at].to_string(), format!("truncated at byte {at}"));
        }
        2 => {
            let i = rng.below(lines.len());
            out.remove(i);
            format!("line {} deleted", i + 1)
        }
        _ => {
            let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
            out.swap(i, j);
            out.insert(i, lines[j]);
            format!(
                "lines {} and {} swapped, line {} duplicated",
                i + 1,
                j + 1,
                j + 1
            )
        }
    };
    (out.join("\n"), what)
}

/// Runs one damaged source; a message if the compiler misbehaved.
fn check(program: &Path, dir: &Path, index: usize, text: &str, what: &str) -> Option<String> {
    let source = dir.join(format!("case{index}.hip"));
    let spv = dir.join(format!("case{index}.spv"));
    std::fs::write(&source, text).unwrap();
    // The damaged copy lives elsewhere: its quoted includes are found through -I.
    let includes = program.parent().expect("a program's folder");
    let out = run_hipmlir(&[
        source.to_str().unwrap(),
        "-I",
        includes.to_str().unwrap(),
        "--emit-spirv",
        "-o",
        spv.to_str().unwrap(),
    ]);
    let err = stderr(&out);
    let name = format!("{} ({what})", program.display());
    match out.status.code() {
        None => Some(format!("{name}: killed by a signal:\n{err}")),
        Some(_) if err.contains("panicked") => Some(format!("{name}: panicked:\n{err}")),
        Some(0) => {
            let val = std::process::Command::new("spirv-val")
                .arg(&spv)
                .output()
                .expect("spirv-val runs");
            (!val.status.success()).then(|| {
                format!(
                    "{name}: emitted SPIR-V that spirv-val rejects:\n{}",
                    stderr(&val)
                )
            })
        }
        Some(1) if err.contains("error") => None,
        Some(code) => Some(format!("{name}: exit code {code} without an error:\n{err}")),
    }
}

#[test]
fn damaged_sources_get_errors_never_crashes() {
    let dir = scratch();
    let mut rng = Lcg(0x5eed_f00d);
    let mut cases: Vec<(PathBuf, String, String)> = Vec::new();
    for program in programs() {
        let source = std::fs::read_to_string(&program).unwrap();
        for variant in 0..VARIANTS_PER_PROGRAM {
            let (text, what) = damage(&source, variant, &mut rng);
            cases.push((program.clone(), text, what));
        }
    }
    // Two workers: the machines this runs on have two cores.
    let failures: Vec<String> = std::thread::scope(|scope| {
        let (even, odd): (Vec<_>, Vec<_>) = cases.iter().enumerate().partition(|(i, _)| i % 2 == 0);
        let workers: Vec<_> = [even, odd]
            .into_iter()
            .map(|share| {
                let dir = dir.path();
                scope.spawn(move || {
                    share
                        .into_iter()
                        .filter_map(|(i, (program, text, what))| check(program, dir, i, text, what))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} damaged sources crashed the compiler:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}
