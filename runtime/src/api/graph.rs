//! Graphs from the C API: `hipGraphCreate`/`Destroy`/`Clone`, nodes of every kind and their
//! parameters, edges and queries, `hipGraphDebugDotPrint`, graph allocations and their
//! attributes (see `graph`). Bad graph and node handles are `hipErrorInvalidValue`, as HIP's
//! graph functions answer. Executable graphs are in `graph_exec`, capture in `capture`.

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::Arc;

use super::launch::{kernel_of, pack_kernel_params};
use super::module::block_from_extra;
use super::stream::hipHostFn_t;
use super::{
    c_string, current_device, device_at, event, guard, hipError_t, hipEvent_t, read_in, write_out,
};
use crate::arrays::{self, Memcpy3DParms, Pos};
use crate::backend::{
    check_args_size, check_launch_bounds, Copy3d, Dim3, Extent, Fill, HostCall, MemAccessDesc,
    MemLocation, MemPoolProps, MemcpyKind, Pattern, PitchedPtr, MEM_LOCATION_DEVICE,
};
use crate::error::{Failure, HipError, HipResult};
use crate::graph::{
    self, memory, AllocOp, CopyOp, CopyParams, EventRef, Graph, KernelAttributes, KernelOp, NodeId,
    NodeType, Op,
};
use crate::symbols;

/// `hipGraph_t`, `hipGraphNode_t`: handles (see `graph`).
#[allow(non_camel_case_types)]
pub type hipGraph_t = *mut c_void;
#[allow(non_camel_case_types)]
pub type hipGraphNode_t = *mut c_void;

/// HIP's `hipKernelNodeParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KernelNodeParams {
    pub block_dim: Dim3,
    pub extra: *mut *mut c_void,
    pub func: *mut c_void,
    pub grid_dim: Dim3,
    pub kernel_params: *mut *mut c_void,
    pub shared_mem_bytes: c_uint,
}

/// HIP's `hipMemsetParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct MemsetParams {
    pub dst: *mut c_void,
    pub element_size: c_uint,
    pub height: usize,
    pub pitch: usize,
    pub value: c_uint,
    pub width: usize,
}

/// HIP's `HIP_MEMSET_NODE_PARAMS` (the driver API's order of the same fields).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DrvMemsetParams {
    pub dst: *mut c_void,
    pub pitch: usize,
    pub value: c_uint,
    pub element_size: c_uint,
    pub width: usize,
    pub height: usize,
}

/// HIP's `hipHostNodeParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HostNodeParams {
    pub function: hipHostFn_t,
    pub user_data: *mut c_void,
}

/// HIP's `hipMemAllocNodeParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct MemAllocNodeParams {
    pub pool_props: MemPoolProps,
    pub access_descs: *const MemAccessDesc,
    pub access_desc_count: usize,
    pub bytesize: usize,
    pub dptr: *mut c_void,
}

/// HIP's `hipMemcpyNodeParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct MemcpyNodeParams {
    pub flags: c_int,
    pub reserved: [c_int; 3],
    pub copy_params: Memcpy3DParms,
}

/// The union of `hipGraphNodeParams`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union NodeParamsBody {
    pub reserved1: [i64; 29],
    pub kernel: KernelNodeParams,
    pub memcpy: MemcpyNodeParams,
    pub memset: MemsetParams,
    pub host: HostNodeParams,
    pub graph: hipGraph_t,
    pub event: hipEvent_t,
    pub alloc: MemAllocNodeParams,
    pub free: *mut c_void,
}

/// HIP's `hipGraphNodeParams`: a node of any kind (`hipGraphAddNode`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct GraphNodeParams {
    pub kind: c_int,
    pub reserved0: [c_int; 3],
    pub body: NodeParamsBody,
    pub reserved2: i64,
}

const _: () = assert!(std::mem::size_of::<GraphNodeParams>() == 256);
const _: () = assert!(std::mem::size_of::<KernelNodeParams>() == 64);

// ---- converting the C parameters into operations ----

/// A kernel node's operation: the kernel, its shape and a copy of its arguments
/// (`kernelParams`, or `extra`'s buffer).
///
/// # Safety
/// `kernelParams` must hold one valid pointer per kernel argument, or `extra` be a valid list.
pub(super) unsafe fn kernel_op(p: &KernelNodeParams) -> HipResult<KernelOp> {
    let kernel = kernel_of(p.func)?;
    let info = kernel.info();
    let args = match (p.kernel_params.is_null(), p.extra.is_null()) {
        (false, false) => {
            return Err(Failure::invalid_value(
                "give kernelParams or extra, not both",
            ))
        }
        // SAFETY: per the caller.
        (true, false) => unsafe { block_from_extra(p.extra, info) }?,
        // SAFETY: per the caller (null is refused for a kernel with arguments).
        _ => unsafe { pack_kernel_params(info, p.kernel_params as *const *const c_void) }?,
    };
    check_args_size(info, &args)?;
    if [p.grid_dim, p.block_dim]
        .iter()
        .any(|d| d.x == 0 || d.y == 0 || d.z == 0)
    {
        return Err(Failure::new(
            HipError::InvalidConfiguration,
            "a kernel node's grid and block dimensions must all be positive",
        ));
    }
    check_launch_bounds(info, p.block_dim)?;
    Ok(KernelOp {
        kernel,
        func: p.func as usize,
        grid: p.grid_dim,
        block: p.block_dim,
        shared_mem: p.shared_mem_bytes as usize,
        args,
        attributes: KernelAttributes::default(),
    })
}

/// A memset node's fill: `width` elements of `element_size` (1, 2 or 4) bytes in each of
/// `height` rows `pitch` bytes apart.
pub(super) fn fill_of(p: &MemsetParams) -> HipResult<Fill> {
    if p.dst.is_null() {
        return Err(Failure::invalid_value("the memset's destination is null"));
    }
    let pattern = match p.element_size {
        1 => Pattern::u8(p.value as u8),
        2 => Pattern::u16(p.value as u16),
        4 => Pattern::u32(p.value),
        other => {
            return Err(Failure::invalid_value(format!(
                "a memset's element size is 1, 2 or 4 bytes, not {other}"
            )))
        }
    };
    if p.width == 0 || p.height == 0 {
        return Err(Failure::invalid_value(format!(
            "an empty memset ({} x {} elements)",
            p.width, p.height
        )));
    }
    let row = p
        .width
        .checked_mul(p.element_size as usize)
        .ok_or_else(|| Failure::invalid_value("the memset's rows overflow"))?;
    if p.height > 1 && p.pitch < row {
        return Err(Failure::invalid_value(format!(
            "the memset's pitch {} is smaller than its rows ({row} bytes)",
            p.pitch
        )));
    }
    let pitch = if p.height > 1 { p.pitch } else { row };
    let fill = Fill {
        dst: p.dst,
        pattern,
        count: p.width,
        pitch,
        height: p.height,
        slice: pitch.saturating_mul(p.height),
        depth: 1,
    };
    fill.check()?;
    let span = fill
        .span()
        .ok_or_else(|| Failure::invalid_value("the memset's extent overflows"))?;
    within_allocation(fill.dst, span, "memset's destination")?;
    Ok(fill)
}

