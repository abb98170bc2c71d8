//! Executable graphs from the C API: `hipGraphInstantiate[WithFlags|WithParams]`,
//! `hipGraphLaunch`, `hipGraphUpload`, `hipGraphExecUpdate`, the `hipGraphExec*SetParams`
//! family, enabling nodes, `hipGraphExecDestroy` (see `graph::exec`).

use std::ffi::{c_char, c_int, c_uint, c_void};

use super::graph::{
    child_op, copy_1d, copy_of_params, copy_symbol, drv_memset, event_ref, fill_of, hipGraphNode_t,
    hipGraph_t, host_op, kernel_op, DrvMemsetParams, GraphNodeParams, HostNodeParams,
    KernelNodeParams, MemsetParams,
};
use super::{
    current_device, guard, hipError_t, hipEvent_t, hipStream_t, read_in, stream, write_out,
};
use crate::arrays::Memcpy3DParms;
use crate::backend::Device;
use crate::error::{Failure, HipError, HipResult};
use crate::graph::exec::{self, GraphExec, UpdateResult, FLAG_UPLOAD};
use crate::graph::{self, NodeType, Op};

/// `hipGraphExec_t`: a handle (see `graph::exec`).
#[allow(non_camel_case_types)]
pub type hipGraphExec_t = *mut c_void;

/// HIP's `hipGraphInstantiateParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct InstantiateParams {
    pub err_node_out: hipGraphNode_t,
    pub flags: u64,
    pub result_out: c_int,
    pub upload_stream: hipStream_t,
}

/// `hipGraphInstantiateResult`.
const INSTANTIATE_SUCCESS: c_int = 0;
const INSTANTIATE_ERROR: c_int = 1;
const INSTANTIATE_INVALID_STRUCTURE: c_int = 2;
const INSTANTIATE_NOT_SUPPORTED: c_int = 3;

/// The device of the stream `s` names.
fn device_of(s: hipStream_t) -> HipResult<&'static dyn Device> {
    let target = stream(s)?;
    super::backend()?.device(target.device())
}

/// Instantiates `g` with `flags`: the executable graph's handle, or the failure and the node at
/// fault.
fn instantiate(g: hipGraph_t, flags: u64) -> Result<usize, (Failure, Option<usize>)> {
    let graph = graph::get(g as usize).map_err(|f| (f, None))?;
    exec::instantiate(&graph, flags)
        .map(|e| e.handle())
        .map_err(|e| (e.failure, e.node))
}

/// Instantiates a graph. On failure `pErrorNode` gets the node at fault (if one is) and
/// `pLogBuffer` the reason (truncated to `bufferSize`).
///
/// # Safety
/// Pointers must be null or valid (`pLogBuffer` for `bufferSize` bytes).
#[no_mangle]
pub unsafe extern "C" fn hipGraphInstantiate(
    out: *mut hipGraphExec_t,
    g: hipGraph_t,
    error_node: *mut hipGraphNode_t,
    log: *mut c_char,
    log_size: usize,
) -> hipError_t {
    guard("hipGraphInstantiate", || {
        if out.is_null() {
            return Err(Failure::invalid_value(
                "the executable graph pointer is null",
            ));
        }
        match instantiate(g, 0) {
            // SAFETY: checked non-null.
            Ok(h) => unsafe { write_out(out, h as hipGraphExec_t, "the executable graph pointer") },
            Err((failure, node)) => {
                // SAFETY: each is null or valid per the caller.
                unsafe {
                    if !error_node.is_null() {
                        error_node.write_unaligned(node.unwrap_or(0) as hipGraphNode_t);
                    }
                    if !log.is_null() && log_size > 0 {
                        super::write_c_string(
                            log,
                            c_int::try_from(log_size).unwrap_or(c_int::MAX),
                            &failure.message,
                        );
                    }
                }
                Err(failure)
            }
        }
    })
}

/// Instantiates a graph with `hipGraphInstantiateFlags` (`AutoFreeOnLaunch`,
/// `UseNodePriority`; `Upload` needs `hipGraphInstantiateWithParams`' stream).
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipGraphInstantiateWithFlags(
    out: *mut hipGraphExec_t,
    g: hipGraph_t,
    flags: u64,
) -> hipError_t {
    guard("hipGraphInstantiateWithFlags", || {
        if out.is_null() {
            return Err(Failure::invalid_value(
                "the executable graph pointer is null",
            ));
        }
        if flags & FLAG_UPLOAD != 0 {
            return Err(Failure::invalid_value(
                "hipGraphInstantiateFlagUpload needs a stream: use hipGraphInstantiateWithParams",
            ));
        }
        let h = instantiate(g, flags).map_err(|(f, _)| f)?;
        // SAFETY: checked non-null.
        unsafe { write_out(out, h as hipGraphExec_t, "the executable graph pointer") }
    })
}

