//! The driver API's copy nodes: `hipDrvGraphAddMemcpyNode`, `hipDrvGraphMemcpyNodeGetParams`,
//! `hipDrvGraphMemcpyNodeSetParams` and `hipDrvGraphExecMemcpyNodeSetParams`. A `HIP_MEMCPY3D`
//! (read by `drv_copy`, as `hipDrvMemcpy3D` reads it) becomes the same copy operation as
//! `hipGraphAddMemcpyNode`'s, so both kinds of node run, update and answer alike; the
//! description is kept and shown back as given.

use std::ffi::c_void;

use super::graph::{add_node, hipGraphNode_t, hipGraph_t, node_of, set_node};
use super::graph_exec::{hipGraphExec_t, set_exec_op};
use super::{guard, hipError_t, read_in, write_out};
use crate::backend::MemoryType;
use crate::drv_copy::{self, Memcpy3D};
use crate::error::{Failure, HipResult};
use crate::graph::{CopyOp, CopyParams, NodeType, Op};

/// A copy node's operation from `HIP_MEMCPY3D`: checked and resolved now (arrays to their
/// memory), an empty copy refused as `hipGraphAddMemcpyNode` refuses it.
fn copy_of(p: &Memcpy3D) -> HipResult<Op> {
    let (region, kind) = drv_copy::region_3d(p)?;
    let region =
        region.ok_or_else(|| Failure::invalid_value("a copy node with an empty extent"))?;
    region.check()?;
    Ok(Op::Copy(CopyOp {
        region,
        kind,
        params: Some(CopyParams::Driver(*p)),
        peer: None,
    }))
}

/// A copy node as `HIP_MEMCPY3D` shows it: as given, or (a node made another way) its region
/// between pointers whose memory types its kind says (unified where the kind does not tell).
fn description_of(c: &CopyOp) -> Memcpy3D {
    if let Some(CopyParams::Driver(p)) = c.params {
        return p;
    }
    let r = &c.region;
    let (dst_device, src_device) = c.kind.declared();
    let memory = |device: Option<bool>| {
        match device {
            Some(true) => MemoryType::Device,
            Some(false) => MemoryType::Host,
            None => MemoryType::Unified,
        }
        .raw()
    };
    let rows = |pitch: usize, slice: usize| slice.checked_div(pitch).unwrap_or(0);
    Memcpy3D {
        srcXInBytes: 0,
        srcY: 0,
        srcZ: 0,
        srcLOD: 0,
        srcMemoryType: memory(src_device),
        srcHost: r.src,
        srcDevice: r.src as *mut c_void,
        srcArray: 0,
        srcPitch: r.src_pitch,
        srcHeight: rows(r.src_pitch, r.src_slice),
        dstXInBytes: 0,
        dstY: 0,
        dstZ: 0,
        dstLOD: 0,
        dstMemoryType: memory(dst_device),
        dstHost: r.dst,
        dstDevice: r.dst,
        dstArray: 0,
        dstPitch: r.dst_pitch,
        dstHeight: rows(r.dst_pitch, r.dst_slice),
        WidthInBytes: r.width,
        Height: r.height,
        Depth: r.depth,
    }
}

/// Adds a copy node described as the driver API describes copies (`ctx` must be null or a
/// context; every context of a device shares its memory).
///
/// # Safety
/// Pointers must be null or valid; `deps` for `n` handles.
#[no_mangle]
pub unsafe extern "C" fn hipDrvGraphAddMemcpyNode(
    out: *mut hipGraphNode_t,
    g: hipGraph_t,
    deps: *const hipGraphNode_t,
    n: usize,
    params: *const Memcpy3D,
    _ctx: *mut c_void,
) -> hipError_t {
    guard("hipDrvGraphAddMemcpyNode", || unsafe {
        add_node(out, g, deps, n, || {
            copy_of(&read_in(params, "the copy's description")?)
        })
    })
}

/// A copy node's description.
///
/// # Safety
/// `out` must be null or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn hipDrvGraphMemcpyNodeGetParams(
    node: hipGraphNode_t,
    out: *mut Memcpy3D,
) -> hipError_t {
    guard("hipDrvGraphMemcpyNodeGetParams", || {
        if out.is_null() {
            return Err(Failure::invalid_value("the description pointer is null"));
        }
        let (_, _, op) = node_of(node, NodeType::Memcpy)?;
        let Op::Copy(c) = op else {
            return Err(Failure::invalid_value("not a copy node"));
        };
        // SAFETY: checked non-null; valid per the caller.
        unsafe { write_out(out, description_of(&c), "the description pointer") }
    })
}

/// Sets a copy node's description.
///
/// # Safety
/// `params` must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipDrvGraphMemcpyNodeSetParams(
    node: hipGraphNode_t,
    params: *const Memcpy3D,
) -> hipError_t {
    guard("hipDrvGraphMemcpyNodeSetParams", || unsafe {
        set_node(
            node,
            NodeType::Memcpy,
            copy_of(&read_in(params, "the copy's description")?)?,
        )
    })
}

/// Sets a copy node's description in an executable graph (the rules of
/// `hipGraphExecMemcpyNodeSetParams`: the same kinds of memory on both sides).
///
/// # Safety
/// `params` must be null or valid.
#[no_mangle]
pub unsafe extern "C" fn hipDrvGraphExecMemcpyNodeSetParams(
    e: hipGraphExec_t,
    node: hipGraphNode_t,
    params: *const Memcpy3D,
    _ctx: *mut c_void,
) -> hipError_t {
    guard("hipDrvGraphExecMemcpyNodeSetParams", || unsafe {
        let op = copy_of(&read_in(params, "the copy's description")?)?;
        set_exec_op(e, node, NodeType::Memcpy, op)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::MemcpyKind;

    /// The kind a description implies.
    fn kind_of(p: &Memcpy3D) -> HipResult<MemcpyKind> {
        drv_copy::region_3d(p).map(|(_, kind)| kind)
    }

    #[test]
    fn a_description_round_trips_through_a_node_made_from_pointers() {
        let (src, dst) = (0x1000 as *mut c_void, 0x9000 as *mut c_void);
        let c = CopyOp {
            region: crate::backend::Copy3d::linear(dst, src, 64),
            kind: MemcpyKind::HostToDevice,
            params: None,
            peer: None,
        };
        let d = description_of(&c);
        assert_eq!(
            (d.srcMemoryType, d.dstMemoryType),
            (MemoryType::Host.raw(), MemoryType::Device.raw())
        );
        assert_eq!(
            (d.srcHost, d.dstDevice, d.WidthInBytes),
            (src as _, dst, 64)
        );
        assert_eq!(kind_of(&d), Ok(MemcpyKind::HostToDevice));
    }
}
