//! HIP graphs: work and its dependencies recorded once (node by node, or by stream capture) and
//! launched many times.
//!
//! * A [`Graph`] holds its nodes in creation order, each an [`Op`] (what the `ops` function of
//!   its kind took) and the nodes it depends on. `hipGraph_t` and `hipGraphNode_t` are handles
//!   of this file's tables (`handles`), checked on every call: a bad or destroyed one is
//!   `hipErrorInvalidValue`, as HIP's graph functions answer.
//! * A child-graph node owns a clone of the graph the program gave (`hipGraphAddChildGraphNode`
//!   clones, as CUDA does); `hipGraphChildGraphNodeGetGraph` hands out that clone's handle.
//! * `exec`: instantiated graphs (a snapshot of the nodes, child graphs flattened, updatable),
//!   launched onto a stream in dependency order, independent branches on internal streams.
//! * `capture`: stream capture, which records `ops` into a graph instead of running them.
//! * `memory`: graph allocations (`hipGraphAddMemAllocNode`, captured `hipMallocAsync`).
//! * `dot`: `hipGraphDebugDotPrint`.

pub mod capture;
pub mod dot;
pub mod exec;
pub mod memory;
pub mod op;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

pub use op::{AllocOp, CopyOp, CopyParams, EventRef, KernelAttributes, KernelOp, NodeType, Op};

use crate::error::{Failure, HipResult};
use crate::handles::{HandleTable, Kind};
use crate::user_object::OwnedReferences;

/// A node's handle (`hipGraphNode_t`); handles grow with creation, so ordering by them is
/// creation order.
pub type NodeId = usize;

/// One node: its operation and the nodes it depends on (in the order they were added).
#[derive(Debug, Clone)]
pub struct Node {
    pub op: Op,
    pub deps: Vec<NodeId>,
}

/// A graph (`hipGraph_t`).
pub struct Graph {
    handle: OnceLock<usize>,
    state: Mutex<State>,
    /// The user objects it holds references to (`hipGraphRetainUserObject`), released when it
    /// is destroyed.
    user_objects: Mutex<OwnedReferences>,
}

#[derive(Default)]
struct State {
    nodes: BTreeMap<NodeId, Node>,
    /// In a clone: each node of the original → its copy here (`hipGraphNodeFindInClone`).
    originals: HashMap<NodeId, NodeId>,
    /// The pointer tables `hipGraphKernelNodeGetParams` hands out (`kernelParams`): one per
    /// kernel node, pointing into the node's own argument block, valid until its next change.
    param_tables: HashMap<NodeId, Vec<usize>>,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Graph({:#x})", self.handle())
    }
}

/// Where a node lives.
struct NodeLink {
    graph: Weak<Graph>,
}

fn graphs() -> &'static HandleTable<Graph> {
    static TABLE: OnceLock<HandleTable<Graph>> = OnceLock::new();
    TABLE.get_or_init(|| HandleTable::new(Kind::Graph))
}

fn nodes() -> &'static HandleTable<NodeLink> {
    static TABLE: OnceLock<HandleTable<NodeLink>> = OnceLock::new();
    TABLE.get_or_init(|| HandleTable::new(Kind::GraphNode))
}

fn bad(what: &str, handle: usize) -> Failure {
    Failure::invalid_value(format!(
        "{handle:#x} is not a live {what} (destroyed, or never created)"
    ))
}

/// `hipGraphCreate`: a new, empty graph.
pub fn create() -> Arc<Graph> {
    let graph = Arc::new(Graph {
        handle: OnceLock::new(),
        state: Mutex::new(State::default()),
        user_objects: Mutex::new(OwnedReferences::default()),
    });
    let handle = graphs().insert(graph.clone());
    let _ = graph.handle.set(handle);
    graph
}

/// The graph a `hipGraph_t` names.
pub fn get(handle: usize) -> HipResult<Arc<Graph>> {
    if handle == 0 {
        return Err(Failure::invalid_value("the graph is null"));
    }
    graphs().get(handle).ok_or_else(|| bad("graph", handle))
}

/// The graph and node a `hipGraphNode_t` names.
pub fn node(handle: NodeId) -> HipResult<(Arc<Graph>, NodeId)> {
    if handle == 0 {
        return Err(Failure::invalid_value("the graph node is null"));
    }
    let link = nodes()
        .get(handle)
        .ok_or_else(|| bad("graph node", handle))?;
    let graph = link
        .graph
        .upgrade()
        .ok_or_else(|| bad("graph node", handle))?;
    Ok((graph, handle))
}

