//! The vocabulary of the backend interface: HIP's C types the runtime reads and writes
//! (`dim3`, `hipPointerAttribute_t`, `hipFuncAttributes`, `hipExtent`, `hipPitchedPtr`), and the
//! Rust enums and shapes `api/` converts the C arguments into once (memcpy kinds, limits,
//! function attributes, memory advice, copy and fill regions, launch configurations).

use std::ffi::{c_int, c_void};

use hipmlir_device_image::KernelInfo;

use crate::error::{Failure, HipError, HipResult};

use super::{DeviceId, Stream};

/// HIP's `dim3`, passed by value across the C ABI.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }

    pub fn as_array(self) -> [u32; 3] {
        [self.x, self.y, self.z]
    }
}

/// A launch shape with a dimension of 0 is `hipErrorInvalidValue`, as HIP answers (a shape
/// too large for the device is `hipErrorInvalidConfiguration`, the backend's to judge).
pub fn check_nonempty_shape(grid: Dim3, block: Dim3) -> crate::error::HipResult<()> {
    let (g, b) = (grid.as_array(), block.as_array());
    if g.contains(&0) || b.contains(&0) {
        return Err(crate::error::Failure::invalid_value(format!(
            "grid ({}, {}, {}) and block ({}, {}, {}) must be at least 1 in every dimension",
            g[0], g[1], g[2], b[0], b[1], b[2]
        )));
    }
    Ok(())
}

/// A launch of `kernel` in blocks of `block`: a block with more threads than the kernel's
/// `__launch_bounds__` allows is `hipErrorLaunchFailure`, as HIP answers (the kernel was
/// compiled for at most that many).
pub fn check_launch_bounds(kernel: &KernelInfo, block: Dim3) -> HipResult<()> {
    let threads: u64 = block.as_array().iter().map(|&d| u64::from(d)).product();
    match kernel.max_threads_per_block {
        Some(most) if threads > most => Err(Failure::new(
            HipError::LaunchFailure,
            format!(
                "block ({}, {}, {}) has {threads} threads; kernel '{}' allows {most} \
                 (its __launch_bounds__)",
                block.x, block.y, block.z, kernel.source_name
            ),
        )),
        _ => Ok(()),
    }
}

/// The most blocks in each grid dimension (`hipDeviceProp_t.maxGridSize`) where the device does
/// not say: OpenCL bounds only the global size, so HIP's x limit is used for every dimension.
pub const MAX_GRID_DIM: i32 = i32::MAX;

/// Everything one kernel launch needs: its shape, dynamic shared memory, stream and the packed
/// argument block (a C struct of the kernel's parameters, laid out by its metadata).
#[derive(Debug, Clone, Copy)]
pub struct LaunchConfig<'a> {
    pub grid: Dim3,
    pub block: Dim3,
    pub shared_mem: usize,
    pub stream: &'a Stream,
    pub args: &'a [u8],
}

/// Checks that a packed argument block is the size the kernel's metadata lays out (before any
/// launch, on every backend: a backend reads the block by that layout).
pub fn check_args_size(kernel: &KernelInfo, block: &[u8]) -> HipResult<()> {
    if block.len() as u64 != kernel.args_size {
        return Err(Failure::invalid_value(format!(
            "kernel '{}' ({}) takes a {}-byte argument block, got {} bytes",
            kernel.source_name,
            kernel.name,
            kernel.args_size,
            block.len()
        )));
    }
    Ok(())
}

/// `hipMemcpyDeviceToDeviceNoCU`.
pub const DEVICE_TO_DEVICE_NO_CU: i32 = 1024;

/// `hipMemcpyKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemcpyKind {
    HostToHost = 0,
    HostToDevice = 1,
    DeviceToHost = 2,
    DeviceToDevice = 3,
    Default = 4,
}

impl MemcpyKind {
    pub fn from_raw(kind: i32) -> Option<Self> {
        Some(match kind {
            0 => MemcpyKind::HostToHost,
            1 => MemcpyKind::HostToDevice,
            2 => MemcpyKind::DeviceToHost,
            3 => MemcpyKind::DeviceToDevice,
            4 => MemcpyKind::Default,
            // hipMemcpyDeviceToDeviceNoCU: AMD's device-to-device copy by its DMA engines rather
            // than a kernel; here, as every copy, whichever way the backend copies.
            DEVICE_TO_DEVICE_NO_CU => MemcpyKind::DeviceToDevice,
            _ => return None,
        })
    }

    /// The kind, or `hipErrorInvalidMemcpyDirection`.
    pub fn parse(kind: i32) -> HipResult<Self> {
        MemcpyKind::from_raw(kind).ok_or_else(|| {
            Failure::new(
                HipError::InvalidMemcpyDirection,
                format!("{kind} is not a hipMemcpyKind (0..=4 or {DEVICE_TO_DEVICE_NO_CU})"),
            )
        })
    }

