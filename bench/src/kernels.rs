//! Kernel quality: each case run several ways on the same device, in this process, with the same
//! inputs and launch shapes — hipmlir's SPIR-V, clang-22's SPIR-V of the OpenCL C version, the
//! OpenCL C version built by the driver, and (as a reference, not a peer) clang-22's SPIR-V of the
//! same HIP source — each checked on a first run, then timed by profiling events, the variants
//! taking turns run by run so that drift on a shared machine hits them alike (each round starting
//! from the next variant, so that none always runs right after the copy probe).

use std::collections::HashMap;
use std::path::Path;

use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};
use opencl3::program::Program;
use opencl3::types::cl_mem;

use crate::cases::{Case, Sizes, Work, A};
use crate::cl::{self, ArgValue, Cl};
use crate::stats;
use crate::tools::Tools;

/// The ways a kernel is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Hipmlir,
    ClangSpirv,
    Driver,
    ClangHip,
    /// hipmlir's with `-fsanitize=address`, its checker on (see `memcheck`): not a peer.
    HipmlirChecked,
}

/// Report order; the first is hipmlir.
pub const VARIANTS: [Variant; 5] = [
    Variant::Hipmlir,
    Variant::ClangSpirv,
    Variant::Driver,
    Variant::ClangHip,
    Variant::HipmlirChecked,
];

impl Variant {
    pub fn label(self) -> &'static str {
        match self {
            Variant::Hipmlir => "hipmlir (HIP → SPIR-V)",
            Variant::ClangSpirv => "peer: clang-22 (OpenCL C → SPIR-V)",
            Variant::Driver => "peer: driver (OpenCL C source)",
            Variant::ClangHip => "reference: clang-22 (HIP → SPIR-V)",
            Variant::HipmlirChecked => "hipmlir -fsanitize=address (memory checker on)",
        }
    }
    pub fn short(self) -> &'static str {
        match self {
            Variant::Hipmlir => "hipmlir",
            Variant::ClangSpirv => "clang-22",
            Variant::Driver => "driver",
            Variant::ClangHip => "clang-22 HIP",
            Variant::HipmlirChecked => "hipmlir checked",
        }
    }
    /// Whether the variant's kernels take buffers as device addresses (64-bit integers): hipmlir's
    /// SPIR-V entry points do (see `cl::AddressProbe`).
    pub fn takes_addresses(self) -> bool {
        matches!(self, Variant::Hipmlir | Variant::HipmlirChecked)
    }
    /// Whether the variant is one of the peers hipmlir is compared with.
    pub fn is_peer(self) -> bool {
        matches!(self, Variant::ClangSpirv | Variant::Driver)
    }
}

/// Options the driver builds OpenCL C with (the same language version clang-22 is given).
pub const DRIVER_OPTIONS: &str = "-cl-std=CL2.0";

/// Repetitions of a timed run.
#[derive(Debug, Clone, Copy)]
pub struct Reps {
    pub warmup: usize,
    pub timed: usize,
}

/// A measured variant.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Median of the kernel times of the timed runs (seconds; sum over the case's launches).
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Wall time of clBuildProgram (from SPIR-V or source).
    pub build: f64,
}

/// One kernel's row: its outcome per variant (in `VARIANTS` order).
pub struct KernelRow {
    pub file: String,
    pub title: String,
    pub size: String,
    pub work: Option<Work>,
    pub results: Vec<Result<Timing, String>>,
    /// The device's clEnqueueCopyBuffer bandwidth (GB/s), measured in turn with the variants.
    pub copy_bw: Option<f64>,
}

impl KernelRow {
    /// The fastest peer: its index in `VARIANTS` and timing.
    pub fn best_peer(&self) -> Option<(usize, Timing)> {
        self.results
            .iter()
            .enumerate()
            .filter(|(i, _)| VARIANTS[*i].is_peer())
            .filter_map(|(i, r)| r.as_ref().ok().map(|t| (i, *t)))
            .min_by(|a, b| a.1.median.total_cmp(&b.1.median))
    }
    /// hipmlir's time over the best peer's, when both were measured.
    pub fn ratio(&self) -> Option<f64> {
        let hip = self.results.first()?.as_ref().ok()?;
        let (_, best) = self.best_peer()?;
        Some(hip.median / best.median)
    }
}

