//! Executable graphs (`hipGraphExec_t`): a graph instantiated once and launched onto streams
//! many times, its node parameters updatable in place.
//!
//! Instantiation copies the graph's nodes (later changes to the graph do not reach the
//! executable graph) and flattens child graphs: a child-graph node becomes an empty *entry*
//! node, the child's nodes (its roots depending on the entry) and an empty *exit* node
//! depending on the child's leaves, so one plan covers every level. The plan, made once:
//! * a topological order of the nodes;
//! * a *lane* per node: lane 0 is the launch stream, lanes 1.. are internal streams of the
//!   executable graph (made at the first launch, on the launch stream's device). A node
//!   continues the lane of a dependency that was the last node given to that lane; otherwise it
//!   starts a new lane (up to [`MAX_LANES`]), so independent branches run concurrently;
//! * for each dependency across lanes, an event recorded after the dependency and waited for on
//!   the dependent's lane (one per pair of lanes and point: the latest dependency of each other
//!   lane).
//!
//! A launch records a *fork* event on the launch stream that every other lane waits for first
//! (the graph runs after the work before it), runs the nodes in order, each on its lane, and
//! makes the launch stream wait for every other lane's last node (the *join*), so work after
//! the launch follows the whole graph. Launches of one executable graph are serialized.

use std::collections::{HashMap, HashSet};
use std::ffi::c_void;
use std::ops::Range;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::memory::{self, Block};
use super::op::{CopyOp, Op};
use super::{capture, topological_order, Graph, Node, NodeId, NodeType};
use crate::backend::{
    Device, DeviceId, Event, EventFlags, LaunchConfig, MemcpyKind, Stream, StreamFlags,
};
use crate::error::{Failure, HipError, HipResult};
use crate::handles::{HandleTable, Kind};
use crate::user_object::OwnedReferences;

/// The most streams one launch spreads a graph over (the launch stream included).
pub const MAX_LANES: usize = 8;

/// `hipGraphInstantiateFlags`.
pub const FLAG_AUTO_FREE_ON_LAUNCH: u64 = 1;
pub const FLAG_UPLOAD: u64 = 2;
pub const FLAG_DEVICE_LAUNCH: u64 = 4;
pub const FLAG_USE_NODE_PRIORITY: u64 = 8;

/// `hipGraphExecUpdateResult` (the results this runtime gives).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateResult {
    Success = 0,
    TopologyChanged = 2,
    NodeTypeChanged = 3,
    ParametersChanged = 5,
    NotSupported = 6,
}

/// Why an update was refused: the result and the node (of the new graph) at fault.
#[derive(Debug, Clone)]
pub struct UpdateRefusal {
    pub result: UpdateResult,
    pub node: Option<NodeId>,
    pub why: String,
}

/// One node of the flattened graph.
#[derive(Debug, Clone)]
struct ExecNode {
    op: Op,
    /// Indices of the nodes it depends on.
    deps: Vec<usize>,
    /// The graph node it came from (a child graph's entry and exit: the child-graph node).
    origin: NodeId,
    /// The type it shows (a child graph's entry and exit: `Graph`).
    shown: NodeType,
    enabled: bool,
}

/// What a launch does, made once at instantiation.
#[derive(Debug, Default)]
struct Plan {
    order: Vec<usize>,
    lane: Vec<usize>,
    lanes: usize,
    /// Per node: the event slot recorded after it runs, when a node on another lane waits.
    signal: Vec<Option<usize>>,
    /// Per node: the event slots its lane waits for before it runs.
    waits: Vec<Vec<usize>>,
    /// Slots: the signals, then the fork, then one join per lane after lane 0.
    events: usize,
}

impl Plan {
    fn fork_slot(&self) -> usize {
        self.events - self.lanes
    }

    fn join_slot(&self, lane: usize) -> usize {
        self.fork_slot() + lane
    }
}

/// The internal streams and events of one device, made at the first launch there.
struct Lanes {
    device: DeviceId,
    streams: Vec<Arc<Stream>>,
    events: Vec<Arc<dyn Event>>,
}

