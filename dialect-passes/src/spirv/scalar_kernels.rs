//! `hipmlir-hint-scalar-kernels`: a kernel with very many branches, whose subgroup size is not
//! pinned, gets OpenCL's vector type hint of a scalar (`VecTypeHint` of one `int`): the kernel
//! says it computes on scalars.
//!
//! Intel's OpenCL CPU compiler then compiles it without vectorizing across work-items. Its
//! vectorizer's time grows much faster than the kernel: 150 s for one kernel of 6800
//! conditionals (tests/programs/virtual_base_construction.hip, its virtual calls inlined), 5 s
//! without it, while kernels of 500 build in under 2 s either way. Code made of that many
//! branches gains little from running work-items as vector lanes. Other devices take the hint
//! as a hint. A kernel that pins its subgroup size (warp operations: `SubgroupSize 32`) keeps
//! it: Intel's compiler refuses both at once.

use std::collections::{HashMap, HashSet};

use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::attribute::{ArrayAttribute, FlatSymbolRefAttribute, IntegerAttribute};
use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, Module, OperationRef};
use melior::Context;

use crate::builder::Rewriter;
use crate::spirv::call_graph::CallGraph;
use crate::spirv::ir::execution_mode_attr;
use crate::symbols::symbol;
use crate::LowerError;

/// The structured branches and loops (reached through calls too) from which a kernel is hinted,
/// unless the pass's `branches` option says otherwise.
pub const SCALAR_KERNEL_BRANCHES: usize = 2000;

/// Where `VecTypeHint`'s operand holds the vector's components (the high 16 bits); the data
/// type is in the low 16.
const HINT_COMPONENTS_SHIFT: u32 = 16;

/// `VecTypeHint`'s operand for one 32-bit integer (data type 2).
const SCALAR_INT_HINT: i64 = (1 << HINT_COMPONENTS_SHIFT) | 2;

/// Whether a `VecTypeHint` operand names a scalar type (one component).
pub(crate) fn is_scalar_hint(hint: i64) -> bool {
    hint >> HINT_COMPONENTS_SHIFT == 1
}

/// What the pass learns before it changes anything.
#[derive(Default)]
struct Functions {
    /// Per function: its own branches and loops.
    own: HashMap<String, usize>,
    calls: CallGraph,
    /// The functions whose execution modes already pin a subgroup size or give a hint.
    pinned: HashSet<String>,
    /// The branches from which a kernel is hinted.
    branches: usize,
}

impl Functions {
    /// The branches and loops of `function` and of every function it reaches, each once.
    fn reached_branches(&self, function: &str) -> usize {
        self.calls
            .reached(function)
            .iter()
            .filter_map(|f| self.own.get(f))
            .sum()
    }
}

pub fn hint_scalar_kernels(
    ctx: &Context,
    module: &Module,
    branches: usize,
) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns
        .add(Pattern::new("spirv.func", note_function))
        .add(Pattern::new("spirv.ExecutionMode", note_execution_mode))
        .next_stage()
        .add(Pattern::new("spirv.EntryPoint", hint_kernel));
    let mut functions = Functions {
        branches,
        ..Functions::default()
    };
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut functions)
}

fn note_function<'c>(
    _: &mut PatternRewriter<'c>,
    functions: &mut Functions,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let Some(name) = functions.calls.note(&op) else {
        return Ok(Outcome::NoMatch);
    };
    let mut branches = 0;
    op.walk(WalkOrder::PreOrder, |inner| {
        if let Ok("spirv.mlir.selection" | "spirv.mlir.loop") =
            inner.name().as_string_ref().as_str()
        {
            branches += 1;
        }
        WalkResult::Advance
    });
    functions.own.insert(name, branches);
    Ok(Outcome::NoMatch)
}

fn note_execution_mode<'c>(
    rw: &mut PatternRewriter<'c>,
    functions: &mut Functions,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let mode = op.attribute("execution_mode").ok();
    let pins = [
        spirv::ExecutionMode::SubgroupSize,
        spirv::ExecutionMode::VecTypeHint,
    ]
    .map(|m| execution_mode_attr(rw.ctx, m));
    if mode.is_some_and(|m| pins.contains(&m)) {
        functions.pinned.extend(symbol(&op, "fn"));
    }
    Ok(Outcome::NoMatch)
}

fn hint_kernel<'c>(
    rw: &mut PatternRewriter<'c>,
    functions: &mut Functions,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let Some(kernel) = symbol(&op, "fn") else {
        return Ok(Outcome::NoMatch);
    };
    if functions.pinned.contains(&kernel)
        || functions.reached_branches(&kernel) < functions.branches
    {
        return Ok(Outcome::NoMatch);
    }
    let ctx = rw.ctx;
    let hint: Attribute =
        IntegerAttribute::new(IntegerType::new(ctx, 32).into(), SCALAR_INT_HINT).into();
    Rewriter::after(ctx, &op).generic(
        "spirv.ExecutionMode",
        &[],
        &[],
        &[
            ("fn", FlatSymbolRefAttribute::new(ctx, &kernel).into()),
            (
                "execution_mode",
                execution_mode_attr(ctx, spirv::ExecutionMode::VecTypeHint),
            ),
            ("values", ArrayAttribute::new(ctx, &[hint]).into()),
        ],
        vec![],
        &[],
    )?;
    functions.pinned.insert(kernel);
    Ok(Outcome::Rewrote)
}
