//! The rewrite driver every hipmlir pass runs on, in the shape of MLIR's pattern rewriting: a
//! pattern is an operation name and a rewrite, a pass gathers its patterns in a
//! [`RewritePatternSet`] (its `populate` function) and hands them to [`apply_patterns`].
//!
//! The driver owns the walk, the replacements and the erasures, so that no pass can touch an
//! operation after it was erased:
//!
//! - one walk (pre-order, before any rewrite) offers every operation to the patterns of its
//!   name; operations that rewrites create are not offered (one sweep, as each pass was
//!   written for);
//! - the patterns come in stages: every operation is offered to the first stage's patterns,
//!   in walk order, before any is offered to the second stage's (a pass whose rewrites build
//!   on each other, as the NVPTX lowering's do);
//! - an erased operation (or one inside it) is never offered again, and is destroyed only
//!   after the last rewrite, users before the values they use;
//! - [`erase_unused`], [`move_before`] and [`append_to`] serve code outside a pattern walk
//!   (the device link, helpers that move an operation into a function they build).
//!
//! This file is the only place that removes or destroys operations.

use std::collections::HashSet;

use rustc_hash::{FxHashMap, FxHashSet};

use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::{BlockLike, OperationRef, ValueLike};
use melior::Context;
use mlir_sys::{MlirBlock, MlirOperation};

use crate::{source_location, SourceLoc, Value};

/// What a pattern did with the operation it was offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Rewritten (or left as it is on purpose): no later pattern of the stage sees it.
    Rewrote,
    /// Not this pattern's case: the next pattern of the stage for the same name is tried.
    NoMatch,
}

/// A rewrite: the driver's handle, the pass's state, and the operation offered.
pub type RewriteFn<S, E> =
    for<'c> fn(&mut PatternRewriter<'c>, &mut S, OperationRef<'c, 'c>) -> Result<Outcome, E>;

/// Which operations a pattern is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    Named(&'static str),
    /// Every operation (a pass that renumbers types everywhere).
    Any,
}

/// One pattern: the operations it is offered and its rewrite.
pub struct Pattern<S, E> {
    root: Root,
    rewrite: RewriteFn<S, E>,
}

impl<S, E> Pattern<S, E> {
    /// A pattern offered the operations named `op` (`"llvm.load"`).
    pub const fn new(op: &'static str, rewrite: RewriteFn<S, E>) -> Self {
        Pattern {
            root: Root::Named(op),
            rewrite,
        }
    }

    /// A pattern offered every operation.
    pub const fn any(rewrite: RewriteFn<S, E>) -> Self {
        Pattern {
            root: Root::Any,
            rewrite,
        }
    }
}

impl<S, E> Clone for Pattern<S, E> {
    fn clone(&self) -> Self {
        Pattern {
            root: self.root,
            rewrite: self.rewrite,
        }
    }
}

/// A pass's patterns, in stages (see the module comment); within a stage, the patterns of one
/// name are tried in the order they were added.
pub struct RewritePatternSet<S, E> {
    stages: Vec<Vec<Pattern<S, E>>>,
}

impl<S, E> Default for RewritePatternSet<S, E> {
    fn default() -> Self {
        RewritePatternSet {
            stages: vec![Vec::new()],
        }
    }
}

impl<S, E> RewritePatternSet<S, E> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a pattern to the current stage.
    pub fn add(&mut self, pattern: Pattern<S, E>) -> &mut Self {
        if let Some(stage) = self.stages.last_mut() {
            stage.push(pattern);
        }
        self
    }

    /// Adds patterns to the current stage.
    pub fn extend(&mut self, patterns: impl IntoIterator<Item = Pattern<S, E>>) -> &mut Self {
        for p in patterns {
            self.add(p);
        }
        self
    }

    /// Starts the next stage: the patterns added from here on see every operation after the
    /// earlier stages' patterns have seen them all.
    pub fn next_stage(&mut self) -> &mut Self {
        self.stages.push(Vec::new());
        self
    }
}

