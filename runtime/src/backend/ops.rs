//! The one way into a stream for each kind of operation: launches, copies, fills, prefetches,
//! event records and waits, host functions. Every API call that puts work on a stream comes
//! through here, so stream capture records the operation into a graph instead of running it
//! (`graph::capture::intercept`, one atomic load while nothing captures), in one place per
//! kind; graphs replay the recorded operations onto their streams (`graph::exec`). The shared
//! argument checks live here too, so both backends (and captures) see only well-formed work.

use std::ffi::c_void;
use std::sync::Arc;

use super::{
    Copy3d, DeviceId, Event, Fill, HostCall, LaunchConfig, Location, MemcpyKind, Stream, ValueWait,
    ValueWrite,
};
use crate::error::HipResult;
use crate::graph::capture;
use crate::graph::{CopyOp, KernelAttributes, KernelOp, Op};
use crate::registry::KernelRef;

/// Launches `kernel` on `cfg.stream`.
pub fn launch(kernel: &KernelRef, cfg: &LaunchConfig) -> HipResult<()> {
    check_shape(kernel, cfg)?;
    let recorded = capture::intercept(cfg.stream, false, || {
        Op::Kernel(KernelOp {
            kernel: kernel.clone(),
            func: 0,
            grid: cfg.grid,
            block: cfg.block,
            shared_mem: cfg.shared_mem,
            args: cfg.args.to_vec(),
            attributes: KernelAttributes::default(),
        })
    })?;
    if recorded {
        return Ok(());
    }
    cfg.stream.queue().launch(kernel, cfg)
}

/// Launches `kernel` on `cfg.stream` with every block resident at once.
pub fn launch_cooperative(kernel: &KernelRef, cfg: &LaunchConfig) -> HipResult<()> {
    check_shape(kernel, cfg)?;
    cfg.stream.queue().launch_cooperative(kernel, cfg)
}

/// The launch shape against what every device and the kernel itself allow (an empty dimension
/// first: it is `hipErrorInvalidValue` whatever the kernel).
fn check_shape(kernel: &KernelRef, cfg: &LaunchConfig) -> HipResult<()> {
    super::types::check_nonempty_shape(cfg.grid, cfg.block)?;
    super::types::check_launch_bounds(kernel.info(), cfg.block)
}

/// Copies a region on `stream`; with `wait`, returns once it is done. An empty region is done
/// at once.
pub fn copy(stream: &Stream, copy: &Copy3d, kind: MemcpyKind, wait: bool) -> HipResult<()> {
    if copy.is_empty() {
        return Ok(());
    }
    copy.check()?;
    let recorded = capture::intercept(stream, wait, || {
        Op::Copy(CopyOp {
            region: *copy,
            kind,
            params: None,
            peer: None,
        })
    })?;
    if recorded {
        return Ok(());
    }
    stream.queue().copy(copy, kind, wait)
}

/// Fills a region on `stream`; with `wait`, returns once it is done.
pub fn fill(stream: &Stream, fill: &Fill, wait: bool) -> HipResult<()> {
    fill.check()?;
    if fill.is_empty() {
        return Ok(());
    }
    if capture::intercept(stream, wait, || Op::Fill(*fill))? {
        return Ok(());
    }
    stream.queue().fill(fill, wait)
}

/// Prefetches managed memory in stream order.
pub fn prefetch(stream: &Stream, p: *const c_void, count: usize, to: Location) -> HipResult<()> {
    let recorded = capture::intercept(stream, false, || Op::Prefetch {
        address: p as usize,
        count,
        to,
    })?;
    if recorded {
        return Ok(());
    }
    stream.queue().prefetch(p, count, to)
}

/// Records `event` on `stream` (on a capturing stream: the point of the capture it stands for).
pub fn record(event: &Arc<dyn Event>, stream: &Stream) -> HipResult<()> {
    if capture::record_event(event, stream)? {
        return Ok(());
    }
    event.record(stream.queue())
}

/// Makes later work on `stream` wait for `event` (joining captures through captured events).
pub fn wait_event(stream: &Arc<Stream>, event: &Arc<dyn Event>) -> HipResult<()> {
    if capture::wait_event(stream, event)? {
        return Ok(());
    }
    stream.queue().wait_event(&**event)
}

/// Runs `call` on the host in `stream`'s order.
pub fn host_function(stream: &Stream, call: HostCall) -> HipResult<()> {
    if capture::intercept(stream, false, || Op::Host(call))? {
        return Ok(());
    }
    stream.queue().host_function(call.into_function())
}

// ---- several devices and stream memory operations (rt-devices) ----------------------------------

/// Copies between memory of `dst_device` and `src_device` in `stream`'s order
/// (`hipMemcpyPeer[Async]`); with `wait`, returns once done. An empty region is done at once.
pub fn copy_peer(
    stream: &Stream,
    copy: &Copy3d,
    dst_device: DeviceId,
    src_device: DeviceId,
    wait: bool,
) -> HipResult<()> {
    if copy.is_empty() {
        return Ok(());
    }
    copy.check()?;
    let recorded = capture::intercept(stream, wait, || {
        Op::Copy(CopyOp {
            region: *copy,
            kind: MemcpyKind::DeviceToDevice,
            params: None,
            peer: Some((dst_device, src_device)),
        })
    })?;
    if recorded {
        return Ok(());
    }
    stream.queue().copy_peer(copy, dst_device, src_device, wait)
}

/// Writes a word in `stream`'s order (`hipStreamWriteValue32/64`).
pub fn write_value(stream: &Stream, write: &ValueWrite) -> HipResult<()> {
    capture::refuse(stream, "hipStreamWriteValue")?;
    stream.queue().write_value(write)
}

/// Holds `stream`'s later work until a word meets a condition (`hipStreamWaitValue32/64`).
pub fn wait_value(stream: &Stream, wait: &ValueWait) -> HipResult<()> {
    capture::refuse(stream, "hipStreamWaitValue")?;
    stream.queue().wait_value(wait)
}
