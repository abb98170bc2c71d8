//! The kernel-quality cases: for each kernel, its inputs, its launches (the same for hipmlir and
//! the peers), the work it does (bytes moved or flops) and a host check of its outputs.

use std::sync::Arc;

/// A buffer of a case: its initial contents (zeros for outputs) and whether it is read back.
pub struct Buf {
    pub init: Vec<u8>,
    pub output: bool,
}

/// A kernel argument: a buffer of the case, or a scalar.
#[derive(Debug, Clone, Copy)]
pub enum A {
    Buf(usize),
    I32(i32),
    F32(f32),
}

/// One kernel launch: global = grid x block and local = block, in work-items per dimension.
pub struct Launch {
    pub kernel: &'static str,
    pub args: Vec<A>,
    pub global: Vec<usize>,
    pub local: Vec<usize>,
}

/// What a run of the case accomplishes, for throughput figures.
#[derive(Debug, Clone, Copy)]
pub enum Work {
    /// Bytes the algorithm must read plus bytes it must write.
    Bytes(f64),
    /// Floating-point operations.
    Flops(f64),
}

/// Checks the buffers read back (non-output buffers are empty) against a host reference.
pub type Check = Box<dyn Fn(&[Vec<u8>]) -> Result<(), String>>;

/// One benchmark kernel (possibly several launches, timed together).
pub struct Case {
    /// The file stem under bench/kernels (NAME.hip and NAME.cl).
    pub file: &'static str,
    /// The name in the report.
    pub title: &'static str,
    pub size: String,
    pub buffers: Vec<Buf>,
    pub launches: Vec<Launch>,
    pub work: Work,
    pub check: Check,
}

/// A small deterministic generator (xorshift64*), so every run has the same inputs.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    pub fn floats(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| lo + (hi - lo) * self.unit()).collect()
    }
}

pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
pub fn u16_bytes(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn u32_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
pub fn bytes_f32(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
pub fn bytes_u32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn input(init: Vec<u8>) -> Buf {
    Buf {
        init,
        output: false,
    }
}
fn output(bytes: usize) -> Buf {
    Buf {
        init: vec![0; bytes],
        output: true,
    }
}
/// An input the kernel also writes (checked after the run).
fn inout(init: Vec<u8>) -> Buf {
    Buf { init, output: true }
}

/// Compares `got` with `want` element by element: |got - want| <= tol * scale(i).
fn compare(
    got: &[f32],
    want: impl Fn(usize) -> f64,
    scale: impl Fn(usize) -> f64,
    tol: f64,
) -> Result<(), String> {
    let mut bad = 0usize;
    let mut first = None;
    for (i, &g) in got.iter().enumerate() {
        let w = want(i);
        let ok = (g as f64 - w).abs() <= tol * scale(i).max(1e-30) || (g as f64 == w);
        if !ok || !g.is_finite() {
            bad += 1;
            first.get_or_insert((i, g, w));
        }
    }
    match first {
        None => Ok(()),
        Some((i, g, w)) => Err(format!(
            "{bad} of {} elements differ from the host reference (first at {i}: {g} vs {w})",
            got.len()
        )),
    }
}

fn exact_u32(got: &[u32], want: &[u32]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{} elements read, {} expected",
            got.len(),
            want.len()
        ));
    }
    let bad = got.iter().zip(want).filter(|(g, w)| g != w).count();
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{bad} of {} elements differ from the host reference (first at {i}: {} vs {})",
            got.len(),
            got[i],
            want[i]
        )),
    }
}

fn ceil_div(a: usize, b: usize) -> usize {
    a.div_ceil(b)
}

/// Sizes of the run; streaming working sets stay at 64 MB or more even in a quick run.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// Elements of the 1-D streaming kernels (floats or uints).
    pub n: usize,
    /// Rows = columns of the transposed matrix.
    pub transpose: usize,
    /// Bytes of histogram input.
    pub histogram: usize,
    /// Rows = columns of the multiplied matrices.
    pub matmul: usize,
}

impl Sizes {
    pub fn full() -> Sizes {
        Sizes {
            n: 1 << 24,
            transpose: 4096,
            histogram: 1 << 26,
            matmul: 2048,
        }
    }
    pub fn quick() -> Sizes {
        Sizes {
            matmul: 1024,
            ..Sizes::full()
        }
    }
    /// A GPU run's: 1-D arrays of 2^26 elements (256 MB each, BabelStream's default array
    /// size), so that a streaming kernel on a GPU moving terabytes a second runs for hundreds of
    /// microseconds, well beyond what its launch and the ramp up to full bandwidth cost (at 2^24
    /// an H100 streams vector add's 192 MB in 80 µs).
    pub fn gpu(quick: bool) -> Sizes {
        let base = if quick { Sizes::quick() } else { Sizes::full() };
        Sizes { n: 1 << 26, ..base }
    }
}