struct Inner {
    nodes: Vec<ExecNode>,
    /// Each graph node (child graphs' included) → its index.
    index: HashMap<NodeId, usize>,
    /// Each child-graph node → the indices its flattening took (entry first, exit last).
    children: HashMap<NodeId, Range<usize>>,
    plan: Plan,
    lanes: Option<Lanes>,
    blocks: Vec<Arc<Block>>,
    /// The user objects of the graph it was made from, held while it lives.
    _user_objects: OwnedReferences,
}

/// An executable graph.
pub struct GraphExec {
    handle: OnceLock<usize>,
    pub flags: u64,
    inner: Mutex<Inner>,
}

fn execs() -> &'static HandleTable<GraphExec> {
    static TABLE: OnceLock<HandleTable<GraphExec>> = OnceLock::new();
    TABLE.get_or_init(|| HandleTable::new(Kind::GraphExec))
}

/// The executable graph a `hipGraphExec_t` names (`hipErrorInvalidValue` otherwise).
pub fn get(handle: usize) -> HipResult<Arc<GraphExec>> {
    if handle == 0 {
        return Err(Failure::invalid_value("the executable graph is null"));
    }
    execs().get(handle).ok_or_else(|| {
        Failure::invalid_value(format!(
            "{handle:#x} is not a live executable graph (destroyed, or never instantiated)"
        ))
    })
}

/// `hipGraphExecDestroy`: work already launched still runs.
pub fn destroy(handle: usize) -> HipResult<()> {
    let exec = get(handle)?;
    execs().remove(handle);
    memory::release(&exec.inner().blocks);
    Ok(())
}

/// The flattening of a graph (see the module's documentation).
struct Flat {
    nodes: Vec<ExecNode>,
    index: HashMap<NodeId, usize>,
    children: HashMap<NodeId, Range<usize>>,
}

/// Appends `graph`'s nodes to `flat`, its roots depending on `entry` (if any); returns the
/// indices of its leaves.
fn flatten_into(graph: &[(NodeId, Node)], flat: &mut Flat, entry: Option<usize>) -> Vec<usize> {
    // First the indices (a dependency may have been made after its dependent), then the edges.
    let mut span: HashMap<NodeId, (usize, usize)> = HashMap::new();
    for (id, node) in graph {
        let first = flat.nodes.len();
        match &node.op {
            Op::Graph(child) => {
                flat.nodes.push(ExecNode {
                    op: Op::Empty,
                    deps: Vec::new(),
                    origin: *id,
                    shown: NodeType::Graph,
                    enabled: true,
                });
                let leaves = flatten_into(&child.snapshot(), flat, Some(first));
                let exit = flat.nodes.len();
                flat.nodes.push(ExecNode {
                    op: Op::Empty,
                    deps: if leaves.is_empty() {
                        vec![first]
                    } else {
                        leaves
                    },
                    origin: *id,
                    shown: NodeType::Graph,
                    enabled: true,
                });
                flat.children.insert(*id, first..exit + 1);
                span.insert(*id, (first, exit));
            }
            op => {
                flat.nodes.push(ExecNode {
                    op: op.clone(),
                    deps: Vec::new(),
                    origin: *id,
                    shown: op.node_type(),
                    enabled: true,
                });
                span.insert(*id, (first, first));
            }
        }
        flat.index.insert(*id, first);
    }
    let mut depended = HashSet::new();
    for (id, node) in graph {
        let (first, _) = span[id];
        let deps: Vec<usize> = node
            .deps
            .iter()
            .filter_map(|d| span.get(d).map(|&(_, last)| last))
            .collect();
        depended.extend(node.deps.iter().copied());
        flat.nodes[first].deps = match (deps.is_empty(), entry) {
            (true, Some(e)) => vec![e],
            _ => deps,
        };
    }
    graph
        .iter()
        .filter(|(id, _)| !depended.contains(id))
        .map(|(id, _)| span[id].1)
        .collect()
}

fn flatten(graph: &Graph) -> Flat {
    let mut flat = Flat {
        nodes: Vec::new(),
        index: HashMap::new(),
        children: HashMap::new(),
    };
    flatten_into(&graph.snapshot(), &mut flat, None);
    flat
}