    /// Whether `(dst, src)` must be device memory per the declared kind (`None`: infer).
    pub fn declared(self) -> (Option<bool>, Option<bool>) {
        match self {
            MemcpyKind::HostToHost => (Some(false), Some(false)),
            MemcpyKind::HostToDevice => (Some(true), Some(false)),
            MemcpyKind::DeviceToHost => (Some(false), Some(true)),
            MemcpyKind::DeviceToDevice => (Some(true), Some(true)),
            MemcpyKind::Default => (None, None),
        }
    }
}

/// Bytes from a region's start to the end of its last row: `depth` slices `slice` bytes apart of
/// `height` rows `pitch` bytes apart of `width` bytes (`None` on overflow; 0 when empty).
fn span(width: usize, pitch: usize, height: usize, slice: usize, depth: usize) -> Option<usize> {
    if width == 0 || height == 0 || depth == 0 {
        return Some(0);
    }
    slice
        .checked_mul(depth - 1)?
        .checked_add(pitch.checked_mul(height - 1)?)?
        .checked_add(width)
}

/// One 2-D copy: `height` rows of `width` bytes between pitched ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Copy2d {
    pub dst: *mut c_void,
    pub dpitch: usize,
    pub src: *const c_void,
    pub spitch: usize,
    pub width: usize,
    pub height: usize,
}

/// A copy of `depth` slices of `height` rows of `width` bytes; each side has its row pitch and
/// slice pitch. A 1-D copy is one row, a 2-D copy one slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Copy3d {
    pub dst: *mut c_void,
    pub dst_pitch: usize,
    pub dst_slice: usize,
    pub src: *const c_void,
    pub src_pitch: usize,
    pub src_slice: usize,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
}

impl Copy3d {
    /// Whether the copy reads and writes the same bytes (a mapped host allocation named by its
    /// host and its device address, which are one): it moves nothing.
    pub fn is_onto_itself(&self) -> bool {
        self.src == self.dst.cast_const()
            && self.src_pitch == self.dst_pitch
            && (self.depth <= 1 || self.src_slice == self.dst_slice)
    }

    /// `len` contiguous bytes.
    pub fn linear(dst: *mut c_void, src: *const c_void, len: usize) -> Self {
        Copy3d::planar(Copy2d {
            dst,
            dpitch: len,
            src,
            spitch: len,
            width: len,
            height: 1,
        })
    }

    /// One slice.
    pub fn planar(c: Copy2d) -> Self {
        Copy3d {
            dst: c.dst,
            dst_pitch: c.dpitch,
            dst_slice: c.dpitch.saturating_mul(c.height),
            src: c.src,
            src_pitch: c.spitch,
            src_slice: c.spitch.saturating_mul(c.height),
            width: c.width,
            height: c.height,
            depth: 1,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.width == 0 || self.height == 0 || self.depth == 0
    }

    /// Bytes from `dst` to the end of the last row written (`None` on overflow; 0 when empty).
    pub fn dst_span(&self) -> Option<usize> {
        span(
            self.width,
            self.dst_pitch,
            self.height,
            self.dst_slice,
            self.depth,
        )
    }

    /// Bytes from `src` to the end of the last row read (`None` on overflow; 0 when empty).
    pub fn src_span(&self) -> Option<usize> {
        span(
            self.width,
            self.src_pitch,
            self.height,
            self.src_slice,
            self.depth,
        )
    }

    /// One row of one slice: a plain copy of `width` bytes.
    pub fn is_linear(&self) -> bool {
        self.height == 1 && self.depth == 1
    }

    /// The 2-D copies the region is made of: one when both sides' slices follow each other
    /// without gaps (or there is one slice), else one per slice.
    pub fn planes(&self) -> impl Iterator<Item = Copy2d> + '_ {
        let packed = self.dst_slice == self.dst_pitch * self.height
            && self.src_slice == self.src_pitch * self.height;
        let (count, height) = if self.depth == 1 || packed {
            (1, self.height * self.depth)
        } else {
            (self.depth, self.height)
        };
        (0..count).map(move |z| Copy2d {
            dst: (self.dst as usize + z * self.dst_slice) as *mut c_void,
            dpitch: self.dst_pitch,
            src: (self.src as usize + z * self.src_slice) as *const c_void,
            spitch: self.src_pitch,
            width: self.width,
            height,
        })
    }

