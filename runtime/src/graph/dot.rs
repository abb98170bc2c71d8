//! `hipGraphDebugDotPrint`: a graph as a Graphviz DOT file, one box per node (its type, and
//! with the verbose flag its parameters), an arrow per dependency, child graphs as clusters.

use std::fmt::Write as _;

use super::op::{CopyOp, Op};
use super::{Graph, NodeId};
use crate::backend::HostCall;

/// `hipGraphDebugDotFlagsVerbose`: every node's parameters.
pub const FLAG_VERBOSE: u32 = 1;

fn describe(op: &Op) -> String {
    match op {
        Op::Kernel(k) => format!(
            "{}\\ngrid ({}, {}, {}) block ({}, {}, {})\\nshared {} bytes, {} argument bytes",
            k.kernel.info().source_name,
            k.grid.x,
            k.grid.y,
            k.grid.z,
            k.block.x,
            k.block.y,
            k.block.z,
            k.shared_mem,
            k.args.len()
        ),
        Op::Copy(CopyOp { region, kind, .. }) => format!(
            "{:?}\\n{:p} <- {:p}\\n{} x {} x {} bytes",
            kind, region.dst, region.src, region.width, region.height, region.depth
        ),
        Op::Fill(f) => format!(
            "{:p}\\n{} x {} elements of {} bytes",
            f.dst,
            f.count,
            f.height,
            f.pattern.as_bytes().len()
        ),
        Op::Host(HostCall::Function {
            function,
            user_data,
        }) => {
            format!(
                "function {:p}\\ndata {user_data:#x}",
                *function as *const ()
            )
        }
        Op::Host(HostCall::Callback {
            callback,
            user_data,
            ..
        }) => {
            format!(
                "callback {:p}\\ndata {user_data:#x}",
                *callback as *const ()
            )
        }
        Op::WaitEvent(e) | Op::EventRecord(e) => format!("event {:#x}", e.handle),
        Op::MemAlloc(a) => format!("{:#x}\\n{} bytes", a.block.address, a.block.size),
        Op::MemFree { address } => format!("{address:#x}"),
        Op::Prefetch { address, count, .. } => format!("prefetch {address:#x}\\n{count} bytes"),
        Op::Graph(_) | Op::Empty => String::new(),
    }
}

fn write_graph(out: &mut String, graph: &Graph, verbose: bool, depth: usize) {
    let indent = "  ".repeat(depth);
    let nodes = graph.snapshot();
    // A child graph's node is drawn as its cluster; arrows to and from it reach its first node.
    let anchor = |id: NodeId, op: &Op| match op {
        Op::Graph(child) => child
            .node_ids()
            .first()
            .map_or(format!("n{id:x}"), |c| format!("n{c:x}")),
        _ => format!("n{id:x}"),
    };
    for (id, node) in &nodes {
        let name = node.op.node_type().name();
        match &node.op {
            Op::Graph(child) => {
                let _ = writeln!(out, "{indent}subgraph cluster_{id:x} {{");
                let _ = writeln!(out, "{indent}  label=\"{name} {id:#x}\";");
                write_graph(out, child, verbose, depth + 1);
                if child.node_ids().is_empty() {
                    let _ = writeln!(out, "{indent}  n{id:x} [label=\"(empty)\", shape=point];");
                }
                let _ = writeln!(out, "{indent}}}");
            }
            op => {
                let detail = if verbose { describe(op) } else { String::new() };
                let label = if detail.is_empty() {
                    format!("{name}\\n{id:#x}")
                } else {
                    format!("{name}\\n{id:#x}\\n{detail}")
                };
                let _ = writeln!(out, "{indent}n{id:x} [label=\"{label}\", shape=box];");
            }
        }
    }
    let ops: std::collections::HashMap<NodeId, &Op> =
        nodes.iter().map(|(id, n)| (*id, &n.op)).collect();
    for (id, node) in &nodes {
        for d in &node.deps {
            let from = ops.get(d).map_or(format!("n{d:x}"), |op| anchor(*d, op));
            let _ = writeln!(out, "{indent}{from} -> {};", anchor(*id, &node.op));
        }
    }
}

/// The DOT text of `graph`.
pub fn render(graph: &Graph, flags: u32) -> String {
    let mut out = format!("digraph hipGraph_{:x} {{\n", graph.handle());
    write_graph(&mut out, graph, flags & FLAG_VERBOSE != 0, 1);
    out.push_str("}\n");
    out
}
