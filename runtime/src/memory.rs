//! Memory: device, managed and pinned host allocations, and copies and fills on streams.
//!
//! Every live allocation is in a table (base → size and kind), so a pointer the program hands back
//! can be checked before OpenCL sees it: freeing something the runtime did not return, or copying
//! past the end of an allocation, is `hipErrorInvalidValue` with a message, not a crash in the
//! driver.
//!
//! Copies and fills are enqueued on a stream (see `stream`): the synchronous calls
//! (`hipMemcpy`, `hipMemset`, ...) use the null stream and wait for their own command; the `Async`
//! ones return at once. An asynchronous copy reads or writes host memory when it runs, so the
//! host buffer must stay alive and untouched until the stream is synchronized, as in HIP.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard};

use crate::cl::OwnedEvent;
use crate::device::{runtime, runtime_if_initialized, Runtime};
use crate::error::{Failure, HipError, HipResult};
use crate::stream::{cl_failure, resolve, Stream};

/// What kind of memory an allocation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocKind {
    /// `hipMalloc`: device memory.
    Device,
    /// `hipMallocManaged`: USM shared memory, usable from host and device.
    Managed,
    /// `hipHostMalloc`: USM host memory (the device can access it).
    HostUsm,
    /// `hipHostMalloc` without USM: plain page-aligned host memory (copies only).
    HostPlain,
    /// A device variable (`__device__`/`__constant__`) of a built program, entered when its address
    /// is first needed (`symbols`): device memory for copies, fills and kernels, but the program
    /// owns it, so it is never freed, listed as an allocation or counted as allocated.
    Variable,
    /// The device heap behind `malloc`/`new` in device code (`heap`): device memory the runtime
    /// owns, reachable by kernels through pointers they compute, never freed by `hipFree`.
    Heap,
}

impl AllocKind {
    /// Whether it is device memory (copies treat it as such; kernels use it).
    pub fn is_device(self) -> bool {
        matches!(
            self,
            AllocKind::Device | AllocKind::Managed | AllocKind::Variable | AllocKind::Heap
        )
    }

    /// Whether the program allocated it (`hipMalloc`/`hipMallocManaged`): `hipFree` frees it, SVM
    /// launches list it, `hipMemGetInfo` counts it.
    pub fn is_device_allocation(self) -> bool {
        matches!(self, AllocKind::Device | AllocKind::Managed)
    }
}

/// Live allocations, keyed by base address.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct AllocationTable {
    allocations: BTreeMap<usize, (usize, AllocKind)>,
}

/// Where an address range falls relative to the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeCheck {
    /// Entirely inside the allocation at `base`.
    Inside {
        base: usize,
        size: usize,
        kind: AllocKind,
    },
    /// Starts inside the allocation at `base` but runs past its end (or the range wraps).
    Overruns { base: usize, size: usize },
    /// Starts outside every allocation.
    Outside,
}

impl AllocationTable {
    pub const fn new() -> Self {
        AllocationTable {
            allocations: BTreeMap::new(),
        }
    }

    /// Records an allocation; `size` must be > 0. Returns false if `base` is already recorded.
    pub fn insert(&mut self, base: usize, size: usize, kind: AllocKind) -> bool {
        if self.allocations.contains_key(&base) {
            return false;
        }
        self.allocations.insert(base, (size, kind));
        true
    }

    /// Forgets the allocation starting exactly at `base`, returning its size and kind.
    pub fn remove(&mut self, base: usize) -> Option<(usize, AllocKind)> {
        self.allocations.remove(&base)
    }

    pub fn get(&self, base: usize) -> Option<(usize, AllocKind)> {
        self.allocations.get(&base).copied()
    }

    /// The allocation containing `addr`, as `(base, size, kind)`.
    pub fn containing(&self, addr: usize) -> Option<(usize, usize, AllocKind)> {
        let (&base, &(size, kind)) = self.allocations.range(..=addr).next_back()?;
        (addr - base < size).then_some((base, size, kind))
    }

