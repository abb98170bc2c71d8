//! The memory checker's cost: the kernel variant built with `-fsanitize=address` runs with its
//! checker on, as hipmlir's runtime would run it. The bench launches through OpenCL and the
//! CUDA driver itself, so it does the runtime's part here: a checker state and a table of the
//! case's buffers (sorted by device address, with its index) in device buffers, the state's
//! address stored into the module's state variable. On OpenCL the addresses are read by a probe
//! kernel and the variable found by its address kernel; on CUDA the driver gives both. After
//! the timed runs the state must hold no report: the checker passes correct kernels.

use std::collections::HashMap;

use hipmlir_device_image::memcheck::{
    table_words, REPORT_RAISED, REPORT_WORDS, STATE_REPORT, STATE_TABLE, STATE_WORDS,
};
use hipmlir_device_image::{ADDRESS_KERNEL_PREFIX, MEMCHECK_STATE_VARIABLE};
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};
use opencl3::program::Program;
use opencl3::types::cl_mem;

use crate::cases::{Buf, A};
use crate::cl::{self, ArgValue, Cl};
use crate::cuda::{self, DeviceBuf};

/// Writes a word at a device address.
const POKE: &str =
    "kernel void poke(ulong address, ulong value) { *(global ulong*)address = value; }";

/// Whether a kernel taking `arity` parameters, launched with `args`, takes the memory
/// checker's extents after them (hipmlir's `-fsanitize=address` adds one `u64` per pointer
/// argument: see `KernelInfo::memcheck_extents`); None when it takes neither that many nor
/// `args`' own.
pub fn takes_extents(args: &[A], arity: usize) -> Option<bool> {
    let pointers = args.iter().filter(|a| matches!(a, A::Buf(_))).count();
    match arity {
        n if n == args.len() => Some(false),
        n if pointers > 0 && n == args.len() + pointers => Some(true),
        _ => None,
    }
}

/// The extents a checked kernel launched with `args` takes: each buffer argument points to the
/// start of its buffer, so its extent is the buffer's size.
pub fn extents(args: &[A], buffers: &[Buf]) -> Vec<u64> {
    args.iter()
        .filter_map(|a| match *a {
            A::Buf(b) => Some(buffers.get(b).map_or(0, |b| b.init.len() as u64)),
            _ => None,
        })
        .collect()
}

/// A checked program's state, bound: kept alive while its kernels run.
pub struct Bound {
    state: Buffer<u8>,
    _table: Buffer<u8>,
}

fn run(cl: &Cl, kernel: &Kernel, args: &[ArgValue]) -> Result<(), String> {
    for (i, a) in args.iter().enumerate() {
        cl::set_arg(kernel, i as u32, *a)?;
    }
    cl::enqueue(&cl.queue, kernel, &[1], &[1])?;
    cl.queue
        .finish()
        .map_err(|e| format!("clFinish failed: {e}"))
}

fn words(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect()
}