    /// Checks what every backend relies on: no null side, rows within their pitches.
    pub fn check(&self) -> HipResult<()> {
        if self.width > self.dst_pitch || self.width > self.src_pitch {
            return Err(Failure::new(
                HipError::InvalidPitchValue,
                format!(
                    "width {} is larger than the destination pitch {} or the source pitch {}",
                    self.width, self.dst_pitch, self.src_pitch
                ),
            ));
        }
        if self.dst.is_null() || self.src.is_null() {
            return Err(Failure::invalid_value(format!(
                "null {} pointer for a {}-byte copy",
                if self.dst.is_null() {
                    "destination"
                } else {
                    "source"
                },
                self.width
            )));
        }
        if self.is_linear() && !self.is_onto_itself() {
            // Unified addresses: overlapping ranges are the same bytes, which a copy may not
            // read and write at once (memcpy's rule; OpenCL's CL_MEM_COPY_OVERLAP).
            let (src, dst) = (self.src as usize, self.dst as usize);
            let overlap =
                src < dst.saturating_add(self.width) && dst < src.saturating_add(self.width);
            if overlap {
                return Err(Failure::invalid_value(format!(
                    "the source {src:#x} and destination {dst:#x} of a {}-byte copy overlap",
                    self.width
                )));
            }
        }
        Ok(())
    }
}

/// A fill's repeated value: 1, 2 or 4 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    bytes: [u8; 4],
    len: usize,
}

impl Pattern {
    pub fn u8(v: u8) -> Self {
        Pattern {
            bytes: [v, 0, 0, 0],
            len: 1,
        }
    }

    pub fn u16(v: u16) -> Self {
        let [a, b] = v.to_ne_bytes();
        Pattern {
            bytes: [a, b, 0, 0],
            len: 2,
        }
    }

    pub fn u32(v: u32) -> Self {
        Pattern {
            bytes: v.to_ne_bytes(),
            len: 4,
        }
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// A fill of `height` rows of `count` values each, rows `pitch` bytes apart (a 1-D fill is one
/// row); `depth` slices `slice` bytes apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fill {
    pub dst: *mut c_void,
    pub pattern: Pattern,
    pub count: usize,
    pub pitch: usize,
    pub height: usize,
    pub slice: usize,
    pub depth: usize,
}

impl Fill {
    /// `count` values from `dst` on.
    pub fn linear(dst: *mut c_void, pattern: Pattern, count: usize) -> Self {
        let bytes = count.saturating_mul(pattern.len);
        Fill {
            dst,
            pattern,
            count,
            pitch: bytes,
            height: 1,
            slice: bytes,
            depth: 1,
        }
    }

    /// Bytes of one row (`None` on overflow).
    pub fn row_bytes(&self) -> Option<usize> {
        self.count.checked_mul(self.pattern.len)
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0 || self.height == 0 || self.depth == 0
    }

    /// Bytes from `dst` to the end of the last row filled (`None` on overflow; 0 when empty).
    pub fn span(&self) -> Option<usize> {
        span(
            self.row_bytes()?,
            self.pitch,
            self.height,
            self.slice,
            self.depth,
        )
    }

    /// Checks what every backend relies on: a size that does not overflow and, unless the fill is
    /// empty, a non-null destination aligned to the pattern and rows within their pitch.
    pub fn check(&self) -> HipResult<()> {
        let row = self.row_bytes().ok_or_else(|| {
            Failure::invalid_value(format!(
                "{} elements of {} bytes overflow",
                self.count, self.pattern.len
            ))
        })?;
        if self.is_empty() {
            return Ok(());
        }
        if self.dst.is_null() {
            return Err(Failure::invalid_value(format!(
                "null destination for a {row}-byte memset"
            )));
        }
        if !(self.dst as usize).is_multiple_of(self.pattern.len) {
            return Err(Failure::invalid_value(format!(
                "destination {:p} is not aligned to the {}-byte fill pattern",
                self.dst, self.pattern.len
            )));
        }
        if (self.height > 1 && row > self.pitch) || (self.depth > 1 && self.slice < self.pitch) {
            return Err(Failure::new(
                HipError::InvalidPitchValue,
                format!("rows of {row} bytes do not fit the pitch {}", self.pitch),
            ));
        }
        Ok(())
    }

    /// The start of each row: `(address, bytes)`, or one range when rows (and slices) follow each
    /// other without gaps.
    pub fn rows(&self) -> impl Iterator<Item = (*mut c_void, usize)> + '_ {
        let row = self.count * self.pattern.len;
        let packed = (self.height == 1 || self.pitch == row)
            && (self.depth == 1 || self.slice == row * self.height);
        let (rows, len) = if packed {
            (1, row * self.height * self.depth)
        } else {
            (self.height * self.depth, row)
        };
        (0..rows).map(move |r| {
            let (z, y) = (r / self.height, r % self.height);
            let at = self.dst as usize + z * self.slice + y * self.pitch;
            (at as *mut c_void, len)
        })
    }
}

/// What memory an allocation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    /// `hipMalloc`.
    Device,
    /// `hipMallocManaged` with its attach flags (`hipMemAttachGlobal` 1, `hipMemAttachHost` 2).
    Managed { flags: u32 },
    /// `hipHostMalloc`: pinned host memory the device can reach, with HIP's flags.
    PinnedHost { flags: u32 },
}