    /// Classifies `[addr, addr + len)`. A zero-length range at an allocation's end counts as inside.
    pub fn check(&self, addr: usize, len: usize) -> RangeCheck {
        let found = self.allocations.range(..=addr).next_back();
        let Some((&base, &(size, kind))) = found else {
            return RangeCheck::Outside;
        };
        let offset = addr - base;
        if offset > size || (offset == size && len > 0) {
            return RangeCheck::Outside;
        }
        match offset.checked_add(len) {
            Some(end) if end <= size => RangeCheck::Inside { base, size, kind },
            _ => RangeCheck::Overruns { base, size },
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.allocations.len()
    }

    /// Base addresses of all live device-side allocations (device and managed, and the device
    /// heap, which kernels reach through the pointers malloc gives them).
    pub fn bases(&self) -> Vec<*mut c_void> {
        self.allocations
            .iter()
            .filter(|(_, (_, k))| k.is_device_allocation() || *k == AllocKind::Heap)
            .map(|(&b, _)| b as *mut c_void)
            .collect()
    }

    /// Bytes of device-side memory in use.
    pub fn device_bytes(&self) -> u64 {
        self.allocations
            .values()
            .filter(|(_, k)| k.is_device_allocation())
            .map(|&(s, _)| s as u64)
            .sum()
    }

    /// Removes and returns every allocation; device variables stay (their programs own them).
    fn drain(&mut self) -> Vec<(usize, usize, AllocKind)> {
        let (variables, allocations): (BTreeMap<_, _>, BTreeMap<_, _>) =
            std::mem::take(&mut self.allocations)
                .into_iter()
                .partition(|(_, (_, k))| *k == AllocKind::Variable);
        self.allocations = variables;
        allocations
            .into_iter()
            .map(|(b, (s, k))| (b, s, k))
            .collect()
    }
}

static TABLE: Mutex<AllocationTable> = Mutex::new(AllocationTable::new());

fn table() -> MutexGuard<'static, AllocationTable> {
    // A panic while holding the lock cannot leave the map half-updated (BTreeMap operations are
    // the only writes), so a poisoned lock is still consistent.
    TABLE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Base addresses of all live device-side allocations (for backends that must list them at
/// launch).
pub fn live_allocations() -> Vec<*mut c_void> {
    table().bases()
}

/// The allocation containing `addr`, if any.
pub fn find_allocation(addr: usize) -> Option<(usize, usize, AllocKind)> {
    table().containing(addr)
}

/// Bytes of device memory allocated by the program.
pub fn device_bytes_in_use() -> u64 {
    table().device_bytes()
}

/// Enters a device variable's storage (`[address, address + size)`) so copies, fills and
/// `hipPointerGetAttributes` accept it. A range already entered is left alone.
pub fn add_variable(address: usize, size: usize) {
    if size == 0 {
        return;
    }
    let mut t = table();
    if t.get(address) != Some((size, AllocKind::Variable))
        && !t.insert(address, size, AllocKind::Variable)
    {
        crate::hlog!(
            Warn,
            "device variable at {address:#x} ({size} bytes) overlaps a recorded allocation"
        );
    }
}

/// Forgets a device variable's storage (its program is being released).
pub fn remove_variable(address: usize) {
    let mut t = table();
    if matches!(t.get(address), Some((_, AllocKind::Variable))) {
        t.remove(address);
    }
}

const PLAIN_HOST_ALIGN: usize = 4096;

fn record(p: *mut c_void, size: usize, kind: AllocKind) -> HipResult<*mut c_void> {
    if !table().insert(p as usize, size, kind) {
        return Err(Failure::new(
            HipError::Unknown,
            format!("the driver returned {p:p} twice"),
        ));
    }
    Ok(p)
}

fn out_of_memory(size: usize, e: String) -> Failure {
    Failure::new(
        HipError::OutOfMemory,
        format!("cannot allocate {size} bytes: {e}"),
    )
}

/// The device heap's region (`heap`): `size` bytes of device memory, entered in the table as
/// [`AllocKind::Heap`]; `hipDeviceReset` releases it with the allocations.
pub fn alloc_heap(size: usize) -> HipResult<*mut c_void> {
    let rt = runtime()?;
    let p = rt
        .memory
        .alloc(rt.context.get(), rt.device_id(), size)
        .map_err(|e| out_of_memory(size, e))?;
    record(p, size, AllocKind::Heap)
}

/// `hipMalloc`: `size` bytes of device memory, 256-byte aligned. Zero bytes gives null, as in HIP.
pub fn malloc(size: usize) -> HipResult<*mut c_void> {
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    let rt = runtime()?;
    let p = rt
        .memory
        .alloc(rt.context.get(), rt.device_id(), size)
        .map_err(|e| out_of_memory(size, e))?;
    record(p, size, AllocKind::Device)
}

/// `hipMallocManaged`: memory the host and the device both use (USM shared allocations).
pub fn malloc_managed(size: usize) -> HipResult<*mut c_void> {
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    let rt = runtime()?;
    let p = rt
        .memory
        .alloc_shared(rt.context.get(), rt.device_id(), size)
        .ok_or_else(|| {
            Failure::new(
                HipError::NotSupported,
                format!(
                    "hipMallocManaged needs USM shared allocations; the memory model is {}",
                    rt.memory.name()
                ),
            )
        })?
        .map_err(|e| out_of_memory(size, e))?;
    record(p, size, AllocKind::Managed)
}

/// `hipHostMalloc`: pinned host memory. USM host memory when the device has it (kernels may then
/// use it), else page-aligned host memory (for copies).
pub fn host_malloc(size: usize) -> HipResult<*mut c_void> {
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    let rt = runtime()?;
    match rt.memory.alloc_host(rt.context.get(), size) {
        Some(result) => {
            let p = result.map_err(|e| out_of_memory(size, e))?;
            record(p, size, AllocKind::HostUsm)
        }
        None => {
            let layout = std::alloc::Layout::from_size_align(size, PLAIN_HOST_ALIGN)
                .map_err(|e| out_of_memory(size, e.to_string()))?;
            // SAFETY: size > 0.
            let p = unsafe { std::alloc::alloc_zeroed(layout) };
            if p.is_null() {
                return Err(out_of_memory(size, "the host is out of memory".into()));
            }
            record(p.cast(), size, AllocKind::HostPlain)
        }
    }
}

fn unknown_pointer(t: &AllocationTable, p: *mut c_void, what: &str) -> Failure {
    let why = match t.containing(p as usize) {
        Some((base, size, _)) => format!(
            "{p:p} points {} bytes into the {size}-byte allocation at {base:#x}, not at its start",
            p as usize - base
        ),
        None => format!("{p:p} was not returned by {what} (or was already freed)"),
    };
    Failure::invalid_value(why)
}

/// Frees an allocation of the expected kinds, after all queued work (a kernel may still use it).
fn free_kind(p: *mut c_void, host: bool) -> HipResult<()> {
    if p.is_null() {
        return Ok(());
    }
    let addr = p as usize;
    let (wanted, other) = if host {
        (
            "hipHostMalloc",
            "hipMalloc/hipMallocManaged memory: use hipFree",
        )
    } else {
        ("hipMalloc", "hipHostMalloc memory: use hipHostFree")
    };
    {
        let t = table();
        match t.get(addr) {
            None => return Err(unknown_pointer(&t, p, wanted)),
            Some((_, AllocKind::Variable)) => {
                return Err(Failure::invalid_value(format!(
                    "{p:p} is a device variable (hipGetSymbolAddress), not an allocation"
                )));
            }
            Some((_, AllocKind::Heap)) => {
                return Err(Failure::invalid_value(format!(
                    "{p:p} is the device heap (memory from malloc in device code is freed by \
                     free in device code)"
                )));
            }
            Some((_, kind)) if kind.is_device() == host => {
                return Err(Failure::invalid_value(format!("{p:p} is {other}")));
            }
            Some(_) => {}
        }
    }
    let rt = runtime()?;
    rt.finish()?;
    let Some((size, kind)) = table().remove(addr) else {
        return Err(Failure::invalid_value(format!("{p:p} was already freed")));
    };
    release(rt, p, size, kind)
}

fn release(rt: &Runtime, p: *mut c_void, size: usize, kind: AllocKind) -> HipResult<()> {
    if kind == AllocKind::Managed {
        crate::managed::forget(p as usize, size);
    }
    match kind {
        AllocKind::HostPlain => {
            // SAFETY: allocated by `host_malloc` with this layout (it was in the table).
            unsafe {
                std::alloc::dealloc(
                    p.cast(),
                    std::alloc::Layout::from_size_align_unchecked(size, PLAIN_HOST_ALIGN),
                )
            };
            Ok(())
        }
        // SAFETY: a live allocation of this context (it was in the table); the queues are idle.
        _ => unsafe { rt.memory.free(rt.context.get(), p) }
            .map_err(|e| Failure::new(HipError::Unknown, format!("freeing {p:p}: {e}"))),
    }
}

/// `hipFree`: null is a no-op; anything but a live hipMalloc/hipMallocManaged base is
/// `hipErrorInvalidValue`. Waits for queued work first, as HIP's hipFree does.
pub fn free(p: *mut c_void) -> HipResult<()> {
    free_kind(p, false)
}

/// `hipHostFree`.
pub fn host_free(p: *mut c_void) -> HipResult<()> {
    free_kind(p, true)
}

/// Frees everything (`hipDeviceReset`); the caller has synchronized.
pub fn free_all(rt: &Runtime) {
    let all = table().drain();
    for (base, size, kind) in all {
        let _ = release(rt, base as *mut c_void, size, kind);
    }
}

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
            _ => return None,
        })
    }

    /// Whether `(dst, src)` must be device memory per the declared kind (`None`: infer).
    fn declared(self) -> (Option<bool>, Option<bool>) {
        match self {
            MemcpyKind::HostToHost => (Some(false), Some(false)),
            MemcpyKind::HostToDevice => (Some(true), Some(false)),
            MemcpyKind::DeviceToHost => (Some(false), Some(true)),
            MemcpyKind::DeviceToDevice => (Some(true), Some(true)),
            MemcpyKind::Default => (None, None),
        }
    }

    fn parse(kind: i32) -> HipResult<Self> {
        MemcpyKind::from_raw(kind).ok_or_else(|| {
            Failure::new(
                HipError::InvalidMemcpyDirection,
                format!("{kind} is not a hipMemcpyKind (0..=4)"),
            )
        })
    }
}