/// Runs every case. `cl` is the device or the reason there is none.
/// `only` restricts the run to the named kernels.
pub fn run(
    cl: &Result<Cl, String>,
    tools: &Tools,
    sizes: Sizes,
    reps: Reps,
    copy_bytes: usize,
    only: Option<&[String]>,
) -> Vec<KernelRow> {
    let spv_dir = tools.work.join("spv");
    let _ = std::fs::create_dir_all(&spv_dir);
    let mut rows = Vec::new();
    for (name, make) in crate::cases::all(sizes) {
        if only.is_some_and(|o| !o.iter().any(|k| k == name)) {
            continue;
        }
        eprintln!("[kernels] {name}: preparing inputs");
        let row = match crate::guard(make) {
            Ok(case) => run_case(cl, tools, &case, &spv_dir, reps, copy_bytes),
            Err(e) => KernelRow {
                file: name.to_string(),
                title: name.to_string(),
                size: String::new(),
                work: None,
                results: VARIANTS
                    .iter()
                    .map(|_| Err(format!("bench error: {e}")))
                    .collect(),
                copy_bw: None,
            },
        };
        for (v, r) in VARIANTS.iter().zip(&row.results) {
            match r {
                Ok(t) => eprintln!(
                    "[kernels] {name}: {}: {} ms (median of {})",
                    v.short(),
                    stats::fmt_ms(t.median),
                    reps.timed
                ),
                Err(e) => eprintln!("[kernels] {name}: {}: {e}", v.short()),
            }
        }
        rows.push(row);
    }
    rows
}

/// A variant ready to time: its kernels and buffers, checked once.
struct Prepared {
    kernels: HashMap<&'static str, BenchKernel>,
    // Kept alive for the kernels' arguments.
    _buffers: Vec<Buffer<u8>>,
    /// The buffers as the kernels take them.
    args: BufferArgs,
    build: f64,
    times: Vec<f64>,
    /// The memory checker's state, for the checked variant.
    checker: Option<crate::memcheck::Bound>,
}

fn run_case(
    cl: &Result<Cl, String>,
    tools: &Tools,
    case: &Case,
    spv_dir: &Path,
    reps: Reps,
    copy_bytes: usize,
) -> KernelRow {
    let mut prepared: Vec<Result<Prepared, String>> = VARIANTS
        .iter()
        .map(|&v| crate::guard(|| prepare(cl, tools, case, v, spv_dir)).and_then(|r| r))
        .collect();
    let mut copy_bw = None;
    if let Ok(cl) = cl {
        // The copy bandwidth that streaming kernels are held against, measured in turn with them.
        let mut probe = match case.work {
            Work::Bytes(_) => cl::CopyProbe::new(cl, copy_bytes).ok(),
            Work::Flops(_) => None,
        };
        for i in 0..reps.warmup + reps.timed {
            if let Some(p) = &mut probe {
                if p.run(cl, i >= reps.warmup).is_err() {
                    probe = None;
                }
            }
            // The variant right after the copy pays for the copy's dirty cache lines (a streaming
            // kernel up to 15 % here): each round starts from another one, as the GPU part does.
            let count = prepared.len();
            for k in 0..count {
                let p = &mut prepared[(i + k) % count];
                let Ok(ready) = p else { continue };
                match crate::guard(|| run_once(cl, case, &ready.kernels, &ready.args))
                    .and_then(|r| r)
                {
                    Ok(t) if i >= reps.warmup => ready.times.push(t),
                    Ok(_) => {}
                    Err(e) => *p = Err(format!("failed in a timed run: {e}")),
                }
            }
        }
        copy_bw = probe.and_then(|p| p.bandwidth());
    }
    let results = prepared
        .into_iter()
        .map(|p| {
            let p = p?;
            if let (Some(c), Ok(cl)) = (&p.checker, cl) {
                c.check_quiet(cl)?;
            }
            let median = stats::median(&p.times).ok_or("no run timed")?;
            Ok(Timing {
                median,
                min: p.times.iter().copied().fold(f64::INFINITY, f64::min),
                max: p.times.iter().copied().fold(0.0, f64::max),
                build: p.build,
            })
        })
        .collect();
    KernelRow {
        file: case.file.to_string(),
        title: case.title.to_string(),
        size: case.size.clone(),
        work: Some(case.work),
        results,
        copy_bw,
    }
}