/// What the driver itself refuses: an erasure that would leave a value used after its
/// definition is gone (a bug of the pass that asked for it).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}cannot erase '{operation}': {reason}", location.as_ref().map(|l| format!("{l}: ")).unwrap_or_default())]
pub struct RewriteError {
    pub operation: String,
    pub reason: String,
    pub location: Option<SourceLoc>,
}

impl RewriteError {
    /// `op` cannot be destroyed: its results are still used.
    fn still_used<'c, 'a>(op: &impl OperationLike<'c, 'a>) -> RewriteError
    where
        'c: 'a,
    {
        RewriteError {
            operation: op
                .name()
                .as_string_ref()
                .as_str()
                .unwrap_or("?")
                .to_string(),
            reason: "its results are still used".to_string(),
            location: source_location(op.location()),
        }
    }
}

/// The handle a pattern rewrites through: the context, replacements, and erasures the driver
/// carries out after the walk.
pub struct PatternRewriter<'c> {
    pub ctx: &'c Context,
    erased: Vec<MlirOperation>,
    erased_set: FxHashSet<usize>,
    /// Operations to erase if nothing uses them once the erasures are done.
    if_unused: Vec<MlirOperation>,
}

fn key(op: MlirOperation) -> usize {
    op.ptr as usize
}

impl<'c> PatternRewriter<'c> {
    fn new(ctx: &'c Context) -> Self {
        PatternRewriter {
            ctx,
            erased: Vec::new(),
            erased_set: FxHashSet::default(),
            if_unused: Vec::new(),
        }
    }

    /// Erases `op` once the walk is over; it is not offered to any pattern from now on.
    pub fn erase_op<'a>(&mut self, op: &impl OperationLike<'c, 'a>)
    where
        'c: 'a,
    {
        if self.erased_set.insert(key(op.to_raw())) {
            self.erased.push(op.to_raw());
        }
    }

    /// Erases `op` after the walk if nothing uses its results once every other erasure is
    /// done (a value only the erased operations used); it stays otherwise, and is offered to
    /// patterns as usual.
    pub fn erase_if_unused<'a>(&mut self, op: &impl OperationLike<'c, 'a>)
    where
        'c: 'a,
    {
        self.if_unused.push(op.to_raw());
    }

    /// Replaces the uses of `op`'s first results by `values`, one for one, and erases it. The
    /// results beyond `values` must be unused.
    pub fn replace_op<'a>(&mut self, op: &impl OperationLike<'c, 'a>, values: &[Value<'c>])
    where
        'c: 'a,
    {
        for (result, value) in op.results().zip(values) {
            replace_all_uses_with(result, *value);
        }
        self.erase_op(op);
    }

    /// Whether `op`, or an operation holding it, was erased.
    pub fn is_erased(&self, op: MlirOperation) -> bool {
        if self.erased_set.is_empty() {
            return false;
        }
        let mut current = op;
        while !current.ptr.is_null() {
            if self.erased_set.contains(&key(current)) {
                return true;
            }
            // SAFETY: parent queries on live IR (erased operations stay alive until the end).
            current = unsafe { mlir_sys::mlirOperationGetParentOperation(current) };
        }
        false
    }

    /// Destroys the erased operations: each once nothing outside the erased ones uses its
    /// results, users first.
    fn finish(self) -> Result<(), RewriteError> {
        // An operation inside another erased one goes with it (decided before anything is
        // destroyed).
        let outermost = |ops: &[MlirOperation]| -> Vec<MlirOperation> {
            let mut seen = HashSet::new();
            ops.iter()
                .copied()
                .filter(|op| {
                    // SAFETY: a live operation's parent.
                    let parent = unsafe { mlir_sys::mlirOperationGetParentOperation(*op) };
                    !self.is_erased(parent) && seen.insert(key(*op))
                })
                .collect()
        };
        let mut pending = outermost(&self.erased);
        let mut if_unused: Vec<MlirOperation> = outermost(&self.if_unused)
            .into_iter()
            .filter(|op| !self.erased_set.contains(&key(*op)))
            .collect();
        // Later erasures use earlier ones' values more often than the reverse.
        pending.reverse();
        destroy_unused(&mut pending);
        if let Some(&stuck) = pending.first() {
            // SAFETY: a live operation.
            let op = unsafe { OperationRef::from_raw(stuck) };
            return Err(RewriteError::still_used(&op));
        }
        if_unused.reverse();
        destroy_unused(&mut if_unused);
        Ok(())
    }
}