/// Decides whether `[p, p+len)` is device memory. A range that starts in an allocation must fit in
/// it; a range declared device must start in a device-side or pinned allocation (both are device
/// accessible). Other host ranges are the caller's responsibility.
fn classify(
    t: &AllocationTable,
    p: usize,
    len: usize,
    must_be_device: bool,
    role: &str,
) -> HipResult<bool> {
    match t.check(p, len) {
        RangeCheck::Inside { kind, .. } => Ok(kind.is_device()),
        RangeCheck::Overruns { base, size } => Err(Failure::invalid_value(format!(
            "{role} range {p:#x}+{len} runs past the end of the {size}-byte {} at {base:#x} (offset {})",
            match t.get(base) {
                Some((_, AllocKind::Variable)) => "device variable",
                _ => "allocation",
            },
            p - base
        ))),
        RangeCheck::Outside if must_be_device => Err(Failure::invalid_value(format!(
            "{role} {p:#x} is not inside any hipMalloc allocation"
        ))),
        RangeCheck::Outside => Ok(false),
    }
}

fn null_check(dst: *const c_void, src: *const c_void, len: usize) -> HipResult<()> {
    if dst.is_null() || src.is_null() {
        return Err(Failure::invalid_value(format!(
            "null {} pointer for a {len}-byte copy",
            if dst.is_null() {
                "destination"
            } else {
                "source"
            }
        )));
    }
    Ok(())
}