/// Compiles the variant, builds its program, creates its kernels and buffers, and checks the
/// outputs of one run.
fn prepare(
    cl: &Result<Cl, String>,
    tools: &Tools,
    case: &Case,
    v: Variant,
    spv_dir: &Path,
) -> Result<Prepared, String> {
    let kernels_dir = tools.root.join("bench/kernels");
    let hip = kernels_dir.join(format!("{}.hip", case.file));
    let ocl = kernels_dir.join(format!("{}.cl", case.file));
    // Compile first: a kernel hipmlir cannot compile is reported as such even without a device.
    let il = match v {
        Variant::Hipmlir => {
            let out = spv_dir.join(format!("{}.hipmlir.spv", case.file));
            tools
                .hipmlir_spirv(&hip, &out)
                .map_err(|e| format!("does not compile yet: {e}"))?;
            Some(read(&out)?)
        }
        Variant::ClangSpirv => {
            let out = spv_dir.join(format!("{}.cl.spv", case.file));
            tools
                .clang_spirv(&ocl, &out)
                .map_err(|e| format!("clang-22 failed: {e}"))?;
            Some(read(&out)?)
        }
        Variant::HipmlirChecked => {
            let out = spv_dir.join(format!("{}.hipmlir-checked.spv", case.file));
            tools
                .hipmlir_spirv_checked(&hip, &out)
                .map_err(|e| format!("does not compile with -fsanitize=address: {e}"))?;
            Some(read(&out)?)
        }
        Variant::ClangHip => {
            let out = spv_dir.join(format!("{}.clang-hip.spv", case.file));
            tools
                .clang_hip_spirv(&hip, &out)
                .map_err(|e| format!("reference build failed: {e}"))?;
            Some(read(&out)?)
        }
        Variant::Driver => None,
    };
    let cl = cl.as_ref().map_err(|e| format!("no device: {e}"))?;
    let (program, build, names) = match &il {
        Some(il) => {
            let (p, t) = cl.program_from_il(il)?;
            (p, t, Some(cl::spirv_entry_points(il)?))
        }
        None => {
            let src = std::fs::read_to_string(&ocl)
                .map_err(|e| format!("cannot read {}: {e}", ocl.display()))?;
            let (p, t) = cl.program_from_source(&src, DRIVER_OPTIONS)?;
            (p, t, None)
        }
    };
    let kernels = create_kernels(case, &program, names.as_deref())?;
    let mut buffers: Vec<Buffer<u8>> = Vec::new();
    for b in &case.buffers {
        buffers.push(cl.buffer(b.init.len(), Some(&b.init))?);
    }
    let mems: Vec<cl_mem> = buffers.iter().map(|b| b.get()).collect();
    let checker = match (v, &names) {
        (Variant::HipmlirChecked, Some(names)) => {
            let sized: Vec<(cl_mem, usize)> = mems
                .iter()
                .zip(&case.buffers)
                .map(|(&m, b)| (m, b.init.len()))
                .collect();
            Some(crate::memcheck::bind(cl, &program, names, &sized)?)
        }
        _ => None,
    };
    let args = if v.takes_addresses() {
        let probe = cl::AddressProbe::new(cl)?;
        BufferArgs::Addresses(
            mems.iter()
                .map(|&m| probe.address(cl, m))
                .collect::<Result<_, _>>()?,
        )
    } else {
        BufferArgs::Mem(mems)
    };
    run_once(cl, case, &kernels, &args)?;
    if let Some(c) = &checker {
        c.check_quiet(cl)?;
    }
    let mut outputs = Vec::new();
    for (b, spec) in buffers.iter().zip(&case.buffers) {
        outputs.push(if spec.output {
            cl.read(b, spec.init.len())?
        } else {
            Vec::new()
        });
    }
    (case.check)(&outputs).map_err(|e| format!("wrong output: {e}"))?;
    Ok(Prepared {
        kernels,
        _buffers: buffers,
        args,
        build,
        times: Vec::new(),
        checker,
    })
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// The case's kernels from `program` (SPIR-V entry points resolved from `entry_points`, when
/// given), each checked to take as many arguments as the case passes.
fn create_kernels(
    case: &Case,
    program: &Program,
    entry_points: Option<&[String]>,
) -> Result<HashMap<&'static str, BenchKernel>, String> {
    let mut kernels = HashMap::new();
    for l in &case.launches {
        if kernels.contains_key(l.kernel) {
            continue;
        }
        let symbol = match entry_points {
            Some(eps) => cl::find_entry_point(eps, l.kernel)
                .ok_or_else(|| {
                    format!(
                        "no entry point for kernel {} (module has: {})",
                        l.kernel,
                        eps.join(", ")
                    )
                })?
                .to_string(),
            None => l.kernel.to_string(),
        };
        let k = Kernel::create(program, &symbol)
            .map_err(|e| format!("clCreateKernel({symbol}) failed: {e}"))?;
        let arity = k
            .num_args()
            .map_err(|e| format!("clGetKernelInfo(NUM_ARGS) failed: {e}"))?;
        let extents = crate::memcheck::takes_extents(&l.args, arity as usize).ok_or_else(|| {
            format!(
                "kernel {symbol} takes {arity} arguments where the source has {}; the bench \
                 cannot launch it",
                l.args.len()
            )
        })?;
        kernels.insert(l.kernel, BenchKernel { kernel: k, extents });
    }
    Ok(kernels)
}

