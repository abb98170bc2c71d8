//! Stream capture from the C API: `hipStreamBeginCapture[ToGraph]`, `hipStreamEndCapture`,
//! `hipStreamIsCapturing`, `hipStreamGetCaptureInfo[_v2]`, `hipStreamUpdateCaptureDependencies`,
//! `hipThreadExchangeStreamCaptureMode` (see `graph::capture`).

use std::ffi::{c_int, c_uint, c_ulonglong};
use std::sync::Arc;

use super::graph::{hipGraphNode_t, hipGraph_t};
use super::{guard, hipError_t, hipStream_t, stream, write_out};
use crate::backend::Stream;
use crate::error::{Failure, HipError, HipResult};
use crate::graph::capture::{self, CaptureMode};
use crate::graph::{self, NodeId};

/// A capture of the null stream is refused: it synchronizes with every blocking stream.
fn check_capturable(stream: &Arc<Stream>) -> HipResult<()> {
    if stream.is_null() {
        return Err(Failure::new(
            HipError::StreamCaptureUnsupported,
            "the null stream cannot be captured (capture a created stream)",
        ));
    }
    Ok(())
}

/// Begins capturing `stream` in `mode` (`hipStreamCaptureMode`): its work, and work of streams
/// that join through events, is recorded into a new graph until `hipStreamEndCapture`.
#[no_mangle]
pub extern "C" fn hipStreamBeginCapture(s: hipStream_t, mode: c_int) -> hipError_t {
    guard("hipStreamBeginCapture", || {
        let stream = stream(s)?;
        check_capturable(&stream)?;
        let mode = CaptureMode::parse(mode)?;
        capture::begin(&stream, mode, None, Vec::new())
    })
}

/// Begins capturing `stream` into an existing graph, after the nodes `dependencies`
/// (`dependencyData`, where given, must be default edges).
///
/// # Safety
/// The lists must be null or hold `count` entries.
#[no_mangle]
pub unsafe extern "C" fn hipStreamBeginCaptureToGraph(
    s: hipStream_t,
    g: hipGraph_t,
    dependencies: *const hipGraphNode_t,
    dependency_data: *const [u8; 8],
    count: usize,
    mode: c_int,
) -> hipError_t {
    guard("hipStreamBeginCaptureToGraph", || {
        let stream = stream(s)?;
        check_capturable(&stream)?;
        let mode = CaptureMode::parse(mode)?;
        let graph = graph::get(g as usize)?;
        if count > 0 && dependencies.is_null() {
            return Err(Failure::invalid_value("the dependency list is null"));
        }
        let deps: Vec<NodeId> = (0..count)
            // SAFETY: per the caller.
            .map(|i| unsafe { *dependencies.add(i) } as usize)
            .collect();
        if let Some(d) = deps.iter().find(|&&d| !graph.contains(d)) {
            return Err(Failure::invalid_value(format!(
                "dependency {d:#x} is not a node of the graph"
            )));
        }
        if !dependency_data.is_null() {
            for i in 0..count {
                // SAFETY: per the caller; `hipGraphEdgeData` is 8 bytes.
                let edge = unsafe { *dependency_data.add(i) };
                if edge != [0; 8] {
                    return Err(Failure::new(
                        HipError::NotSupported,
                        "only default edges (hipGraphDependencyTypeDefault, ports 0) exist here",
                    ));
                }
            }
        }
        capture::begin(&stream, mode, Some(graph), deps)
    })
}

/// Ends the capture `stream` began and writes the captured graph.
///
/// # Safety
/// `out` must be null or valid for writing a `hipGraph_t`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamEndCapture(s: hipStream_t, out: *mut hipGraph_t) -> hipError_t {
    guard("hipStreamEndCapture", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the graph pointer is null"));
        }
        let stream = stream(s)?;
        match capture::end(&stream) {
            // SAFETY: checked non-null.
            Ok(g) => unsafe { write_out(out, g.handle() as hipGraph_t, "the graph pointer") },
            Err(failure) => {
                if matches!(
                    failure.code,
                    HipError::StreamCaptureInvalidated | HipError::StreamCaptureUnjoined
                ) {
                    // SAFETY: checked non-null.
                    unsafe { out.write_unaligned(std::ptr::null_mut()) };
                }
                Err(failure)
            }
        }
    })
}