fn mb(bytes: usize) -> String {
    format!("{} MB", bytes >> 20)
}

/// Builds a case's inputs (deferred: they are large).
pub type MakeCase = Box<dyn Fn() -> Case>;

/// All the cases, in report order.
pub fn all(sizes: Sizes) -> Vec<(&'static str, MakeCase)> {
    vec![
        ("vector_add", Box::new(move || vector_add(sizes.n))),
        ("saxpy", Box::new(move || saxpy(sizes.n))),
        ("reduction", Box::new(move || reduction(sizes.n))),
        ("transpose", Box::new(move || transpose(sizes.transpose))),
        ("matmul", Box::new(move || matmul(sizes.matmul))),
        ("stencil", Box::new(move || stencil(sizes.n))),
        ("histogram", Box::new(move || histogram(sizes.histogram))),
        ("scan", Box::new(move || scan(sizes.n))),
        ("half2_max", Box::new(move || half2_max(sizes.n))),
    ]
}

pub fn vector_add(n: usize) -> Case {
    let mut rng = Rng::new(1);
    let a = Arc::new(rng.floats(n, -1.0, 1.0));
    let b = Arc::new(rng.floats(n, -1.0, 1.0));
    let (ra, rb) = (a.clone(), b.clone());
    Case {
        file: "vector_add",
        title: "vector add",
        size: format!("n = 2^{} floats, {} moved", n.trailing_zeros(), mb(12 * n)),
        buffers: vec![input(f32_bytes(&a)), input(f32_bytes(&b)), output(4 * n)],
        launches: vec![Launch {
            kernel: "vector_add",
            args: vec![A::Buf(0), A::Buf(1), A::Buf(2), A::I32(n as i32)],
            global: vec![ceil_div(n, 256) * 256],
            local: vec![256],
        }],
        work: Work::Bytes(12.0 * n as f64),
        check: Box::new(move |out| {
            let c = bytes_f32(&out[2]);
            compare(&c, |i| (ra[i] + rb[i]) as f64, |_| 0.0, 0.0)
        }),
    }
}

pub fn saxpy(n: usize) -> Case {
    let mut rng = Rng::new(2);
    let x = Arc::new(rng.floats(n, -1.0, 1.0));
    let y = Arc::new(rng.floats(n, -1.0, 1.0));
    let a = 2.5f32;
    let (rx, ry) = (x.clone(), y.clone());
    Case {
        file: "saxpy",
        title: "saxpy",
        size: format!("n = 2^{} floats, {} moved", n.trailing_zeros(), mb(12 * n)),
        buffers: vec![input(f32_bytes(&x)), inout(f32_bytes(&y))],
        launches: vec![Launch {
            kernel: "saxpy",
            args: vec![A::F32(a), A::Buf(0), A::Buf(1), A::I32(n as i32)],
            global: vec![ceil_div(n, 256) * 256],
            local: vec![256],
        }],
        work: Work::Bytes(12.0 * n as f64),
        check: Box::new(move |out| {
            let got = bytes_f32(&out[1]);
            // Contraction to an FMA is allowed: compare with a tolerance.
            compare(
                &got,
                |i| a as f64 * rx[i] as f64 + ry[i] as f64,
                |i| (a * rx[i]).abs() as f64 + ry[i].abs() as f64,
                1e-6,
            )
        }),
    }
}

pub fn reduction(n: usize) -> Case {
    let mut rng = Rng::new(3);
    let x = Arc::new(rng.floats(n, 0.0, 1.0));
    let per_block = 512;
    let blocks = ceil_div(n, per_block);
    let rx = x.clone();
    Case {
        file: "reduction",
        title: "reduction (shared memory)",
        size: format!("n = 2^{} floats, {} read", n.trailing_zeros(), mb(4 * n)),
        buffers: vec![input(f32_bytes(&x)), output(4 * blocks)],
        launches: vec![Launch {
            kernel: "reduce_sum",
            args: vec![A::Buf(0), A::Buf(1), A::I32(n as i32)],
            global: vec![blocks * 256],
            local: vec![256],
        }],
        work: Work::Bytes(4.0 * n as f64 + 4.0 * blocks as f64),
        check: Box::new(move |out| {
            let partial = bytes_f32(&out[1]);
            let sums: Vec<f64> = rx
                .chunks(per_block)
                .map(|c| c.iter().map(|&v| v as f64).sum())
                .collect();
            compare(&partial, |i| sums[i], |i| sums[i], 1e-5)
        }),
    }
}

