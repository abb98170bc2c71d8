//! One function's codegen state: the SSA environment of its locals and the structured-control-flow
//! helpers that merge it across regions.

use melior::dialect::arith;
use melior::dialect::scf;
use melior::ir::operation::OperationMutLike;
use std::collections::HashMap;

use melior::ir::RegionLike;
use melior::ir::{Block, Location, Region, Type};

use super::analysis::{Targets, VarKey};
use super::builder::{block_arguments, Builder, Value};
use super::module::ModuleCodegen;
use crate::clang::Cursor;
use crate::error::{FrontendError, Result, SourceLoc};
use crate::types::Ty;

/// A C value in SSA form (pointers are single `!llvm.ptr` values).
#[derive(Debug, Clone, Copy)]
pub enum Val<'c> {
    Void,
    Scalar(Value<'c>),
}

impl<'c> Val<'c> {
    pub fn flatten(&self) -> Vec<Value<'c>> {
        match *self {
            Val::Void => vec![],
            Val::Scalar(v) => vec![v],
        }
    }

    pub fn scalar(&self) -> Value<'c> {
        match *self {
            Val::Scalar(v) => v,
            Val::Void => unreachable!("a void value used as a scalar"),
        }
    }
}

/// A lambda's closure object as hipmlir holds it: its expression, the values its by-copy
/// captures took when it was created, and the memory of those held in memory.
#[derive(Debug, Clone)]
pub struct LambdaValue<'c> {
    pub lambda: Cursor,
    pub copies: HashMap<VarKey, (Val<'c>, Ty)>,
    /// Captures held in memory: by-copy captures of objects (structs, arrays) and every by-copy
    /// capture of a mutable lambda (the closure's own state, changed by its calls), with their
    /// types; the addresses init-captures by reference bind.
    pub copied_objects: HashMap<VarKey, (Value<'c>, Ty)>,
    /// Lambdas this one captures by copy whose copy is its own, made once when it was made (a
    /// copy whose constructor or destructor runs code, a mutable lambda's state), by the
    /// captured local's declaration.
    pub copied_lambdas: HashMap<Cursor, LambdaValue<'c>>,
}

impl LambdaValue<'_> {
    /// A lambda written where it is used: nothing made yet.
    pub fn written(lambda: Cursor) -> Self {
        LambdaValue {
            lambda,
            copies: HashMap::new(),
            copied_objects: HashMap::new(),
            copied_lambdas: HashMap::new(),
        }
    }
}

/// A local variable: its current SSA value, or (address taken, aggregates) its private memory.
#[derive(Debug, Clone)]
pub struct Binding<'c> {
    pub ty: Ty,
    pub val: Val<'c>,
    /// `val` is the variable's address (`!llvm.ptr` in the private space), not its value.
    pub in_memory: bool,
}