/// The plan for `nodes` (see the module's documentation); `None` when they have a cycle.
fn plan(nodes: &[ExecNode]) -> Option<Plan> {
    let as_graph: Vec<(NodeId, Node)> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            (
                i,
                Node {
                    op: Op::Empty,
                    deps: n.deps.clone(),
                },
            )
        })
        .collect();
    let order = topological_order(&as_graph)?;
    let n = nodes.len();
    let mut lane = vec![0; n];
    let mut position = vec![0; n];
    let mut tails: Vec<Option<usize>> = vec![None];
    let mut lengths = vec![0usize];
    for &i in &order {
        let deps = &nodes[i].deps;
        let continues = deps.iter().copied().find(|&d| tails[lane[d]] == Some(d));
        let l = match continues {
            Some(d) => lane[d],
            None if tails[0].is_none() => 0,
            None if tails.len() < MAX_LANES => {
                tails.push(None);
                lengths.push(0);
                tails.len() - 1
            }
            // Out of lanes: the first dependency's lane (or the launch stream's).
            None => deps.first().map_or(0, |&d| lane[d]),
        };
        lane[i] = l;
        position[i] = lengths[l];
        lengths[l] += 1;
        tails[l] = Some(i);
    }
    let mut signal: Vec<Option<usize>> = vec![None; n];
    let mut waits: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut slots = 0;
    for &i in &order {
        // The latest dependency on each other lane is enough: a lane runs in order.
        let mut latest: HashMap<usize, usize> = HashMap::new();
        for &d in &nodes[i].deps {
            if lane[d] != lane[i] {
                let keep = latest.entry(lane[d]).or_insert(d);
                if position[d] > position[*keep] {
                    *keep = d;
                }
            }
        }
        let mut wanted: Vec<usize> = latest.into_values().collect();
        wanted.sort_unstable();
        for d in wanted {
            let slot = *signal[d].get_or_insert_with(|| {
                slots += 1;
                slots - 1
            });
            waits[i].push(slot);
        }
    }
    let lanes = tails.len();
    Some(Plan {
        order,
        lane,
        lanes,
        signal,
        waits,
        events: slots + lanes,
    })
}

/// The blocks of a graph's allocation nodes (the flattened graph's).
fn blocks_of(nodes: &[ExecNode]) -> Vec<Arc<Block>> {
    nodes
        .iter()
        .filter_map(|n| match &n.op {
            Op::MemAlloc(a) => Some(a.block.clone()),
            _ => None,
        })
        .collect()
}

/// Why instantiation failed, with the node at fault (if one is).
pub struct InstantiateError {
    pub failure: Failure,
    pub node: Option<NodeId>,
}

/// `hipGraphInstantiate[WithFlags]`.
pub fn instantiate(graph: &Graph, flags: u64) -> Result<Arc<GraphExec>, InstantiateError> {
    let fail = |failure| InstantiateError {
        failure,
        node: None,
    };
    let known =
        FLAG_AUTO_FREE_ON_LAUNCH | FLAG_UPLOAD | FLAG_DEVICE_LAUNCH | FLAG_USE_NODE_PRIORITY;
    if flags & !known != 0 {
        return Err(fail(Failure::invalid_value(format!(
            "instantiate flags {flags:#x}: known flags are AutoFreeOnLaunch (1), Upload (2), \
             DeviceLaunch (4) and UseNodePriority (8)"
        ))));
    }
    if flags & FLAG_DEVICE_LAUNCH != 0 {
        return Err(fail(Failure::new(
            HipError::NotSupported,
            "hipGraphInstantiateFlagDeviceLaunch: graphs cannot be launched from device code here",
        )));
    }
    let flat = flatten(graph);
    let Some(plan) = plan(&flat.nodes) else {
        return Err(fail(Failure::invalid_value(
            "the graph's dependencies have a cycle",
        )));
    };
    let blocks = blocks_of(&flat.nodes);
    memory::instantiate(&blocks).map_err(fail)?;
    let exec = Arc::new(GraphExec {
        handle: OnceLock::new(),
        flags,
        inner: Mutex::new(Inner {
            nodes: flat.nodes,
            index: flat.index,
            children: flat.children,
            plan,
            lanes: None,
            blocks,
            _user_objects: graph.user_objects().duplicate().map_err(fail)?,
        }),
    });
    let handle = execs().insert(exec.clone());
    let _ = exec.handle.set(handle);
    Ok(exec)
}