pub fn transpose(dim: usize) -> Case {
    let (w, h) = (dim, dim);
    let mut rng = Rng::new(4);
    let m = Arc::new(rng.floats(w * h, -1.0, 1.0));
    let rm = m.clone();
    Case {
        file: "transpose",
        title: "transpose (tiled)",
        size: format!("{w} x {h} floats, {} moved", mb(8 * w * h)),
        buffers: vec![output(4 * w * h), input(f32_bytes(&m))],
        launches: vec![Launch {
            kernel: "transpose",
            args: vec![A::Buf(0), A::Buf(1), A::I32(w as i32), A::I32(h as i32)],
            global: vec![ceil_div(w, 32) * 32, ceil_div(h, 32) * 8],
            local: vec![32, 8],
        }],
        work: Work::Bytes(8.0 * (w * h) as f64),
        check: Box::new(move |out| {
            let t = bytes_f32(&out[0]);
            // out is w rows of h: out[x * h + y] = in[y * w + x].
            compare(&t, |i| rm[(i % h) * w + i / h] as f64, |_| 0.0, 0.0)
        }),
    }
}

pub fn matmul(n: usize) -> Case {
    let mut rng = Rng::new(5);
    let a = Arc::new(rng.floats(n * n, -1.0, 1.0));
    let b = Arc::new(rng.floats(n * n, -1.0, 1.0));
    let (ra, rb) = (a.clone(), b.clone());
    Case {
        file: "matmul",
        title: "matmul (tiled)",
        size: format!(
            "{n} x {n} floats, {:.1} GFLOP",
            2.0 * (n as f64).powi(3) / 1e9
        ),
        buffers: vec![
            input(f32_bytes(&a)),
            input(f32_bytes(&b)),
            output(4 * n * n),
        ],
        launches: vec![Launch {
            kernel: "matmul",
            args: vec![A::Buf(0), A::Buf(1), A::Buf(2), A::I32(n as i32)],
            global: vec![ceil_div(n, 16) * 16, ceil_div(n, 16) * 16],
            local: vec![16, 16],
        }],
        work: Work::Flops(2.0 * (n as f64).powi(3)),
        check: Box::new(move |out| {
            let c = bytes_f32(&out[2]);
            if c.len() != n * n {
                return Err(format!("{} elements read, {} expected", c.len(), n * n));
            }
            // Every element of a sample of rows and columns, in double precision.
            let mut rng = Rng::new(55);
            let mut sample = Vec::new();
            for _ in 0..4096 {
                let r = (rng.next_u64() % n as u64) as usize;
                let col = (rng.next_u64() % n as u64) as usize;
                sample.push(r * n + col);
            }
            sample.extend([0, n - 1, n * n - n, n * n - 1]);
            let dot = |idx: usize| -> (f64, f64) {
                let (r, col) = (idx / n, idx % n);
                (0..n).fold((0.0, 0.0), |(s, m), k| {
                    let p = ra[r * n + k] as f64 * rb[k * n + col] as f64;
                    (s + p, m + p.abs())
                })
            };
            let got: Vec<f32> = sample.iter().map(|&i| c[i]).collect();
            let refs: Vec<(f64, f64)> = sample.iter().map(|&i| dot(i)).collect();
            compare(&got, |j| refs[j].0, |j| refs[j].1, 1e-4)
                .map_err(|e| format!("sampled elements: {e}"))
        }),
    }
}