/// Which free: `hipFree` (device and managed memory) or `hipHostFree` (pinned host memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FreeKind {
    Device,
    Host,
}

/// `hipCpuDeviceId`.
pub const CPU_DEVICE_ID: c_int = -1;
/// `hipInvalidDeviceId`.
pub const INVALID_DEVICE_ID: c_int = -2;

/// Where managed memory is advised to live or prefetched to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    Host,
    Device(DeviceId),
}

impl Location {
    /// HIP's number for it: the ordinal, or `hipCpuDeviceId`.
    pub fn raw(self) -> c_int {
        match self {
            Location::Host => CPU_DEVICE_ID,
            Location::Device(d) => c_int::try_from(d).unwrap_or(c_int::MAX),
        }
    }
}

/// `hipMemoryAdvise`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemAdvice {
    SetReadMostly = 1,
    UnsetReadMostly = 2,
    SetPreferredLocation = 3,
    UnsetPreferredLocation = 4,
    SetAccessedBy = 5,
    UnsetAccessedBy = 6,
    SetCoarseGrain = 100,
    UnsetCoarseGrain = 101,
}

impl MemAdvice {
    pub fn parse(advice: c_int) -> HipResult<Self> {
        use MemAdvice::*;
        Ok(match advice {
            1 => SetReadMostly,
            2 => UnsetReadMostly,
            3 => SetPreferredLocation,
            4 => UnsetPreferredLocation,
            5 => SetAccessedBy,
            6 => UnsetAccessedBy,
            100 => SetCoarseGrain,
            101 => UnsetCoarseGrain,
            other => {
                return Err(Failure::invalid_value(format!(
                    "{other} is not a hipMemoryAdvise value"
                )))
            }
        })
    }

    /// Whether the advice names a location (the device argument).
    pub fn takes_location(self) -> bool {
        matches!(
            self,
            MemAdvice::SetPreferredLocation | MemAdvice::SetAccessedBy | MemAdvice::UnsetAccessedBy
        )
    }
}

/// `hipMemRangeAttribute`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeAttribute {
    ReadMostly = 1,
    PreferredLocation = 2,
    AccessedBy = 3,
    LastPrefetchLocation = 4,
    CoherencyMode = 100,
}

impl RangeAttribute {
    pub fn parse(attribute: c_int) -> HipResult<Self> {
        use RangeAttribute::*;
        Ok(match attribute {
            1 => ReadMostly,
            2 => PreferredLocation,
            3 => AccessedBy,
            4 => LastPrefetchLocation,
            100 => CoherencyMode,
            other => {
                return Err(Failure::invalid_value(format!(
                    "{other} is not a hipMemRangeAttribute value"
                )))
            }
        })
    }
}

/// `hipLimit_t`: the device limits HIP programs query and set (HIP's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)]
pub enum Limit {
    StackSize = 0,
    PrintfFifoSize = 1,
    MallocHeapSize = 2,
}

impl Limit {
    pub fn parse(limit: c_int) -> HipResult<Self> {
        Ok(match limit {
            0 => Limit::StackSize,
            1 => Limit::PrintfFifoSize,
            2 => Limit::MallocHeapSize,
            other => return Err(super::device_config::unsupported_limit(other)),
        })
    }
}

/// `hipFuncAttribute`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuncAttribute {
    MaxDynamicSharedMemorySize = 8,
    PreferredSharedMemoryCarveout = 9,
}

impl FuncAttribute {
    pub fn parse(attribute: c_int) -> HipResult<Self> {
        match attribute {
            8 => Ok(FuncAttribute::MaxDynamicSharedMemorySize),
            9 => Ok(FuncAttribute::PreferredSharedMemoryCarveout),
            other => Err(Failure::invalid_value(format!(
                "{other} is not a hipFuncAttribute value"
            ))),
        }
    }
}

/// `hipStreamCreateWithFlags`' flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StreamFlags {
    /// `hipStreamNonBlocking`: no implicit synchronization with the null stream.
    pub non_blocking: bool,
}

impl StreamFlags {
    pub const NON_BLOCKING: u32 = 1;

    pub fn parse(flags: u32) -> HipResult<Self> {
        if flags & !Self::NON_BLOCKING != 0 {
            return Err(Failure::invalid_value(format!(
                "stream flags {flags:#x}: only hipStreamDefault (0) and hipStreamNonBlocking (1) exist"
            )));
        }
        Ok(StreamFlags {
            non_blocking: flags & Self::NON_BLOCKING != 0,
        })
    }

    pub fn raw(self) -> u32 {
        u32::from(self.non_blocking)
    }
}

/// `hipEventCreateWithFlags`' flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventFlags {
    pub blocking_sync: bool,
    pub disable_timing: bool,
    pub interprocess: bool,
    /// `hipEventDisableSystemFence`, `hipEventReleaseToDevice`, `hipEventReleaseToSystem`: the
    /// scope of the memory fence a record releases (AMD GPUs' cache flushes). Kept and reported;
    /// OpenCL markers and CUDA events order memory for the whole system anyway.
    pub disable_system_fence: bool,
    pub release_to_device: bool,
    pub release_to_system: bool,
}