/// Checks both ranges of a copy; returns whether each side is device memory.
fn check_copy(
    dst: usize,
    dst_len: usize,
    src: usize,
    src_len: usize,
    kind: MemcpyKind,
) -> HipResult<(bool, bool)> {
    let (dst_declared, src_declared) = kind.declared();
    let t = table();
    Ok((
        classify(&t, dst, dst_len, dst_declared == Some(true), "destination")?,
        classify(&t, src, src_len, src_declared == Some(true), "source")?,
    ))
}

/// Waits for a synchronous operation's command.
fn wait(event: OwnedEvent, what: &str) -> HipResult<()> {
    event.wait().map_err(|e| cl_failure(what, e))
}

/// Enqueues one copy on `stream`.
fn enqueue_copy(
    rt: &Runtime,
    stream: &Stream,
    dst: *mut c_void,
    src: *const c_void,
    len: usize,
) -> HipResult<OwnedEvent> {
    stream.enqueue(rt, &[], |queue, deps| {
        // SAFETY: device sides were checked against the table; host sides are the caller's (and
        // must outlive the copy, per HIP's rules for asynchronous copies).
        let event = unsafe { rt.memory.copy(queue, dst, src, len, deps) }
            .map_err(|e| cl_failure(&format!("copying {len} bytes"), e))?;
        OwnedEvent::from_raw(event)
            .ok_or_else(|| Failure::new(HipError::Unknown, "the copy returned no event"))
    })
}