pub fn stencil(n: usize) -> Case {
    const RADIUS: i64 = 3;
    let mut rng = Rng::new(6);
    let x = Arc::new(rng.floats(n, -1.0, 1.0));
    let rx = x.clone();
    Case {
        file: "stencil",
        title: "1D stencil (radius 3)",
        size: format!("n = 2^{} floats, {} moved", n.trailing_zeros(), mb(8 * n)),
        buffers: vec![input(f32_bytes(&x)), output(4 * n)],
        launches: vec![Launch {
            kernel: "stencil_1d",
            args: vec![A::Buf(0), A::Buf(1), A::I32(n as i32)],
            global: vec![ceil_div(n, 256) * 256],
            local: vec![256],
        }],
        work: Work::Bytes(8.0 * n as f64),
        check: Box::new(move |out| {
            let y = bytes_f32(&out[1]);
            let at = |j: i64| -> f64 {
                if j >= 0 && (j as usize) < n {
                    rx[j as usize] as f64
                } else {
                    0.0
                }
            };
            compare(
                &y,
                |i| (-RADIUS..=RADIUS).map(|o| at(i as i64 + o)).sum(),
                |i| (-RADIUS..=RADIUS).map(|o| at(i as i64 + o).abs()).sum(),
                1e-6,
            )
        }),
    }
}

pub fn histogram(n: usize) -> Case {
    let mut rng = Rng::new(7);
    // Skewed bytes (a sum of two uniform bytes, halved) so that bins see unequal contention.
    let data: Arc<Vec<u8>> = Arc::new(
        (0..n)
            .map(|_| {
                let r = rng.next_u64();
                (((r & 0xff) + ((r >> 8) & 0xff)) / 2) as u8
            })
            .collect(),
    );
    let mut want = vec![0u32; 256];
    for &d in data.iter() {
        want[d as usize] += 1;
    }
    let blocks = 1024;
    Case {
        file: "histogram",
        title: "histogram (atomics)",
        size: format!("{} of bytes, 256 bins", mb(n)),
        buffers: vec![input(data.to_vec()), output(256 * 4)],
        launches: vec![Launch {
            kernel: "histogram256",
            args: vec![A::Buf(0), A::Buf(1), A::I32(n as i32)],
            global: vec![blocks * 256],
            local: vec![256],
        }],
        work: Work::Bytes(n as f64),
        check: Box::new(move |out| exact_u32(&bytes_u32(&out[1]), &want)),
    }
}

pub fn scan(n: usize) -> Case {
    const ELEMS: usize = 512;
    let mut rng = Rng::new(8);
    let x: Vec<u32> = (0..n).map(|_| (rng.next_u64() % 16) as u32).collect();
    let mut want = Vec::with_capacity(n);
    let mut acc = 0u32;
    for &v in &x {
        want.push(acc);
        acc = acc.wrapping_add(v);
    }
    // Level sizes: n elements, then one total per block of ELEMS, until one block holds them.
    let n1 = ceil_div(n, ELEMS);
    let n2 = ceil_div(n1, ELEMS);
    assert!(
        n2 <= ELEMS,
        "scan of more than 512^3 elements is not set up"
    );
    // Buffers: 0 in, 1 out0, 2 sums0 (n1), 3 out1 (n1), 4 sums1 (n2), 5 out2 (n2), 6 sums2 (1).
    let scan_launch = |src, dst, sums, len: usize| Launch {
        kernel: "scan_blocks",
        args: vec![A::Buf(src), A::Buf(dst), A::Buf(sums), A::I32(len as i32)],
        global: vec![ceil_div(len, ELEMS) * 256],
        local: vec![256],
    };
    let add_launch = |data, offsets, len: usize| Launch {
        kernel: "add_block_offsets",
        args: vec![A::Buf(data), A::Buf(offsets), A::I32(len as i32)],
        global: vec![ceil_div(len, 256) * 256],
        local: vec![256],
    };
    Case {
        file: "scan",
        title: "prefix scan (3 levels)",
        size: format!(
            "n = 2^{} uints, 5 launches, {} moved",
            n.trailing_zeros(),
            mb(16 * n)
        ),
        buffers: vec![
            input(u32_bytes(&x)),
            output(4 * n),
            output(4 * n1),
            output(4 * n1),
            output(4 * n2),
            output(4 * n2),
            output(4),
        ],
        launches: vec![
            scan_launch(0, 1, 2, n),
            scan_launch(2, 3, 4, n1),
            scan_launch(4, 5, 6, n2),
            add_launch(3, 5, n1),
            add_launch(1, 3, n),
        ],
        work: Work::Bytes(16.0 * n as f64),
        check: Box::new(move |out| exact_u32(&bytes_u32(&out[1]), &want)),
    }
}