/// A kernel of a case, and whether it takes the memory checker's extents after its arguments
/// (see `memcheck::takes_extents`).
struct BenchKernel {
    kernel: Kernel,
    extents: bool,
}

/// How a case's buffers are passed: as `cl_mem`, or as their device addresses.
enum BufferArgs {
    Mem(Vec<cl_mem>),
    Addresses(Vec<u64>),
}

impl BufferArgs {
    fn arg(&self, buffer: usize) -> ArgValue {
        match self {
            BufferArgs::Mem(m) => ArgValue::Mem(m[buffer]),
            BufferArgs::Addresses(a) => ArgValue::U64(a[buffer]),
        }
    }
}

/// Enqueues the case's launches, waits for them, and returns the sum of their kernel times.
fn run_once(
    cl: &Cl,
    case: &Case,
    kernels: &HashMap<&str, BenchKernel>,
    buffers: &BufferArgs,
) -> Result<f64, String> {
    let mut events = Vec::new();
    for l in &case.launches {
        let BenchKernel { kernel: k, extents } = &kernels[l.kernel];
        for (i, a) in l.args.iter().enumerate() {
            let value = match *a {
                A::Buf(b) => buffers.arg(b),
                A::I32(v) => ArgValue::I32(v),
                A::F32(v) => ArgValue::F32(v),
            };
            cl::set_arg(k, i as u32, value)?;
        }
        if *extents {
            let sizes = crate::memcheck::extents(&l.args, &case.buffers);
            for (i, size) in sizes.into_iter().enumerate() {
                cl::set_arg(k, (l.args.len() + i) as u32, ArgValue::U64(size))?;
            }
        }
        events.push(cl::enqueue(&cl.queue, k, &l.global, &l.local)?);
    }
    cl.queue
        .finish()
        .map_err(|e| format!("clFinish failed: {e}"))?;
    let mut total = 0.0;
    for e in &events {
        total += cl::event_seconds(e)?;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(median: f64) -> Result<Timing, String> {
        Ok(Timing {
            median,
            min: median,
            max: median,
            build: 0.0,
        })
    }

    #[test]
    fn the_reference_is_not_a_peer() {
        let row = KernelRow {
            file: "k".into(),
            title: "k".into(),
            size: String::new(),
            work: None,
            results: vec![t(3.0), t(2.0), Err("x".into()), t(1.0)],
            copy_bw: None,
        };
        assert_eq!(row.best_peer().map(|(i, _)| i), Some(1));
        assert_eq!(row.ratio(), Some(1.5));
        let failed = KernelRow {
            results: vec![
                Err("does not compile yet: e".into()),
                t(2.0),
                t(1.0),
                t(1.0),
            ],
            ..row
        };
        assert_eq!(failed.ratio(), None);
    }
}