/// `hipMemcpy`: synchronous; a null-stream operation (waits for earlier work on blocking streams).
pub fn memcpy(dst: *mut c_void, src: *const c_void, len: usize, kind: i32) -> HipResult<()> {
    let kind = MemcpyKind::parse(kind)?;
    if len == 0 {
        return Ok(());
    }
    null_check(dst, src, len)?;
    let (dst_dev, src_dev) = check_copy(dst as usize, len, src as usize, len, kind)?;
    if !dst_dev && !src_dev && runtime_if_initialized().is_none() {
        // Host to host before any device work: nothing to order with.
        // SAFETY: both are host ranges the caller vouches for; `copy` allows overlap.
        unsafe { std::ptr::copy(src.cast::<u8>(), dst.cast::<u8>(), len) };
        return Ok(());
    }
    let rt = runtime()?;
    let event = enqueue_copy(rt, &rt.null_stream, dst, src, len)?;
    wait(event, &format!("copying {len} bytes"))
}

/// `hipMemcpyAsync`: enqueued on `stream`, returns at once.
pub fn memcpy_async(
    dst: *mut c_void,
    src: *const c_void,
    len: usize,
    kind: i32,
    stream: usize,
) -> HipResult<()> {
    let kind = MemcpyKind::parse(kind)?;
    let target = resolve(stream)?;
    if len == 0 {
        return Ok(());
    }
    null_check(dst, src, len)?;
    check_copy(dst as usize, len, src as usize, len, kind)?;
    let rt = runtime()?;
    enqueue_copy(rt, &target, dst, src, len)?;
    let _ = target.queue.flush();
    Ok(())
}

/// A 2-D copy's shape.
#[derive(Debug, Clone, Copy)]
pub struct Copy2d {
    pub dst: *mut c_void,
    pub dpitch: usize,
    pub src: *const c_void,
    pub spitch: usize,
    pub width: usize,
    pub height: usize,
}

/// The bytes a pitched range spans: `pitch * (height - 1) + width`.
/// The row pitch and total size of a `width` x `height` x `depth` pitched allocation (rows padded
/// to the allocation alignment), with every step checked: a size that overflows is
/// `hipErrorInvalidValue`, never a wrapped small (or zero) allocation reported as success.
pub fn pitched_layout(width: usize, height: usize, depth: usize) -> HipResult<(usize, usize)> {
    let overflow = || {
        Failure::invalid_value(format!(
            "a {width} x {height} x {depth} pitched allocation overflows the address space"
        ))
    };
    let pitch = width
        .checked_next_multiple_of(crate::backend::ALLOCATION_ALIGNMENT as usize)
        .ok_or_else(overflow)?;
    let total = pitch
        .checked_mul(height)
        .and_then(|v| v.checked_mul(depth))
        .ok_or_else(overflow)?;
    Ok((pitch, total))
}