impl EventFlags {
    pub const BLOCKING_SYNC: u32 = 1;
    pub const DISABLE_TIMING: u32 = 2;
    pub const INTERPROCESS: u32 = 4;
    pub const DISABLE_SYSTEM_FENCE: u32 = 0x2000_0000;
    pub const RELEASE_TO_DEVICE: u32 = 0x4000_0000;
    pub const RELEASE_TO_SYSTEM: u32 = 0x8000_0000;

    /// Each flag's bit, in one table for parsing and printing.
    fn bits(self) -> [(bool, u32); 6] {
        [
            (self.blocking_sync, Self::BLOCKING_SYNC),
            (self.disable_timing, Self::DISABLE_TIMING),
            (self.interprocess, Self::INTERPROCESS),
            (self.disable_system_fence, Self::DISABLE_SYSTEM_FENCE),
            (self.release_to_device, Self::RELEASE_TO_DEVICE),
            (self.release_to_system, Self::RELEASE_TO_SYSTEM),
        ]
    }

    /// The flags, or `hipErrorInvalidValue` for an unknown bit, `hipEventInterprocess` without
    /// `hipEventDisableTiming` (a shared event has no timestamps), and both release scopes.
    pub fn parse(flags: u32) -> HipResult<Self> {
        let known = EventFlags::default()
            .bits()
            .iter()
            .fold(0, |all, (_, bit)| all | bit);
        if flags & !known != 0 {
            return Err(Failure::invalid_value(format!(
                "event flags {flags:#x}: known flags are hipEventBlockingSync (1), \
                 hipEventDisableTiming (2), hipEventInterprocess (4), hipEventDisableSystemFence, \
                 hipEventReleaseToDevice and hipEventReleaseToSystem"
            )));
        }
        let has = |bit: u32| flags & bit != 0;
        let parsed = EventFlags {
            blocking_sync: has(Self::BLOCKING_SYNC),
            disable_timing: has(Self::DISABLE_TIMING),
            interprocess: has(Self::INTERPROCESS),
            disable_system_fence: has(Self::DISABLE_SYSTEM_FENCE),
            release_to_device: has(Self::RELEASE_TO_DEVICE),
            release_to_system: has(Self::RELEASE_TO_SYSTEM),
        };
        if parsed.interprocess && !parsed.disable_timing {
            return Err(Failure::invalid_value(
                "hipEventInterprocess needs hipEventDisableTiming: an event shared between \
                 processes keeps no timestamps",
            ));
        }
        if parsed.release_to_device && parsed.release_to_system {
            return Err(Failure::invalid_value(
                "hipEventReleaseToDevice and hipEventReleaseToSystem exclude each other",
            ));
        }
        Ok(parsed)
    }

    pub fn raw(self) -> u32 {
        self.bits()
            .iter()
            .filter(|(set, _)| *set)
            .fold(0, |flags, (_, bit)| flags | bit)
    }
}

/// A host function in stream order; told `hipSuccess` (0) or the failure of earlier work.
pub type HostFunction = Box<dyn FnOnce(i32) + Send>;

// ---- graphs and stream capture (rt-graphs) ----

/// A host function as the program hands it over, kept as data so that one recorded into a graph
/// runs again at every launch of the graph.
#[derive(Debug, Clone, Copy)]
pub enum HostCall {
    /// `hipLaunchHostFunc` and host nodes: `function(user_data)`.
    Function {
        function: unsafe extern "C" fn(*mut c_void),
        user_data: usize,
    },
    /// `hipStreamAddCallback`: `callback(stream, status, user_data)`.
    Callback {
        callback: unsafe extern "C" fn(*mut c_void, i32, *mut c_void),
        stream: usize,
        user_data: usize,
    },
}

impl HostCall {
    /// The call as a stream runs it, told the status of the work before it.
    pub fn into_function(self) -> HostFunction {
        Box::new(move |status| match self {
            // SAFETY: the program's function and its own data, as HIP passes them back.
            HostCall::Function {
                function,
                user_data,
            } => unsafe { function(user_data as *mut c_void) },
            // SAFETY: as above; the stream handle is the program's.
            HostCall::Callback {
                callback,
                stream,
                user_data,
            } => unsafe { callback(stream as *mut c_void, status, user_data as *mut c_void) },
        })
    }
}

// ---- stream-ordered allocation and memory pools (rt-graphs) ----

/// `hipMemPoolAttr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolAttribute {
    ReuseFollowEventDependencies = 1,
    ReuseAllowOpportunistic = 2,
    ReuseAllowInternalDependencies = 3,
    ReleaseThreshold = 4,
    ReservedMemCurrent = 5,
    ReservedMemHigh = 6,
    UsedMemCurrent = 7,
    UsedMemHigh = 8,
}

