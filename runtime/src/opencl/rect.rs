//! Pitched 2-D and 3-D copies and fills as one kernel each: OpenCL's USM and SVM copies and fills
//! are linear, and one command per row costs tens of microseconds on a CPU device, so a
//! 4096-row copy would take a tenth of a second whatever its bytes. The runtime's own program
//! (OpenCL C, built once per device through `jit::build_source`, cached on disk like any other)
//! has a copy and a fill kernel per element width; a rectangle moves in the widest element that
//! divides both addresses, every pitch and the row, one work-item per element, so each row is
//! read and written in consecutive wide accesses.

use std::ffi::{c_void, CStr};
use std::sync::{Mutex, MutexGuard};

use cl3::types::{cl_command_queue, cl_event};

use super::cl::{enqueue_nd_range, error_name, OwnedEvent, OwnedKernel, OwnedProgram};
use super::device::Runtime;
use super::stream::cl_failure;
use crate::backend::{Copy3d, Fill};
use crate::error::{Failure, HipError, HipResult};
use crate::hlog;

/// The element widths a rectangle moves in, widest first, with their OpenCL C types.
const ELEMENTS: [(usize, &str); 5] = [
    (16, "uint4"),
    (8, "ulong"),
    (4, "uint"),
    (2, "ushort"),
    (1, "uchar"),
];

/// One kernel pair per element type. Pitches, slices and widths are in elements; the grid is
/// rounded up to whole work-groups, so items past the row or the last row do nothing.
const KERNELS: &str = r"
#define RECT(T, N)                                                                          \
kernel void hipmlir_copy_rect_##N(global T* dst, ulong dpitch, ulong dslice,                \
                                  global const T* src, ulong spitch, ulong sslice,          \
                                  ulong width, ulong height) {                              \
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);               \
    if (x < width && y < height)                                                            \
        dst[z * dslice + y * dpitch + x] = src[z * sslice + y * spitch + x];                \
}                                                                                           \
kernel void hipmlir_fill_rect_##N(global T* dst, ulong pitch, ulong slice,                  \
                                  ulong width, ulong height, T value) {                     \
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);               \
    if (x < width && y < height)                                                            \
        dst[z * slice + y * pitch + x] = value;                                             \
}
";

const OPTIONS: &CStr = c"";

/// Work-items per work-group: enough that a CPU device's vectorized loop over a group pays
/// its per-group cost rarely, few enough for any device.
const GROUP: usize = 256;

fn copy_name(bytes: usize) -> String {
    format!("hipmlir_copy_rect_{bytes}")
}

fn fill_name(bytes: usize) -> String {
    format!("hipmlir_fill_rect_{bytes}")
}

/// The program's source: the macro, then one use of it per element type.
fn source() -> String {
    let uses: String = ELEMENTS
        .iter()
        .map(|(bytes, ty)| format!("RECT({ty}, {bytes})\n"))
        .collect();
    format!("{KERNELS}{uses}")
}

/// A device's rectangle kernels. The kernel objects are shared by every stream: setting the
/// arguments and enqueueing happen under the lock (the launch keeps the values it was given).
pub struct RectKernels {
    _program: OwnedProgram,
    kernels: Mutex<Vec<Pair>>,
    /// The largest work-group every kernel of the program accepts.
    max_group: usize,
}

/// The copy and fill kernels of one element width (`ELEMENTS`' order).
struct Pair {
    copy: OwnedKernel,
    fill: OwnedKernel,
}

impl std::fmt::Debug for RectKernels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RectKernels")
    }
}