/// A fill as `hipMemsetParams` shows it.
fn memset_params(f: &Fill) -> MemsetParams {
    let bytes = f.pattern.as_bytes();
    let mut value = [0u8; 4];
    value[..bytes.len()].copy_from_slice(bytes);
    MemsetParams {
        dst: f.dst,
        element_size: bytes.len() as c_uint,
        height: f.height,
        pitch: if f.height > 1 { f.pitch } else { 0 },
        value: match bytes.len() {
            1 => u32::from(value[0]),
            2 => u32::from(u16::from_ne_bytes([value[0], value[1]])),
            _ => u32::from_ne_bytes(value),
        },
        width: f.count,
    }
}

/// A copy node's operation from `hipMemcpy3DParms`: checked and resolved now (arrays to their
/// memory), kept as given for `hipGraphMemcpyNodeGetParams`.
pub(super) fn copy_of_params(p: &Memcpy3DParms) -> HipResult<CopyOp> {
    let kind = MemcpyKind::parse(p.kind)?;
    let region = arrays::region_3d(p)?
        .ok_or_else(|| Failure::invalid_value("a copy node with an empty extent"))?;
    region.check()?;
    Ok(CopyOp {
        region,
        kind,
        params: Some(CopyParams::Runtime(*p)),
        peer: None,
    })
}

/// A node's range that starts in an allocation must end in it: checked when the node is made, as
/// HIP does, so that the node is refused rather than its launch.
fn within_allocation(p: *const c_void, bytes: usize, role: &str) -> HipResult<()> {
    match current_device()?.allocation(p)? {
        Some(a) if bytes > a.size.saturating_sub((p as usize).saturating_sub(a.base)) => {
            Err(Failure::invalid_value(format!(
                "the {role} {p:p}+{bytes} runs past the end of the {}-byte allocation at {:#x}",
                a.size, a.base
            )))
        }
        _ => Ok(()),
    }
}

/// A 1-D copy node's operation.
pub(super) fn copy_1d(
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: c_int,
) -> HipResult<CopyOp> {
    let kind = MemcpyKind::parse(kind)?;
    if count == 0 {
        return Err(Failure::invalid_value("a copy node of 0 bytes"));
    }
    let region = Copy3d::linear(dst, src, count);
    region.check()?;
    // Ranges that overlap but are not the same range have no defined result: refused, as HIP
    // refuses them for copy nodes (a copy onto itself changes nothing).
    let (d, s) = (dst as usize, src as usize);
    if d != s && d < s.saturating_add(count) && s < d.saturating_add(count) {
        return Err(Failure::invalid_value(format!(
            "the copy's source {src:p} and destination {dst:p} overlap ({count} bytes)"
        )));
    }
    within_allocation(dst, count, "copy's destination")?;
    within_allocation(src, count, "copy's source")?;
    Ok(CopyOp {
        region,
        kind,
        params: None,
        peer: None,
    })
}

/// A copy node to (`to_symbol`) or from a device variable: the variable's address is resolved
/// now (building its module on the calling thread's device).
pub(super) fn copy_symbol(
    symbol: *const c_void,
    other: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
    to_symbol: bool,
) -> HipResult<CopyOp> {
    let var = symbols::find(symbol)?;
    let kind = symbols::check_kind(kind, to_symbol)?;
    var.check_range(offset, count)?;
    if count == 0 || other.is_null() {
        return Err(Failure::invalid_value(format!(
            "a copy node {} device variable '{}' needs a non-null pointer and a size",
            if to_symbol { "to" } else { "from" },
            var.info().name
        )));
    }
    let (address, _) = current_device()?.variable(&var.module, var.index)?;
    let at = (address + offset) as *mut c_void;
    let region = if to_symbol {
        Copy3d::linear(at, other, count)
    } else {
        Copy3d::linear(other as *mut c_void, at, count)
    };
    Ok(CopyOp {
        region,
        kind,
        params: None,
        peer: None,
    })
}

/// A copy as `hipMemcpy3DParms` shows it.
fn memcpy_params(c: &CopyOp) -> Memcpy3DParms {
    if let Some(CopyParams::Runtime(p)) = c.params {
        return p;
    }
    let r = &c.region;
    let side = |ptr: *mut c_void, pitch: usize| PitchedPtr {
        ptr,
        pitch,
        xsize: r.width,
        ysize: r.height,
    };
    Memcpy3DParms {
        src_array: 0,
        src_pos: Pos::default(),
        src_ptr: side(r.src as *mut c_void, r.src_pitch),
        dst_array: 0,
        dst_pos: Pos::default(),
        dst_ptr: side(r.dst, r.dst_pitch),
        extent: Extent {
            width: r.width,
            height: r.height,
            depth: r.depth,
        },
        kind: c.kind as c_int,
    }
}

/// A host node's operation.
pub(super) fn host_op(p: &HostNodeParams) -> HipResult<Op> {
    let function = p
        .function
        .ok_or_else(|| Failure::invalid_value("the host node's function is null"))?;
    Ok(Op::Host(HostCall::Function {
        function,
        user_data: p.user_data as usize,
    }))
}

/// The event an event node names.
pub(super) fn event_ref(e: hipEvent_t) -> HipResult<EventRef> {
    if e.is_null() {
        return Err(Failure::invalid_value("the event is null"));
    }
    let ev = event(e).map_err(|f| Failure::invalid_value(f.message))?;
    Ok(EventRef {
        handle: e as usize,
        event: ev,
    })
}

/// Whether a graph (or a child graph in it) has allocation or free nodes.
fn has_memory_nodes(g: &Graph) -> bool {
    g.snapshot().iter().any(|(_, n)| match &n.op {
        Op::MemAlloc(_) | Op::MemFree { .. } => true,
        Op::Graph(child) => has_memory_nodes(child),
        _ => false,
    })
}

fn memory_nodes_refused() -> Failure {
    Failure::new(
        HipError::NotSupported,
        "a graph with memory allocation or free nodes owns its allocations' addresses, so it \
         cannot be cloned or used as a child graph",
    )
}

/// A child-graph node's operation: a clone of `child`.
pub(super) fn child_op(child: hipGraph_t) -> HipResult<Op> {
    let g = graph::get(child as usize)?;
    if has_memory_nodes(&g) {
        return Err(memory_nodes_refused());
    }
    Ok(Op::Graph(g.deep_clone()))
}

// ---- helpers of the C functions ----

/// The dependency list `(deps, n)`.
///
/// # Safety
/// `deps` must be null or hold `n` handles.
unsafe fn deps_in(deps: *const hipGraphNode_t, n: usize) -> HipResult<Vec<NodeId>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if deps.is_null() {
        return Err(Failure::invalid_value(format!(
            "the dependency list is null but numDependencies is {n}"
        )));
    }
    // SAFETY: per the caller.
    let list = unsafe { std::slice::from_raw_parts(deps, n) };
    Ok(list.iter().map(|&d| d as usize).collect())
}