fn pitched_span(pitch: usize, width: usize, height: usize) -> HipResult<usize> {
    pitch
        .checked_mul(height - 1)
        .and_then(|v| v.checked_add(width))
        .ok_or_else(|| Failure::invalid_value("the 2-D copy's extent overflows"))
}

/// `hipMemcpy2D` / `hipMemcpy2DAsync`: `height` rows of `width` bytes.
pub fn memcpy_2d(c: Copy2d, kind: i32, stream: usize, synchronous: bool) -> HipResult<()> {
    let kind = MemcpyKind::parse(kind)?;
    let target = resolve(stream)?;
    if c.width == 0 || c.height == 0 {
        return Ok(());
    }
    if c.width > c.dpitch || c.width > c.spitch {
        return Err(Failure::new(
            HipError::InvalidPitchValue,
            format!(
                "width {} is larger than the destination pitch {} or the source pitch {}",
                c.width, c.dpitch, c.spitch
            ),
        ));
    }
    null_check(c.dst, c.src, c.width)?;
    let dst_span = pitched_span(c.dpitch, c.width, c.height)?;
    let src_span = pitched_span(c.spitch, c.width, c.height)?;
    check_copy(c.dst as usize, dst_span, c.src as usize, src_span, kind)?;
    let rt = runtime()?;
    let contiguous = c.dpitch == c.width && c.spitch == c.width;
    let event = target.enqueue(rt, &[], |queue, deps| {
        let rows = if contiguous { 1 } else { c.height };
        let row_len = if contiguous {
            c.width * c.height
        } else {
            c.width
        };
        let mut last: Option<OwnedEvent> = None;
        for r in 0..rows {
            let wait_on: &[cl3::types::cl_event] = if r == 0 { deps } else { &[] };
            // SAFETY: both spans were checked (device) or vouched for (host).
            let event = unsafe {
                rt.memory.copy(
                    queue,
                    c.dst.cast::<u8>().add(r * c.dpitch).cast(),
                    c.src.cast::<u8>().add(r * c.spitch).cast(),
                    row_len,
                    wait_on,
                )
            }
            .map_err(|e| cl_failure("2-D copy", e))?;
            last = OwnedEvent::from_raw(event);
        }
        last.ok_or_else(|| Failure::new(HipError::Unknown, "the copy returned no event"))
    })?;
    if synchronous {
        wait(event, "2-D copy")
    } else {
        let _ = target.queue.flush();
        Ok(())
    }
}

/// `hipMemset*`: fills `count` elements of `pattern.len()` bytes at `dst` on `stream`.
pub fn memset(
    dst: *mut c_void,
    pattern: &[u8],
    count: usize,
    stream: usize,
    synchronous: bool,
) -> HipResult<()> {
    let target = resolve(stream)?;
    let len = count.checked_mul(pattern.len()).ok_or_else(|| {
        Failure::invalid_value(format!(
            "{count} elements of {} bytes overflow",
            pattern.len()
        ))
    })?;
    if len == 0 {
        return Ok(());
    }
    if dst.is_null() {
        return Err(Failure::invalid_value(format!(
            "null destination for a {len}-byte memset"
        )));
    }
    if !(dst as usize).is_multiple_of(pattern.len()) {
        return Err(Failure::invalid_value(format!(
            "destination {dst:p} is not aligned to the {}-byte fill pattern",
            pattern.len()
        )));
    }
    classify(&table(), dst as usize, len, true, "destination")?;
    let rt = runtime()?;
    let event = target.enqueue(rt, &[], |queue, deps| {
        // SAFETY: the range lies inside a live allocation.
        let event = unsafe { rt.memory.fill(queue, dst, pattern, len, deps) }
            .map_err(|e| cl_failure(&format!("filling {len} bytes"), e))?;
        OwnedEvent::from_raw(event)
            .ok_or_else(|| Failure::new(HipError::Unknown, "the fill returned no event"))
    })?;
    if synchronous {
        wait(event, &format!("filling {len} bytes"))
    } else {
        let _ = target.queue.flush();
        Ok(())
    }
}

