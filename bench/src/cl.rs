//! The OpenCL side: the device (chosen the way hipmlir's runtime chooses it), programs from SPIR-V
//! or OpenCL C, buffers, launches timed by profiling events, and the device's copy bandwidth.
//!
//! Every call returns `Result<_, String>` with the failing OpenCL call named, so the driver can
//! report any failure in BENCHMARKS.md instead of stopping.

use std::ptr;
use std::time::Instant;

use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_ALL};
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
use opencl3::platform::get_platforms;
use opencl3::program::Program;
use opencl3::types::{cl_mem, CL_BLOCKING};

use crate::stats;

/// What the report says about the device.
#[derive(Debug, Clone)]
pub struct DeviceInfo {
    pub name: String,
    pub platform: String,
    pub version: String,
    pub driver: String,
    pub compute_units: u32,
    pub global_mem: u64,
}

/// One device, one context and an in-order queue with profiling enabled.
pub struct Cl {
    pub device: Device,
    pub context: Context,
    pub queue: CommandQueue,
    pub info: DeviceInfo,
}

fn cl_err(what: &str, e: impl std::fmt::Display) -> String {
    format!("{what} failed: {e}")
}

impl Cl {
    /// The first device that ingests SPIR-V and has 64-bit addresses (as hipmlir's runtime does).
    pub fn open() -> Result<Cl, String> {
        let platforms = get_platforms().map_err(|e| cl_err("clGetPlatformIDs", e))?;
        let mut seen = Vec::new();
        for platform in &platforms {
            let pname = platform.name().unwrap_or_default();
            let Ok(ids) = platform.get_devices(CL_DEVICE_TYPE_ALL) else {
                continue;
            };
            for id in ids {
                let device = Device::new(id);
                let il = device.il_version().unwrap_or_default();
                let bits = device.address_bits().unwrap_or(0);
                let dname = device.name().unwrap_or_default();
                if !il.contains("SPIR-V") || bits != 64 {
                    seen.push(format!("{dname} (IL '{il}', {bits}-bit)"));
                    continue;
                }
                let context =
                    Context::from_device(&device).map_err(|e| cl_err("clCreateContext", e))?;
                let queue = CommandQueue::create_default_with_properties(
                    &context,
                    CL_QUEUE_PROFILING_ENABLE,
                    0,
                )
                .map_err(|e| cl_err("clCreateCommandQueueWithProperties", e))?;
                let info = DeviceInfo {
                    name: dname.trim().to_string(),
                    platform: pname.trim().to_string(),
                    version: device.version().unwrap_or_default().trim().to_string(),
                    driver: device
                        .driver_version()
                        .unwrap_or_default()
                        .trim()
                        .to_string(),
                    compute_units: device.max_compute_units().unwrap_or(0),
                    global_mem: device.global_mem_size().unwrap_or(0),
                };
                return Ok(Cl {
                    device,
                    context,
                    queue,
                    info,
                });
            }
        }
        Err(format!(
            "no OpenCL device takes SPIR-V with 64-bit addresses ({} platform(s); devices seen: {})",
            platforms.len(),
            if seen.is_empty() {
                "none".to_string()
            } else {
                seen.join(", ")
            }
        ))
    }

    /// Builds a program from SPIR-V; returns it with the build's wall time in seconds.
    pub fn program_from_il(&self, il: &[u8]) -> Result<(Program, f64), String> {
        let start = Instant::now();
        let mut program = Program::create_from_il(&self.context, il)
            .map_err(|e| cl_err("clCreateProgramWithIL", e))?;
        self.build(&mut program, "")?;
        Ok((program, start.elapsed().as_secs_f64()))
    }

    /// Builds a program from OpenCL C source; returns it with the build's wall time in seconds.
    pub fn program_from_source(&self, src: &str, options: &str) -> Result<(Program, f64), String> {
        let start = Instant::now();
        let mut program = Program::create_from_source(&self.context, src)
            .map_err(|e| cl_err("clCreateProgramWithSource", e))?;
        self.build(&mut program, options)?;
        Ok((program, start.elapsed().as_secs_f64()))
    }

    fn build(&self, program: &mut Program, options: &str) -> Result<(), String> {
        program.build(&[self.device.id()], options).map_err(|e| {
            let log = program.get_build_log(self.device.id()).unwrap_or_default();
            let first = log
                .lines()
                .find(|l| l.to_lowercase().contains("error"))
                .or_else(|| log.lines().find(|l| !l.trim().is_empty()))
                .unwrap_or("")
                .trim()
                .to_string();
            format!("clBuildProgram failed: {e}: {first}")
        })
    }