impl PoolAttribute {
    pub fn parse(attribute: c_int) -> HipResult<Self> {
        use PoolAttribute::*;
        Ok(match attribute {
            1 => ReuseFollowEventDependencies,
            2 => ReuseAllowOpportunistic,
            3 => ReuseAllowInternalDependencies,
            4 => ReleaseThreshold,
            5 => ReservedMemCurrent,
            6 => ReservedMemHigh,
            7 => UsedMemCurrent,
            8 => UsedMemHigh,
            other => {
                return Err(Failure::invalid_value(format!(
                    "{other} is not a hipMemPoolAttr (1..=8)"
                )))
            }
        })
    }

    /// Whether the value is an `int` (the reuse rules); the others are `uint64_t`.
    pub fn is_flag(self) -> bool {
        (self as i32) <= 3
    }
}

/// `hipMemAccessFlags`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessFlags {
    None = 0,
    Read = 1,
    ReadWrite = 3,
}

impl AccessFlags {
    pub fn parse(flags: c_int) -> HipResult<Self> {
        Ok(match flags {
            0 => AccessFlags::None,
            1 => AccessFlags::Read,
            3 => AccessFlags::ReadWrite,
            other => {
                return Err(Failure::invalid_value(format!(
                    "{other} is not a hipMemAccessFlags value (0, 1 or 3)"
                )))
            }
        })
    }
}

/// `hipMemLocationTypeDevice`.
pub const MEM_LOCATION_DEVICE: c_int = 1;
/// `hipMemHandleTypePosixFileDescriptor`.
pub const HANDLE_TYPE_POSIX_FD: u32 = 1;

/// HIP's `hipMemLocation`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemLocation {
    pub kind: c_int,
    pub id: c_int,
}

/// HIP's `hipMemAccessDesc`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemAccessDesc {
    pub location: MemLocation,
    pub flags: c_int,
}

/// HIP's `hipMemPoolProps`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct MemPoolProps {
    pub alloc_type: c_int,
    pub handle_types: u32,
    pub location: MemLocation,
    pub win32_security_attributes: *mut c_void,
    pub max_size: usize,
    pub reserved: [u8; 56],
}

/// A pool as `hipMemPoolCreate` asks for it (checked by the caller).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolConfig {
    /// The most bytes it may reserve (0: no limit).
    pub max_size: usize,
    /// The handle types it may be exported as (`hipMemAllocationHandleType` bits).
    pub handle_types: u32,
}

/// `hipMemoryType` (HIP 6 numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryType {
    Unregistered = 0,
    Host = 1,
    Device = 2,
    Managed = 3,
    Array = 10,
    Unified = 11,
}

impl MemoryType {
    pub fn raw(self) -> i32 {
        self as i32
    }

    /// The type a C `hipMemoryType` names, or `hipErrorInvalidValue`.
    pub fn parse(raw: i32) -> HipResult<Self> {
        use MemoryType::*;
        [Unregistered, Host, Device, Managed, Array, Unified]
            .into_iter()
            .find(|t| t.raw() == raw)
            .ok_or_else(|| Failure::invalid_value(format!("{raw} is not a hipMemoryType")))
    }
}

/// `hipPointerAttribute_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_snake_case)]
pub struct PointerAttributes {
    pub r#type: i32,
    pub device: i32,
    pub devicePointer: *mut c_void,
    pub hostPointer: *mut c_void,
    pub isManaged: i32,
    pub allocationFlags: u32,
}

impl PointerAttributes {
    /// What is reported for memory the runtime does not know (HIP 6: a success, with the type
    /// `hipMemoryTypeUnregistered` and the device `hipInvalidDeviceId`).
    pub fn unregistered() -> Self {
        PointerAttributes {
            r#type: MemoryType::Unregistered.raw(),
            device: INVALID_DEVICE_ID,
            devicePointer: std::ptr::null_mut(),
            hostPointer: std::ptr::null_mut(),
            isManaged: 0,
            allocationFlags: 0,
        }
    }
}

/// The allocation holding a pointer, as its backend knows it: what `hipPointerGetAttribute(s)`,
/// `hipMemGetAddressRange`, `hipMemPtrGetInfo` and `hipHostGetFlags` report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allocation {
    pub base: usize,
    pub size: usize,
    /// Host (pinned or registered), device or managed memory.
    pub memory: MemoryType,
    /// Registered with `hipHostRegister` (the program owns the memory).
    pub registered: bool,
    pub device: DeviceId,
    /// The `hipHostMalloc` or `hipHostRegister` flags of host memory; 0 for other memory.
    pub flags: u32,
    /// Distinct for every allocation of the process (`HIP_POINTER_ATTRIBUTE_BUFFER_ID`).
    pub buffer_id: u64,
    /// Where the device reaches `base` (`None`: it cannot).
    pub device_base: Option<usize>,
    /// Where the host reaches `base` (`None`: it cannot, device memory).
    pub host_base: Option<usize>,
    /// `HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS` as `hipPointerSetAttribute` left it.
    pub sync_memops: bool,
}