/// Writes a list the HIP way: with `out` null, its length into `*count`; else up to `*count`
/// entries (nulls past the end) and the number written.
///
/// # Safety
/// `count` must be null or valid; `out` null or valid for `*count` entries.
unsafe fn list_out(items: &[usize], out: *mut hipGraphNode_t, count: *mut usize) -> HipResult<()> {
    if count.is_null() {
        return Err(Failure::invalid_value("the count pointer is null"));
    }
    if out.is_null() {
        // SAFETY: checked non-null.
        unsafe { count.write_unaligned(items.len()) };
        return Ok(());
    }
    // SAFETY: per the caller.
    let room = unsafe { count.read_unaligned() };
    for i in 0..room {
        // SAFETY: `out` holds `room` entries.
        unsafe {
            out.add(i)
                .write_unaligned(items.get(i).map_or(0, |&v| v) as hipGraphNode_t)
        };
    }
    // SAFETY: checked non-null.
    unsafe { count.write_unaligned(room.min(items.len())) };
    Ok(())
}

/// Adds a node of `op` to `graph` after `deps` and writes its handle.
///
/// # Safety
/// `out` must be null or valid for writing; `deps` null or valid for `n` handles.
pub(super) unsafe fn add_node(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    op: impl FnOnce() -> HipResult<Op>,
) -> HipResult<()> {
    if out.is_null() {
        return Err(Failure::invalid_value("the node pointer is null"));
    }
    let g = graph::get(g as usize)?;
    // SAFETY: per the caller.
    let deps = unsafe { deps_in(deps, n) }?;
    let id = g.add(&deps, op()?)?;
    // SAFETY: checked non-null.
    unsafe { write_out(out, id as hipGraphNode_t, "the node pointer") }
}

/// A node's graph and operation, checked to be of `kind`.
pub(super) fn node_of(node: hipGraphNode_t, kind: NodeType) -> HipResult<(Arc<Graph>, NodeId, Op)> {
    let (g, id) = graph::node(node as usize)?;
    let op = g.node(id)?.op;
    if op.node_type() != kind {
        return Err(Failure::invalid_value(format!(
            "node {id:#x} is a {} node, not a {} node",
            op.node_type().name(),
            kind.name()
        )));
    }
    Ok((g, id, op))
}

/// Replaces the operation of `node` (of `kind`) with `op`.
pub(super) fn set_node(node: hipGraphNode_t, kind: NodeType, op: Op) -> HipResult<()> {
    let (g, id, _) = node_of(node, kind)?;
    g.set_op(id, op)
}

/// The host stub a captured kernel node was launched through, where the program registered one.
fn func_of(k: &KernelOp) -> *mut c_void {
    if k.func != 0 {
        return k.func as *mut c_void;
    }
    crate::registry::host_stub_of(&k.kernel).map_or(std::ptr::null_mut(), |s| s as *mut c_void)
}

// ---- graphs ----

/// Creates an empty graph; `flags` must be 0.
///
/// # Safety
/// `out` must be null or valid for writing a `hipGraph_t`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphCreate(out: *mut hipGraph_t, flags: c_uint) -> hipError_t {
    guard("hipGraphCreate", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the graph pointer is null"));
        }
        if flags != 0 {
            return Err(Failure::invalid_value(format!(
                "flags must be 0, got {flags:#x}"
            )));
        }
        let g = graph::create();
        // SAFETY: checked non-null.
        unsafe { write_out(out, g.handle() as hipGraph_t, "the graph pointer") }
    })
}

/// Destroys a graph and its nodes; executable graphs made from it stay usable.
#[no_mangle]
pub extern "C" fn hipGraphDestroy(g: hipGraph_t) -> hipError_t {
    guard("hipGraphDestroy", || graph::destroy(g as usize))
}

/// Copies a graph (child graphs included); `hipGraphNodeFindInClone` maps its nodes.
///
/// # Safety
/// `out` must be null or valid for writing a `hipGraph_t`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphClone(out: *mut hipGraph_t, original: hipGraph_t) -> hipError_t {
    guard("hipGraphClone", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the graph pointer is null"));
        }
        let g = graph::get(original as usize)?;
        if has_memory_nodes(&g) {
            return Err(memory_nodes_refused());
        }
        let copy = g.deep_clone();
        // SAFETY: checked non-null.
        unsafe { write_out(out, copy.handle() as hipGraph_t, "the graph pointer") }
    })
}

/// The node of `clone` that copies `original`.
///
/// # Safety
/// `out` must be null or valid for writing a `hipGraphNode_t`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphNodeFindInClone(
    out: *mut hipGraphNode_t,
    original: hipGraphNode_t,
    clone: hipGraph_t,
) -> hipError_t {
    guard("hipGraphNodeFindInClone", || {
        if out.is_null() || original.is_null() {
            return Err(Failure::invalid_value(
                "the node pointer or the node is null",
            ));
        }
        let g = graph::get(clone as usize)?;
        let found = g.find_clone_of(original as usize).ok_or_else(|| {
            Failure::invalid_value(format!(
                "{:#x} is not a node of the graph this graph was cloned from",
                original as usize
            ))
        })?;
        // SAFETY: checked non-null.
        unsafe { write_out(out, found as hipGraphNode_t, "the node pointer") }
    })
}

/// The (from, to) pairs of two parallel lists; with `n` 0 none, whatever the lists (HIP reads
/// neither).
///
/// # Safety
/// Each list must be null or hold `n` handles.
unsafe fn pairs(
    from: *const hipGraphNode_t,
    to: *const hipGraphNode_t,
    n: usize,
) -> HipResult<Vec<(NodeId, NodeId)>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if from.is_null() || to.is_null() {
        return Err(Failure::invalid_value(
            "the from and to lists must not be null",
        ));
    }
    // SAFETY: per the caller.
    let (a, b) = unsafe { (deps_in(from, n)?, deps_in(to, n)?) };
    Ok(a.into_iter().zip(b).collect())
}

/// Makes each `to[i]` depend on `from[i]`.
///
/// # Safety
/// `from` and `to` must hold `n` handles each.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddDependencies(
    g: hipGraph_t,
    from: *const hipGraphNode_t,
    to: *const hipGraphNode_t,
    n: usize,
) -> hipError_t {
    guard("hipGraphAddDependencies", || {
        let g = graph::get(g as usize)?;
        // SAFETY: per the caller.
        let pairs = unsafe { pairs(from, to, n) }?;
        g.add_edges(&pairs)
    })
}