fn bytes(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Binds `program`'s checker (its entry points `entry_points`) to a table of `buffers` (each
/// with its size in bytes).
pub fn bind(
    cl: &Cl,
    program: &Program,
    entry_points: &[String],
    buffers: &[(cl_mem, usize)],
) -> Result<Bound, String> {
    let (poker, _) = cl.program_from_source(POKE, "")?;
    let kernel = |p: &Program, name: &str| {
        Kernel::create(p, name).map_err(|e| format!("clCreateKernel({name}) failed: {e}"))
    };
    let poke = kernel(&poker, "poke")?;
    let out = cl.buffer(8, None)?;
    let probe = cl::AddressProbe::new(cl)?;
    let address = |mem: cl_mem| probe.address(cl, mem);
    let mut ranges = Vec::new();
    for &(mem, size) in buffers {
        let base = address(mem)?;
        ranges.push((base, base + size as u64));
    }
    ranges.sort_unstable();
    let table_words = table_words(&ranges);
    let table = cl.buffer(table_words.len() * 8, Some(&bytes(&table_words)))?;
    let mut state = cl.buffer(STATE_BYTES, None)?;
    let state_address = address(state.get())?;
    let state_words = state_words(state_address, address(table.get())?);
    cl.write(&mut state, &bytes(&state_words))?;
    // The module's state variable, where its address kernel says it is.
    let variable_kernel = format!("{ADDRESS_KERNEL_PREFIX}{MEMCHECK_STATE_VARIABLE}");
    let entry = cl::find_entry_point(entry_points, &variable_kernel)
        .ok_or("the checked module has no state variable")?;
    // hipmlir's kernel takes its pointer as an address.
    run(
        cl,
        &kernel(program, entry)?,
        &[ArgValue::U64(address(out.get())?)],
    )?;
    let variable = words(&cl.read(&out, 8)?)[0];
    run(
        cl,
        &poke,
        &[ArgValue::U64(variable), ArgValue::U64(state_address)],
    )?;
    Ok(Bound {
        state,
        _table: table,
    })
}

/// The state and its report, in one buffer.
const STATE_BYTES: usize = ((STATE_WORDS + REPORT_WORDS) * 8) as usize;

/// A state at `state_address` whose table is at `table_address`, its report following it.
fn state_words(state_address: u64, table_address: u64) -> Vec<u64> {
    let mut words = vec![0u64; (STATE_WORDS + REPORT_WORDS) as usize];
    words[STATE_TABLE as usize] = table_address;
    words[STATE_REPORT as usize] = state_address + STATE_WORDS * 8;
    words
}

/// An error naming the report of `state` (its words) if a kernel raised one.
fn quiet(state: &[u64]) -> Result<(), String> {
    match state.get((STATE_WORDS + REPORT_RAISED) as usize) {
        None | Some(0) => Ok(()),
        Some(site) => Err(format!(
            "the memory checker reported a bad access (site {}) in a correct kernel",
            site - 1
        )),
    }
}

impl Bound {
    /// An error naming the checker's report if a kernel raised one.
    pub fn check_quiet(&self, cl: &Cl) -> Result<(), String> {
        quiet(&words(&cl.read(&self.state, STATE_BYTES)?))
    }
}

/// A checked CUDA module's state, bound: kept alive while its kernels run.
pub struct CudaBound {
    state: DeviceBuf,
    _table: DeviceBuf,
}

/// Binds the checker of `module` (PTX built with `-fsanitize=address`) to a table of `buffers`.
pub fn bind_cuda(module: &cuda::Module, buffers: &[DeviceBuf]) -> Result<CudaBound, String> {
    let mut ranges: Vec<(u64, u64)> = buffers
        .iter()
        .map(|b| (b.ptr, b.ptr + b.bytes as u64))
        .collect();
    ranges.sort_unstable();
    let table_words = table_words(&ranges);
    let table = DeviceBuf::new(table_words.len() * 8)?;
    table.upload(&bytes(&table_words))?;
    let state = DeviceBuf::new(STATE_BYTES)?;
    state.upload(&bytes(&state_words(state.ptr, table.ptr)))?;
    module.set_global(MEMCHECK_STATE_VARIABLE, &state.ptr.to_le_bytes())?;
    Ok(CudaBound {
        state,
        _table: table,
    })
}

impl CudaBound {
    /// An error naming the checker's report if a kernel raised one.
    pub fn check_quiet(&self) -> Result<(), String> {
        quiet(&words(&self.state.download()?))
    }
}

/// Kernel time with the checker over without, per case that has both.
pub fn ratios(rows: &[crate::kernels::KernelRow]) -> HashMap<String, f64> {
    use crate::kernels::{Variant, VARIANTS};
    let at = |v: Variant| VARIANTS.iter().position(|&x| x == v);
    let (Some(plain), Some(checked)) = (at(Variant::Hipmlir), at(Variant::HipmlirChecked)) else {
        return HashMap::new();
    };
    rows.iter()
        .filter_map(|r| {
            let p = r.results.get(plain)?.as_ref().ok()?;
            let c = r.results.get(checked)?.as_ref().ok()?;
            Some((r.file.clone(), c.median / p.median))
        })
        .collect()
}

/// The memory checker's target: kernel time with it at most twice that without (issue 32's).
pub const TARGET: f64 = 2.0;

/// The summary line of the checker's cost, `label` first, from each kernel's ratio.
pub fn cost_line(label: &str, ratios: HashMap<String, f64>) -> String {
    let mut ratios: Vec<(String, f64)> = ratios.into_iter().collect();
    ratios.sort_by(|a, b| a.0.cmp(&b.0));
    let values: Vec<f64> = ratios.iter().map(|(_, r)| *r).collect();
    match crate::stats::geomean(&values) {
        Some(g) => format!(
            "{label} (-fsanitize=address) kernel time / without: geomean {g:.2} over {} \
             kernels ({}; target <= {TARGET:.0})",
            values.len(),
            ratios
                .iter()
                .map(|(k, r)| format!("{k} {r:.2}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => format!(
            "{label} (-fsanitize=address) kernel time / without: n/a (no kernel measured both \
             ways)"
        ),
    }
}