/// `hipMemoryType` (HIP 6 numbering).
pub const MEMORY_TYPE_UNREGISTERED: i32 = 0;
pub const MEMORY_TYPE_HOST: i32 = 1;
pub const MEMORY_TYPE_DEVICE: i32 = 2;
pub const MEMORY_TYPE_MANAGED: i32 = 3;

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

/// `hipPointerGetAttributes`: what the table knows about `p`.
pub fn pointer_attributes(p: *const c_void) -> PointerAttributes {
    let mut a = PointerAttributes {
        r#type: MEMORY_TYPE_UNREGISTERED,
        device: 0,
        devicePointer: std::ptr::null_mut(),
        hostPointer: std::ptr::null_mut(),
        isManaged: 0,
        allocationFlags: 0,
    };
    let Some((_, _, kind)) = find_allocation(p as usize) else {
        return a;
    };
    let p = p as *mut c_void;
    match kind {
        AllocKind::Device | AllocKind::Variable | AllocKind::Heap => {
            a.r#type = MEMORY_TYPE_DEVICE;
            a.devicePointer = p;
        }
        AllocKind::Managed => {
            a.r#type = MEMORY_TYPE_MANAGED;
            a.devicePointer = p;
            a.hostPointer = p;
            a.isManaged = 1;
        }
        AllocKind::HostUsm => {
            a.r#type = MEMORY_TYPE_HOST;
            a.devicePointer = p;
            a.hostPointer = p;
        }
        AllocKind::HostPlain => {
            a.r#type = MEMORY_TYPE_HOST;
            a.hostPointer = p;
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> AllocationTable {
        let mut t = AllocationTable::new();
        assert!(t.insert(0x1000, 0x100, AllocKind::Device));
        assert!(t.insert(0x2000, 0x10, AllocKind::Device));
        assert!(t.insert(0x3000, 0x20, AllocKind::HostUsm));
        t
    }

    #[test]
    fn insert_twice_is_refused() {
        let mut t = sample();
        assert!(!t.insert(0x1000, 8, AllocKind::Managed));
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn containing_finds_interior_pointers() {
        let t = sample();
        assert_eq!(
            t.containing(0x1000),
            Some((0x1000, 0x100, AllocKind::Device))
        );
        assert_eq!(
            t.containing(0x10ff),
            Some((0x1000, 0x100, AllocKind::Device))
        );
        assert_eq!(t.containing(0x1100), None);
        assert_eq!(t.containing(0xfff), None);
        assert_eq!(
            t.containing(0x200f),
            Some((0x2000, 0x10, AllocKind::Device))
        );
        assert_eq!(t.containing(0), None);
        assert_eq!(t.containing(usize::MAX), None);
    }

    #[test]
    fn ranges_are_checked() {
        let t = sample();
        let inside = RangeCheck::Inside {
            base: 0x1000,
            size: 0x100,
            kind: AllocKind::Device,
        };
        let overruns = RangeCheck::Overruns {
            base: 0x1000,
            size: 0x100,
        };
        assert_eq!(t.check(0x1000, 0x100), inside);
        assert_eq!(t.check(0x1080, 0x80), inside);
        assert_eq!(t.check(0x1080, 0x81), overruns);
        assert_eq!(t.check(0x1000, usize::MAX), overruns);
        assert_eq!(t.check(0x10ff, usize::MAX), overruns);
        assert_eq!(t.check(0x1100, 0), inside); // empty range at the end
        assert_eq!(t.check(0x1100, 1), RangeCheck::Outside);
        assert_eq!(t.check(0x1800, 4), RangeCheck::Outside);
        assert_eq!(t.check(0x10, 4), RangeCheck::Outside);
    }

    #[test]
    fn remove_only_exact_bases() {
        let mut t = sample();
        assert_eq!(t.remove(0x1008), None);
        assert_eq!(t.remove(0x1000), Some((0x100, AllocKind::Device)));
        assert_eq!(t.remove(0x1000), None);
        assert_eq!(t.check(0x1000, 1), RangeCheck::Outside);
        assert_eq!(t.bases(), vec![0x2000 as *mut c_void]);
        assert_eq!(t.device_bytes(), 0x10);
    }

    #[test]
    fn variables_are_device_memory_but_not_allocations() {
        let mut t = sample();
        assert!(t.insert(0x5000, 0x40, AllocKind::Variable));
        assert_eq!(classify(&t, 0x5010, 0x30, true, "d"), Ok(true));
        assert!(classify(&t, 0x5010, 0x31, true, "d").is_err());
        // Not listed for SVM launches, not counted as allocated, kept by a reset.
        assert!(!t.bases().contains(&(0x5000 as *mut c_void)));
        assert_eq!(t.device_bytes(), 0x110);
        let freed: Vec<usize> = t.drain().into_iter().map(|(b, _, _)| b).collect();
        assert_eq!(freed, vec![0x1000, 0x2000, 0x3000]);
        assert_eq!(t.get(0x5000), Some((0x40, AllocKind::Variable)));
    }

    #[test]
    fn classify_follows_declared_kinds() {
        let t = sample();
        assert_eq!(classify(&t, 0x1000, 8, true, "d"), Ok(true));
        assert_eq!(classify(&t, 0x1000, 8, false, "d"), Ok(true));
        assert_eq!(classify(&t, 0x9000, 8, false, "d"), Ok(false));
        let e = classify(&t, 0x9000, 8, true, "destination").unwrap_err();
        assert_eq!(e.code, HipError::InvalidValue);
        assert!(e.message.contains("destination 0x9000"), "{}", e.message);
        // Pinned host memory is host memory, and its bounds are checked too.
        assert_eq!(classify(&t, 0x3000, 8, true, "d"), Ok(false));
        assert!(classify(&t, 0x3010, 0x11, false, "d").is_err());
        let e = classify(&t, 0x2008, 9, false, "source").unwrap_err();
        assert_eq!(e.code, HipError::InvalidValue);
        assert!(e.message.contains("16-byte allocation"), "{}", e.message);
    }

    #[test]
    fn memcpy_kind_is_validated_before_anything_else() {
        let e = memcpy(std::ptr::null_mut(), std::ptr::null(), 4, 9).unwrap_err();
        assert_eq!(e.code, HipError::InvalidMemcpyDirection);
        assert_eq!(memcpy(std::ptr::null_mut(), std::ptr::null(), 0, 1), Ok(()));
        let e = memcpy(std::ptr::null_mut(), std::ptr::null(), 4, 1).unwrap_err();
        assert_eq!(e.code, HipError::InvalidValue);
    }

    #[test]
    fn pitched_layouts_are_overflow_checked() {
        assert_eq!(pitched_layout(7, 5, 1).unwrap(), (256, 1280));
        assert_eq!(pitched_layout(256, 2, 3).unwrap(), (256, 1536));
        assert_eq!(pitched_layout(0, 5, 1).unwrap(), (0, 0));
        for (w, h, d) in [
            (usize::MAX, 1, 1),
            (usize::MAX - 100, 1, 1),
            (1 << 40, 1 << 30, 1),
            (256, usize::MAX, 2),
            (256, 1 << 40, 1 << 20),
        ] {
            let e = pitched_layout(w, h, d).unwrap_err();
            assert_eq!(e.code, HipError::InvalidValue, "{w} x {h} x {d}");
        }
    }

    #[test]
    fn host_to_host_needs_no_device() {
        let src = [1u8, 2, 3, 4];
        let mut dst = [0u8; 4];
        memcpy(
            dst.as_mut_ptr().cast(),
            src.as_ptr().cast(),
            4,
            MemcpyKind::HostToHost as i32,
        )
        .unwrap();
        assert_eq!(dst, src);
    }
}