/// The half nearest to `x`, ties to even (IEEE's default rounding, which `__hsub2` and OpenCL's
/// half arithmetic round with), as its bits.
pub fn f32_to_f16(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let man = bits & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    // The significand with its leading bit, and the half's biased exponent of that value.
    let (m, e) = if exp == 0 {
        (man, -126)
    } else {
        (man | 0x80_0000, exp - 127)
    };
    let he = e + 15;
    if he >= 31 {
        return sign | 0x7c00;
    }
    // 13 bits fall off a normal half; a subnormal one loses one more per step below 2^-14.
    let shift = if he >= 1 { 13 } else { (14 - he).min(31) } as u32;
    let mut q = m >> shift;
    let rem = m & ((1 << shift) - 1);
    let halfway = 1 << (shift - 1);
    if rem > halfway || (rem == halfway && q & 1 == 1) {
        q += 1;
    }
    // A carry out of the significand steps the exponent (up to infinity), as the bits line up.
    let magnitude = if he >= 1 {
        ((he as u32) << 10) + q - 0x400
    } else {
        q
    };
    sign | magnitude.min(0x7c00) as u16
}

/// The value of a half's bits (exact in f32).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as f32;
    sign * match exp {
        0 => man * (2.0f32).powi(-24),
        31 if man == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + man / 1024.0) * (2.0f32).powi(exp - 15),
    }
}

/// One lane of half2_max: `a` where `a - b`, rounded to half, is not negative, else `b` (a
/// difference of zero takes its sign from IEEE's rules: -0 only for -0 - +0).
pub fn half_max_by_difference(a: u16, b: u16) -> u16 {
    let d = f32_to_f16(f16_to_f32(a) - f16_to_f32(b));
    if d & 0x8000 != 0 {
        b
    } else {
        a
    }
}

/// Random finite halves (no infinities or NaNs, whose differences have no defined sign), with
/// the pairs that decide ties: equal halves, neighbours one unit in the last place apart, and
/// zeros of both signs.
fn half_pairs(rng: &mut Rng, lanes: usize) -> (Vec<u16>, Vec<u16>) {
    let finite = |rng: &mut Rng| loop {
        let h = rng.next_u64() as u16;
        if h & 0x7c00 != 0x7c00 {
            return h;
        }
    };
    let mut a = Vec::with_capacity(lanes);
    let mut b = Vec::with_capacity(lanes);
    for _ in 0..lanes {
        let x = finite(rng);
        let y = match rng.next_u64() % 16 {
            0 | 1 => x,
            2 | 3 => x ^ 1,
            4 => {
                a.push(x & 0x8000);
                b.push(!x & 0x8000);
                continue;
            }
            _ => finite(rng),
        };
        a.push(x);
        b.push(y);
    }
    (a, b)
}

