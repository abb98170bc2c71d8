//! `hipmlir-complete-entry-point-interfaces`: each entry point lists the built-in variables
//! (Input variables: work-item ids and kin) of every function it reaches through calls, not
//! only of its own function.
//!
//! SPIR-V requires an entry point's interface to list each Input variable that its call tree
//! reads. MLIR's `spirv-lower-abi-attrs` lists those its function reads itself, which is all
//! there is once inlining left no call. What inlining leaves: a helper not inlined (the memory
//! checker's slow path, which reads the work-item's ids to report; a recursive function). A
//! kernel that reads no id itself then had an interface without them, which `spirv-val`
//! rejects.

use std::collections::{BTreeSet, HashMap, HashSet};

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::attribute::{ArrayAttribute, FlatSymbolRefAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::{
    OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult,
};
use melior::ir::{Attribute, Module, OperationRef};
use melior::Context;

use crate::spirv::call_graph::CallGraph;
use crate::symbols::{array_elements, module_body, symbol};
use crate::LowerError;

/// What the pass learns of one spirv.module (its own symbol table) before it changes anything.
#[derive(Default)]
struct Interfaces<'c> {
    calls: CallGraph,
    /// The module's built-in variables, in the module's order.
    built_ins: Vec<String>,
    /// Per function, the built-in variables whose address it takes.
    reads: HashMap<String, HashSet<String>>,
    entry_points: Vec<OperationRef<'c, 'c>>,
}

pub fn complete_entry_point_interfaces(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns.add(Pattern::new("spirv.module", complete_module));
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut ())
}

fn complete_module<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut (),
    module: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let mut interfaces = Interfaces::default();
    let mut next = module_body(module.to_raw())?.first_operation();
    while let Some(op) = next {
        match op.name().as_string_ref().as_str() {
            Ok("spirv.GlobalVariable") if op.has_attribute("built_in") => {
                interfaces.built_ins.extend(symbol(&op, "sym_name"));
            }
            Ok("spirv.func") => note_function(&mut interfaces, &op),
            // SAFETY: an operation of the live module, which the pass does not erase.
            Ok("spirv.EntryPoint") => interfaces
                .entry_points
                .push(unsafe { OperationRef::from_raw(op.to_raw()) }),
            _ => {}
        }
        next = op.next_in_block();
    }
    let mut outcome = Outcome::NoMatch;
    for entry_point in &interfaces.entry_points {
        if complete(rw.ctx, &interfaces, entry_point) {
            outcome = Outcome::Rewrote;
        }
    }
    Ok(outcome)
}

fn note_function(interfaces: &mut Interfaces, function: &OperationRef) {
    let Some(name) = interfaces.calls.note(function) else {
        return;
    };
    let mut reads = HashSet::new();
    function.walk(WalkOrder::PreOrder, |inner| {
        if inner.name().as_string_ref().as_str() == Ok("spirv.mlir.addressof") {
            reads.extend(symbol(&inner, "variable"));
        }
        WalkResult::Advance
    });
    interfaces.reads.insert(name, reads);
}

/// Completes `entry_point`'s interface: what it lists, then the built-in variables its call
/// tree reads that it does not, in the module's order. Whether it added any.
fn complete<'c>(
    ctx: &'c Context,
    interfaces: &Interfaces,
    entry_point: &OperationRef<'c, 'c>,
) -> bool {
    let Some(function) = symbol(entry_point, "fn") else {
        return false;
    };
    let listed: Vec<Attribute<'c>> = entry_point
        .attribute("interface")
        .ok()
        .and_then(array_elements)
        .unwrap_or_default();
    let listed_names: BTreeSet<String> = listed
        .iter()
        .filter_map(|a| FlatSymbolRefAttribute::try_from(*a).ok())
        .map(|a| a.value().to_string())
        .collect();
    let read: HashSet<&String> = interfaces
        .calls
        .reached(&function)
        .iter()
        .filter_map(|f| interfaces.reads.get(f))
        .flatten()
        .collect();
    let missing: Vec<Attribute<'c>> = interfaces
        .built_ins
        .iter()
        .filter(|v| !listed_names.contains(*v) && read.contains(v))
        .map(|v| FlatSymbolRefAttribute::new(ctx, v).into())
        .collect();
    if missing.is_empty() {
        return false;
    }
    let interface: Vec<Attribute<'c>> = listed.into_iter().chain(missing).collect();
    // SAFETY: the live entry point; setting an attribute keeps it alive.
    let mut entry_point = unsafe { OperationRefMut::from_raw(entry_point.to_raw()) };
    entry_point.set_attribute("interface", ArrayAttribute::new(ctx, &interface).into());
    true
}