/// Removes the edges `from[i] -> to[i]`.
///
/// # Safety
/// `from` and `to` must hold `n` handles each.
#[no_mangle]
pub unsafe extern "C" fn hipGraphRemoveDependencies(
    g: hipGraph_t,
    from: *const hipGraphNode_t,
    to: *const hipGraphNode_t,
    n: usize,
) -> hipError_t {
    guard("hipGraphRemoveDependencies", || {
        let g = graph::get(g as usize)?;
        // SAFETY: per the caller.
        let pairs = unsafe { pairs(from, to, n) }?;
        let memory_node = |id: NodeId| {
            g.node(id)
                .is_ok_and(|n| matches!(n.op.node_type(), NodeType::MemAlloc | NodeType::MemFree))
        };
        if pairs.iter().any(|&(a, b)| memory_node(a) || memory_node(b)) {
            return Err(Failure::new(
                HipError::NotSupported,
                "edges of memory allocation and free nodes cannot be removed (they order the \
                 allocation's users)",
            ));
        }
        g.remove_edges(&pairs)
    })
}

/// The graph's edges: with `from` and `to` null, their number.
///
/// # Safety
/// `count` must be valid; `from`/`to` null or valid for `*count` handles.
#[no_mangle]
pub unsafe extern "C" fn hipGraphGetEdges(
    g: hipGraph_t,
    from: *mut hipGraphNode_t,
    to: *mut hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    guard("hipGraphGetEdges", || {
        let g = graph::get(g as usize)?;
        if from.is_null() != to.is_null() {
            return Err(Failure::invalid_value(
                "from and to must both be null (to count) or both be lists",
            ));
        }
        let edges = g.edges();
        let (a, b): (Vec<usize>, Vec<usize>) = edges.into_iter().unzip();
        // SAFETY: per the caller; `list_out` writes `count` last, after both lists.
        unsafe {
            if !to.is_null() && !count.is_null() {
                let room = count.read_unaligned();
                list_out(&b, to, count)?;
                count.write_unaligned(room);
            }
            list_out(&a, from, count)
        }
    })
}

/// The graph's nodes, in creation order.
///
/// # Safety
/// `count` must be valid; `nodes` null or valid for `*count` handles.
#[no_mangle]
pub unsafe extern "C" fn hipGraphGetNodes(
    g: hipGraph_t,
    nodes: *mut hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    guard("hipGraphGetNodes", || {
        let g = graph::get(g as usize)?;
        // SAFETY: per the caller.
        unsafe { list_out(&g.node_ids(), nodes, count) }
    })
}

/// The graph's nodes without dependencies.
///
/// # Safety
/// As `hipGraphGetNodes`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphGetRootNodes(
    g: hipGraph_t,
    nodes: *mut hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    guard("hipGraphGetRootNodes", || {
        let g = graph::get(g as usize)?;
        // SAFETY: per the caller.
        unsafe { list_out(&g.roots(), nodes, count) }
    })
}

/// The nodes `node` depends on.
///
/// # Safety
/// As `hipGraphGetNodes`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphNodeGetDependencies(
    node: hipGraphNode_t,
    deps: *mut hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    guard("hipGraphNodeGetDependencies", || {
        let (g, id) = graph::node(node as usize)?;
        // SAFETY: per the caller.
        unsafe { list_out(&g.dependencies(id)?, deps, count) }
    })
}

/// The nodes that depend on `node`.
///
/// # Safety
/// As `hipGraphGetNodes`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphNodeGetDependentNodes(
    node: hipGraphNode_t,
    dependents: *mut hipGraphNode_t,
    count: *mut usize,
) -> hipError_t {
    guard("hipGraphNodeGetDependentNodes", || {
        let (g, id) = graph::node(node as usize)?;
        // SAFETY: per the caller.
        unsafe { list_out(&g.dependents(id)?, dependents, count) }
    })
}

/// A node's `hipGraphNodeType`.
///
/// # Safety
/// `out` must be null or valid for writing an `int`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphNodeGetType(node: hipGraphNode_t, out: *mut c_int) -> hipError_t {
    guard("hipGraphNodeGetType", || {
        let (g, id) = graph::node(node as usize)?;
        let kind = g.node(id)?.op.node_type().raw();
        // SAFETY: `write_out` checks null.
        unsafe { write_out(out, kind, "the type pointer") }
    })
}

/// Removes a node and its edges from its graph.
#[no_mangle]
pub extern "C" fn hipGraphDestroyNode(node: hipGraphNode_t) -> hipError_t {
    guard("hipGraphDestroyNode", || {
        let (g, id) = graph::node(node as usize)?;
        g.remove(id)
    })
}

/// Writes the graph as a Graphviz DOT file (`hipGraphDebugDotFlagsVerbose`: with every node's
/// parameters).
///
/// # Safety
/// `path` must be null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn hipGraphDebugDotPrint(
    g: hipGraph_t,
    path: *const c_char,
    flags: c_uint,
) -> hipError_t {
    guard("hipGraphDebugDotPrint", || {
        let g = graph::get(g as usize)?;
        // SAFETY: per the caller.
        let path = unsafe { c_string(path, "the path") }?;
        // A file that cannot be written is the operating system's refusal, as HIP reports it.
        std::fs::write(&*path, graph::dot::render(&g, flags)).map_err(|e| {
            Failure::new(
                HipError::OperatingSystem,
                format!("cannot write the DOT file '{path}': {e}"),
            )
        })
    })
}

// ---- nodes of any kind ----

/// The operation `hipGraphNodeParams` describes (allocation: reserved now, its address written
/// back into the parameters).
///
/// # Safety
/// The parameters' pointers must be valid for their kind.
unsafe fn op_of_node_params(p: &mut GraphNodeParams) -> HipResult<Op> {
    // SAFETY (all reads of the union): the field `kind` names.
    unsafe {
        match p.kind {
            0 => Ok(Op::Kernel(kernel_op(&p.body.kernel)?)),
            1 => Ok(Op::Copy(copy_of_params(&p.body.memcpy.copy_params)?)),
            2 => Ok(Op::Fill(fill_of(&p.body.memset)?)),
            3 => host_op(&p.body.host),
            4 => child_op(p.body.graph),
            5 => Ok(Op::Empty),
            6 => Ok(Op::WaitEvent(event_ref(p.body.event)?)),
            7 => Ok(Op::EventRecord(event_ref(p.body.event)?)),
            10 => alloc_op(&mut p.body.alloc),
            11 => free_op(p.body.free),
            8 | 9 => Err(external_semaphores()),
            other => Err(Failure::invalid_value(format!(
                "{other} is not a hipGraphNodeType"
            ))),
        }
    }
}

/// Adds a node of any kind (`hipGraphNodeParams`).
///
/// # Safety
/// Pointers must be null or valid; the parameters valid for their kind.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddNode(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    params: *mut GraphNodeParams,
) -> hipError_t {
    guard("hipGraphAddNode", || unsafe {
        if params.is_null() {
            return Err(Failure::invalid_value("the node parameters are null"));
        }
        add_node(out, g, deps, n, || op_of_node_params(&mut *params))
    })
}

