//! `hipmlir-mark-recursive-calls`: after inlining, a call left in device code is recursion (the
//! inliner leaves only calls into a cycle of the call graph). Intel's OpenCL CPU compiler
//! refuses a recursive `OpFunctionCall` ("Unsupported recursive call") but runs recursion whose
//! recursive calls go through SPV_INTEL_function_pointers: here every call between functions of
//! one cycle (a strongly connected component of the call graph: self-recursion, mutual
//! recursion) is marked [`RECURSIVE_CALL_ATTRIBUTE`]; the mark travels to the call's
//! `spirv.FunctionCall` (`functions`) and, after serialization, the call becomes an
//! `OpFunctionPointerCallINTEL` of the callee's constant pointer (`patch::call_through_pointers`).
//! A kernel calling into a cycle is not part of it: its call stays a plain `OpFunctionCall`.
//!
//! It runs after the stage `lowered` (a build for NVIDIA targets alone runs the SPIR-V pipeline
//! that far for the metadata, and must not fail on what only SPIR-V cannot do). What a
//! recursive function cannot do on SPIR-V is reported where it is, naming the cycle: warp operations (the
//! lowering sizes and numbers subgroups per kernel, from the kernel's own body), thread
//! coordinates read in a function called from a kernel using warp operations (whose blocks run
//! linearized: `linear_blocks` recomputes the coordinates in the kernel only), and dynamic
//! shared memory (a kernel's trailing argument: `dynamic_shared` leaves other uses to this
//! pass).

use std::collections::{HashMap, HashSet, VecDeque};

use hipmlir_device_image::{DYNAMIC_SHARED_SYMBOL, HOST_ATTRIBUTE};
use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use hipmlir_ir::{source_location, SourceLoc};
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRefMut};
use melior::ir::{Attribute, Module, OperationRef, RegionLike};
use melior::Context;

use crate::symbols::symbol;
use crate::LowerError;

/// The unit attribute on a `func.call` (then `spirv.FunctionCall`) between two functions of one
/// cycle of the call graph.
pub const RECURSIVE_CALL_ATTRIBUTE: &str = "hipmlir.recursive_call";

/// Warp operations, which a recursive function may not hold.
const WARP_OPERATIONS: &[&str] = &[
    "gpu.shuffle",
    "gpu.subgroup_reduce",
    "gpu.lane_id",
    "gpu.subgroup_size",
];

/// Thread coordinates that a linearized kernel recomputes in its own body.
const COORDINATES: &[&str] = &["gpu.thread_id", "gpu.block_dim"];

/// The address of a global: dynamic shared memory's placeholder is one.
const ADDRESS_OF: &str = "llvm.mlir.addressof";

/// One device function with a body (at any depth: before or after outlining).
struct Function {
    name: String,
    /// A kernel whose blocks will run linearized: one using warp operations.
    linear_kernel: bool,
}

/// The device functions, the calls between them, and the operations the checks look for.
#[derive(Default)]
struct CallGraph {
    functions: Vec<Function>,
    /// A function's index in `functions`, by the function's address.
    index: HashMap<usize, usize>,
    /// (caller's index, callee, where, the call's address).
    calls: Vec<(usize, String, Option<SourceLoc>, usize)>,
    /// (function's index, operation name, where) of each operation of `WARP_OPERATIONS` and
    /// `COORDINATES`, and of each use of dynamic shared memory (`ADDRESS_OF`).
    watched: Vec<(usize, &'static str, Option<SourceLoc>)>,
}

/// A function and the calls it makes: (callee, where).
type Calls = (String, Vec<(String, Option<SourceLoc>)>);

pub fn mark_recursive_calls(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns
        .add(Pattern::new("func.func", note_function))
        .add(Pattern::new("gpu.func", note_function))
        .next_stage()
        .add(Pattern::new("func.call", note_call));
    for name in WARP_OPERATIONS
        .iter()
        .chain(COORDINATES)
        .chain([&ADDRESS_OF])
    {
        patterns.add(Pattern::new(name, note_watched));
    }
    let mut graph = CallGraph::default();
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut graph)?;