/// `hipGraphDestroy`: the graph's handle and its nodes' go, child graphs with them. Executable
/// graphs made from it keep their own copy and stay usable.
pub fn destroy(handle: usize) -> HipResult<()> {
    let graph = get(handle)?;
    graphs().remove(handle);
    graph.forget_nodes();
    drop(std::mem::take(&mut *graph.user_objects()));
    Ok(())
}

impl Graph {
    pub fn handle(&self) -> usize {
        self.handle.get().copied().unwrap_or(0)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The user objects the graph holds (`hipGraphRetainUserObject`/`ReleaseUserObject`).
    pub fn user_objects(&self) -> MutexGuard<'_, OwnedReferences> {
        self.user_objects.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Drops the handles of every node (and of the child graphs they own), recursively.
    fn forget_nodes(&self) {
        let all: Vec<Node> = {
            let mut state = self.state();
            state.param_tables.clear();
            std::mem::take(&mut state.nodes)
                .into_iter()
                .map(|(id, n)| {
                    nodes().remove(id);
                    n
                })
                .collect()
        };
        for n in all {
            forget_child(&n.op);
        }
    }

    /// Checks that every node of `deps` is a node of this graph, given once.
    fn check_deps(state: &State, deps: &[NodeId]) -> HipResult<()> {
        let mut seen = HashSet::new();
        for &d in deps {
            if !state.nodes.contains_key(&d) {
                return Err(Failure::invalid_value(format!(
                    "dependency {d:#x} is not a node of this graph"
                )));
            }
            if !seen.insert(d) {
                return Err(Failure::invalid_value(format!(
                    "dependency {d:#x} is given twice"
                )));
            }
        }
        Ok(())
    }

    /// Adds a node depending on `deps` (nodes of this graph, each once).
    pub fn add(self: &Arc<Self>, deps: &[NodeId], op: Op) -> HipResult<NodeId> {
        let mut state = self.state();
        Self::check_deps(&state, deps)?;
        let id = nodes().insert(Arc::new(NodeLink {
            graph: Arc::downgrade(self),
        }));
        state.nodes.insert(
            id,
            Node {
                op,
                deps: deps.to_vec(),
            },
        );
        Ok(id)
    }

    /// Whether `id` is a node of this graph.
    pub fn contains(&self, id: NodeId) -> bool {
        self.state().nodes.contains_key(&id)
    }

    /// A copy of node `id`.
    pub fn node(&self, id: NodeId) -> HipResult<Node> {
        self.state()
            .nodes
            .get(&id)
            .cloned()
            .ok_or_else(|| bad("graph node", id))
    }

    /// Replaces node `id`'s operation (its kind checked by the caller).
    pub fn set_op(&self, id: NodeId, op: Op) -> HipResult<()> {
        let mut state = self.state();
        state.param_tables.remove(&id);
        let node = state
            .nodes
            .get_mut(&id)
            .ok_or_else(|| bad("graph node", id))?;
        let old = std::mem::replace(&mut node.op, op);
        drop(state);
        forget_child(&old);
        Ok(())
    }

    /// Changes node `id`'s operation in place (its kind kept).
    pub fn update_op(&self, id: NodeId, change: impl FnOnce(&mut Op)) -> HipResult<()> {
        let mut state = self.state();
        state.param_tables.remove(&id);
        let node = state
            .nodes
            .get_mut(&id)
            .ok_or_else(|| bad("graph node", id))?;
        change(&mut node.op);
        Ok(())
    }

    /// `hipGraphDestroyNode`: the node and its edges go.
    pub fn remove(&self, id: NodeId) -> HipResult<()> {
        let mut state = self.state();
        let node = state
            .nodes
            .remove(&id)
            .ok_or_else(|| bad("graph node", id))?;
        state.param_tables.remove(&id);
        for n in state.nodes.values_mut() {
            n.deps.retain(|&d| d != id);
        }
        state.originals.retain(|_, &mut copy| copy != id);
        drop(state);
        nodes().remove(id);
        forget_child(&node.op);
        Ok(())
    }

    /// Every node, in creation order.
    pub fn node_ids(&self) -> Vec<NodeId> {
        self.state().nodes.keys().copied().collect()
    }

    /// Every node with its dependencies, in creation order.
    pub fn snapshot(&self) -> Vec<(NodeId, Node)> {
        self.state()
            .nodes
            .iter()
            .map(|(&id, n)| (id, n.clone()))
            .collect()
    }

    /// Every edge as (from, to), grouped by the dependent node in creation order.
    pub fn edges(&self) -> Vec<(NodeId, NodeId)> {
        let state = self.state();
        state
            .nodes
            .iter()
            .flat_map(|(&to, n)| n.deps.iter().map(move |&from| (from, to)))
            .collect()
    }

    /// Nodes without dependencies.
    pub fn roots(&self) -> Vec<NodeId> {
        let state = self.state();
        state
            .nodes
            .iter()
            .filter(|(_, n)| n.deps.is_empty())
            .map(|(&id, _)| id)
            .collect()
    }

    /// The nodes `id` depends on.
    pub fn dependencies(&self, id: NodeId) -> HipResult<Vec<NodeId>> {
        Ok(self.node(id)?.deps)
    }

    /// The nodes that depend on `id`.
    pub fn dependents(&self, id: NodeId) -> HipResult<Vec<NodeId>> {
        let state = self.state();
        if !state.nodes.contains_key(&id) {
            return Err(bad("graph node", id));
        }
        Ok(state
            .nodes
            .iter()
            .filter(|(_, n)| n.deps.contains(&id))
            .map(|(&to, _)| to)
            .collect())
    }

    /// `hipGraphAddDependencies`: each `to[i]` comes to depend on `from[i]`; a pair naming a
    /// node of another graph, the same node twice, or an edge that exists is
    /// `hipErrorInvalidValue`, and then no edge is added.
    pub fn add_edges(&self, pairs: &[(NodeId, NodeId)]) -> HipResult<()> {
        let mut state = self.state();
        let mut adding = HashSet::new();
        for &(from, to) in pairs {
            if !state.nodes.contains_key(&from) || !state.nodes.contains_key(&to) {
                return Err(Failure::invalid_value(format!(
                    "edge {from:#x} -> {to:#x}: both nodes must belong to this graph"
                )));
            }
            if from == to {
                return Err(Failure::invalid_value(format!(
                    "node {from:#x} cannot depend on itself"
                )));
            }
            let exists = state.nodes.get(&to).is_some_and(|n| n.deps.contains(&from));
            if exists || !adding.insert((from, to)) {
                return Err(Failure::invalid_value(format!(
                    "the edge {from:#x} -> {to:#x} exists already"
                )));
            }
        }
        for &(from, to) in pairs {
            if let Some(n) = state.nodes.get_mut(&to) {
                n.deps.push(from);
            }
        }
        Ok(())
    }

    /// `hipGraphRemoveDependencies`: every pair must be an edge of this graph (else
    /// `hipErrorInvalidValue`, and no edge is removed).
    pub fn remove_edges(&self, pairs: &[(NodeId, NodeId)]) -> HipResult<()> {
        let mut state = self.state();
        for &(from, to) in pairs {
            let exists = state.nodes.get(&to).is_some_and(|n| n.deps.contains(&from));
            if !exists || !state.nodes.contains_key(&from) {
                return Err(Failure::invalid_value(format!(
                    "{from:#x} -> {to:#x} is not an edge of this graph"
                )));
            }
        }
        for &(from, to) in pairs {
            if let Some(n) = state.nodes.get_mut(&to) {
                n.deps.retain(|&d| d != from);
            }
        }
        Ok(())
    }

    /// `hipGraphClone`: a new graph with a copy of every node and edge (child graphs cloned
    /// too); the copy remembers which node each of its nodes copies.
    pub fn deep_clone(&self) -> Arc<Graph> {
        let copy = create();
        let snapshot = self.snapshot();
        let mut map: HashMap<NodeId, NodeId> = HashMap::new();
        let mut edges: Vec<(NodeId, NodeId)> = Vec::new();
        for (id, node) in snapshot {
            let op = match node.op {
                Op::Graph(child) => Op::Graph(child.deep_clone()),
                other => other,
            };
            edges.extend(node.deps.iter().map(|&d| (d, id)));
            if let Ok(new) = copy.add(&[], op) {
                map.insert(id, new);
            }
        }
        // The edges once every node is copied: hipGraphAddDependencies may have made a node
        // depend on one created after it.
        let copied: Vec<(NodeId, NodeId)> = edges
            .iter()
            .filter_map(|(from, to)| Some((*map.get(from)?, *map.get(to)?)))
            .collect();
        let _ = copy.add_edges(&copied);
        copy.state().originals = map;
        // A clone holds the user objects its original does (their objects are alive: the
        // original holds them).
        if let Ok(held) = self.user_objects().duplicate() {
            *copy.user_objects() = held;
        }
        copy
    }

    /// `hipGraphNodeFindInClone`: the node of this clone that copies `original`.
    pub fn find_clone_of(&self, original: NodeId) -> Option<NodeId> {
        self.state().originals.get(&original).copied()
    }

    /// A pointer table for a kernel node's `kernelParams`: one pointer per argument into the
    /// node's argument block at the argument's offset, kept until the node changes.
    pub fn kernel_param_table(&self, id: NodeId) -> HipResult<*mut *mut std::ffi::c_void> {
        let mut state = self.state();
        let table: Vec<usize> = match state.nodes.get(&id).map(|n| &n.op) {
            Some(Op::Kernel(k)) => k
                .kernel
                .info()
                .args
                .iter()
                .map(|a| k.args.as_ptr() as usize + a.offset as usize)
                .collect(),
            Some(_) => return Err(Failure::invalid_value("not a kernel node")),
            None => return Err(bad("graph node", id)),
        };
        let kept = state.param_tables.entry(id).or_default();
        *kept = table;
        Ok(kept.as_mut_ptr().cast())
    }
}

/// Drops the handles a child-graph operation owns.
fn forget_child(op: &Op) {
    if let Op::Graph(child) = op {
        graphs().remove(child.handle());
        child.forget_nodes();
    }
}

/// The indices of `nodes` in an order where every node comes after its dependencies (ties in
/// creation order), or `None` when the dependencies have a cycle.
pub fn topological_order(nodes: &[(NodeId, Node)]) -> Option<Vec<usize>> {
    let index: HashMap<NodeId, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, (id, _))| (*id, i))
        .collect();
    let mut waiting: Vec<usize> = nodes.iter().map(|(_, n)| n.deps.len()).collect();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, (_, n)) in nodes.iter().enumerate() {
        for d in &n.deps {
            dependents[*index.get(d)?].push(i);
        }
    }
    let mut ready: std::collections::BTreeSet<usize> =
        (0..nodes.len()).filter(|&i| waiting[i] == 0).collect();
    let mut order = Vec::with_capacity(nodes.len());
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for &j in &dependents[i] {
            waiting[j] -= 1;
            if waiting[j] == 0 {
                ready.insert(j);
            }
        }
    }
    (order.len() == nodes.len()).then_some(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_roots_clones_and_cycles() {
        let g = create();
        let a = g.add(&[], Op::Empty).unwrap();
        let b = g.add(&[a], Op::Empty).unwrap();
        let c = g.add(&[a], Op::Empty).unwrap();
        let d = g.add(&[b, c], Op::Empty).unwrap();
        assert_eq!(g.roots(), vec![a]);
        assert_eq!(g.edges(), vec![(a, b), (a, c), (b, d), (c, d)]);
        assert_eq!(g.dependents(a).unwrap(), vec![b, c]);
        assert!(g.add(&[a, a], Op::Empty).is_err());
        assert!(g.add_edges(&[(a, b)]).is_err(), "an existing edge");
        assert!(g.add_edges(&[(a, a)]).is_err(), "a self edge");
        let other = create();
        let foreign = other.add(&[], Op::Empty).unwrap();
        assert!(g.add_edges(&[(foreign, a)]).is_err());
        assert!(g.add(&[foreign], Op::Empty).is_err());

        let copy = g.deep_clone();
        assert_eq!(copy.node_ids().len(), 4);
        let d2 = copy.find_clone_of(d).unwrap();
        assert_eq!(copy.dependencies(d2).unwrap().len(), 2);
        let cyclic = |g: &Graph| topological_order(&g.snapshot()).is_none();
        assert!(!cyclic(&g));
        g.add_edges(&[(d, a)]).unwrap();
        assert!(cyclic(&g));
        assert!(!cyclic(&copy), "the clone is its own graph");
        g.remove_edges(&[(d, a)]).unwrap();
        assert!(g.remove_edges(&[(d, a)]).is_err());
        g.remove(b).unwrap();
        assert_eq!(g.dependencies(d).unwrap(), vec![c]);
        assert!(node(b).is_err(), "a destroyed node's handle is dead");
        let handle = g.handle();
        destroy(handle).unwrap();
        assert!(get(handle).is_err() && node(a).is_err());
        destroy(copy.handle()).unwrap();
        destroy(other.handle()).unwrap();
    }

    #[test]
    fn topological_order_puts_dependencies_first() {
        let n = |deps: Vec<NodeId>| Node {
            op: Op::Empty,
            deps,
        };
        let nodes = vec![(10, n(vec![30])), (20, n(vec![])), (30, n(vec![20]))];
        assert_eq!(topological_order(&nodes), Some(vec![1, 2, 0]));
        let cycle = vec![(1, n(vec![2])), (2, n(vec![1]))];
        assert_eq!(topological_order(&cycle), None);
    }
}