/// Sets a node's parameters from `hipGraphNodeParams` (of the node's kind).
///
/// # Safety
/// As `hipGraphAddNode`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphNodeSetParams(
    node: hipGraphNode_t,
    params: *mut GraphNodeParams,
) -> hipError_t {
    guard("hipGraphNodeSetParams", || unsafe {
        if params.is_null() {
            return Err(Failure::invalid_value("the node parameters are null"));
        }
        let (g, id) = graph::node(node as usize)?;
        let kind = g.node(id)?.op.node_type();
        if matches!(kind, NodeType::MemAlloc | NodeType::MemFree) {
            return Err(Failure::new(
                HipError::NotSupported,
                "memory allocation and free nodes cannot change",
            ));
        }
        let op = op_of_node_params(&mut *params)?;
        if op.node_type() != kind {
            return Err(Failure::invalid_value(
                "the parameters are of another node type",
            ));
        }
        g.set_op(id, op)
    })
}

// ---- kernel nodes ----

/// Adds a kernel node (its arguments copied now).
///
/// # Safety
/// Pointers must be null or valid; `kernelParams` must hold one pointer per argument.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddKernelNode(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    params: *const KernelNodeParams,
) -> hipError_t {
    guard("hipGraphAddKernelNode", || unsafe {
        add_node(out, g, deps, n, || {
            Ok(Op::Kernel(kernel_op(&read_in(
                params,
                "the kernel node parameters",
            )?)?))
        })
    })
}

/// A kernel node's parameters; `kernelParams` points into the node's own copy of the
/// arguments (valid until the node changes).
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipGraphKernelNodeGetParams(
    node: hipGraphNode_t,
    out: *mut KernelNodeParams,
) -> hipError_t {
    guard("hipGraphKernelNodeGetParams", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the parameters pointer is null"));
        }
        let (g, id, op) = node_of(node, NodeType::Kernel)?;
        let Op::Kernel(k) = op else {
            return Err(Failure::invalid_value("not a kernel node"));
        };
        let table = g.kernel_param_table(id)?;
        let params = KernelNodeParams {
            block_dim: k.block,
            extra: std::ptr::null_mut(),
            func: func_of(&k),
            grid_dim: k.grid,
            kernel_params: table,
            shared_mem_bytes: k.shared_mem as c_uint,
        };
        // SAFETY: checked non-null.
        unsafe { write_out(out, params, "the parameters pointer") }
    })
}

/// Sets a kernel node's parameters (the arguments copied now; its attributes kept).
///
/// # Safety
/// As `hipGraphAddKernelNode`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphKernelNodeSetParams(
    node: hipGraphNode_t,
    params: *const KernelNodeParams,
) -> hipError_t {
    guard("hipGraphKernelNodeSetParams", || unsafe {
        let (g, id, op) = node_of(node, NodeType::Kernel)?;
        let mut k = kernel_op(&read_in(params, "the kernel node parameters")?)?;
        if let Op::Kernel(old) = op {
            k.attributes = old.attributes;
        }
        g.set_op(id, Op::Kernel(k))
    })
}

/// `hipKernelNodeAttrID`s: 1 the access policy window (a cache hint, kept and reported), 2
/// cooperative launch (only 0: cooperative launches are not supported).
const ATTR_ACCESS_POLICY_WINDOW: c_int = 1;
const ATTR_COOPERATIVE: c_int = 2;

/// Reads a kernel node attribute into `value` (a `hipKernelNodeAttrValue`).
///
/// # Safety
/// `value` must be null or valid for 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn hipGraphKernelNodeGetAttribute(
    node: hipGraphNode_t,
    attr: c_int,
    value: *mut c_void,
) -> hipError_t {
    guard("hipGraphKernelNodeGetAttribute", || {
        if value.is_null() {
            return Err(Failure::invalid_value("the value pointer is null"));
        }
        let (_, _, op) = node_of(node, NodeType::Kernel)?;
        let Op::Kernel(k) = op else {
            return Err(Failure::invalid_value("not a kernel node"));
        };
        // SAFETY: the value is a 32-byte union, per the caller.
        unsafe {
            match attr {
                ATTR_ACCESS_POLICY_WINDOW => value
                    .cast::<[u8; 32]>()
                    .write_unaligned(k.attributes.access_policy_window),
                ATTR_COOPERATIVE => value
                    .cast::<c_int>()
                    .write_unaligned(k.attributes.cooperative),
                other => {
                    return Err(Failure::invalid_value(format!(
                        "{other} is not a hipKernelNodeAttrID"
                    )))
                }
            }
        }
        Ok(())
    })
}

/// Sets a kernel node attribute from `value`.
///
/// # Safety
/// `value` must be null or valid for reading the attribute.
#[no_mangle]
pub unsafe extern "C" fn hipGraphKernelNodeSetAttribute(
    node: hipGraphNode_t,
    attr: c_int,
    value: *const c_void,
) -> hipError_t {
    guard("hipGraphKernelNodeSetAttribute", || {
        if value.is_null() {
            return Err(Failure::invalid_value("the value pointer is null"));
        }
        let (g, id, _) = node_of(node, NodeType::Kernel)?;
        let change: Box<dyn FnOnce(&mut KernelAttributes)> = match attr {
            // SAFETY: a `hipAccessPolicyWindow` (32 bytes), per the caller.
            ATTR_ACCESS_POLICY_WINDOW => {
                let window = unsafe { value.cast::<[u8; 32]>().read_unaligned() };
                Box::new(move |a| a.access_policy_window = window)
            }
            ATTR_COOPERATIVE => {
                // SAFETY: an int, per the caller.
                let on = unsafe { value.cast::<c_int>().read_unaligned() };
                if on != 0 {
                    return Err(Failure::new(
                        HipError::NotSupported,
                        "cooperative kernel nodes: grid-wide synchronization is not supported",
                    ));
                }
                Box::new(move |a| a.cooperative = on)
            }
            other => {
                return Err(Failure::invalid_value(format!(
                    "{other} is not a hipKernelNodeAttrID"
                )))
            }
        };
        g.update_op(id, |op| {
            if let Op::Kernel(k) = op {
                change(&mut k.attributes);
            }
        })
    })
}

/// Copies a kernel node's attributes to another kernel node.
#[no_mangle]
pub extern "C" fn hipGraphKernelNodeCopyAttributes(
    src: hipGraphNode_t,
    dst: hipGraphNode_t,
) -> hipError_t {
    guard("hipGraphKernelNodeCopyAttributes", || {
        let (_, _, from) = node_of(src, NodeType::Kernel)?;
        let (g, id, _) = node_of(dst, NodeType::Kernel)?;
        let Op::Kernel(from) = from else {
            return Err(Failure::invalid_value("not a kernel node"));
        };
        g.update_op(id, |op| {
            if let Op::Kernel(k) = op {
                k.attributes = from.attributes;
            }
        })
    })
}

// ---- copy nodes ----

/// Adds a copy node (`hipMemcpy3DParms`: arrays or pitched pointers).
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddMemcpyNode(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    params: *const Memcpy3DParms,
) -> hipError_t {
    guard("hipGraphAddMemcpyNode", || unsafe {
        add_node(out, g, deps, n, || {
            Ok(Op::Copy(copy_of_params(&read_in(
                params,
                "the copy parameters",
            )?)?))
        })
    })
}