pub fn half2_max(n: usize) -> Case {
    let mut rng = Rng::new(9);
    let (a, b) = half_pairs(&mut rng, 2 * n);
    let want: Vec<u16> = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| half_max_by_difference(x, y))
        .collect();
    // Lane x of a pair is the low half of its 32 bits, as __half2 and OpenCL's half2 lay it out.
    let want: Vec<u32> = bytes_u32(&u16_bytes(&want));
    Case {
        file: "half2_max",
        title: "half2 max (__hsub2, __byte_perm)",
        size: format!("n = 2^{} half2, {} moved", n.trailing_zeros(), mb(12 * n)),
        buffers: vec![input(u16_bytes(&a)), input(u16_bytes(&b)), output(4 * n)],
        launches: vec![Launch {
            kernel: "half2_max",
            args: vec![A::Buf(0), A::Buf(1), A::Buf(2), A::I32(n as i32)],
            global: vec![ceil_div(n, 256) * 256],
            local: vec![256],
        }],
        work: Work::Bytes(12.0 * n as f64),
        check: Box::new(move |out| exact_u32(&bytes_u32(&out[2]), &want)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_are_consistent() {
        let tiny = Sizes {
            n: 4096,
            transpose: 64,
            histogram: 4096,
            matmul: 32,
        };
        for (name, make) in all(tiny) {
            let case = make();
            assert_eq!(case.file, name);
            for l in &case.launches {
                assert_eq!(l.global.len(), l.local.len(), "{name}");
                for (g, b) in l.global.iter().zip(&l.local) {
                    assert_eq!(g % b, 0, "{name}: global is a multiple of local");
                }
                for a in &l.args {
                    if let A::Buf(i) = a {
                        assert!(*i < case.buffers.len(), "{name}");
                    }
                }
            }
        }
    }

    #[test]
    fn checks_reject_wrong_outputs() {
        let case = vector_add(1024);
        let mut out: Vec<Vec<u8>> = case.buffers.iter().map(|_| Vec::new()).collect();
        out[2] = vec![0; 4096];
        assert!((case.check)(&out).is_err());
        let case = scan(2048);
        let mut out: Vec<Vec<u8>> = case.buffers.iter().map(|_| Vec::new()).collect();
        out[1] = vec![0; 4 * 2048];
        assert!((case.check)(&out).is_err());
    }

    #[test]
    fn host_reference_of_transpose_is_a_transpose() {
        let case = transpose(64);
        let input = bytes_f32(&case.buffers[1].init);
        let mut t = vec![0f32; 64 * 64];
        for y in 0..64 {
            for x in 0..64 {
                t[x * 64 + y] = input[y * 64 + x];
            }
        }
        let mut out: Vec<Vec<u8>> = case.buffers.iter().map(|_| Vec::new()).collect();
        out[0] = f32_bytes(&t);
        assert!((case.check)(&out).is_ok());
    }

    #[test]
    fn halves_round_to_nearest_even() {
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(-2.0), 0xc000);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        // Halfway to 65536 rounds to even: infinity; just below stays.
        assert_eq!(f32_to_f16(65520.0), 0x7c00);
        assert_eq!(f32_to_f16(65519.0), 0x7bff);
        assert_eq!(f32_to_f16(1e9), 0x7c00);
        assert_eq!(f32_to_f16(-0.0), 0x8000);
        // 1 + 2^-11 is halfway between 1 and the next half: ties to the even 1.
        assert_eq!(f32_to_f16(1.0 + 2f32.powi(-11)), 0x3c00);
        assert_eq!(f32_to_f16(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        // Subnormals, and the halfway point below the smallest (to even: zero).
        assert_eq!(f32_to_f16(2f32.powi(-24)), 0x0001);
        assert_eq!(f32_to_f16(2f32.powi(-25)), 0x0000);
        assert_eq!(f32_to_f16(1.5 * 2f32.powi(-24)), 0x0002);
        assert_eq!(f32_to_f16(2f32.powi(-14) - 2f32.powi(-25)), 0x0400);
        assert_eq!(f32_to_f16(1e-30), 0x0000);
        // Every finite half converts back to its own bits.
        for h in 0..=0xffffu16 {
            if h & 0x7c00 != 0x7c00 {
                assert_eq!(f32_to_f16(f16_to_f32(h)), h, "{h:#06x}");
            }
        }
    }

    #[test]
    fn half_max_ties_follow_the_difference_sign() {
        let (one, two) = (0x3c00, 0x4000);
        assert_eq!(half_max_by_difference(one, two), two);
        assert_eq!(half_max_by_difference(two, one), two);
        assert_eq!(half_max_by_difference(0xc000, one), one);
        // Equal halves: +0 difference, a kept; -0 - +0 is the one negative zero.
        assert_eq!(half_max_by_difference(0x8000, 0x0000), 0x0000);
        assert_eq!(half_max_by_difference(0x0000, 0x8000), 0x0000);
        assert_eq!(half_max_by_difference(0x8000, 0x8000), 0x8000);
        // A difference that overflows keeps its sign.
        assert_eq!(half_max_by_difference(0xfbff, 0x7bff), 0x7bff);
    }

    #[test]
    fn half2_max_checks_every_lane() {
        let case = half2_max(1024);
        let a = &case.buffers[0].init;
        let b = &case.buffers[1].init;
        let lanes = |v: &[u8]| -> Vec<u16> {
            v.chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect()
        };
        let max: Vec<u16> = lanes(a)
            .iter()
            .zip(lanes(b))
            .map(|(&x, y)| half_max_by_difference(x, y))
            .collect();
        let mut out: Vec<Vec<u8>> = case.buffers.iter().map(|_| Vec::new()).collect();
        out[2] = u16_bytes(&max);
        assert!((case.check)(&out).is_ok());
        // The pairs' other choice somewhere: a wrong lane is found.
        let flipped = lanes(a).iter().zip(lanes(b)).position(|(&x, y)| x != y);
        let i = flipped.expect("some lanes differ");
        let mut wrong = max.clone();
        wrong[i] = if max[i] == lanes(a)[i] {
            lanes(b)[i]
        } else {
            lanes(a)[i]
        };
        out[2] = u16_bytes(&wrong);
        assert!((case.check)(&out).is_err());
    }
}