    // The calls each function makes of functions defined here (declarations are device library
    // functions, lowered later), with their locations.
    let defined: HashSet<&str> = graph.functions.iter().map(|f| f.name.as_str()).collect();
    let mut calls: Vec<Calls> = graph
        .functions
        .iter()
        .map(|f| (f.name.clone(), Vec::new()))
        .collect();
    for (caller, callee, at, _) in &graph.calls {
        if defined.contains(callee.as_str()) {
            calls[*caller].1.push((callee.clone(), at.clone()));
        }
    }
    // A call is recursive when its caller can be reached from its callee.
    let mut recursive = HashSet::new();
    let mut cycle_of: HashMap<usize, (String, Vec<String>)> = HashMap::new();
    for (caller, callee, _, call) in &graph.calls {
        let caller_name = &graph.functions[*caller].name;
        if !defined.contains(callee.as_str()) {
            continue;
        }
        if let Some(cycle) = call_cycle(&calls, callee, caller_name) {
            recursive.insert(*call);
            cycle_of
                .entry(*caller)
                .or_insert_with(|| (caller_name.clone(), cycle));
        }
    }
    check_recursive_functions(&graph, &calls, &cycle_of)?;
    if recursive.is_empty() {
        return Ok(());
    }
    let mut marking = RewritePatternSet::new();
    marking.add(Pattern::new("func.call", mark_call));
    apply_patterns(ctx, &module.as_operation(), &marking, &mut recursive)
}

/// What a function of a cycle may not do, reported where it does it.
fn check_recursive_functions(
    graph: &CallGraph,
    calls: &[Calls],
    cycle_of: &HashMap<usize, (String, Vec<String>)>,
) -> Result<(), LowerError> {
    // The functions that linearized kernels call, at any depth.
    let linear_kernels: Vec<&str> = graph
        .functions
        .iter()
        .filter(|f| f.linear_kernel)
        .map(|f| f.name.as_str())
        .collect();
    let under_linear_kernels = reachable(calls, &linear_kernels);
    for (function, op, at) in &graph.watched {
        let Some((caller, cycle)) = cycle_of.get(function) else {
            continue;
        };
        let name = &graph.functions[*function].name;
        let what = if WARP_OPERATIONS.contains(op) {
            "a warp operation (a shuffle, vote or reduction, the lane id, warpSize) in a \
             recursive function"
        } else if *op == ADDRESS_OF {
            "dynamic shared memory (extern __shared__) in a recursive function (a kernel's \
             own: pass a pointer to it)"
        } else if under_linear_kernels.contains(name.as_str()) {
            "threadIdx or blockDim in a recursive function called from a kernel using warp \
             operations (such a kernel recomputes them from its linear thread id)"
        } else {
            continue;
        };
        return Err(LowerError::Unsupported {
            location: at.clone(),
            message: format!(
                "{what} ({}; on SPIR-V, recursive functions are called through \
                 SPV_INTEL_function_pointers: NVIDIA targets, --offload-arch=sm_XX alone, \
                 run it)",
                describe_cycle(caller, cycle)
            ),
        });
    }
    Ok(())
}

/// A device function with a body.
fn note_function<'c>(
    _: &mut PatternRewriter<'c>,
    graph: &mut CallGraph,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let has_body = op.region(0).is_ok_and(|r| r.first_block().is_some());
    if op.has_attribute(HOST_ATTRIBUTE) || !has_body {
        return Ok(Outcome::NoMatch);
    }
    graph
        .index
        .insert(op.to_raw().ptr as usize, graph.functions.len());
    graph.functions.push(Function {
        name: symbol(&op, "sym_name").unwrap_or_default(),
        linear_kernel: op.has_attribute("gpu.kernel") && crate::spirv::uses_warp_operations(&op),
    });
    Ok(Outcome::Rewrote)
}

/// The index of the device function `op` is in.
fn enclosing_function(graph: &CallGraph, op: &OperationRef) -> Option<usize> {
    let mut parent = op.parent_operation();
    while let Some(p) = parent {
        if matches!(
            p.name().as_string_ref().as_str(),
            Ok("func.func" | "gpu.func")
        ) {
            break;
        }
        parent = p.parent_operation();
    }
    parent.and_then(|p| graph.index.get(&(p.to_raw().ptr as usize)).copied())
}

