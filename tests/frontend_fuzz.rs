//! Damaged sources never crash the compiler: every test program, truncated at random points and
//! with lines deleted, duplicated or swapped (a fixed seed, so failures reproduce), goes through
//! the whole device pipeline (`--emit-spirv`). Each run must end in a clean error (exit 1, no
//! panic, no signal) or in SPIR-V that passes spirv-val. Sources nested 10,000 deep (parentheses,
//! unary operators, `a + a + ...`, `if`, `?:`, `else if`, loops, blocks, `&&`, template
//! recursion) are held to the same rule.
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
        Some(0) => spirv_val_rejection(&spv)
            .map(|why| format!("{name}: emitted SPIR-V that spirv-val rejects:\n{why}")),
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

/// One kernel whose body nests `depth` levels deep in one way.
fn nested_source(shape: &str, depth: usize) -> String {
    let n = depth;
    let body: String = match shape {
        "parentheses" => format!("p[0] = {}a{};", "(".repeat(n), ")".repeat(n)),
        "unary minus" => format!("p[0] = {}a;", "- ".repeat(n)),
        "a + a + ..." => format!("p[0] = {};", vec!["a"; n].join(" + ")),
        "if" => format!(
            "{}p[0] = 1;",
            (0..n).map(|i| format!("if (a > {i}) ")).collect::<String>()
        ),
        "?:" => format!(
            "p[0] = {}0;",
            (0..n)
                .map(|i| format!("a > {i} ? {i} : "))
                .collect::<String>()
        ),
        "else if" => format!(
            "{}p[0] = -1;",
            (0..n)
                .map(|i| format!("if (a == {i}) p[0] = {i}; else "))
                .collect::<String>()
        ),
        "for" => format!(
            "{}p[0] += 1;",
            (0..n)
                .map(|i| format!("for (int i{i} = 0; i{i} < a; ++i{i}) "))
                .collect::<String>()
        ),
        "blocks" => format!("{}p[0] = a;{}", "{".repeat(n), "}".repeat(n)),
        "&&" => format!(
            "p[0] = {};",
            (0..n)
                .map(|i| format!("a > {i}"))
                .collect::<Vec<_>>()
                .join(" && ")
        ),
        "template recursion" => {
            return format!(
                "#include \"hip/hip_runtime.h\"\n\
                 template <int N> __device__ int f(int a) {{ return f<N - 1>(a) + 1; }}\n\
                 template <> __device__ int f<0>(int a) {{ return a; }}\n\
                 __global__ void k(int* p, int a) {{ p[0] = f<{n}>(a); }}\n"
            )
        }
        other => panic!("unknown shape {other}"),
    };
    format!("#include \"hip/hip_runtime.h\"\n__global__ void k(int* p, int a) {{\n{body}\n}}\n")
}

#[test]
fn deeply_nested_sources_get_programs_or_errors_never_crashes() {
    const DEPTH: usize = 10_000;
    let shapes = [
        "parentheses",
        "unary minus",
        "a + a + ...",
        "if",
        "?:",
        "else if",
        "for",
        "blocks",
        "&&",
        "template recursion",
    ];
    let dir = scratch();
    // Named in failures; its folder (the scratch one) is the include path.
    let program = dir.path().join("nested.hip");
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = [0, 1]
            .into_iter()
            .map(|worker| {
                let dir = dir.path();
                let program = &program;
                scope.spawn(move || {
                    shapes
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| i % 2 == worker)
                        .filter_map(|(i, shape)| {
                            let text = nested_source(shape, DEPTH);
                            let what = format!("{shape} nested {DEPTH} deep");
                            check(program, dir, 1000 + i, &text, &what)
                        })
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
        "{} of {} nesting shapes crashed the compiler:\n{}",
        failures.len(),
        shapes.len(),
        failures.join("\n\n")
    );
}