/// A copy node's parameters.
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipGraphMemcpyNodeGetParams(
    node: hipGraphNode_t,
    out: *mut Memcpy3DParms,
) -> hipError_t {
    guard("hipGraphMemcpyNodeGetParams", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the parameters pointer is null"));
        }
        let (_, _, op) = node_of(node, NodeType::Memcpy)?;
        let Op::Copy(c) = op else {
            return Err(Failure::invalid_value("not a copy node"));
        };
        // SAFETY: checked non-null.
        unsafe { write_out(out, memcpy_params(&c), "the parameters pointer") }
    })
}

/// Sets a copy node's parameters.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphMemcpyNodeSetParams(
    node: hipGraphNode_t,
    params: *const Memcpy3DParms,
) -> hipError_t {
    guard("hipGraphMemcpyNodeSetParams", || unsafe {
        let op = Op::Copy(copy_of_params(&read_in(params, "the copy parameters")?)?);
        set_node(node, NodeType::Memcpy, op)
    })
}

/// Adds a 1-D copy node of `count` bytes.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipGraphAddMemcpyNode1D(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipGraphAddMemcpyNode1D", || unsafe {
        add_node(out, g, deps, n, || {
            Ok(Op::Copy(copy_1d(dst, src, count, kind)?))
        })
    })
}

/// Makes a copy node a 1-D copy of `count` bytes.
#[no_mangle]
pub extern "C" fn hipGraphMemcpyNodeSetParams1D(
    node: hipGraphNode_t,
    dst: *mut c_void,
    src: *const c_void,
    count: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipGraphMemcpyNodeSetParams1D", || {
        set_node(
            node,
            NodeType::Memcpy,
            Op::Copy(copy_1d(dst, src, count, kind)?),
        )
    })
}

/// Adds a node copying `count` bytes from device variable `symbol` (at `offset`) to `dst`.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipGraphAddMemcpyNodeFromSymbol(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    dst: *mut c_void,
    symbol: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipGraphAddMemcpyNodeFromSymbol", || unsafe {
        add_node(out, g, deps, n, || {
            Ok(Op::Copy(copy_symbol(
                symbol, dst, count, offset, kind, false,
            )?))
        })
    })
}

/// Makes a copy node copy from a device variable.
#[no_mangle]
pub extern "C" fn hipGraphMemcpyNodeSetParamsFromSymbol(
    node: hipGraphNode_t,
    dst: *mut c_void,
    symbol: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipGraphMemcpyNodeSetParamsFromSymbol", || {
        let op = Op::Copy(copy_symbol(symbol, dst, count, offset, kind, false)?);
        set_node(node, NodeType::Memcpy, op)
    })
}

/// Adds a node copying `count` bytes from `src` into device variable `symbol` (at `offset`).
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipGraphAddMemcpyNodeToSymbol(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    symbol: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipGraphAddMemcpyNodeToSymbol", || unsafe {
        add_node(out, g, deps, n, || {
            Ok(Op::Copy(copy_symbol(
                symbol, src, count, offset, kind, true,
            )?))
        })
    })
}

/// Makes a copy node copy into a device variable.
#[no_mangle]
pub extern "C" fn hipGraphMemcpyNodeSetParamsToSymbol(
    node: hipGraphNode_t,
    symbol: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
) -> hipError_t {
    guard("hipGraphMemcpyNodeSetParamsToSymbol", || {
        let op = Op::Copy(copy_symbol(symbol, src, count, offset, kind, true)?);
        set_node(node, NodeType::Memcpy, op)
    })
}

// ---- memset nodes ----

/// Adds a memset node (1-D, or 2-D with a pitch).
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddMemsetNode(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    params: *const MemsetParams,
) -> hipError_t {
    guard("hipGraphAddMemsetNode", || unsafe {
        add_node(out, g, deps, n, || {
            Ok(Op::Fill(fill_of(&read_in(
                params,
                "the memset parameters",
            )?)?))
        })
    })
}

/// Driver-API spelling of [`hipGraphAddMemsetNode`] (the context must be null or current).
///
/// # Safety
/// As `hipGraphAddMemsetNode`.
#[no_mangle]
pub unsafe extern "C" fn hipDrvGraphAddMemsetNode(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    params: *const DrvMemsetParams,
    _context: *mut c_void,
) -> hipError_t {
    guard("hipDrvGraphAddMemsetNode", || unsafe {
        add_node(out, g, deps, n, || {
            let p = read_in(params, "the memset parameters")?;
            Ok(Op::Fill(fill_of(&drv_memset(&p))?))
        })
    })
}

/// `HIP_MEMSET_NODE_PARAMS` as `hipMemsetParams`.
pub(super) fn drv_memset(p: &DrvMemsetParams) -> MemsetParams {
    MemsetParams {
        dst: p.dst,
        element_size: p.element_size,
        height: p.height,
        pitch: p.pitch,
        value: p.value,
        width: p.width,
    }
}

/// A memset node's parameters.
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipGraphMemsetNodeGetParams(
    node: hipGraphNode_t,
    out: *mut MemsetParams,
) -> hipError_t {
    guard("hipGraphMemsetNodeGetParams", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the parameters pointer is null"));
        }
        let (_, _, op) = node_of(node, NodeType::Memset)?;
        let Op::Fill(f) = op else {
            return Err(Failure::invalid_value("not a memset node"));
        };
        // SAFETY: checked non-null.
        unsafe { write_out(out, memset_params(&f), "the parameters pointer") }
    })
}

/// Sets a memset node's parameters.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphMemsetNodeSetParams(
    node: hipGraphNode_t,
    params: *const MemsetParams,
) -> hipError_t {
    guard("hipGraphMemsetNodeSetParams", || unsafe {
        let op = Op::Fill(fill_of(&read_in(params, "the memset parameters")?)?);
        set_node(node, NodeType::Memset, op)
    })
}

// ---- host nodes ----

/// Adds a host node: `fn(userData)` runs on the host in the graph's order.
///
/// # Safety
/// Pointers must be null or valid; the function must be safe to call from another thread.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddHostNode(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    params: *const HostNodeParams,
) -> hipError_t {
    guard("hipGraphAddHostNode", || unsafe {
        add_node(out, g, deps, n, || {
            host_op(&read_in(params, "the host node parameters")?)
        })
    })
}

/// A host node's function and data.
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipGraphHostNodeGetParams(
    node: hipGraphNode_t,
    out: *mut HostNodeParams,
) -> hipError_t {
    guard("hipGraphHostNodeGetParams", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the parameters pointer is null"));
        }
        let (_, _, op) = node_of(node, NodeType::Host)?;
        let (function, user_data) = op
            .host_params()
            .ok_or_else(|| Failure::invalid_value("not a host node"))?;
        let params = HostNodeParams {
            // SAFETY: the pointer came from a function of this type.
            function: unsafe { std::mem::transmute::<*mut c_void, hipHostFn_t>(function) },
            user_data,
        };
        // SAFETY: checked non-null.
        unsafe { write_out(out, params, "the parameters pointer") }
    })
}