/// Whether `p` is device memory as `device` sees it (for a copy's direction).
fn is_device_memory(device: &dyn Device, p: usize) -> bool {
    matches!(device.allocation(p as *const c_void), Ok(Some(a)) if a.is_device_memory())
}

/// (destination, source) of a copy as device memory or not.
fn direction(device: &dyn Device, op: &CopyOp) -> (bool, bool) {
    let declared = match op.kind {
        MemcpyKind::Default => (None, None),
        kind => kind.declared(),
    };
    let side =
        |declared: Option<bool>, p: usize| declared.unwrap_or_else(|| is_device_memory(device, p));
    (
        side(declared.0, op.region.dst as usize),
        side(declared.1, op.region.src as usize),
    )
}

/// Whether `new` may replace `old` in an executable graph (HIP's rules for updates), or why not.
fn compatible(device: &dyn Device, old: &Op, new: &Op) -> Result<(), (UpdateResult, String)> {
    let changed = |why: &str| Err((UpdateResult::ParametersChanged, why.to_string()));
    match (old, new) {
        (Op::Copy(a), Op::Copy(b)) => {
            if direction(device, a) != direction(device, b) {
                return changed(
                    "a copy's source or destination changed between host and device memory",
                );
            }
            Ok(())
        }
        (Op::Fill(a), Op::Fill(b)) => {
            if a.pattern.as_bytes().len() != b.pattern.as_bytes().len() {
                return changed("a memset's element size changed");
            }
            if (a.height > 1) != (b.height > 1) {
                return changed("a memset changed between one and two dimensions");
            }
            Ok(())
        }
        (Op::MemAlloc(a), Op::MemAlloc(b)) if a != b => Err((
            UpdateResult::NotSupported,
            "allocation nodes cannot be updated".into(),
        )),
        (Op::MemFree { address: a }, Op::MemFree { address: b }) if a != b => Err((
            UpdateResult::NotSupported,
            "free nodes cannot be updated".into(),
        )),
        (a, b) if a.node_type() != b.node_type() => Err((
            UpdateResult::NodeTypeChanged,
            format!(
                "the node changed from {} to {}",
                a.node_type().name(),
                b.node_type().name()
            ),
        )),
        _ => Ok(()),
    }
}

/// Compares a flattening with the executable graph's: the same nodes in the same order, with
/// the same edges and types, and parameters an update may change.
fn check_same_shape(
    device: &dyn Device,
    old: &[ExecNode],
    new: &[ExecNode],
) -> Result<(), UpdateRefusal> {
    if old.len() != new.len() {
        return Err(UpdateRefusal {
            result: UpdateResult::TopologyChanged,
            node: None,
            why: format!(
                "the graph has {} node(s) where the executable graph has {}",
                new.len(),
                old.len()
            ),
        });
    }
    for (o, n) in old.iter().zip(new) {
        if o.shown != n.shown {
            return Err(UpdateRefusal {
                result: UpdateResult::NodeTypeChanged,
                node: Some(n.origin),
                why: format!("a {} node became a {} node", o.shown.name(), n.shown.name()),
            });
        }
        let mut a = o.deps.clone();
        let mut b = n.deps.clone();
        a.sort_unstable();
        b.sort_unstable();
        if a != b {
            return Err(UpdateRefusal {
                result: UpdateResult::TopologyChanged,
                node: Some(n.origin),
                why: "a node's dependencies changed".into(),
            });
        }
        compatible(device, &o.op, &n.op).map_err(|(result, why)| UpdateRefusal {
            result,
            node: Some(n.origin),
            why,
        })?;
    }
    Ok(())
}