pub struct FunctionCodegen<'c, 'm> {
    pub module: &'m mut ModuleCodegen<'c>,
    pub b: Builder<'c>,
    /// The function's entry block, where allocas go (SPIR-V wants variables first).
    pub entry: Builder<'c>,
    /// Locals that must live in memory: their address is taken or they are aggregates.
    pub memory_locals: std::collections::HashSet<Cursor>,
    pub env: HashMap<VarKey, Binding<'c>>,
    pub return_ty: Ty,
    /// The function returns a reference: `return` yields the address of its operand.
    pub returns_reference: bool,
    /// Enclosing loops and switches, innermost last: what `break` and `continue` refer to.
    pub targets: Vec<Cursor>,
    /// The loop hint (`#pragma unroll` ...) on the loop statement about to be emitted.
    pub loop_unroll: Option<(Cursor, hipmlir_ir::LoopUnroll)>,
    /// Locals holding lambdas, by canonical declaration.
    pub lambdas: HashMap<Cursor, LambdaValue<'c>>,
    /// Locals and parameters holding lambdas that are closure objects in memory, not their
    /// captures: their address is needed (see lambda_objects.rs).
    pub lambda_objects: std::collections::HashSet<Cursor>,
    /// In a member function, the class `this` points to (members of its base classes named
    /// without `this->` are at their base's offset).
    pub this_class: Option<crate::clang::CType>,
    /// How many regions (branches and loop bodies) enclose the code being emitted.
    pub region_depth: usize,
    /// The source position of the construct last emitted: where a nesting error points.
    pub last_loc: std::cell::RefCell<SourceLoc>,
    /// Where each binary operator and subscript met so far begins (see `source_loc`).
    pub chain_begins: std::cell::RefCell<HashMap<Cursor, SourceLoc>>,
    /// The scopes being emitted, innermost last, with the objects to destroy at their ends.
    pub scopes: Vec<super::lifetime::Scope<'c>>,
    /// Locals built in the return slot: the flag set when one is returned (see lifetime.rs).
    pub nrvo_flags: HashMap<Cursor, Value<'c>>,
    /// Locals declared ahead of their declaration: a `goto` jumps over it to a label after
    /// which they are used (see stmt.rs).
    pub declared_ahead: std::collections::HashSet<Cursor>,
    /// Float sums, differences and products may be fused into FMAs (see `expr/operators.rs`):
    /// in the user's code, not in hipmlir's own headers.
    pub contract_floats: bool,
    /// In a constructor of a class with virtual bases: its construction context (0: it builds
    /// a complete object; see virtual_bases.rs).
    pub construction: Option<Value<'c>>,
    /// The context for the next call of a constructor of this class (its declaration), set
    /// where a constructor builds a base subobject with virtual bases.
    pub base_construction: Option<(Cursor, Value<'c>)>,
    /// The array-init loops whose element initializer is being emitted, innermost last (see
    /// initializers.rs): each one's source array (by its expression), where it is, the index.
    pub array_copies: Vec<super::initializers::ArrayCopy<'c>>,
    /// Pointers into records laid out below their members' alignment (packed), by value (see
    /// `gep`): the alignment known for what they point to, which loads and stores through them
    /// take in place of their type's (a GPU faults on a 4-byte load from an odd address).
    pub underaligned: std::cell::RefCell<HashMap<PointerKey, u64>>,
}

/// An SSA pointer value as a map key.
pub type PointerKey = usize;

/// The key of a pointer value in [`FunctionCodegen::underaligned`].
pub fn pointer_key(v: melior::ir::Value) -> PointerKey {
    use melior::ir::ValueLike;
    v.to_raw().ptr as usize
}

/// Nodes whose location is where their first child begins (clang's `getBeginLoc()` of a binary
/// operator or subscript is its left operand's).
fn is_left_chain(c: &Cursor) -> bool {
    use clang_sys::*;
    matches!(
        c.kind(),
        CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator | CXCursor_ArraySubscriptExpr
    )
}

/// The deepest nesting of branches and loops (`if`, loops, `switch`, `?:`, `&&`, `||`) a
/// function may have. MLIR's canonicalization and inlining take time that grows with the cube
/// of the nesting (500 levels: 15 s, 1,000: 100 s), so deeper code is refused with an error
/// rather than compiled for hours; real kernels stay far below.
pub const MAX_REGION_DEPTH: usize = 256;

impl<'c, 'm> FunctionCodegen<'c, 'm> {
    pub fn ctx(&self) -> &'c melior::Context {
        self.b.ctx
    }

