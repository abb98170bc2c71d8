//! The one way into a stream for each kind of operation: launches, copies, fills, prefetches,
//! event records and waits, host functions. Every API call that puts work on a stream comes
//! through here, so stream capture (recording the operation into a graph instead of running it)
//! and graph replay (running recorded operations onto a stream) each have one place per kind.
//! The shared argument checks live here too, so both backends see only well-formed work.

use std::ffi::c_void;

use super::{
    Copy3d, DeviceId, Event, Fill, HostFunction, LaunchConfig, Location, MemcpyKind, Stream,
    ValueWait, ValueWrite,
};
use crate::error::HipResult;
use crate::registry::KernelRef;

/// Launches `kernel` on `cfg.stream`.
pub fn launch(kernel: &KernelRef, cfg: &LaunchConfig) -> HipResult<()> {
    cfg.stream.queue().launch(kernel, cfg)
}

/// Copies a region on `stream`; with `wait`, returns once it is done. An empty region is done
/// at once.
pub fn copy(stream: &Stream, copy: &Copy3d, kind: MemcpyKind, wait: bool) -> HipResult<()> {
    if copy.is_empty() {
        return Ok(());
    }
    copy.check()?;
    stream.queue().copy(copy, kind, wait)
}

/// Fills a region on `stream`; with `wait`, returns once it is done.
pub fn fill(stream: &Stream, fill: &Fill, wait: bool) -> HipResult<()> {
    fill.check()?;
    if fill.is_empty() {
        return Ok(());
    }
    stream.queue().fill(fill, wait)
}

/// Prefetches managed memory in stream order.
pub fn prefetch(stream: &Stream, p: *const c_void, count: usize, to: Location) -> HipResult<()> {
    stream.queue().prefetch(p, count, to)
}

/// Records `event` on `stream`.
pub fn record(event: &dyn Event, stream: &Stream) -> HipResult<()> {
    event.record(stream.queue())
}

/// Makes later work on `stream` wait for `event`.
pub fn wait_event(stream: &Stream, event: &dyn Event) -> HipResult<()> {
    stream.queue().wait_event(event)
}

/// Runs `function` on the host in `stream`'s order.
pub fn host_function(stream: &Stream, function: HostFunction) -> HipResult<()> {
    stream.queue().host_function(function)
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
    stream.queue().copy_peer(copy, dst_device, src_device, wait)
}

/// Writes a word in `stream`'s order (`hipStreamWriteValue32/64`).
pub fn write_value(stream: &Stream, write: &ValueWrite) -> HipResult<()> {
    stream.queue().write_value(write)
}

/// Holds `stream`'s later work until a word meets a condition (`hipStreamWaitValue32/64`).
pub fn wait_value(stream: &Stream, wait: &ValueWait) -> HipResult<()> {
    stream.queue().wait_value(wait)
}