impl GraphExec {
    pub fn handle(&self) -> usize {
        self.handle.get().copied().unwrap_or(0)
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn index_of(inner: &Inner, node: NodeId) -> HipResult<usize> {
        inner.index.get(&node).copied().ok_or_else(|| {
            Failure::invalid_value(format!(
                "node {node:#x} is not a node of the graph this executable graph was made from"
            ))
        })
    }

    /// `hipGraphExec*NodeSetParams`: node `node` (of the graph it was made from) does `op` from
    /// its next launch on.
    pub fn set_op(&self, device: &dyn Device, node: NodeId, op: Op) -> HipResult<()> {
        let mut inner = self.inner();
        let i = Self::index_of(&inner, node)?;
        let current = &inner.nodes[i];
        if current.shown == NodeType::Graph {
            return Err(Failure::invalid_value(
                "a child-graph node is updated with hipGraphExecChildGraphNodeSetParams",
            ));
        }
        compatible(device, &current.op, &op).map_err(|(_, why)| Failure::invalid_value(why))?;
        inner.nodes[i].op = op;
        Ok(())
    }

    /// The operation node `node` runs now.
    pub fn op(&self, node: NodeId) -> HipResult<Op> {
        let inner = self.inner();
        let i = Self::index_of(&inner, node)?;
        Ok(inner.nodes[i].op.clone())
    }

    /// `hipGraphExecChildGraphNodeSetParams`: the child graph's nodes take `child`'s
    /// parameters (the same nodes and edges, in the same order).
    pub fn set_child(&self, device: &dyn Device, node: NodeId, child: &Graph) -> HipResult<()> {
        let mut inner = self.inner();
        let range = inner.children.get(&node).cloned().ok_or_else(|| {
            Failure::invalid_value(format!(
                "node {node:#x} is not a child-graph node of this executable graph"
            ))
        })?;
        let mut flat = Flat {
            nodes: Vec::new(),
            index: HashMap::new(),
            children: HashMap::new(),
        };
        // Flattened as the child-graph node was: entry, nodes, exit.
        flat.nodes.push(inner.nodes[range.start].clone());
        let leaves = flatten_into(&child.snapshot(), &mut flat, Some(0));
        flat.nodes.push(ExecNode {
            op: Op::Empty,
            deps: if leaves.is_empty() { vec![0] } else { leaves },
            origin: node,
            shown: NodeType::Graph,
            enabled: true,
        });
        let shift = |n: &ExecNode| ExecNode {
            deps: n.deps.iter().map(|d| d - range.start).collect(),
            ..n.clone()
        };
        let old: Vec<ExecNode> = inner.nodes[range.clone()].iter().map(shift).collect();
        check_same_shape(device, &old, &flat.nodes)
            .map_err(|r| Failure::invalid_value(format!("the child graph differs: {}", r.why)))?;
        for (k, n) in flat.nodes.into_iter().enumerate() {
            inner.nodes[range.start + k].op = n.op;
        }
        Ok(())
    }

    /// `hipGraphExecUpdate`: every node takes the parameters of its counterpart in `graph`
    /// (nodes paired in creation order), or nothing changes.
    pub fn update(&self, device: &dyn Device, graph: &Graph) -> Result<(), UpdateRefusal> {
        let flat = flatten(graph);
        let mut inner = self.inner();
        check_same_shape(device, &inner.nodes, &flat.nodes)?;
        for (old, new) in inner.nodes.iter_mut().zip(flat.nodes) {
            old.op = new.op;
        }
        Ok(())
    }

    /// `hipGraphNodeSetEnabled`: a disabled kernel, copy or memset node does nothing.
    pub fn set_enabled(&self, node: NodeId, enabled: bool) -> HipResult<()> {
        let mut inner = self.inner();
        let i = Self::index_of(&inner, node)?;
        match inner.nodes[i].shown {
            NodeType::Kernel | NodeType::Memcpy | NodeType::Memset => {
                inner.nodes[i].enabled = enabled;
                Ok(())
            }
            other => Err(Failure::invalid_value(format!(
                "only kernel, memcpy and memset nodes can be disabled, not {} nodes",
                other.name()
            ))),
        }
    }

    pub fn enabled(&self, node: NodeId) -> HipResult<bool> {
        let inner = self.inner();
        let i = Self::index_of(&inner, node)?;
        Ok(inner.nodes[i].enabled)
    }

    /// The internal streams and events for `device`, made on first use there.
    fn lanes<'a>(inner: &'a mut Inner, device: &dyn Device) -> HipResult<&'a Lanes> {
        let fresh = inner.lanes.as_ref().is_none_or(|l| l.device != device.id());
        if fresh {
            let streams = (1..inner.plan.lanes)
                .map(|_| {
                    let queue = device.create_stream(StreamFlags { non_blocking: true }, 0)?;
                    Ok(Arc::new(Stream::new(device.id(), queue)))
                })
                .collect::<HipResult<Vec<_>>>()?;
            let flags = EventFlags {
                disable_timing: true,
                ..EventFlags::default()
            };
            let events = (0..inner.plan.events)
                .map(|_| device.create_event(flags).map(Arc::from))
                .collect::<HipResult<Vec<Arc<dyn Event>>>>()?;
            inner.lanes = Some(Lanes {
                device: device.id(),
                streams,
                events,
            });
        }
        inner
            .lanes
            .as_ref()
            .ok_or_else(|| Failure::new(HipError::Unknown, "the graph's streams are missing"))
    }

    /// `hipGraphUpload`: makes what launches on `device` need.
    pub fn upload(&self, device: &dyn Device) -> HipResult<()> {
        Self::lanes(&mut self.inner(), device).map(drop)
    }

    /// `hipGraphLaunch` onto `stream` (of `device`). On a capturing stream the graph's nodes
    /// are recorded into the capture instead.
    pub fn launch(&self, device: &dyn Device, stream: &Arc<Stream>) -> HipResult<()> {
        let mut inner = self.inner();
        if self.capture_into(&inner, stream)? {
            return Ok(());
        }
        let auto_free = self.flags & FLAG_AUTO_FREE_ON_LAUNCH != 0;
        for b in &inner.blocks {
            memory::check_allocate(b, auto_free)?;
        }
        Self::lanes(&mut inner, device)?;
        let inner = &*inner;
        let (plan, nodes) = (&inner.plan, &inner.nodes);
        let Some(lanes) = inner.lanes.as_ref() else {
            return Ok(());
        };
        let on = |lane: usize| -> &Stream {
            if lane == 0 {
                stream
            } else {
                &lanes.streams[lane - 1]
            }
        };
        if plan.lanes > 1 {
            let fork = &lanes.events[plan.fork_slot()];
            fork.record(stream.queue())?;
            for s in &lanes.streams {
                s.queue().wait_event(&**fork)?;
            }
        }
        for &i in &plan.order {
            let lane = on(plan.lane[i]);
            for &slot in &plan.waits[i] {
                lane.queue().wait_event(&*lanes.events[slot])?;
            }
            let node = &nodes[i];
            if node.enabled {
                run(lane, &node.op)?;
            }
            if let Some(slot) = plan.signal[i] {
                lanes.events[slot].record(lane.queue())?;
            }
        }
        for (k, s) in lanes.streams.iter().enumerate() {
            let join = &lanes.events[plan.join_slot(k + 1)];
            join.record(s.queue())?;
            stream.queue().wait_event(&**join)?;
        }
        Ok(())
    }

    /// A launch onto a capturing stream: the nodes are added to the capture's graph, in the
    /// plan's order, the roots after the stream's frontier. `Ok(false)` if it is not capturing.
    fn capture_into(&self, inner: &Inner, stream: &Stream) -> HipResult<bool> {
        capture::record_many(stream, |graph, frontier| {
            if !inner.blocks.is_empty() {
                return Err(Failure::new(
                    HipError::NotSupported,
                    "a graph with allocation nodes cannot be launched into a capture (its \
                     allocations' addresses belong to this executable graph)",
                ));
            }
            let mut made: HashMap<usize, NodeId> = HashMap::new();
            for &i in &inner.plan.order {
                let node = &inner.nodes[i];
                let deps: Vec<NodeId> = if node.deps.is_empty() {
                    frontier.to_vec()
                } else {
                    node.deps
                        .iter()
                        .filter_map(|d| made.get(d))
                        .copied()
                        .collect()
                };
                let op = if node.enabled {
                    node.op.clone()
                } else {
                    Op::Empty
                };
                made.insert(i, graph.add(&deps, op)?);
            }
            let depended: HashSet<usize> = inner
                .nodes
                .iter()
                .flat_map(|n| n.deps.iter().copied())
                .collect();
            let leaves: Vec<NodeId> = (0..inner.nodes.len())
                .filter(|i| !depended.contains(i))
                .filter_map(|i| made.get(&i).copied())
                .collect();
            Ok(if leaves.is_empty() {
                frontier.to_vec()
            } else {
                leaves
            })
        })
    }
}