/// Instantiates a graph with `hipGraphInstantiateParams` (flags, an upload stream; the result
/// and the node at fault written back).
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphInstantiateWithParams(
    out: *mut hipGraphExec_t,
    g: hipGraph_t,
    params: *mut InstantiateParams,
) -> hipError_t {
    guard("hipGraphInstantiateWithParams", || {
        if out.is_null() || params.is_null() {
            return Err(Failure::invalid_value(
                "the executable graph pointer or the parameters are null",
            ));
        }
        // SAFETY: checked non-null; valid per the caller.
        let p = unsafe { &mut *params };
        let result = instantiate(g, p.flags).and_then(|h| {
            if p.flags & FLAG_UPLOAD != 0 {
                let upload = || exec::get(h)?.upload(device_of(p.upload_stream)?);
                upload().map_err(|f| (f, None))?;
            }
            Ok(h)
        });
        match result {
            Ok(h) => {
                p.result_out = INSTANTIATE_SUCCESS;
                p.err_node_out = std::ptr::null_mut();
                // SAFETY: checked non-null.
                unsafe { write_out(out, h as hipGraphExec_t, "the executable graph pointer") }
            }
            Err((failure, node)) => {
                p.result_out = match failure.code {
                    HipError::NotSupported => INSTANTIATE_NOT_SUPPORTED,
                    HipError::InvalidValue if node.is_none() => INSTANTIATE_INVALID_STRUCTURE,
                    _ => INSTANTIATE_ERROR,
                };
                p.err_node_out = node.unwrap_or(0) as hipGraphNode_t;
                Err(failure)
            }
        }
    })
}

/// The flags an executable graph was instantiated with.
///
/// # Safety
/// `flags` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipGraphExecGetFlags(e: hipGraphExec_t, flags: *mut u64) -> hipError_t {
    guard("hipGraphExecGetFlags", || {
        let e = exec::get(e as usize)?;
        // SAFETY: `write_out` checks null.
        unsafe { write_out(flags, e.flags, "the flags pointer") }
    })
}

/// Launches an executable graph onto a stream: its nodes run in dependency order after the
/// work before it, and the work after it follows the whole graph. On a capturing stream the
/// graph's nodes join the capture.
#[no_mangle]
pub extern "C" fn hipGraphLaunch(e: hipGraphExec_t, s: hipStream_t) -> hipError_t {
    guard("hipGraphLaunch", || {
        let e = exec::get(e as usize)?;
        let target = stream(s)?;
        e.launch(device_of(s)?, &target)
    })
}

/// Prepares an executable graph's launches on the stream's device (its internal streams).
#[no_mangle]
pub extern "C" fn hipGraphUpload(e: hipGraphExec_t, s: hipStream_t) -> hipError_t {
    guard("hipGraphUpload", || {
        let e = exec::get(e as usize)?;
        e.upload(device_of(s)?)
    })
}

/// Destroys an executable graph; launched work still runs.
#[no_mangle]
pub extern "C" fn hipGraphExecDestroy(e: hipGraphExec_t) -> hipError_t {
    guard("hipGraphExecDestroy", || exec::destroy(e as usize))
}

/// Gives an executable graph the parameters of `g`'s nodes, paired in creation order; refused
/// (`hipErrorGraphExecUpdateFailure`, the result and node at fault written) when the topology,
/// a node's type or a parameter an update cannot change differs.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphExecUpdate(
    e: hipGraphExec_t,
    g: hipGraph_t,
    error_node: *mut hipGraphNode_t,
    result: *mut c_int,
) -> hipError_t {
    guard("hipGraphExecUpdate", || {
        if error_node.is_null() || result.is_null() {
            return Err(Failure::invalid_value(
                "the error node and result pointers must not be null",
            ));
        }
        let e = exec::get(e as usize)?;
        let graph = graph::get(g as usize)?;
        let outcome = e.update(current_device()?, &graph);
        let (code, node, failure) = match outcome {
            Ok(()) => (UpdateResult::Success, None, None),
            Err(r) => (
                r.result,
                r.node,
                Some(Failure::new(HipError::GraphExecUpdateFailure, r.why)),
            ),
        };
        // SAFETY: checked non-null; valid per the caller.
        unsafe {
            result.write_unaligned(code as c_int);
            error_node.write_unaligned(node.unwrap_or(0) as hipGraphNode_t);
        }
        failure.map_or(Ok(()), Err)
    })
}

