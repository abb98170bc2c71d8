//! The memory checker's cost: the kernel variant built with `-fsanitize=address` runs with its
//! checker on, as hipmlir's runtime would run it. The bench launches through OpenCL itself, so
//! it does the runtime's part here: a checker state and a table of the case's buffers (sorted
//! by device address, with its index) in device buffers, their addresses (and the buffers') read by a probe
//! kernel, the state's address stored into the module's state variable (found by its address
//! kernel). After the timed runs the state must hold no report: the checker passes correct
//! kernels.

use std::collections::HashMap;

use hipmlir_device_image::memcheck::{
    table_words, REPORT_RAISED, REPORT_WORDS, STATE_REPORT, STATE_TABLE, STATE_WORDS,
};
use hipmlir_device_image::{ADDRESS_KERNEL_PREFIX, MEMCHECK_STATE_VARIABLE};
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};
use opencl3::program::Program;
use opencl3::types::cl_mem;

use crate::cl::{self, ArgValue, Cl};

/// Writes a word at a device address.
const POKE: &str =
    "kernel void poke(ulong address, ulong value) { *(global ulong*)address = value; }";

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
    let mut state = cl.buffer(((STATE_WORDS + REPORT_WORDS) * 8) as usize, None)?;
    let state_address = address(state.get())?;
    let mut state_words = vec![0u64; (STATE_WORDS + REPORT_WORDS) as usize];
    state_words[STATE_TABLE as usize] = address(table.get())?;
    state_words[STATE_REPORT as usize] = state_address + STATE_WORDS * 8;
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

impl Bound {
    /// An error naming the checker's report if a kernel raised one.
    pub fn check_quiet(&self, cl: &Cl) -> Result<(), String> {
        let state = words(&cl.read(&self.state, ((STATE_WORDS + REPORT_WORDS) * 8) as usize)?);
        match state[(STATE_WORDS + REPORT_RAISED) as usize] {
            0 => Ok(()),
            site => Err(format!(
                "the memory checker reported a bad access (site {}) in a correct kernel",
                site - 1
            )),
        }
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