/// A call in one of those functions.
fn note_call<'c>(
    _: &mut PatternRewriter<'c>,
    graph: &mut CallGraph,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let Some(caller) = enclosing_function(graph, &op) else {
        return Ok(Outcome::NoMatch);
    };
    let callee = symbol(&op, "callee").unwrap_or_default();
    graph.calls.push((
        caller,
        callee,
        source_location(op.location()),
        op.to_raw().ptr as usize,
    ));
    Ok(Outcome::Rewrote)
}

/// An operation that `check_recursive_functions` looks at.
fn note_watched<'c>(
    _: &mut PatternRewriter<'c>,
    graph: &mut CallGraph,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let Some(function) = enclosing_function(graph, &op) else {
        return Ok(Outcome::NoMatch);
    };
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or_default();
    if name == ADDRESS_OF && symbol(&op, "global_name").as_deref() != Some(DYNAMIC_SHARED_SYMBOL) {
        return Ok(Outcome::NoMatch);
    }
    let known = WARP_OPERATIONS
        .iter()
        .chain(COORDINATES)
        .chain([&ADDRESS_OF])
        .find(|n| **n == name)
        .copied();
    if let Some(known) = known {
        graph
            .watched
            .push((function, known, source_location(op.location())));
    }
    Ok(Outcome::NoMatch)
}

/// Marks the calls found recursive.
fn mark_call<'c>(
    rw: &mut PatternRewriter<'c>,
    recursive: &mut HashSet<usize>,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if !recursive.contains(&(op.to_raw().ptr as usize)) {
        return Ok(Outcome::NoMatch);
    }
    // SAFETY: the live call; setting an attribute keeps it alive.
    let mut call = unsafe { OperationRefMut::from_raw(op.to_raw()) };
    call.set_attribute(RECURSIVE_CALL_ATTRIBUTE, Attribute::unit(rw.ctx));
    Ok(Outcome::Rewrote)
}

/// The functions that `roots` call, at any depth.
fn reachable<'a>(calls: &'a [Calls], roots: &[&'a str]) -> HashSet<&'a str> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut queue: VecDeque<&str> = roots.iter().copied().collect();
    while let Some(at) = queue.pop_front() {
        for (_, callees) in calls.iter().filter(|(c, _)| c == at) {
            for (callee, _) in callees {
                if seen.insert(callee.as_str()) {
                    queue.push_back(callee);
                }
            }
        }
    }
    seen
}

/// The functions from `from` to `to` along the calls, both included; None when `to` cannot be
/// reached.
fn call_cycle(calls: &[Calls], from: &str, to: &str) -> Option<Vec<String>> {
    let mut previous: HashMap<&str, &str> = Default::default();
    let mut queue = VecDeque::from([from]);
    while let Some(at) = queue.pop_front() {
        if at == to {
            let mut path = vec![at.to_string()];
            let mut step = at;
            while let Some(p) = previous.get(step) {
                path.push(p.to_string());
                step = p;
            }
            path.reverse();
            return Some(path);
        }
        let next = calls
            .iter()
            .filter(|(c, _)| c == at)
            .flat_map(|(_, callees)| callees.iter().map(|(callee, _)| callee.as_str()));
        for n in next {
            if n != from && !previous.contains_key(n) {
                previous.insert(n, at);
                queue.push_back(n);
            }
        }
    }
    None
}

/// "f calls itself" or "f calls g, which calls f", with the source's names.
fn describe_cycle(caller: &str, path: &[String]) -> String {
    let name = |symbol: &str| {
        let mangled = symbol.trim_start_matches('@');
        cpp_demangle::Symbol::new(mangled)
            .ok()
            .and_then(|s| s.demangle().ok())
            .unwrap_or_else(|| mangled.to_string())
    };
    match path {
        [only] if only == caller => format!("'{}' calls itself", name(caller)),
        _ => {
            let mut text = format!("'{}' calls", name(caller));
            for (i, f) in path.iter().enumerate() {
                if i > 0 {
                    text.push_str(", which calls");
                }
                text.push_str(&format!(" '{}'", name(f)));
            }
            text
        }
    }
}