/// The executable graph and the node, for the `hipGraphExec*SetParams` family.
fn exec_node(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
) -> HipResult<(std::sync::Arc<GraphExec>, usize)> {
    let e = exec::get(e as usize)?;
    if node.is_null() {
        return Err(Failure::invalid_value("the node is null"));
    }
    Ok((e, node as usize))
}

/// Sets node `node`'s operation in the executable graph, checked to be of `kind`.
pub(super) fn set_exec_op(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    kind: NodeType,
    op: Op,
) -> HipResult<()> {
    let (e, node) = exec_node(e, node)?;
    let current = e.op(node)?;
    if current.node_type() != kind {
        return Err(Failure::invalid_value(format!(
            "the node is a {} node, not a {} node",
            current.node_type().name(),
            kind.name()
        )));
    }
    let op = match (current, op) {
        // A kernel node keeps its attributes.
        (Op::Kernel(old), Op::Kernel(mut k)) => {
            k.attributes = old.attributes;
            Op::Kernel(k)
        }
        // Only 1-D memsets are updated in an executable graph, as HIP and CUDA say: neither a
        // node made as a 2-D or 3-D memset, nor a change to one.
        (Op::Fill(old), Op::Fill(new)) if !is_1d(&old) || !is_1d(&new) => {
            return Err(Failure::invalid_value(
                "only a 1-D memset node's parameters can be set in an executable graph",
            ))
        }
        (_, op) => op,
    };
    e.set_op(current_device()?, node, op)
}

/// Whether a memset writes one row.
fn is_1d(f: &crate::backend::Fill) -> bool {
    f.height <= 1 && f.depth <= 1
}

/// Sets a node's parameters in the executable graph from `hipGraphNodeParams`.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphExecNodeSetParams(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    params: *mut GraphNodeParams,
) -> hipError_t {
    guard("hipGraphExecNodeSetParams", || {
        // SAFETY: per the caller.
        let p = unsafe { read_in(params, "the node parameters") }?;
        // SAFETY (each union read): the field `kind` names.
        let op = unsafe {
            match p.kind {
                0 => Op::Kernel(kernel_op(&p.body.kernel)?),
                1 => Op::Copy(copy_of_params(&p.body.memcpy.copy_params)?),
                2 => Op::Fill(fill_of(&p.body.memset)?),
                3 => host_op(&p.body.host)?,
                6 => Op::WaitEvent(event_ref(p.body.event)?),
                7 => Op::EventRecord(event_ref(p.body.event)?),
                4 => {
                    let (ex, n) = exec_node(e, node)?;
                    let child = graph::get(p.body.graph as usize)?;
                    return ex.set_child(current_device()?, n, &child);
                }
                other => {
                    return Err(Failure::invalid_value(format!(
                        "nodes of type {other} cannot be updated in an executable graph"
                    )))
                }
            }
        };
        let kind = op.node_type();
        set_exec_op(e, node, kind, op)
    })
}

/// Sets a kernel node's parameters in the executable graph.
///
/// # Safety
/// As `hipGraphAddKernelNode`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphExecKernelNodeSetParams(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    params: *const KernelNodeParams,
) -> hipError_t {
    guard("hipGraphExecKernelNodeSetParams", || unsafe {
        let op = Op::Kernel(kernel_op(&read_in(params, "the kernel node parameters")?)?);
        set_exec_op(e, node, NodeType::Kernel, op)
    })
}

/// Sets a copy node's parameters in the executable graph.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphExecMemcpyNodeSetParams(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    params: *mut Memcpy3DParms,
) -> hipError_t {
    guard("hipGraphExecMemcpyNodeSetParams", || unsafe {
        let op = Op::Copy(copy_of_params(&read_in(params, "the copy parameters")?)?);
        set_exec_op(e, node, NodeType::Memcpy, op)
    })
}

/// Makes a copy node of the executable graph a 1-D copy.
#[no_mangle]
pub extern "C" fn hipGraphExecMemcpyNodeSetParams1D(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipGraphExecMemcpyNodeSetParams1D", || {
        let op = Op::Copy(copy_1d(dst, src, count, kind)?);
        set_exec_op(e, node, NodeType::Memcpy, op)
    })
}