impl Allocation {
    /// Device or managed memory (a copy's device side).
    pub fn is_device_memory(&self) -> bool {
        matches!(self.memory, MemoryType::Device | MemoryType::Managed)
    }

    /// `p`'s offset into the allocation (`p` lies inside it).
    pub fn offset_of(&self, p: usize) -> usize {
        p - self.base
    }

    /// `hipPointerGetAttributes` for `p` inside this allocation: pointers are `p`'s own (the
    /// base's plus the offset), as HIP reports interior pointers.
    pub fn pointer_attributes(&self, p: usize) -> PointerAttributes {
        let offset = self.offset_of(p);
        let at = |base: Option<usize>| {
            base.map_or(std::ptr::null_mut(), |b| (b + offset) as *mut c_void)
        };
        PointerAttributes {
            r#type: self.memory.raw(),
            device: c_int::try_from(self.device).unwrap_or(c_int::MAX),
            devicePointer: at(self.device_base),
            hostPointer: at(self.host_base),
            isManaged: c_int::from(self.memory == MemoryType::Managed),
            allocationFlags: self.flags,
        }
    }
}

/// HIP's `hipFuncAttributes`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_snake_case)]
pub struct FuncAttributes {
    pub binaryVersion: c_int,
    pub cacheModeCA: c_int,
    pub constSizeBytes: usize,
    pub localSizeBytes: usize,
    pub maxDynamicSharedSizeBytes: c_int,
    pub maxThreadsPerBlock: c_int,
    pub numRegs: c_int,
    pub preferredShmemCarveout: c_int,
    pub ptxVersion: c_int,
    pub sharedSizeBytes: usize,
}

/// HIP's `hipExtent`: width in bytes, height and depth in rows and slices.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extent {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
}

/// HIP's `hipPitchedPtr`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PitchedPtr {
    pub ptr: *mut c_void,
    pub pitch: usize,
    pub xsize: usize,
    pub ysize: usize,
}

/// The alignment of `hipMalloc` and of a pitched allocation's rows.
pub const ALLOCATION_ALIGNMENT: usize = 256;

/// The bytes a backend reserves for an allocation of `size`: whole blocks of the allocation
/// alignment. A GPU's allocations come in pages, so a kernel that writes a little past the end
/// of a buffer (a grid rounded up to whole blocks, unchecked) writes into slack there; on the
/// OpenCL CPU device device memory is host heap, and the same write would corrupt the heap. The
/// runtime's table keeps the size asked for: the memory checker still reports such a write.
pub fn allocation_span(size: usize) -> usize {
    size.checked_next_multiple_of(ALLOCATION_ALIGNMENT)
        .unwrap_or(size)
}