/// A stage's patterns: by the uniqued identifier of the operation name they are offered, and
/// those offered every operation.
struct Stage<S, E> {
    named: FxHashMap<usize, Vec<RewriteFn<S, E>>>,
    any: Vec<RewriteFn<S, E>>,
}

/// An operation offered to a stage, with the stage's patterns for its name (the stage's `any`
/// patterns follow them).
type Offer<'t, S, E> = (MlirOperation, &'t [RewriteFn<S, E>]);

/// The context's uniqued identifier of `name`, as a key.
fn identifier(ctx: &Context, name: &str) -> usize {
    // SAFETY: a live context; the string is copied into it.
    unsafe {
        mlir_sys::mlirIdentifierGet(
            ctx.to_raw(),
            mlir_sys::MlirStringRef {
                data: name.as_ptr().cast(),
                length: name.len(),
            },
        )
    }
    .ptr as usize
}

/// Offers the operations of `root` (itself included) to the patterns of `patterns`, stage by
/// stage (see the module comment), then destroys what the rewrites erased. The first error of
/// a rewrite stops the walk; what was erased until then is still destroyed.
pub fn apply_patterns<'c, 'a, S, E: From<RewriteError>>(
    ctx: &'c Context,
    root: &impl OperationLike<'c, 'a>,
    patterns: &RewritePatternSet<S, E>,
    state: &mut S,
) -> Result<(), E>
where
    'c: 'a,
{
    // Each stage's patterns by operation name, in the order they were added, and the `Any`
    // ones. Names are the context's uniqued identifiers: an operation's name is looked up by
    // pointer, not by its text (the driver runs under every pass, over every operation).
    let tables: Vec<Stage<S, E>> = patterns
        .stages
        .iter()
        .map(|stage| {
            let mut table = Stage {
                named: FxHashMap::default(),
                any: Vec::new(),
            };
            for p in stage {
                match p.root {
                    Root::Named(name) => table
                        .named
                        .entry(identifier(ctx, name))
                        .or_default()
                        .push(p.rewrite),
                    Root::Any => table.any.push(p.rewrite),
                }
            }
            table
        })
        .collect();
    // The operations each stage is offered, in walk order, with their named patterns.
    let mut offers: Vec<Vec<Offer<S, E>>> = vec![Vec::new(); tables.len()];
    root.walk(WalkOrder::PreOrder, |op| {
        // SAFETY: a live operation's uniqued name.
        let name = unsafe { mlir_sys::mlirOperationGetName(op.to_raw()) }.ptr as usize;
        for (table, offered) in tables.iter().zip(offers.iter_mut()) {
            let named = table.named.get(&name).map_or(&[][..], Vec::as_slice);
            if !named.is_empty() || !table.any.is_empty() {
                offered.push((op.to_raw(), named));
            }
        }
        WalkResult::Advance
    });
    let mut rewriter = PatternRewriter::new(ctx);
    let mut result = Ok(());
    'stages: for (offered, table) in offers.into_iter().zip(&tables) {
        for (raw, named) in offered {
            if rewriter.is_erased(raw) {
                continue;
            }
            for rewrite in named.iter().chain(&table.any) {
                // SAFETY: a live operation of the module (erased ones are skipped above and
                // destroyed only below).
                let op = unsafe { OperationRef::from_raw(raw) };
                match rewrite(&mut rewriter, state, op) {
                    Ok(Outcome::Rewrote) => break,
                    Ok(Outcome::NoMatch) => {}
                    Err(e) => {
                        result = Err(e);
                        break 'stages;
                    }
                }
            }
        }
    }
    let finished = rewriter.finish().map_err(E::from);
    result.and(finished)
}

/// Replaces every use of `from` by `to`.
pub fn replace_all_uses_with<'c>(from: impl ValueLike<'c>, to: impl ValueLike<'c>) {
    // SAFETY: two live values.
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(from.to_raw(), to.to_raw()) }
}