/// Sets a host node's function and data.
///
/// # Safety
/// As `hipGraphAddHostNode`.
#[no_mangle]
pub unsafe extern "C" fn hipGraphHostNodeSetParams(
    node: hipGraphNode_t,
    params: *const HostNodeParams,
) -> hipError_t {
    guard("hipGraphHostNodeSetParams", || unsafe {
        let op = host_op(&read_in(params, "the host node parameters")?)?;
        set_node(node, NodeType::Host, op)
    })
}

// ---- child graph, empty and event nodes ----

/// Adds a child-graph node holding a clone of `child`.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddChildGraphNode(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    child: hipGraph_t,
) -> hipError_t {
    guard("hipGraphAddChildGraphNode", || unsafe {
        if child == g {
            return Err(Failure::invalid_value("a graph cannot be its own child"));
        }
        add_node(out, g, deps, n, || child_op(child))
    })
}

/// The graph a child-graph node holds (valid as long as the node).
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipGraphChildGraphNodeGetGraph(
    node: hipGraphNode_t,
    out: *mut hipGraph_t,
) -> hipError_t {
    guard("hipGraphChildGraphNodeGetGraph", || {
        let (_, _, op) = node_of(node, NodeType::Graph)?;
        let Op::Graph(child) = op else {
            return Err(Failure::invalid_value("not a child-graph node"));
        };
        // SAFETY: `write_out` checks null.
        unsafe { write_out(out, child.handle() as hipGraph_t, "the graph pointer") }
    })
}

/// Adds an empty node (a point of the graph to depend on).
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddEmptyNode(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
) -> hipError_t {
    guard("hipGraphAddEmptyNode", || unsafe {
        add_node(out, g, deps, n, || Ok(Op::Empty))
    })
}

/// Adds a node recording `event` when the nodes before it are done.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddEventRecordNode(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    e: hipEvent_t,
) -> hipError_t {
    guard("hipGraphAddEventRecordNode", || unsafe {
        add_node(out, g, deps, n, || Ok(Op::EventRecord(event_ref(e)?)))
    })
}

/// Adds a node the graph's later nodes wait at until `event` completes.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddEventWaitNode(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    e: hipEvent_t,
) -> hipError_t {
    guard("hipGraphAddEventWaitNode", || unsafe {
        add_node(out, g, deps, n, || Ok(Op::WaitEvent(event_ref(e)?)))
    })
}

fn event_of_node(node: hipGraphNode_t, kind: NodeType, out: *mut hipEvent_t) -> HipResult<()> {
    let (_, _, op) = node_of(node, kind)?;
    let (Op::EventRecord(e) | Op::WaitEvent(e)) = op else {
        return Err(Failure::invalid_value("not an event node"));
    };
    // SAFETY: `write_out` checks null; valid per the caller.
    unsafe { write_out(out, e.handle as hipEvent_t, "the event pointer") }
}

/// The event an event-record node records.
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipGraphEventRecordNodeGetEvent(
    node: hipGraphNode_t,
    out: *mut hipEvent_t,
) -> hipError_t {
    guard("hipGraphEventRecordNodeGetEvent", || {
        event_of_node(node, NodeType::EventRecord, out)
    })
}

/// Sets the event an event-record node records.
#[no_mangle]
pub extern "C" fn hipGraphEventRecordNodeSetEvent(
    node: hipGraphNode_t,
    e: hipEvent_t,
) -> hipError_t {
    guard("hipGraphEventRecordNodeSetEvent", || {
        set_node(node, NodeType::EventRecord, Op::EventRecord(event_ref(e)?))
    })
}

/// The event an event-wait node waits for.
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipGraphEventWaitNodeGetEvent(
    node: hipGraphNode_t,
    out: *mut hipEvent_t,
) -> hipError_t {
    guard("hipGraphEventWaitNodeGetEvent", || {
        event_of_node(node, NodeType::WaitEvent, out)
    })
}

/// Sets the event an event-wait node waits for.
#[no_mangle]
pub extern "C" fn hipGraphEventWaitNodeSetEvent(node: hipGraphNode_t, e: hipEvent_t) -> hipError_t {
    guard("hipGraphEventWaitNodeSetEvent", || {
        set_node(node, NodeType::WaitEvent, Op::WaitEvent(event_ref(e)?))
    })
}

// ---- graph allocations ----

/// An allocation node's operation: checks the pool properties, reserves the memory now and
/// writes its address into the parameters (`dptr`).
pub(super) fn alloc_op(p: &mut MemAllocNodeParams) -> HipResult<Op> {
    let props = &p.pool_props;
    if props.alloc_type != 1 {
        return Err(Failure::invalid_value(
            "an allocation node's pool must be hipMemAllocationTypePinned",
        ));
    }
    if props.location.kind != MEM_LOCATION_DEVICE {
        return Err(Failure::invalid_value(
            "an allocation node's location must be a device",
        ));
    }
    let device = device_at(props.location.id).map_err(|f| Failure::invalid_value(f.message))?;
    let devices = super::backend()?.device_count();
    if p.access_desc_count > devices || (p.access_desc_count > 0 && p.access_descs.is_null()) {
        return Err(Failure::invalid_value(format!(
            "{} access descriptors for {devices} device(s)",
            p.access_desc_count
        )));
    }
    if p.bytesize == 0 {
        return Err(Failure::invalid_value("an allocation node of 0 bytes"));
    }
    let block = memory::reserve(device, p.bytesize)?;
    p.dptr = block.address as *mut c_void;
    Ok(Op::MemAlloc(AllocOp { block }))
}

/// A free node's operation: `p` must be a graph allocation.
pub(super) fn free_op(p: *mut c_void) -> HipResult<Op> {
    if p.is_null() {
        return Err(Failure::invalid_value("the pointer to free is null"));
    }
    memory::block_at(p as usize).ok_or_else(|| {
        Failure::invalid_value(format!(
            "{p:p} was not allocated by a graph allocation node"
        ))
    })?;
    Ok(Op::MemFree {
        address: p as usize,
    })
}

/// Adds an allocation node; its address is written to `params->dptr` now.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddMemAllocNode(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    params: *mut MemAllocNodeParams,
) -> hipError_t {
    guard("hipGraphAddMemAllocNode", || unsafe {
        if params.is_null() {
            return Err(Failure::invalid_value("the allocation parameters are null"));
        }
        if out.is_null() {
            return Err(Failure::invalid_value("the node pointer is null"));
        }
        add_node(out, g, deps, n, || alloc_op(&mut *params))
    })
}