/// Runs one operation on `stream` (never capturing: a lane, or a launch stream checked first).
fn run(stream: &Stream, op: &Op) -> HipResult<()> {
    let queue = stream.queue();
    match op {
        Op::Kernel(k) => {
            let cfg = LaunchConfig {
                grid: k.grid,
                block: k.block,
                shared_mem: k.shared_mem,
                stream,
                args: &k.args,
            };
            queue.launch(&k.kernel, &cfg)
        }
        Op::Copy(c) => {
            if c.region.is_empty() {
                return Ok(());
            }
            c.region.check()?;
            match c.peer {
                Some((dst, src)) => queue.copy_peer(&c.region, dst, src, false),
                None => queue.copy(&c.region, c.kind, false),
            }
        }
        Op::Fill(f) => {
            f.check()?;
            if f.is_empty() {
                return Ok(());
            }
            queue.fill(f, false)
        }
        Op::Host(call) => queue.host_function(call.into_function()),
        // Flattened at instantiation.
        Op::Graph(_) | Op::Empty => Ok(()),
        Op::WaitEvent(e) => queue.wait_event(&*e.event),
        Op::EventRecord(e) => {
            capture::forget_event(&e.event);
            e.event.record(queue)
        }
        Op::MemAlloc(a) => {
            memory::allocate(&a.block);
            Ok(())
        }
        Op::MemFree { address } => {
            if let Some(b) = memory::block_at(*address) {
                memory::free(&b);
            }
            Ok(())
        }
        Op::Prefetch { address, count, to } => {
            queue.prefetch(*address as *const c_void, *count, *to)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(deps: Vec<usize>) -> ExecNode {
        ExecNode {
            op: Op::Empty,
            deps,
            origin: 0,
            shown: NodeType::Empty,
            enabled: true,
        }
    }

    #[test]
    fn a_chain_is_one_lane_and_branches_spread() {
        let chain = vec![node(vec![]), node(vec![0]), node(vec![1])];
        let p = plan(&chain).unwrap();
        assert_eq!((p.lanes, p.events), (1, 1));
        assert!(p.waits.iter().all(Vec::is_empty));

        // 0 -> {1, 2} -> 3: the second branch runs on lane 1, joined back before 3.
        let diamond = vec![node(vec![]), node(vec![0]), node(vec![0]), node(vec![1, 2])];
        let p = plan(&diamond).unwrap();
        assert_eq!(p.lanes, 2);
        assert_eq!((p.lane[1], p.lane[2], p.lane[3]), (0, 1, 0));
        assert_eq!(p.waits[2].len(), 1, "lane 1 waits for node 0");
        assert_eq!(p.waits[3].len(), 1, "node 3 waits for lane 1's node 2");
        assert_eq!(p.signal[0], Some(p.waits[2][0]));
        assert_eq!(p.signal[2], Some(p.waits[3][0]));
        assert_eq!(p.events, 2 + 2, "two signals, the fork and one join");

        // Twenty independent roots share at most MAX_LANES lanes.
        let wide: Vec<ExecNode> = (0..20).map(|_| node(vec![])).collect();
        assert_eq!(plan(&wide).unwrap().lanes, MAX_LANES);
        assert!(plan(&[node(vec![1]), node(vec![0])]).is_none(), "a cycle");
    }
}
