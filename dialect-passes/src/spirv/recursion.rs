//! `hipmlir-reject-recursion`: after inlining, a call left in device code can only be
//! recursion, which hipmlir's SPIR-V does not run (every call is inlined; OpenCL C has no
//! recursion either): reported where the call is, naming the functions of the cycle. NVIDIA
//! targets run it (the PTX pipeline does not have this pass).

use std::collections::HashMap;

use hipmlir_device_image::HOST_ATTRIBUTE;
use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use hipmlir_ir::{source_location, SourceLoc};
use melior::ir::operation::OperationLike;
use melior::ir::{Module, OperationRef, RegionLike};
use melior::Context;

use crate::symbols::symbol;
use crate::LowerError;

/// The functions with a body (at any depth: before or after outlining), in order, and the
/// calls each makes.
#[derive(Default)]
struct CallGraph {
    functions: Vec<String>,
    /// A function's index in `functions`, by the function's address.
    index: HashMap<usize, usize>,
    /// (caller's index, callee, where).
    calls: Vec<(usize, String, Option<SourceLoc>)>,
}

/// A function and the calls it makes: (callee, where).
type Calls = (String, Vec<(String, Option<SourceLoc>)>);

pub fn reject_recursion(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns
        .add(Pattern::new("func.func", note_function))
        .add(Pattern::new("gpu.func", note_function))
        .add(Pattern::new("func.call", note_call));
    let mut graph = CallGraph::default();
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut graph)?;
    // The calls each function makes of functions defined here (declarations are device library
    // functions, lowered later), with their locations.
    let mut calls: Vec<Calls> = graph
        .functions
        .iter()
        .map(|f| (f.clone(), Vec::new()))
        .collect();
    for (caller, callee, at) in graph.calls {
        if graph.functions.contains(&callee) {
            calls[caller].1.push((callee, at));
        }
    }
    // The first call that closes a cycle.
    let Some((caller, location, cycle)) = calls.iter().find_map(|(caller, callees)| {
        callees.iter().find_map(|(callee, at)| {
            call_cycle(&calls, callee, caller).map(|cycle| (caller, at, cycle))
        })
    }) else {
        return Ok(());
    };
    Err(LowerError::Unsupported {
        location: location.clone(),
        message: format!(
            "recursion ({}; hipmlir compiles SPIR-V with every call inlined: NVIDIA targets, \
             --offload-arch=sm_XX alone, run it)",
            describe_cycle(caller, &cycle)
        ),
    })
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
    graph
        .functions
        .push(symbol(&op, "sym_name").unwrap_or_default());
    Ok(Outcome::Rewrote)
}

/// A call in one of those functions.
fn note_call<'c>(
    _: &mut PatternRewriter<'c>,
    graph: &mut CallGraph,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
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
    let Some(caller) = parent.and_then(|p| graph.index.get(&(p.to_raw().ptr as usize)).copied())
    else {
        return Ok(Outcome::NoMatch);
    };
    let callee = symbol(&op, "callee").unwrap_or_default();
    graph
        .calls
        .push((caller, callee, source_location(op.location())));
    Ok(Outcome::Rewrote)
}

/// The functions from `from` to `to` along the calls, both included; None when `to` cannot be
/// reached.
fn call_cycle(calls: &[Calls], from: &str, to: &str) -> Option<Vec<String>> {
    let mut previous: std::collections::HashMap<&str, &str> = Default::default();
    let mut queue = std::collections::VecDeque::from([from]);
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