/// Replaces every use of `from` by `to`, except the uses by `user` (which builds `to` from
/// `from`).
pub fn replace_all_uses_except<'c, 'a>(
    from: impl ValueLike<'c>,
    to: impl ValueLike<'c>,
    user: &impl OperationLike<'c, 'a>,
) where
    'c: 'a,
{
    let mut except = user.to_raw();
    // SAFETY: two live values and a live operation, passed as a one-element array.
    unsafe { mlir_sys::mlirValueReplaceAllUsesExcept(from.to_raw(), to.to_raw(), 1, &mut except) }
}

/// Erases `op` now, outside a pattern walk: refused while its results are used.
pub fn erase_unused<'c, 'a>(op: &impl OperationLike<'c, 'a>) -> Result<(), RewriteError>
where
    'c: 'a,
{
    if has_uses(op.to_raw()) {
        return Err(RewriteError::still_used(op));
    }
    destroy(op.to_raw());
    Ok(())
}

/// Moves `op` (out of its block, if it has one) in front of `anchor`.
pub fn move_before<'c, 'a, 'b>(op: &impl OperationLike<'c, 'a>, anchor: &impl OperationLike<'c, 'b>)
where
    'c: 'a + 'b,
{
    // SAFETY: two live operations; MLIR moves `op` within or between blocks.
    unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), anchor.to_raw()) }
}

/// Moves `op` (out of its block, if it has one) to the end of `block`, which owns it from then
/// on.
pub fn append_to<'c, 'a, 'b>(op: &impl OperationLike<'c, 'a>, block: &impl BlockLike<'c, 'b>)
where
    'c: 'a + 'b,
{
    append_raw(op.to_raw(), block.to_raw())
}

fn append_raw(op: MlirOperation, block: MlirBlock) {
    detach(op);
    // SAFETY: a live, detached operation, owned by the live block from now on.
    unsafe { mlir_sys::mlirBlockAppendOwnedOperation(block, op) }
}

/// Takes `op` out of its block, if it is in one.
fn detach(op: MlirOperation) {
    // SAFETY: block queries and removal on a live operation.
    unsafe {
        if !mlir_sys::mlirOperationGetBlock(op).ptr.is_null() {
            mlir_sys::mlirOperationRemoveFromParent(op);
        }
    }
}

/// Whether any result of `op` is used.
fn has_uses(op: MlirOperation) -> bool {
    // SAFETY: result and use queries on a live operation.
    unsafe {
        (0..mlir_sys::mlirOperationGetNumResults(op)).any(|i| {
            !mlir_sys::mlirValueGetFirstUse(mlir_sys::mlirOperationGetResult(op, i))
                .ptr
                .is_null()
        })
    }
}

/// Destroys the operations of `ops` whose results have no uses, round after round (one's
/// destruction frees the results another used) until none is left or a round destroys none;
/// what cannot go stays in `ops`.
fn destroy_unused(ops: &mut Vec<MlirOperation>) {
    loop {
        let before = ops.len();
        ops.retain(|op| {
            if has_uses(*op) {
                return true;
            }
            destroy(*op);
            false
        });
        if ops.is_empty() || ops.len() == before {
            return;
        }
    }
}

/// The one place operations are destroyed: detached from their block, then freed with what
/// they hold.
fn destroy(op: MlirOperation) {
    detach(op);
    // SAFETY: a live, detached operation whose results are unused; nothing refers to it
    // afterwards (the driver forgets it, and erased operations are never offered again).
    unsafe { mlir_sys::mlirOperationDestroy(op) }
}

