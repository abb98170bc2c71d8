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

/// A C string literal holding `bytes`, each byte spelled in a way chosen at random: as itself
/// (printable ASCII, or a raw byte above 0x7f: the source is not UTF-8 there), a simple escape,
/// a hex escape (the literal is split after it, so that no digit extends it), or an octal one;
/// sometimes split into joined pieces. Returns the source bytes of the literal.
fn random_literal(bytes: &[u8], rng: &mut Lcg) -> Vec<u8> {
    const SIMPLE: &[(u8, &[u8])] = &[
        (b'\n', b"\\n"),
        (b'\t', b"\\t"),
        (b'\r', b"\\r"),
        (7, b"\\a"),
        (8, b"\\b"),
        (12, b"\\f"),
        (11, b"\\v"),
        (b'\\', b"\\\\"),
        (b'"', b"\\\""),
        (b'\'', b"\\'"),
        (b'?', b"\\?"),
        (0, b"\\0"),
    ];
    let mut out = b"\"".to_vec();
    for (i, &b) in bytes.iter().enumerate() {
        let simple = SIMPLE.iter().find(|(c, _)| *c == b).map(|(_, s)| *s);
        // `\0` followed by an octal digit would take it in: spelled as three digits then.
        let next_is_octal = bytes.get(i + 1).is_some_and(|n| (b'0'..=b'7').contains(n));
        let raw = (0x20..0x7f).contains(&b) && !matches!(b, b'"' | b'\\' | b'?') || b >= 0x80;
        match rng.below(4) {
            0 if raw => out.push(b),
            1 if simple.is_some() && !(b == 0 && next_is_octal) => {
                out.extend_from_slice(simple.unwrap())
            }
            2 => out.extend_from_slice(format!("\\x{b:02x}\"\"").as_bytes()),
            _ => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
        if rng.below(8) == 0 {
            out.extend_from_slice(b"\" \"");
        }
    }
    out.push(b'"');
    out
}

/// String literals of random bytes (NULs, bytes above 0x7f, quotes and backslashes included),
/// spelled at random (`random_literal`): the bytes device code reads are the bytes host code
/// reads, every byte of every literal, in one program built and run on the device.
#[test]
fn random_string_literals_keep_their_bytes() {
    const LITERALS: usize = 64;
    let mut rng = Lcg(0x5717_1a75);
    let mut cases = Vec::new();
    for i in 0..LITERALS {
        let len = rng.below(48);
        let bytes: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        let spelled = random_literal(&bytes, &mut rng);
        let mut case = format!("    case {i}: return Literal{{").into_bytes();
        case.extend_from_slice(&spelled);
        case.extend_from_slice(b", sizeof(");
        case.extend_from_slice(&spelled);
        case.extend_from_slice(b")};\n");
        cases.extend(case);
    }
    let mut source = format!(
        r#"#include <hip/hip_runtime.h>
#include <cstdio>
#pragma clang diagnostic ignored "-Winvalid-source-encoding"
struct Literal {{
  const char* bytes;
  unsigned long size;
}};
constexpr int kLiterals = {LITERALS}, kWidth = 64;
__host__ __device__ Literal literal(int i) {{
  switch (i) {{
"#
    )
    .into_bytes();
    source.extend(cases);
    source.extend_from_slice(
        br#"    default: return Literal{"", 1};
  }
}
__global__ void copy_literals(unsigned char* out, unsigned long* sizes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kLiterals) return;
  Literal l = literal(i);
  sizes[i] = l.size;
  for (unsigned long k = 0; k < l.size && k < kWidth; ++k) out[i * kWidth + k] = l.bytes[k];
}
int main() {
  unsigned char* out;
  unsigned long* sizes;
  if (hipMalloc(&out, kLiterals * kWidth) != hipSuccess) return 2;
  if (hipMalloc(&sizes, kLiterals * sizeof(unsigned long)) != hipSuccess) return 2;
  if (hipMemset(out, 0, kLiterals * kWidth) != hipSuccess) return 2;
  copy_literals<<<2, 32>>>(out, sizes);
  static unsigned char got[kLiterals * kWidth];
  static unsigned long got_sizes[kLiterals];
  if (hipMemcpy(got, out, sizeof got, hipMemcpyDeviceToHost) != hipSuccess) return 2;
  if (hipMemcpy(got_sizes, sizes, sizeof got_sizes, hipMemcpyDeviceToHost) != hipSuccess) return 2;
  int bad = 0;
  for (int i = 0; i < kLiterals; ++i) {
    Literal l = literal(i);
    if (got_sizes[i] != l.size) {
      std::printf("literal %d: size %lu on the device, %lu on the host\n", i, got_sizes[i], l.size);
      ++bad;
      continue;
    }
    for (unsigned long k = 0; k < l.size; ++k) {
      if (got[i * kWidth + k] != (unsigned char)l.bytes[k]) {
        std::printf("literal %d: byte %lu is %02x on the device, %02x on the host\n", i, k,
                    got[i * kWidth + k], (unsigned char)l.bytes[k]);
        ++bad;
        break;
      }
    }
  }
  std::printf(bad == 0 ? "PASSED\n" : "FAILED\n");
  return bad == 0 ? 0 : 1;
}
"#,
    );
    let dir = scratch();
    let path = dir.path().join("random_literals.hip");
    std::fs::write(&path, &source).unwrap();
    let exe = build(&path, dir.path(), None);
    run_program(&exe);
}