/// The row pitch and total size of a `width` x `height` x `depth` pitched allocation (rows padded
/// to the allocation alignment), with every step checked, never a wrapped small (or zero)
/// allocation reported as success: a row that cannot be padded is `hipErrorInvalidValue`, more
/// rows than memory can hold `hipErrorOutOfMemory` (as AMD's runtime answers each).
pub fn pitched_layout(width: usize, height: usize, depth: usize) -> HipResult<(usize, usize)> {
    let describe = || format!("a {width} x {height} x {depth} pitched allocation");
    let pitch = width
        .checked_next_multiple_of(ALLOCATION_ALIGNMENT)
        .ok_or_else(|| {
            Failure::invalid_value(format!(
                "{}: its rows overflow the address space",
                describe()
            ))
        })?;
    let total = pitch
        .checked_mul(height)
        .and_then(|v| v.checked_mul(depth))
        .ok_or_else(|| {
            Failure::new(
                HipError::OutOfMemory,
                format!("{} is larger than the address space", describe()),
            )
        })?;
    Ok((pitch, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_bounds_cap_the_threads_of_a_block() {
        let kernel = |bound| KernelInfo {
            name: "k".into(),
            source_name: "k".into(),
            args: Vec::new(),
            args_size: 0,
            max_threads_per_block: bound,
            unit: None,
            memcheck_extents: Vec::new(),
        };
        let bounded = kernel(Some(64));
        assert!(check_launch_bounds(&bounded, Dim3::new(64, 1, 1)).is_ok());
        assert!(check_launch_bounds(&bounded, Dim3::new(8, 4, 2)).is_ok());
        for block in [
            Dim3::new(65, 1, 1),
            Dim3::new(8, 8, 2),
            Dim3::new(1, 1, 128),
        ] {
            let e = check_launch_bounds(&bounded, block).unwrap_err();
            assert_eq!(e.code, HipError::LaunchFailure, "{block:?}");
        }
        assert!(check_launch_bounds(&kernel(None), Dim3::new(1024, 1, 1)).is_ok());
    }

    #[test]
    fn pitched_layouts_are_overflow_checked() {
        assert_eq!(pitched_layout(7, 5, 1).unwrap(), (256, 1280));
        assert_eq!(pitched_layout(256, 2, 3).unwrap(), (256, 1536));
        assert_eq!(pitched_layout(0, 5, 1).unwrap(), (0, 0));
        for (w, h, d, code) in [
            (usize::MAX, 1, 1, HipError::InvalidValue),
            (usize::MAX - 100, 1, 1, HipError::InvalidValue),
            (1 << 40, 1 << 30, 1, HipError::OutOfMemory),
            (256, usize::MAX, 2, HipError::OutOfMemory),
            (256, 1 << 40, 1 << 20, HipError::OutOfMemory),
        ] {
            let e = pitched_layout(w, h, d).unwrap_err();
            assert_eq!(e.code, code, "{w} x {h} x {d}");
        }
    }

    #[test]
    fn copies_split_into_planes_only_where_slices_have_gaps() {
        let region = |dst_slice, src_slice| Copy3d {
            dst: 0x1000 as *mut c_void,
            dst_pitch: 64,
            dst_slice,
            src: 0x9000 as *const c_void,
            src_pitch: 32,
            src_slice,
            width: 16,
            height: 4,
            depth: 3,
        };
        let packed: Vec<Copy2d> = region(256, 128).planes().collect();
        assert_eq!(packed.len(), 1);
        assert_eq!(packed[0].height, 12);
        let gaps: Vec<Copy2d> = region(512, 128).planes().collect();
        assert_eq!(gaps.len(), 3);
        assert_eq!(gaps[2].dst as usize, 0x1000 + 2 * 512);
        assert_eq!(gaps[2].src as usize, 0x9000 + 2 * 128);
        assert!(gaps.iter().all(|c| c.height == 4));
        let line = Copy3d::linear(0x10 as *mut c_void, 0x20 as *const c_void, 100);
        assert!(line.is_linear());
        assert_eq!(line.planes().count(), 1);
    }

    #[test]
    fn flags_round_trip_and_unknown_bits_are_refused() {
        for raw in [0, 1, 2, 3, 6, 7, 0x4000_0002, 0x8000_0001, 0x2000_0000] {
            assert_eq!(EventFlags::parse(raw).unwrap().raw(), raw);
        }
        // Unknown bits, a shared event with timestamps, both release scopes.
        for bad in [8, 0x0800_0000, 4, 5, 0xC000_0000, 0xE000_0007] {
            assert_eq!(
                EventFlags::parse(bad).unwrap_err().code,
                HipError::InvalidValue,
                "{bad:#x}"
            );
        }
        assert_eq!(StreamFlags::parse(1).unwrap().raw(), 1);
        assert_eq!(
            StreamFlags::parse(2).unwrap_err().code,
            HipError::InvalidValue
        );
        assert_eq!(
            MemcpyKind::parse(5).unwrap_err().code,
            HipError::InvalidMemcpyDirection
        );
        assert_eq!(
            Limit::parse(3).unwrap_err().code,
            HipError::UnsupportedLimit
        );
        assert_eq!(
            Limit::parse(-1).unwrap_err().code,
            HipError::UnsupportedLimit
        );
        assert!(MemAdvice::parse(3).unwrap().takes_location());
        assert!(!MemAdvice::parse(1).unwrap().takes_location());
        assert_eq!(
            MemAdvice::parse(7).unwrap_err().code,
            HipError::InvalidValue
        );
    }

    #[test]
    fn fills_are_rows_unless_packed() {
        let mut f = Fill::linear(0x1000 as *mut c_void, Pattern::u16(7), 10);
        assert_eq!(f.rows().collect::<Vec<_>>(), [(0x1000 as *mut c_void, 20)]);
        f.pitch = 32;
        f.height = 3;
        f.slice = 128;
        f.depth = 2;
        let rows: Vec<_> = f.rows().collect();
        assert_eq!(rows.len(), 6);
        assert_eq!(rows[4], ((0x1000 + 128 + 32) as *mut c_void, 20));
        f.pitch = 20;
        f.slice = 60;
        assert_eq!(f.rows().count(), 1);
        assert_eq!(f.rows().next().unwrap().1, 120);
        let unaligned = Fill::linear(0x1001 as *mut c_void, Pattern::u32(0), 1);
        assert_eq!(unaligned.check().unwrap_err().code, HipError::InvalidValue);
        let mut wide = Fill::linear(0x1000 as *mut c_void, Pattern::u8(0), 64);
        wide.pitch = 32;
        wide.height = 2;
        assert_eq!(wide.check().unwrap_err().code, HipError::InvalidPitchValue);
    }
}