/// Whether `stream` is capturing (`hipStreamCaptureStatus`).
///
/// # Safety
/// `status` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamIsCapturing(s: hipStream_t, status: *mut c_int) -> hipError_t {
    guard("hipStreamIsCapturing", || {
        if status.is_null() {
            return Err(Failure::invalid_value("the status pointer is null"));
        }
        let info = capture::info(&*stream(s)?)?;
        // SAFETY: checked non-null.
        unsafe { write_out(status, info.status as c_int, "the status pointer") }
    })
}

/// `stream`'s capture status and the capture's id (0 when not capturing).
///
/// # Safety
/// Each pointer must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetCaptureInfo(
    s: hipStream_t,
    status: *mut c_int,
    id: *mut c_ulonglong,
) -> hipError_t {
    guard("hipStreamGetCaptureInfo", || {
        if status.is_null() {
            return Err(Failure::invalid_value("the status pointer is null"));
        }
        let info = capture::info(&*stream(s)?)?;
        // SAFETY: checked non-null, or skipped when null.
        unsafe {
            write_out(status, info.status as c_int, "the status pointer")?;
            if !id.is_null() {
                id.write_unaligned(info.id);
            }
        }
        Ok(())
    })
}

/// [`hipStreamGetCaptureInfo`] with the graph being captured and the stream's current
/// dependencies (a list valid until the stream's next capture operation).
///
/// # Safety
/// Each pointer must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetCaptureInfo_v2(
    s: hipStream_t,
    status: *mut c_int,
    id: *mut c_ulonglong,
    graph_out: *mut hipGraph_t,
    deps_out: *mut *const hipGraphNode_t,
    count_out: *mut usize,
) -> hipError_t {
    guard("hipStreamGetCaptureInfo_v2", || {
        if status.is_null() {
            return Err(Failure::invalid_value("the status pointer is null"));
        }
        let info = capture::info(&*stream(s)?)?;
        // SAFETY: each checked non-null or skipped; valid per the caller.
        unsafe {
            status.write_unaligned(info.status as c_int);
            if !id.is_null() {
                id.write_unaligned(info.id);
            }
            if !graph_out.is_null() {
                graph_out.write_unaligned(info.graph as hipGraph_t);
            }
            if !deps_out.is_null() {
                deps_out.write_unaligned(info.deps.0.cast::<hipGraphNode_t>());
            }
            if !count_out.is_null() {
                count_out.write_unaligned(info.deps.1);
            }
        }
        Ok(())
    })
}

/// Sets (`hipStreamSetCaptureDependencies`, 1) or adds to (`hipStreamAddCaptureDependencies`, 0)
/// the nodes the capturing stream's next operation depends on.
///
/// # Safety
/// `nodes` must be null or hold `count` handles.
#[no_mangle]
pub unsafe extern "C" fn hipStreamUpdateCaptureDependencies(
    s: hipStream_t,
    nodes: *mut hipGraphNode_t,
    count: usize,
    flags: c_uint,
) -> hipError_t {
    guard("hipStreamUpdateCaptureDependencies", || {
        let stream = stream(s)?;
        if flags > 1 {
            return Err(Failure::invalid_value(format!(
                "flags {flags}: hipStreamAddCaptureDependencies (0) or \
                 hipStreamSetCaptureDependencies (1)"
            )));
        }
        if count > 0 && nodes.is_null() {
            return Err(Failure::invalid_value("the node list is null"));
        }
        let list: Vec<NodeId> = (0..count)
            // SAFETY: per the caller.
            .map(|i| unsafe { *nodes.add(i) } as usize)
            .collect();
        capture::update_dependencies(&stream, &list, flags == 1)
    })
}

/// Swaps the calling thread's capture mode (which potentially unsafe calls it may make while
/// captures are in progress) with `*mode`.
///
/// # Safety
/// `mode` must be null or valid for reading and writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipThreadExchangeStreamCaptureMode(mode: *mut c_int) -> hipError_t {
    guard("hipThreadExchangeStreamCaptureMode", || {
        if mode.is_null() {
            return Err(Failure::invalid_value("the mode pointer is null"));
        }
        // SAFETY: checked non-null.
        let wanted = CaptureMode::parse(unsafe { mode.read_unaligned() })?;
        let old = capture::exchange_thread_mode(wanted);
        // SAFETY: checked non-null.
        unsafe { mode.write_unaligned(old as c_int) };
        Ok(())
    })
}