/// The closest operation named `name` that holds `op`.
pub fn enclosing<'c, 'a>(
    op: &impl OperationLike<'c, 'a>,
    name: &str,
) -> Option<OperationRef<'c, 'a>> {
    let mut current = op.parent_operation();
    while let Some(p) = current {
        if p.name().as_string_ref().as_str() == Ok(name) {
            return Some(p);
        }
        current = p.parent_operation();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use melior::ir::Module;

    fn context() -> Context {
        let ctx = Context::new();
        let registry = melior::dialect::DialectRegistry::new();
        melior::utility::register_all_dialects(&registry);
        ctx.append_dialect_registry(&registry);
        ctx.load_all_available_dialects();
        ctx
    }

    const MODULE: &str = r#"
module {
  func.func @f(%a: i32) -> i32 {
    %0 = arith.addi %a, %a : i32
    %1 = arith.muli %0, %0 : i32
    %2 = arith.subi %1, %0 : i32
    return %2 : i32
  }
}
"#;

    #[derive(Default)]
    struct Seen {
        names: Vec<String>,
    }

    fn record<'c>(
        _: &mut PatternRewriter<'c>,
        seen: &mut Seen,
        op: OperationRef<'c, 'c>,
    ) -> Result<Outcome, RewriteError> {
        seen.names
            .push(op.name().as_string_ref().as_str().unwrap().to_string());
        Ok(Outcome::NoMatch)
    }

    /// `%0 = addi`, used by muli and subi: its uses go to %a, then it is erased with the walk
    /// still offering the operations after it.
    fn fold_add<'c>(
        rw: &mut PatternRewriter<'c>,
        _: &mut Seen,
        op: OperationRef<'c, 'c>,
    ) -> Result<Outcome, RewriteError> {
        let a = op.operand(0).unwrap();
        // SAFETY: a live block argument of the module.
        let a = unsafe { Value::from_raw(a.to_raw()) };
        rw.replace_op(&op, &[a]);
        Ok(Outcome::Rewrote)
    }

    fn erase_sub<'c>(
        rw: &mut PatternRewriter<'c>,
        _: &mut Seen,
        op: OperationRef<'c, 'c>,
    ) -> Result<Outcome, RewriteError> {
        rw.erase_op(&op);
        Ok(Outcome::Rewrote)
    }

    #[test]
    fn stages_see_every_operation_in_walk_order_and_erased_ones_never() {
        let ctx = context();
        let module = Module::parse(&ctx, MODULE).unwrap();
        let mut patterns = RewritePatternSet::new();
        patterns
            .add(Pattern::new("arith.addi", fold_add))
            .add(Pattern::any(record))
            .next_stage()
            .add(Pattern::any(record));
        let mut seen = Seen::default();
        apply_patterns(&ctx, &module.as_operation(), &patterns, &mut seen).unwrap();
        // The first stage offered addi to fold_add (which rewrote it) before `record`; the
        // second stage no longer offers the erased addi.
        let first = [
            "builtin.module",
            "func.func",
            "arith.muli",
            "arith.subi",
            "func.return",
        ];
        let second = [
            "builtin.module",
            "func.func",
            "arith.muli",
            "arith.subi",
            "func.return",
        ];
        assert_eq!(seen.names, [first, second].concat());
        let text = module.as_operation().to_string();
        assert!(
            !text.contains("addi") && text.contains("arith.muli %arg0, %arg0"),
            "{text}"
        );
        assert!(module.as_operation().verify());
    }

    #[test]
    fn an_erasure_that_leaves_uses_is_refused() {
        let ctx = context();
        let module = Module::parse(&ctx, MODULE).unwrap();
        let mut patterns = RewritePatternSet::new();
        patterns.add(Pattern::new("arith.muli", erase_sub));
        let e = apply_patterns(
            &ctx,
            &module.as_operation(),
            &patterns,
            &mut Seen::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("cannot erase 'arith.muli'"), "{e}");
        // Users first: erasing subi and muli together is fine.
        let module = Module::parse(&ctx, MODULE).unwrap();
        let mut patterns = RewritePatternSet::new();
        patterns
            .add(Pattern::new("arith.muli", erase_sub))
            .add(Pattern::new("arith.subi", erase_sub))
            .add(Pattern::new("func.return", erase_sub));
        apply_patterns(
            &ctx,
            &module.as_operation(),
            &patterns,
            &mut Seen::default(),
        )
        .unwrap();
        let text = module.as_operation().to_string();
        assert!(!text.contains("muli") && !text.contains("subi"), "{text}");
    }
}