    /// A read-write buffer of `bytes` bytes, filled with `data` when given.
    pub fn buffer(&self, bytes: usize, data: Option<&[u8]>) -> Result<Buffer<u8>, String> {
        // SAFETY: no host pointer; the size is the buffer's.
        let mut buf = unsafe {
            Buffer::<u8>::create(
                &self.context,
                CL_MEM_READ_WRITE,
                bytes.max(1),
                ptr::null_mut(),
            )
        }
        .map_err(|e| cl_err(&format!("clCreateBuffer({bytes} bytes)"), e))?;
        if let Some(data) = data {
            self.write(&mut buf, data)?;
        }
        Ok(buf)
    }

    pub fn write(&self, buf: &mut Buffer<u8>, data: &[u8]) -> Result<(), String> {
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: blocking write of `data.len()` bytes into a buffer at least that large.
        unsafe {
            self.queue
                .enqueue_write_buffer(buf, CL_BLOCKING, 0, data, &[])
        }
        .map_err(|e| cl_err("clEnqueueWriteBuffer", e))?;
        Ok(())
    }

    pub fn read(&self, buf: &Buffer<u8>, bytes: usize) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; bytes];
        if bytes == 0 {
            return Ok(out);
        }
        // SAFETY: blocking read of `bytes` bytes from a buffer at least that large.
        unsafe {
            self.queue
                .enqueue_read_buffer(buf, CL_BLOCKING, 0, &mut out, &[])
        }
        .map_err(|e| cl_err("clEnqueueReadBuffer", e))?;
        Ok(out)
    }

    /// The device's copy bandwidth in GB/s (bytes read + bytes written per second), measured
    /// with clEnqueueCopyBuffer of `bytes` bytes; median of `reps` after `warmup` copies.
    pub fn copy_bandwidth(&self, bytes: usize, warmup: usize, reps: usize) -> Result<f64, String> {
        let mut probe = CopyProbe::new(self, bytes)?;
        for i in 0..warmup + reps {
            probe.run(self, i >= warmup)?;
        }
        probe.bandwidth().ok_or_else(|| "no copy timed".to_string())
    }
}

/// Two buffers and the times of clEnqueueCopyBuffer between them.
pub struct CopyProbe {
    src: Buffer<u8>,
    dst: Buffer<u8>,
    bytes: usize,
    times: Vec<f64>,
}

impl CopyProbe {
    pub fn new(cl: &Cl, bytes: usize) -> Result<CopyProbe, String> {
        Ok(CopyProbe {
            src: cl.buffer(bytes, Some(&vec![1u8; bytes]))?,
            dst: cl.buffer(bytes, Some(&vec![0u8; bytes]))?,
            bytes,
            times: Vec::new(),
        })
    }

    /// One copy, waited for; its time is kept when `keep`.
    pub fn run(&mut self, cl: &Cl, keep: bool) -> Result<(), String> {
        // SAFETY: both buffers hold `bytes` bytes.
        let event = unsafe {
            cl.queue
                .enqueue_copy_buffer(&self.src, &mut self.dst, 0, 0, self.bytes, &[])
        }
        .map_err(|e| cl_err("clEnqueueCopyBuffer", e))?;
        event.wait().map_err(|e| cl_err("clWaitForEvents", e))?;
        if keep {
            self.times.push(event_seconds(&event)?);
        }
        Ok(())
    }

    /// GB/s (read + written) at the median copy time.
    pub fn bandwidth(&self) -> Option<f64> {
        Some(2.0 * self.bytes as f64 / stats::median(&self.times)? / 1e9)
    }
}

/// Reads buffers' device addresses: a probe kernel stores each. hipmlir's kernels take device
/// addresses by value (its SPIR-V entry points take global pointers as 64-bit integers, set by
/// `clSetKernelArg` of the address, as its runtime does), and the memory checker's tables hold
/// addresses; both are given the addresses of the same buffers the peers get as `cl_mem`. On
/// the CPU device a buffer's memory stays where it is, so an address read once holds.
pub struct AddressProbe {
    kernel: Kernel,
    out: Buffer<u8>,
    _program: Program,
}

const ADDRESS_PROBE: &str =
    "kernel void address_of(global char* b, global ulong* out) { out[0] = (ulong)b; }";

impl AddressProbe {
    pub fn new(cl: &Cl) -> Result<AddressProbe, String> {
        let (program, _) = cl.program_from_source(ADDRESS_PROBE, "")?;
        let kernel = Kernel::create(&program, "address_of")
            .map_err(|e| cl_err("clCreateKernel(address_of)", e))?;
        Ok(AddressProbe {
            kernel,
            out: cl.buffer(8, None)?,
            _program: program,
        })
    }

    /// The device address of `mem`'s first byte.
    pub fn address(&self, cl: &Cl, mem: cl_mem) -> Result<u64, String> {
        set_arg(&self.kernel, 0, ArgValue::Mem(mem))?;
        set_arg(&self.kernel, 1, ArgValue::Mem(self.out.get()))?;
        enqueue(&cl.queue, &self.kernel, &[1], &[1])?;
        let bytes = cl.read(&self.out, 8)?;
        let word: [u8; 8] = bytes
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .ok_or("the address probe read no address")?;
        Ok(u64::from_ne_bytes(word))
    }
}

