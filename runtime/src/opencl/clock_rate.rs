//! The rate of the clock kernels read, for `hipDeviceAttributeWallClockRate` and
//! `hipDeviceAttributeClockInstructionRate`. On SPIR-V both HIP clocks (`wall_clock64`,
//! `clock64`) read the device's clock (`OpReadClockKHR` at Device scope, OpenCL C's
//! `clock_read_device`, cl_khr_kernel_clock), whose rate OpenCL does not state. So it is
//! measured, once per process and only when asked for (the attributes, `hipGetDeviceProperties`'
//! `clockInstructionRate`): a one-line kernel reads the clock a few
//! times on each side of a host sleep, and the clock's ticks between the two quickest reads are
//! divided by the host's monotonic time between them. A device without cl_khr_kernel_clock has
//! no clock to read: the rate is 0, as HIP reports for a device without one.

use std::ffi::{c_void, CStr};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::cl::{enqueue_nd_range, error_name, OwnedKernel, OwnedQueue};
use super::device::Runtime;
use crate::hlog;

/// The extension that gives kernels the device's clock.
const KERNEL_CLOCK_EXTENSION: &str = "cl_khr_kernel_clock";
const KERNEL: &str = "hipmlir_read_device_clock";
const SOURCE: &str =
    "kernel void hipmlir_read_device_clock(global ulong* out) { out[0] = clock_read_device(); }";
/// The extension's functions are OpenCL C 3.0's.
const OPTIONS: &CStr = c"-cl-std=CL3.0";
/// Reads on each side of the sleep: the quickest of them (the least launch latency) counts.
const READS: usize = 4;
/// The host time between the two groups of reads. The quickest read takes microseconds on a CPU
/// device (tens on a busy machine), which errs the rate by well under 1 %; the whole measurement
/// costs the process about this long, once.
const INTERVAL: Duration = Duration::from_millis(10);

/// The device clock's rate in kHz, 0 where the device has none or it cannot be measured.
pub fn device_clock_khz(rt: &Runtime) -> i32 {
    static RATE: OnceLock<i32> = OnceLock::new();
    *RATE.get_or_init(|| {
        if !rt.info.has_extension(KERNEL_CLOCK_EXTENSION) {
            return 0;
        }
        measure(rt).unwrap_or_else(|e| {
            hlog!(Warn, "cannot measure the device clock's rate: {e}");
            0
        })
    })
}

/// One read of the device clock: (the host's time halfway through the read, its ticks).
struct Read {
    host: Instant,
    latency: Duration,
    ticks: u64,
}

fn measure(rt: &Runtime) -> Result<i32, String> {
    let program = super::jit::build_source(rt, SOURCE, OPTIONS, &[KERNEL])?;
    let kernel = OwnedKernel::create(&program, KERNEL).map_err(error_name)?;
    let queue = OwnedQueue::create(rt.context.get(), rt.device_id()).map_err(error_name)?;
    let buffer = Buffer::new(rt)?;
    // SAFETY: argument 0 is the kernel's buffer pointer; the handle outlives the reads.
    unsafe {
        cl3::kernel::set_kernel_arg(
            kernel.get(),
            0,
            std::mem::size_of::<cl3::types::cl_mem>(),
            (&raw const buffer.0).cast(),
        )
    }
    .map_err(error_name)?;
    let read = || -> Result<Read, String> {
        let mut ticks = 0u64;
        let start = Instant::now();
        // SAFETY: a live queue and kernel; one work-item; a blocking read of the 8 bytes the
        // kernel wrote into our own u64.
        unsafe {
            enqueue_nd_range(
                queue.get(),
                kernel.get(),
                &[1, 1, 1],
                &[1, 1, 1],
                &[],
                false,
            )
            .map_err(error_name)?;
            let event = cl3::command_queue::enqueue_read_buffer(
                queue.get(),
                buffer.0,
                cl3::types::CL_TRUE,
                0,
                8,
                (&raw mut ticks).cast::<c_void>(),
                0,
                std::ptr::null(),
            )
            .map_err(error_name)?;
            let _ = cl3::event::release_event(event);
        }
        let latency = start.elapsed();
        Ok(Read {
            host: start + latency / 2,
            latency,
            ticks,
        })
    };
    let quickest = |reads: Vec<Read>| reads.into_iter().min_by_key(|r| r.latency);
    // The first read also warms the kernel up: it is not one of the counted reads.
    read()?;
    let before = quickest((0..READS).map(|_| read()).collect::<Result<_, _>>()?);
    std::thread::sleep(INTERVAL);
    let after = quickest((0..READS).map(|_| read()).collect::<Result<_, _>>()?);
    let (Some(before), Some(after)) = (before, after) else {
        return Err("no reads".into());
    };
    let seconds = after.host.duration_since(before.host).as_secs_f64();
    let ticks = after.ticks.wrapping_sub(before.ticks) as f64;
    if after.ticks <= before.ticks || seconds <= 0.0 {
        return Err(format!(
            "the clock did not advance ({} then {})",
            before.ticks, after.ticks
        ));
    }
    let khz = ticks / seconds / 1000.0;
    hlog!(
        Debug,
        "device clock: {khz:.0} kHz (reads within {:?} and {:?})",
        before.latency,
        after.latency
    );
    i32::try_from(khz.round() as i64).map_err(|_| format!("{khz} kHz is out of range"))
}

/// An 8-byte device buffer, released on drop.
struct Buffer(cl3::types::cl_mem);

impl Buffer {
    fn new(rt: &Runtime) -> Result<Self, String> {
        // SAFETY: a live context; no host pointer.
        unsafe {
            cl3::memory::create_buffer(
                rt.context.get(),
                cl3::memory::CL_MEM_WRITE_ONLY,
                8,
                std::ptr::null_mut(),
            )
        }
        .map(Buffer)
        .map_err(error_name)
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: we own the buffer's one reference.
        let _ = unsafe { cl3::memory::release_mem_object(self.0) };
    }
}