/// An allocation node's parameters (its address, size and device).
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipGraphMemAllocNodeGetParams(
    node: hipGraphNode_t,
    out: *mut MemAllocNodeParams,
) -> hipError_t {
    guard("hipGraphMemAllocNodeGetParams", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the parameters pointer is null"));
        }
        let (_, _, op) = node_of(node, NodeType::MemAlloc)?;
        let Op::MemAlloc(a) = op else {
            return Err(Failure::invalid_value("not an allocation node"));
        };
        let params = MemAllocNodeParams {
            pool_props: MemPoolProps {
                alloc_type: 1,
                handle_types: 0,
                location: MemLocation {
                    kind: MEM_LOCATION_DEVICE,
                    id: a.block.device as c_int,
                },
                win32_security_attributes: std::ptr::null_mut(),
                max_size: 0,
                reserved: [0; 56],
            },
            access_descs: std::ptr::null(),
            access_desc_count: 0,
            bytesize: a.block.size,
            dptr: a.block.address as *mut c_void,
        };
        // SAFETY: checked non-null.
        unsafe { write_out(out, params, "the parameters pointer") }
    })
}

/// Adds a node freeing a graph allocation.
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipGraphAddMemFreeNode(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    p: *mut c_void,
) -> hipError_t {
    guard("hipGraphAddMemFreeNode", || unsafe {
        add_free_node(out, g, deps, n, p)
    })
}

/// # Safety
/// Pointers must be null or valid.
unsafe fn add_free_node(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    p: *mut c_void,
) -> HipResult<()> {
    let target = graph::get(g as usize)?;
    let freed_here = target
        .snapshot()
        .iter()
        .any(|(_, node)| matches!(node.op, Op::MemFree { address } if address == p as usize));
    if freed_here {
        return Err(Failure::invalid_value(format!(
            "{p:p} is freed by another node of this graph already"
        )));
    }
    // SAFETY: per the caller.
    unsafe { add_node(out, g, deps, n, || free_op(p)) }
}

/// Driver-API spelling of [`hipGraphAddMemFreeNode`].
///
/// # Safety
/// Pointers must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipDrvGraphAddMemFreeNode(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    p: *mut c_void,
) -> hipError_t {
    guard("hipDrvGraphAddMemFreeNode", || unsafe {
        add_free_node(out, g, deps, n, p)
    })
}

/// The address a free node frees, written to `*(void**)out`.
///
/// # Safety
/// `out` must be null or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn hipGraphMemFreeNodeGetParams(
    node: hipGraphNode_t,
    out: *mut c_void,
) -> hipError_t {
    guard("hipGraphMemFreeNodeGetParams", || {
        let (_, _, op) = node_of(node, NodeType::MemFree)?;
        let Op::MemFree { address } = op else {
            return Err(Failure::invalid_value("not a free node"));
        };
        // SAFETY: `write_out` checks null; valid per the caller.
        unsafe {
            write_out(
                out.cast::<*mut c_void>(),
                address as *mut c_void,
                "the pointer",
            )
        }
    })
}

/// A device's graph-allocation statistic (`hipGraphMemAttributeType`, a `uint64_t`).
///
/// # Safety
/// `value` must be null or valid for writing 8 bytes.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetGraphMemAttribute(
    device: c_int,
    attr: c_int,
    value: *mut c_void,
) -> hipError_t {
    guard("hipDeviceGetGraphMemAttribute", || {
        let d = device_at(device)?;
        let attr = memory::MemAttribute::parse(attr)?;
        let v = memory::attribute(d.id(), attr);
        // SAFETY: `write_out` checks null.
        unsafe { write_out(value.cast::<u64>(), v, "the value pointer") }
    })
}

/// Resets a device's graph-allocation high mark (`value` must point to 0).
///
/// # Safety
/// `value` must be null or valid for reading 8 bytes.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceSetGraphMemAttribute(
    device: c_int,
    attr: c_int,
    value: *mut c_void,
) -> hipError_t {
    guard("hipDeviceSetGraphMemAttribute", || {
        let d = device_at(device)?;
        let attr = memory::MemAttribute::parse(attr)?;
        // SAFETY: per the caller.
        let v = unsafe { read_in(value.cast::<u64>(), "the value pointer") }?;
        memory::reset_high(d.id(), attr, v)
    })
}

/// Gives the device back the graph allocations' memory that no graph holds.
#[no_mangle]
pub extern "C" fn hipDeviceGraphMemTrim(device: c_int) -> hipError_t {
    guard("hipDeviceGraphMemTrim", || memory::trim(device_at(device)?))
}

// ---- user objects ----

/// `hipGraphUserObjectMove`: the graph takes references the caller holds.
const USER_OBJECT_MOVE: c_uint = 1;

/// The graph takes `count` references to a user object (new ones, or with
/// `hipGraphUserObjectMove` the caller's), released when the graph is destroyed; clones and
/// executable graphs made from it hold the object too.
#[no_mangle]
pub extern "C" fn hipGraphRetainUserObject(
    g: hipGraph_t,
    object: *mut c_void,
    count: c_uint,
    flags: c_uint,
) -> hipError_t {
    guard("hipGraphRetainUserObject", || {
        let g = graph::get(g as usize)?;
        if flags & !USER_OBJECT_MOVE != 0 {
            return Err(Failure::invalid_value(format!(
                "flags {flags:#x}: 0 or hipGraphUserObjectMove (1)"
            )));
        }
        let held = g.user_objects();
        held.retain(object as usize, count, flags == USER_OBJECT_MOVE)
    })
}

/// Drops `count` of the graph's references to a user object.
#[no_mangle]
pub extern "C" fn hipGraphReleaseUserObject(
    g: hipGraph_t,
    object: *mut c_void,
    count: c_uint,
) -> hipError_t {
    guard("hipGraphReleaseUserObject", || {
        let g = graph::get(g as usize)?;
        let held = g.user_objects();
        held.release(object as usize, count)
    })
}

// ---- external semaphore nodes ----

fn external_semaphores() -> Failure {
    super::interop::no_external_objects("external semaphores")
}

macro_rules! no_external_semaphores {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        /// External semaphores do not exist here: `hipErrorNotSupported`.
        #[no_mangle]
        pub extern "C" fn $name($($arg: $ty),*) -> hipError_t {
            $(let _ = $arg;)*
            guard(stringify!($name), || Err(external_semaphores()))
        }
    )*};
}

no_external_semaphores! {
    hipGraphAddExternalSemaphoresSignalNode(out: *mut hipGraphNode_t, g: hipGraph_t, deps: *const hipGraphNode_t, n: usize, params: *const c_void);
    hipGraphAddExternalSemaphoresWaitNode(out: *mut hipGraphNode_t, g: hipGraph_t, deps: *const hipGraphNode_t, n: usize, params: *const c_void);
    hipGraphExternalSemaphoresSignalNodeGetParams(node: hipGraphNode_t, params: *mut c_void);
    hipGraphExternalSemaphoresSignalNodeSetParams(node: hipGraphNode_t, params: *const c_void);
    hipGraphExternalSemaphoresWaitNodeGetParams(node: hipGraphNode_t, params: *mut c_void);
    hipGraphExternalSemaphoresWaitNodeSetParams(node: hipGraphNode_t, params: *const c_void);
    hipGraphExecExternalSemaphoresSignalNodeSetParams(exec: *mut c_void, node: hipGraphNode_t, params: *const c_void);
    hipGraphExecExternalSemaphoresWaitNodeSetParams(exec: *mut c_void, node: hipGraphNode_t, params: *const c_void);
}