    pub fn loc(&self, c: &Cursor) -> Location<'c> {
        let l = self.source_loc(c);
        let loc = Location::new(self.ctx(), &l.file, l.line as usize, l.column as usize);
        *self.last_loc.borrow_mut() = l;
        loc
    }

    /// Where a cursor is, as `clang_getCursorLocation` says. For a binary operator or subscript
    /// that is where its left operand begins, which libclang finds by walking down the left
    /// operands on every query: on a 50,000-term `a + a + ...` the walk took a minute. Here the
    /// chain is walked once, without recursion, and every node on it remembered.
    pub fn source_loc(&self, c: &Cursor) -> SourceLoc {
        if !is_left_chain(c) {
            return c.location();
        }
        if let Some(l) = self.chain_begins.borrow().get(c) {
            return l.clone();
        }
        let mut chain = vec![*c];
        let begin = loop {
            let last = chain[chain.len() - 1];
            match last.children().first() {
                Some(first) if is_left_chain(first) => {
                    if let Some(l) = self.chain_begins.borrow().get(first) {
                        break l.clone();
                    }
                    chain.push(*first);
                }
                Some(first) => break first.extent_start(),
                None => break last.location(),
            }
        };
        let mut memo = self.chain_begins.borrow_mut();
        for node in chain {
            memo.insert(node, begin.clone());
        }
        begin
    }

    /// What `break` and `continue` refer to here.
    pub fn targets(&self) -> Targets {
        self.targets
            .iter()
            .fold(Targets::default(), |t, c| t.inside(c))
    }

    pub fn bind(&mut self, key: VarKey, ty: Ty, val: Val<'c>) {
        self.env.insert(
            key,
            Binding {
                ty,
                val,
                in_memory: false,
            },
        );
    }

    /// Binds a variable that lives in memory at `ptr`.
    pub fn bind_memory(&mut self, key: VarKey, ty: Ty, ptr: Value<'c>) {
        self.env.insert(
            key,
            Binding {
                ty,
                val: Val::Scalar(ptr),
                in_memory: true,
            },
        );
    }

    /// The SSA-held keys among `keys` that are live here, i.e. declared before the region that
    /// assigns them (variables in memory need no merging).
    pub fn live(&self, keys: &[VarKey]) -> Vec<VarKey> {
        keys.iter()
            .filter(|k| self.env.get(k).is_some_and(|b| !b.in_memory))
            .cloned()
            .collect()
    }

    fn flatten_vars(&self, keys: &[VarKey]) -> Vec<Value<'c>> {
        keys.iter()
            .flat_map(|k| self.env[k].val.flatten())
            .collect()
    }

    fn var_types(&self, keys: &[VarKey]) -> Vec<Type<'c>> {
        keys.iter()
            .map(|k| self.env[k].ty.value_mlir(self.ctx()))
            .collect()
    }

    fn rebind_from(&mut self, keys: &[VarKey], values: &mut impl Iterator<Item = Value<'c>>) {
        for k in keys {
            let ty = self.env[k].ty.clone();
            let v = values.next().expect("one value per carried variable");
            self.bind(k.clone(), ty, Val::Scalar(v));
        }
    }

    /// Emits `f` into a fresh block whose arguments rebind `keys`; the env is restored afterwards.
    fn in_block<T>(
        &mut self,
        arg_keys: &[VarKey],
        loc: Location<'c>,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<(Block<'c>, T)> {
        let arg_types: Vec<_> = self
            .var_types(arg_keys)
            .into_iter()
            .map(|t| (t, loc))
            .collect();
        if self.region_depth >= MAX_REGION_DEPTH {
            return Err(FrontendError::refused(
                self.last_loc.borrow().clone(),
                format!(
                    "control flow nested too deeply: more than {MAX_REGION_DEPTH} levels of \
                     if, loops, switch, ?:, && and || (hipmlir's limit)"
                ),
            ));
        }
        let block = Block::new(&arg_types);
        let saved_env = self.env.clone();
        let saved_builder = self.b;
        self.b = Builder::new(self.ctx(), &block);
        let args = block_arguments(&block);
        self.rebind_from(arg_keys, &mut args.into_iter());
        self.region_depth += 1;
        let out = f(self);
        self.region_depth -= 1;
        self.b = saved_builder;
        self.env = saved_env;
        Ok((block, out?))
    }

    /// `scf.if`: `then`/`otherwise` return the extra results (types `result_types`); the locals in
    /// `carried` that either branch assigns are yielded and rebound after the op.
    pub fn emit_if(
        &mut self,
        cond: Value<'c>,
        carried: &[VarKey],
        result_types: &[Type<'c>],
        then: impl FnOnce(&mut Self) -> Result<Vec<Value<'c>>>,
        otherwise: impl FnOnce(&mut Self) -> Result<Vec<Value<'c>>>,
        loc: Location<'c>,
    ) -> Result<Vec<Value<'c>>> {
        let carried = self.live(carried);
        let (then_block, ()) = self.in_block(&[], loc, |this| {
            let mut yielded = then(this)?;
            yielded.extend(this.flatten_vars(&carried));
            this.b.insert(scf::r#yield(&yielded, loc));
            Ok(())
        })?;
        let (else_block, ()) = self.in_block(&[], loc, |this| {
            let mut yielded = otherwise(this)?;
            yielded.extend(this.flatten_vars(&carried));
            this.b.insert(scf::r#yield(&yielded, loc));
            Ok(())
        })?;
        let mut types = result_types.to_vec();
        types.extend(self.var_types(&carried));
        let then_region = Region::new();
        then_region.append_block(then_block);
        let else_region = Region::new();
        else_region.append_block(else_block);
        let op = self
            .b
            .insert(scf::r#if(cond, &types, then_region, else_region, loc));
        let mut values = op.into_iter();
        let extra: Vec<_> = values.by_ref().take(result_types.len()).collect();
        self.rebind_from(&carried, &mut values);
        Ok(extra)
    }

    /// `scf.if` without an else branch or extra results (the else yields the values unchanged).
    pub fn emit_guarded(
        &mut self,
        cond: Value<'c>,
        carried: &[VarKey],
        then: impl FnOnce(&mut Self) -> Result<()>,
        loc: Location<'c>,
    ) -> Result<()> {
        self.emit_if(
            cond,
            carried,
            &[],
            |this| then(this).map(|()| vec![]),
            |_| Ok(vec![]),
            loc,
        )?;
        Ok(())
    }

    /// `do { body } while (c)`, where `body` returns `c`: an `scf.while` whose condition region
    /// is the body. MLIR serializes a condition region as the SPIR-V loop's header block, and a
    /// loop nested in a header (a `do` loop's body holding a `for`) comes out invalid (an OpPhi
    /// naming a block that is not its predecessor): when the body `holds_loops`, the condition
    /// region only tests a flag (named by `key`) and the body runs in the body region. (Only
    /// then: LLVM unrolls the plain form under an unroll hint.)
    pub fn emit_repeat(
        &mut self,
        key: Cursor,
        holds_loops: bool,
        carried: &[VarKey],
        unroll: Option<hipmlir_ir::LoopUnroll>,
        body: impl FnOnce(&mut Self) -> Result<Value<'c>>,
        loc: Location<'c>,
    ) -> Result<()> {
        if !holds_loops {
            return self.emit_while(carried, unroll, body, |_| Ok(()), loc);
        }
        let again = VarKey::Repeat(key);
        self.set_flag(again.clone(), true, loc)?;
        let mut carried = carried.to_vec();
        if !carried.contains(&again) {
            carried.push(again.clone());
        }
        let test = again.clone();
        self.emit_while(
            &carried,
            unroll,
            |this| this.flag(&test, loc),
            |this| {
                let c = body(this)?;
                this.bind(again, Ty::Bool, Val::Scalar(c));
                Ok(())
            },
            loc,
        )
    }

    /// `scf.while`: `before` computes the condition, `after` is the body; the locals in `carried`
    /// are the loop-carried values. `unroll` is the source's loop hint, carried to the loop's
    /// back edge as LLVM loop metadata.
    pub fn emit_while(
        &mut self,
        carried: &[VarKey],
        unroll: Option<hipmlir_ir::LoopUnroll>,
        before: impl FnOnce(&mut Self) -> Result<Value<'c>>,
        after: impl FnOnce(&mut Self) -> Result<()>,
        loc: Location<'c>,
    ) -> Result<()> {
        let carried = self.live(carried);
        let init = self.flatten_vars(&carried);
        let types = self.var_types(&carried);
        let (before_block, ()) = self.in_block(&carried, loc, |this| {
            let cond = before(this)?;
            let mut operands = vec![cond];
            operands.extend(this.flatten_vars(&carried));
            this.b
                .insert(scf::condition(operands[0], &operands[1..], loc));
            Ok(())
        })?;
        let (after_block, ()) = self.in_block(&carried, loc, |this| {
            after(this)?;
            let yielded = this.flatten_vars(&carried);
            this.b.insert(scf::r#yield(&yielded, loc));
            Ok(())
        })?;
        let before_region = Region::new();
        before_region.append_block(before_block);
        let after_region = Region::new();
        after_region.append_block(after_block);
        let mut op = scf::r#while(&init, &types, before_region, after_region, loc);
        if let Some(unroll) = unroll {
            op.set_attribute(
                hipmlir_ir::LOOP_ANNOTATION_ATTRIBUTE,
                unroll.annotation(self.ctx()),
            );
        }
        let op = self.b.insert(op);
        self.rebind_from(&carried, &mut op.into_iter());
        Ok(())
    }

    /// Private memory for one value of `ty`, allocated at the top of the function.
    pub fn alloca(&mut self, ty: &Ty, loc: Location<'c>) -> Result<Value<'c>> {
        let ctx = self.ctx();
        let one = self.entry.at_start().const_int(
            melior::ir::r#type::IntegerType::new(ctx, 64).into(),
            1,
            loc,
        )?;
        let elem = melior::ir::attribute::TypeAttribute::new(ty.memory_mlir(ctx)).into();
        let align = melior::ir::attribute::IntegerAttribute::new(
            melior::ir::r#type::IntegerType::new(ctx, 64).into(),
            ty.align() as i64,
        )
        .into();
        // Inserted after the constant it uses, still ahead of everything else.
        self.entry.after(one).value(
            "llvm.alloca",
            &[one],
            crate::types::pointer_type(ctx, crate::types::AddrSpace::Private),
            &[("elem_type", elem), ("alignment", align)],
            loc,
        )
    }

    /// The value of a flag variable, or `false` when the flag does not exist here.
    pub fn flag(&self, key: &VarKey, loc: Location<'c>) -> Result<Value<'c>> {
        match self.env.get(key) {
            Some(binding) => Ok(binding.val.scalar()),
            None => self.b.const_bool(false, loc),
        }
    }

    pub fn set_flag(&mut self, key: VarKey, value: bool, loc: Location<'c>) -> Result<()> {
        let v = self.b.const_bool(value, loc)?;
        self.bind(key, Ty::Bool, Val::Scalar(v));
        Ok(())
    }

    pub fn not(&self, v: Value<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        let t = self.b.const_bool(true, loc)?;
        self.b.insert_value(arith::xori(v, t, loc))
    }

    pub fn or(&self, a: Value<'c>, b: Value<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        self.b.insert_value(arith::ori(a, b, loc))
    }
}