/// Makes a copy node of the executable graph copy from a device variable.
#[no_mangle]
pub extern "C" fn hipGraphExecMemcpyNodeSetParamsFromSymbol(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    dst: *mut c_void,
    symbol: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipGraphExecMemcpyNodeSetParamsFromSymbol", || {
        let op = Op::Copy(copy_symbol(symbol, dst, count, offset, kind, false)?);
        set_exec_op(e, node, NodeType::Memcpy, op)
    })
}

/// Makes a copy node of the executable graph copy into a device variable.
#[no_mangle]
pub extern "C" fn hipGraphExecMemcpyNodeSetParamsToSymbol(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    symbol: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipGraphExecMemcpyNodeSetParamsToSymbol", || {
        let op = Op::Copy(copy_symbol(symbol, src, count, offset, kind, true)?);
        set_exec_op(e, node, NodeType::Memcpy, op)
    })
}

/// Sets a memset node's parameters in the executable graph.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphExecMemsetNodeSetParams(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    params: *const MemsetParams,
) -> hipError_t {
    guard("hipGraphExecMemsetNodeSetParams", || unsafe {
        let op = Op::Fill(fill_of(&read_in(params, "the memset parameters")?)?);
        set_exec_op(e, node, NodeType::Memset, op)
    })
}

/// Driver-API spelling of [`hipGraphExecMemsetNodeSetParams`].
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipDrvGraphExecMemsetNodeSetParams(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    params: *const DrvMemsetParams,
    _context: *mut c_void,
) -> hipError_t {
    guard("hipDrvGraphExecMemsetNodeSetParams", || unsafe {
        let p = read_in(params, "the memset parameters")?;
        let op = Op::Fill(fill_of(&drv_memset(&p))?);
        set_exec_op(e, node, NodeType::Memset, op)
    })
}

/// Sets a host node's function and data in the executable graph.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphExecHostNodeSetParams(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    params: *const HostNodeParams,
) -> hipError_t {
    guard("hipGraphExecHostNodeSetParams", || unsafe {
        let op = host_op(&read_in(params, "the host node parameters")?)?;
        set_exec_op(e, node, NodeType::Host, op)
    })
}

/// Gives a child-graph node of the executable graph the parameters of `child`'s nodes (the same
/// nodes and edges).
#[no_mangle]
pub extern "C" fn hipGraphExecChildGraphNodeSetParams(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    child: hipGraph_t,
) -> hipError_t {
    guard("hipGraphExecChildGraphNodeSetParams", || {
        let (ex, n) = exec_node(e, node)?;
        // Checked as `hipGraphAddChildGraphNode` checks its graph.
        let Op::Graph(checked) = child_op(child)? else {
            return Err(Failure::invalid_value("not a graph"));
        };
        let result = ex.set_child(current_device()?, n, &checked);
        let _ = graph::destroy(checked.handle());
        result
    })
}

/// Sets the event an event-record node of the executable graph records.
#[no_mangle]
pub extern "C" fn hipGraphExecEventRecordNodeSetEvent(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    ev: hipEvent_t,
) -> hipError_t {
    guard("hipGraphExecEventRecordNodeSetEvent", || {
        set_exec_op(
            e,
            node,
            NodeType::EventRecord,
            Op::EventRecord(event_ref(ev)?),
        )
    })
}

/// Sets the event an event-wait node of the executable graph waits for.
#[no_mangle]
pub extern "C" fn hipGraphExecEventWaitNodeSetEvent(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    ev: hipEvent_t,
) -> hipError_t {
    guard("hipGraphExecEventWaitNodeSetEvent", || {
        set_exec_op(e, node, NodeType::WaitEvent, Op::WaitEvent(event_ref(ev)?))
    })
}

/// Enables (1) or disables (0) a kernel, copy or memset node of the executable graph: a
/// disabled node does nothing at launches.
#[no_mangle]
pub extern "C" fn hipGraphNodeSetEnabled(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    enabled: c_uint,
) -> hipError_t {
    guard("hipGraphNodeSetEnabled", || {
        let (e, n) = exec_node(e, node)?;
        e.set_enabled(n, enabled != 0)
    })
}

/// Whether a node of the executable graph is enabled.
///
/// # Safety
/// `enabled` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipGraphNodeGetEnabled(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    enabled: *mut c_uint,
) -> hipError_t {
    guard("hipGraphNodeGetEnabled", || {
        let (e, n) = exec_node(e, node)?;
        let on = c_uint::from(e.enabled(n)?);
        // SAFETY: `write_out` checks null.
        unsafe { write_out(enabled, on, "the result pointer") }
    })
}