impl RectKernels {
    fn build(rt: &Runtime) -> Result<Self, String> {
        let names: Vec<String> = ELEMENTS
            .iter()
            .flat_map(|&(bytes, _)| [copy_name(bytes), fill_name(bytes)])
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let program = super::jit::build_source(rt, &source(), OPTIONS, &names)?;
        let create = |name: String| {
            OwnedKernel::create(&program, &name).map_err(|e| format!("{name}: {}", error_name(e)))
        };
        let kernels = ELEMENTS
            .iter()
            .map(|&(bytes, _)| {
                Ok(Pair {
                    copy: create(copy_name(bytes))?,
                    fill: create(fill_name(bytes))?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let max_group = kernels
            .iter()
            .flat_map(|p| [&p.copy, &p.fill])
            .map(|k| super::jit::kernel_work_group_size(k, rt.device_id()))
            .min()
            .unwrap_or(1)
            .clamp(1, GROUP);
        Ok(RectKernels {
            _program: program,
            kernels: Mutex::new(kernels),
            max_group,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Pair>> {
        self.kernels.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The local and global sizes covering `width` x `height` x `depth` items: a group spans a
    /// row's items first (the accesses a CPU device vectorizes), then rows.
    fn grid(&self, width: usize, height: usize, depth: usize, rt: &Runtime) -> [[usize; 3]; 2] {
        let limits = rt.info.max_work_item_sizes;
        let across = width
            .next_power_of_two()
            .min(self.max_group)
            .min(limits[0].max(1));
        let down = height
            .next_power_of_two()
            .min(self.max_group / across)
            .min(limits[1].max(1))
            .max(1);
        let local = [across, down, 1];
        let global = [
            width.div_ceil(across) * across,
            height.div_ceil(down) * down,
            depth,
        ];
        [local, global]
    }
}

/// The device's rectangle kernels, built at the first use; `None` (said once) where they do not
/// build, and the callers go row by row.
pub fn kernels(rt: &Runtime) -> Option<&RectKernels> {
    rt.rect
        .get_or_init(|| {
            RectKernels::build(rt).inspect_err(|e| {
                hlog!(
                    Warn,
                    "cannot build the pitched copy kernels ({e}); pitched copies go row by row"
                )
            })
        })
        .as_ref()
        .ok()
}

/// The index in `ELEMENTS` of the widest element dividing `bits` (every address, pitch and
/// length of a rectangle, or-ed together).
fn element_for(bits: usize) -> usize {
    ELEMENTS
        .iter()
        .position(|&(bytes, _)| bits.is_multiple_of(bytes))
        .unwrap_or(ELEMENTS.len() - 1)
}

/// An argument's value.
enum Arg<'a> {
    Pointer(*const c_void),
    Value(&'a [u8]),
}

fn set_args(rt: &Runtime, kernel: &OwnedKernel, args: &[Arg]) -> HipResult<()> {
    for (index, arg) in args.iter().enumerate() {
        let index = index as u32;
        // SAFETY: the kernel is ours under the lock; each value has the size its parameter has.
        let result = unsafe {
            match arg {
                Arg::Pointer(p) => rt.memory.set_pointer_arg(kernel.get(), index, *p),
                Arg::Value(bytes) => cl3::kernel::set_kernel_arg(
                    kernel.get(),
                    index,
                    bytes.len(),
                    bytes.as_ptr().cast(),
                )
                .map_err(|e| format!("clSetKernelArg: {}", error_name(e))),
            }
        };
        result.map_err(|e| {
            Failure::new(
                HipError::LaunchFailure,
                format!("setting argument {index} of a pitched copy: {e}"),
            )
        })?;
    }
    Ok(())
}

fn word(v: usize) -> [u8; 8] {
    (v as u64).to_ne_bytes()
}

/// Enqueues `c` (both sides reachable by the device, ranges checked) as one kernel after `deps`;
/// returns its event.
pub fn copy(
    rt: &Runtime,
    k: &RectKernels,
    queue: cl_command_queue,
    c: &Copy3d,
    deps: &[cl_event],
) -> HipResult<OwnedEvent> {
    let slices = if c.depth > 1 {
        c.dst_slice | c.src_slice
    } else {
        0
    };
    let which =
        element_for(c.dst as usize | c.src as usize | c.dst_pitch | c.src_pitch | slices | c.width);
    let e = ELEMENTS[which].0;
    let kernels = k.lock();
    let kernel = &kernels[which].copy;
    set_args(
        rt,
        kernel,
        &[
            Arg::Pointer(c.dst),
            Arg::Value(&word(c.dst_pitch / e)),
            Arg::Value(&word(c.dst_slice / e)),
            Arg::Pointer(c.src),
            Arg::Value(&word(c.src_pitch / e)),
            Arg::Value(&word(c.src_slice / e)),
            Arg::Value(&word(c.width / e)),
            Arg::Value(&word(c.height)),
        ],
    )?;
    enqueue(
        rt,
        k,
        kernel,
        queue,
        [c.width / e, c.height, c.depth],
        deps,
        "copying",
    )
}

/// Enqueues `f` (its range checked, in memory the device reaches) as one kernel after `deps`;
/// returns its event, or `None` where its pitches are not whole patterns (no element fits).
pub fn fill(
    rt: &Runtime,
    k: &RectKernels,
    queue: cl_command_queue,
    f: &Fill,
    deps: &[cl_event],
) -> HipResult<Option<OwnedEvent>> {
    let pattern = f.pattern.as_bytes();
    let row = f.count * pattern.len();
    let slices = if f.depth > 1 { f.slice } else { 0 };
    let which = element_for(f.dst as usize | f.pitch | slices | row);
    let e = ELEMENTS[which].0;
    if e < pattern.len() {
        return Ok(None);
    }
    // The pattern repeated across the element (the element is a whole number of patterns, and
    // starts at a whole pattern, the destination being aligned to it).
    let value: Vec<u8> = pattern.iter().copied().cycle().take(e).collect();
    let kernels = k.lock();
    let kernel = &kernels[which].fill;
    set_args(
        rt,
        kernel,
        &[
            Arg::Pointer(f.dst),
            Arg::Value(&word(f.pitch / e)),
            Arg::Value(&word(f.slice / e)),
            Arg::Value(&word(row / e)),
            Arg::Value(&word(f.height)),
            Arg::Value(&value),
        ],
    )?;
    enqueue(
        rt,
        k,
        kernel,
        queue,
        [row / e, f.height, f.depth],
        deps,
        "filling",
    )
    .map(Some)
}

fn enqueue(
    rt: &Runtime,
    k: &RectKernels,
    kernel: &OwnedKernel,
    queue: cl_command_queue,
    [width, height, depth]: [usize; 3],
    deps: &[cl_event],
    what: &str,
) -> HipResult<OwnedEvent> {
    let [local, global] = k.grid(width, height, depth, rt);
    // SAFETY: a live queue and kernel, its arguments set under the lock the caller holds.
    unsafe { enqueue_nd_range(queue, kernel.get(), &global, &local, deps, true) }
        .map_err(|e| cl_failure(&format!("{what} a {width}x{height}x{depth} rectangle"), e))?
        .ok_or_else(|| Failure::new(HipError::Unknown, "the pitched copy returned no event"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widest_element_dividing_everything() {
        assert_eq!(ELEMENTS[element_for(4096 | 256 | 0x1000)].0, 16);
        assert_eq!(ELEMENTS[element_for(4096 | 8)].0, 8);
        assert_eq!(ELEMENTS[element_for(4096 | 12)].0, 4);
        assert_eq!(ELEMENTS[element_for(4096 | 6)].0, 2);
        assert_eq!(ELEMENTS[element_for(4095)].0, 1);
    }

    #[test]
    fn source_has_every_kernel() {
        let s = source();
        for (bytes, ty) in ELEMENTS {
            assert!(s.contains(&format!("RECT({ty}, {bytes})")));
        }
    }
}
