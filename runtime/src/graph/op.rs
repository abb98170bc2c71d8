//! What a graph node does: one operation of each kind a stream runs (what the `ops` function of
//! that kind took), kept as data so that a graph runs it at every launch, and HIP's node types.

use std::ffi::c_void;
use std::sync::Arc;

use crate::arrays::Memcpy3DParms;
use crate::backend::{Copy3d, DeviceId, Dim3, Event, Fill, HostCall, Location, MemcpyKind};
use crate::drv_copy::Memcpy3D;
use crate::registry::KernelRef;

use super::memory::Block;
use super::Graph;

/// `hipGraphNodeType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeType {
    Kernel = 0,
    Memcpy = 1,
    Memset = 2,
    Host = 3,
    Graph = 4,
    Empty = 5,
    WaitEvent = 6,
    EventRecord = 7,
    MemAlloc = 10,
    MemFree = 11,
}

impl NodeType {
    pub fn raw(self) -> i32 {
        self as i32
    }

    /// The name `hipGraphDebugDotPrint` shows.
    pub fn name(self) -> &'static str {
        match self {
            NodeType::Kernel => "KERNEL",
            NodeType::Memcpy => "MEMCPY",
            NodeType::Memset => "MEMSET",
            NodeType::Host => "HOST",
            NodeType::Graph => "CHILD_GRAPH",
            NodeType::Empty => "EMPTY",
            NodeType::WaitEvent => "WAIT_EVENT",
            NodeType::EventRecord => "EVENT_RECORD",
            NodeType::MemAlloc => "MEM_ALLOC",
            NodeType::MemFree => "MEM_FREE",
        }
    }
}

/// `hipKernelNodeAttrValue`'s fields a node keeps (`hipGraphKernelNodeSetAttribute`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelAttributes {
    /// `hipAccessPolicyWindow`, as the program set it (a hint: no backend here has persisting
    /// caches to steer).
    pub access_policy_window: [u8; 32],
    pub cooperative: i32,
}

/// A kernel launch: the kernel, its shape and its packed argument block (a copy: the program's
/// arguments may change after the node is made).
#[derive(Debug, Clone)]
pub struct KernelOp {
    pub kernel: KernelRef,
    /// What the program named the kernel by (a host stub or a `hipFunction_t`); 0 when the node
    /// was captured from a launch that named it otherwise.
    pub func: usize,
    pub grid: Dim3,
    pub block: Dim3,
    pub shared_mem: usize,
    pub args: Vec<u8>,
    pub attributes: KernelAttributes,
}

impl PartialEq for KernelOp {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.kernel.module, &other.kernel.module)
            && self.kernel.index() == other.kernel.index()
            && (self.grid, self.block, self.shared_mem)
                == (other.grid, other.block, other.shared_mem)
            && self.args == other.args
            && self.attributes == other.attributes
    }
}

/// A copy: a region between pointers (1-D, 2-D, 3-D; arrays and symbols resolved to their
/// addresses when the node is made), and the description it was given as, if it was; a peer
/// copy (`hipMemcpyPeerAsync` captured) names its (destination, source) devices.
#[derive(Debug, Clone, Copy)]
pub struct CopyOp {
    pub region: Copy3d,
    pub kind: MemcpyKind,
    pub params: Option<CopyParams>,
    pub peer: Option<(DeviceId, DeviceId)>,
}

/// The description a copy node was given, shown back as given by its `GetParams`.
#[derive(Debug, Clone, Copy)]
pub enum CopyParams {
    /// `hipMemcpy3DParms` (`hipGraphAddMemcpyNode`).
    Runtime(Memcpy3DParms),
    /// `HIP_MEMCPY3D` (`hipDrvGraphAddMemcpyNode`).
    Driver(Memcpy3D),
}

impl PartialEq for CopyOp {
    fn eq(&self, other: &Self) -> bool {
        (self.region, self.kind, self.peer) == (other.region, other.kind, other.peer)
    }
}

/// An event a node records or waits for: the program's handle and the event it named.
#[derive(Clone)]
pub struct EventRef {
    pub handle: usize,
    pub event: Arc<dyn Event>,
}

impl std::fmt::Debug for EventRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EventRef({:#x})", self.handle)
    }
}

impl PartialEq for EventRef {
    fn eq(&self, other: &Self) -> bool {
        self.handle == other.handle
    }
}

/// A graph allocation (`hipGraphAddMemAllocNode`, or `hipMallocAsync` captured): its memory
/// and address are the node's from when it is made (see `graph::memory`).
#[derive(Debug, Clone)]
pub struct AllocOp {
    pub block: Arc<Block>,
}

impl PartialEq for AllocOp {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.block, &other.block)
    }
}

/// One node's operation.
#[derive(Debug, Clone)]
pub enum Op {
    Kernel(KernelOp),
    Copy(CopyOp),
    Fill(Fill),
    Host(HostCall),
    /// A child graph, owned by the node (a clone of the graph the program gave).
    Graph(Arc<Graph>),
    Empty,
    WaitEvent(EventRef),
    EventRecord(EventRef),
    MemAlloc(AllocOp),
    MemFree {
        address: usize,
    },
    /// `hipMemPrefetchAsync` captured: shown as an empty node, run as the prefetch.
    Prefetch {
        address: usize,
        count: usize,
        to: Location,
    },
}

// SAFETY: the raw pointers inside (copy and fill regions, memcpy parameters) are addresses the
// program gave, only handed back to the backend when the graph runs, never dereferenced here.
unsafe impl Send for Op {}
// SAFETY: as above; the data is read-only once shared.
unsafe impl Sync for Op {}

impl Op {
    pub fn node_type(&self) -> NodeType {
        match self {
            Op::Kernel(_) => NodeType::Kernel,
            Op::Copy(_) => NodeType::Memcpy,
            Op::Fill(_) => NodeType::Memset,
            Op::Host(_) => NodeType::Host,
            Op::Graph(_) => NodeType::Graph,
            Op::Empty | Op::Prefetch { .. } => NodeType::Empty,
            Op::WaitEvent(_) => NodeType::WaitEvent,
            Op::EventRecord(_) => NodeType::EventRecord,
            Op::MemAlloc(_) => NodeType::MemAlloc,
            Op::MemFree { .. } => NodeType::MemFree,
        }
    }

    /// The host function of a host node, as `hipHostNodeParams` gives it.
    pub fn host_params(&self) -> Option<(*mut c_void, *mut c_void)> {
        match self {
            Op::Host(HostCall::Function {
                function,
                user_data,
            }) => Some((*function as *mut c_void, *user_data as *mut c_void)),
            Op::Host(HostCall::Callback {
                callback,
                user_data,
                ..
            }) => Some((*callback as *mut c_void, *user_data as *mut c_void)),
            _ => None,
        }
    }
}