/// The execution time of a finished command, from its profiling counters.
pub fn event_seconds(event: &opencl3::event::Event) -> Result<f64, String> {
    let start = event
        .profiling_command_start()
        .map_err(|e| cl_err("clGetEventProfilingInfo(START)", e))?;
    let end = event
        .profiling_command_end()
        .map_err(|e| cl_err("clGetEventProfilingInfo(END)", e))?;
    Ok(end.saturating_sub(start) as f64 * 1e-9)
}

/// A kernel argument value as the kernel's parameter sees it.
#[derive(Debug, Clone, Copy)]
pub enum ArgValue {
    Mem(cl_mem),
    I32(i32),
    F32(f32),
    U64(u64),
}

/// Sets argument `index` of `kernel`.
pub fn set_arg(kernel: &Kernel, index: u32, value: ArgValue) -> Result<(), String> {
    // SAFETY: each value is passed with its own size; the caller checked the kernel's arity.
    let r = unsafe {
        match value {
            ArgValue::Mem(m) => kernel.set_arg(index, &m),
            ArgValue::I32(v) => kernel.set_arg(index, &v),
            ArgValue::F32(v) => kernel.set_arg(index, &v),
            ArgValue::U64(v) => kernel.set_arg(index, &v),
        }
    };
    r.map_err(|e| cl_err(&format!("clSetKernelArg({index})"), e))
}

/// Enqueues an N-D range (global = grid x block, local = block, as hipmlir's runtime launches).
pub fn enqueue(
    queue: &CommandQueue,
    kernel: &Kernel,
    global: &[usize],
    local: &[usize],
) -> Result<opencl3::event::Event, String> {
    // SAFETY: the work sizes are slices of the same length (checked by the caller), the kernel's
    // arguments are all set.
    unsafe {
        queue.enqueue_nd_range_kernel(
            kernel.get(),
            global.len() as u32,
            ptr::null(),
            global.as_ptr(),
            local.as_ptr(),
            &[],
        )
    }
    .map_err(|e| cl_err("clEnqueueNDRangeKernel", e))
}

/// The names of a SPIR-V module's entry points (OpEntryPoint), read from the binary.
pub fn spirv_entry_points(spirv: &[u8]) -> Result<Vec<String>, String> {
    if spirv.len() < 20 || !spirv.len().is_multiple_of(4) {
        return Err(format!("not a SPIR-V module ({} bytes)", spirv.len()));
    }
    let words: Vec<u32> = spirv
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if words[0] != 0x0723_0203 {
        return Err(format!("not a SPIR-V module (magic {:#010x})", words[0]));
    }
    let mut names = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        let opcode = words[i] & 0xffff;
        if count == 0 || i + count > words.len() {
            return Err(format!("malformed SPIR-V instruction at word {i}"));
        }
        // OpEntryPoint: execution model, function id, name (literal string), interface ids.
        if opcode == 15 && count >= 4 {
            let mut bytes = Vec::new();
            'name: for w in &words[i + 3..i + count] {
                for b in w.to_le_bytes() {
                    if b == 0 {
                        break 'name;
                    }
                    bytes.push(b);
                }
            }
            names.push(String::from_utf8_lossy(&bytes).into_owned());
        }
        i += count;
    }
    Ok(names)
}

/// The entry point that is kernel `name`: the name itself (`extern "C"`), or its Itanium mangling
/// (`_Z<len><name>...`).
pub fn find_entry_point<'a>(entry_points: &'a [String], name: &str) -> Option<&'a str> {
    let mangled_prefix = format!("_Z{}{}", name.len(), name);
    entry_points
        .iter()
        .find(|e| e.as_str() == name)
        .or_else(|| entry_points.iter().find(|e| e.starts_with(&mangled_prefix)))
        .map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_plain_and_mangled_names() {
        let eps = vec![
            "vadd".to_string(),
            "_Z10vector_addPKfS0_Pfi".to_string(),
            "_Z10vector_adddPf".to_string(),
        ];
        assert_eq!(find_entry_point(&eps, "vadd"), Some("vadd"));
        assert_eq!(
            find_entry_point(&eps, "vector_add"),
            Some("_Z10vector_addPKfS0_Pfi")
        );
        assert_eq!(find_entry_point(&eps, "vector"), None);
    }

    #[test]
    fn rejects_non_spirv() {
        assert!(spirv_entry_points(b"not spirv at all!!!!").is_err());
        assert!(spirv_entry_points(&[]).is_err());
    }

    #[test]
    fn reads_entry_point_names() {
        // Header (5 words), OpEntryPoint Kernel %1 "ab" (4 words).
        let mut words = vec![0x0723_0203u32, 0x0001_0000, 0, 10, 0];
        words.extend([(4u32 << 16) | 15, 6, 1, u32::from_le_bytes(*b"ab\0\0")]);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(spirv_entry_points(&bytes).unwrap(), vec!["ab".to_string()]);
    }
}
