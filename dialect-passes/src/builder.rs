//! The rewriter every pass builds operations with: an insertion point and a location, with one
//! typed helper per operation the passes build from the upstream dialects (scf, func, arith,
//! llvm), through melior's builders where they exist and hipmlir-ir's op-builder otherwise.
//! The SPIR-V operations are `spirv::builder`'s.

use melior::dialect::{arith, func, llvm, ods, scf};
use melior::ir::attribute::{
    DenseI32ArrayAttribute, DenseI64ArrayAttribute, FlatSymbolRefAttribute, IntegerAttribute,
    StringAttribute, TypeAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{
    Attribute, Block, BlockRef, Identifier, Location, Operation, OperationRef, Region, RegionLike,
    Type, Value, ValueLike,
};
use melior::Context;
use mlir_sys::{MlirBlock, MlirValue};

use hipmlir_ir::OpBuilder;

use crate::LowerError;

/// func.func's own attribute saying that the function is not to be inlined: LLVM's `noinline`
/// on NVPTX (the func-to-LLVM conversion carries it), `DontInline` on SPIR-V.
pub(crate) const NO_INLINE_ATTRIBUTE: &str = "no_inline";

/// Builds operations at one point (in front of an operation, or at the end of a block), at
/// one location, through hipmlir-ir's op-builder.
pub(crate) struct Rewriter<'c> {
    pub ctx: &'c Context,
    pub ops: OpBuilder<'c>,
    pub loc: Location<'c>,
}

impl<'c> Rewriter<'c> {
    /// In front of `op`, at its location.
    pub fn before(ctx: &'c Context, op: &OperationRef<'c, '_>) -> Self {
        Rewriter {
            ctx,
            ops: OpBuilder::before(ctx, op),
            loc: op.location(),
        }
    }

    /// At the end of `block`.
    pub fn at_end(ctx: &'c Context, block: &Block<'c>, loc: Location<'c>) -> Self {
        Rewriter {
            ctx,
            ops: OpBuilder::at_end(ctx, block),
            loc,
        }
    }

    /// At the start of the body of `gpu_module` (a `gpu.module`), where helpers and imports
    /// are declared.
    pub fn at_module_start(
        ctx: &'c Context,
        gpu_module: &OperationRef<'c, '_>,
        loc: Location<'c>,
    ) -> Result<Self, LowerError> {
        let body = gpu_module
            .region(0)
            .ok()
            .and_then(|r| r.first_block())
            .ok_or_else(|| LowerError::internal(loc, "an empty gpu.module"))?;
        Ok(Rewriter::at_start(ctx, body.to_raw(), loc))
    }

    /// At the start of the live block `block`.
    pub fn at_start(ctx: &'c Context, block: MlirBlock, loc: Location<'c>) -> Self {
        // SAFETY: a live block.
        let block = unsafe { BlockRef::from_raw(block) };
        Rewriter {
            ctx,
            ops: OpBuilder::at_start(ctx, &block),
            loc,
        }
    }

    /// The block operations go into.
    pub fn block(&self) -> MlirBlock {
        self.ops.block().to_raw()
    }

    /// An error of the operation being rewritten, at its location.
    pub fn error(&self, message: impl std::fmt::Display) -> LowerError {
        LowerError::internal(self.loc, message)
    }

    /// Inserts a built operation; returns its results.
    fn insert(&self, op: Operation<'c>) -> Vec<MlirValue> {
        raw_values(self.ops.insert_results(op))
    }

    /// [`Rewriter::generic`] without regions or successors: the form most helpers take.
    pub(crate) fn op(
        &self,
        name: &str,
        operands: &[MlirValue],
        results: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
    ) -> Result<Vec<MlirValue>, LowerError> {
        self.generic(name, operands, results, attributes, vec![], &[])
    }

    /// A copy of `op` (one result, no regions) here, with `operands` in place of its own (each of
    /// the type the op takes there); its result.
    pub(crate) fn copy_with_operands(
        &self,
        op: &OperationRef<'c, '_>,
        operands: &[MlirValue],
    ) -> Result<MlirValue, LowerError> {
        // SAFETY: a copy of a live operation, owned by the block it is inserted into; its
        // operands are replaced by live values.
        let copy = unsafe {
            let copy = Operation::from_raw(mlir_sys::mlirOperationClone(op.to_raw()));
            let copy = self.ops.insert(copy);
            for (i, o) in operands.iter().enumerate() {
                mlir_sys::mlirOperationSetOperand(copy.to_raw(), i as isize, *o);
            }
            copy
        };
        Ok(copy.result(0).map_err(|e| self.error(e))?.to_raw())
    }

    /// [`Rewriter::op`] of an operation with one result.
    pub(crate) fn one(
        &self,
        name: &str,
        operands: &[MlirValue],
        result: Type<'c>,
        attributes: &[(&str, Attribute<'c>)],
    ) -> Result<MlirValue, LowerError> {
        Ok(self.op(name, operands, &[result], attributes)?[0])
    }

    /// `scf.if condition -> ty { then } else { otherwise }`, each branch yielding one value.
    pub fn scf_if(
        &self,
        condition: MlirValue,
        ty: Type<'c>,
        then: impl FnOnce(&Rewriter<'c>) -> Result<MlirValue, LowerError>,
        otherwise: impl FnOnce(&Rewriter<'c>) -> Result<MlirValue, LowerError>,
    ) -> Result<MlirValue, LowerError> {
        let then_region = self.yielding_region(then)?;
        let else_region = self.yielding_region(otherwise)?;
        // SAFETY: a live value.
        let condition = unsafe { Value::from_raw(condition) };
        let op = scf::r#if(condition, &[ty], then_region, else_region, self.loc);
        Ok(self.insert(op)[0])
    }

    fn yielding_region(
        &self,
        body: impl FnOnce(&Rewriter<'c>) -> Result<MlirValue, LowerError>,
    ) -> Result<Region<'c>, LowerError> {
        let block = Block::new(&[]);
        let inner = Rewriter::at_end(self.ctx, &block, self.loc);
        let result = body(&inner)?;
        // SAFETY: a live value visible at the block's end.
        block.append_operation(scf::r#yield(
            &[unsafe { Value::from_raw(result) }],
            self.loc,
        ));
        let region = Region::new();
        region.append_block(block);
        Ok(region)
    }

    /// `scf.while (init : ty) { before(arg) -> (retry, next) } do { yield }`: a loop whose
    /// "before" region does all the work and passes its value on unchanged.
    pub fn scf_do_while(
        &self,
        init: MlirValue,
        ty: Type<'c>,
        before: impl FnOnce(&Rewriter<'c>, MlirValue) -> Result<(MlirValue, MlirValue), LowerError>,
    ) -> Result<MlirValue, LowerError> {
        let before_block = Block::new(&[(ty, self.loc)]);
        let arg = before_block
            .argument(0)
            .map_err(|e| self.error(e))?
            .to_raw();
        let (retry, next) = before(&Rewriter::at_end(self.ctx, &before_block, self.loc), arg)?;
        // SAFETY: live values of the block.
        let (retry, next) = unsafe { (Value::from_raw(retry), Value::from_raw(next)) };
        before_block.append_operation(scf::condition(retry, &[next], self.loc));
        let after_block = Block::new(&[(ty, self.loc)]);
        let passed = after_block.argument(0).map_err(|e| self.error(e))?;
        after_block.append_operation(scf::r#yield(&[passed.into()], self.loc));
        let before_region = Region::new();
        before_region.append_block(before_block);
        let after_region = Region::new();
        after_region.append_block(after_block);
        // SAFETY: a live value.
        let init = unsafe { Value::from_raw(init) };
        let op = scf::r#while(&[init], &[ty], before_region, after_region, self.loc);
        Ok(self.insert(op)[0])
    }
}

/// The type of a live value.
pub(crate) fn type_of<'c>(v: MlirValue) -> Type<'c> {
    // SAFETY: `v` is a live value.
    unsafe { Type::from_raw(mlir_sys::mlirValueGetType(v)) }
}

/// Raw handles of values, as the passes hand them around.
fn raw_values(values: Vec<hipmlir_ir::Value>) -> Vec<MlirValue> {
    values.into_iter().map(|v| v.to_raw()).collect()
}

/// The operations the NVPTX lowering and the devirtualization of function pointers build:
/// melior's dialect builders where they exist (inserted with [`Rewriter::emit`]), the generic
/// form here where melior has none or its builder leaves out an attribute the op requires
/// (the operand segment sizes of `llvm.call`, `llvm.call_intrinsic`, `llvm.cond_br`).
impl<'c> Rewriter<'c> {
    /// Just after `op`, at its location.
    pub fn after(ctx: &'c Context, op: &OperationRef<'c, '_>) -> Self {
        Rewriter {
            ctx,
            ops: OpBuilder::after(ctx, op),
            loc: op.location(),
        }
    }

    /// Inserts an operation made by one of melior's dialect builders; returns its results.
    pub fn emit(&self, op: impl Into<Operation<'c>>) -> Vec<MlirValue> {
        self.insert(op.into())
    }

    /// [`Rewriter::emit`] of an operation with one result.
    pub fn emit_value(&self, op: impl Into<Operation<'c>>) -> Result<MlirValue, LowerError> {
        self.emit(op)
            .first()
            .copied()
            .ok_or_else(|| self.error("an operation without a result"))
    }

    /// An operation of a dialect melior has no builder for, in its generic form: operands,
    /// result types, attributes, regions and successor blocks.
    pub(crate) fn generic(
        &self,
        name: &str,
        operands: &[MlirValue],
        results: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
        regions: Vec<Region<'c>>,
        successors: &[MlirBlock],
    ) -> Result<Vec<MlirValue>, LowerError> {
        // SAFETY: successors are live blocks of the module being rewritten.
        let successors: Vec<BlockRef> = successors
            .iter()
            .map(|b| unsafe { BlockRef::from_raw(*b) })
            .collect();
        let successors: Vec<&Block> = successors.iter().map(|b| &**b).collect();
        self.ops
            .build_with_successors(
                name,
                &values(operands),
                results,
                attributes,
                regions,
                &successors,
                self.loc,
            )
            .map(|op| raw_values(hipmlir_ir::results(op)))
            .map_err(|e| self.error(e))
    }

    /// `arith.constant` of an integer (or index) type.
    pub fn arith_int(&self, ty: Type<'c>, value: i64) -> Result<MlirValue, LowerError> {
        self.emit_value(arith::constant(
            self.ctx,
            IntegerAttribute::new(ty, value).into(),
            self.loc,
        ))
    }

    /// `vector.extract v[lane] : element`, one lane of a one-dimensional vector.
    pub fn vector_extract(
        &self,
        v: MlirValue,
        lane: i64,
        element: Type<'c>,
    ) -> Result<MlirValue, LowerError> {
        let position = DenseI64ArrayAttribute::new(self.ctx, &[lane]).into();
        self.one(
            "vector.extract",
            &[v],
            element,
            &[("static_position", position)],
        )
    }

    /// `vector.from_elements elements : ty`, a one-dimensional vector of its lanes.
    pub fn vector_from_elements(
        &self,
        elements: &[MlirValue],
        ty: Type<'c>,
    ) -> Result<MlirValue, LowerError> {
        self.one("vector.from_elements", elements, ty, &[])
    }

    /// `func.call @callee(operands) : results`.
    pub fn func_call(
        &self,
        callee: &str,
        operands: &[MlirValue],
        results: &[Type<'c>],
    ) -> Vec<MlirValue> {
        let callee = FlatSymbolRefAttribute::new(self.ctx, callee);
        self.emit(func::call(
            self.ctx,
            callee,
            &values(operands),
            results,
            self.loc,
        ))
    }

    /// `llvm.call @callee(operands) : results` (no operand bundles).
    pub fn llvm_call(
        &self,
        callee: &str,
        operands: &[MlirValue],
        results: &[Type<'c>],
    ) -> Result<Vec<MlirValue>, LowerError> {
        let attributes = [
            (
                "callee",
                FlatSymbolRefAttribute::new(self.ctx, callee).into(),
            ),
            (
                "operandSegmentSizes",
                self.segment_sizes(&[operands.len(), 0]),
            ),
            ("op_bundle_sizes", self.segment_sizes(&[])),
        ];
        self.generic("llvm.call", operands, results, &attributes, vec![], &[])
    }

    /// `llvm.call_intrinsic "intrinsic"(operands) : results` (no operand bundles).
    pub fn call_intrinsic(
        &self,
        intrinsic: &str,
        operands: &[MlirValue],
        results: &[Type<'c>],
    ) -> Result<Vec<MlirValue>, LowerError> {
        let attributes = [
            ("intrin", StringAttribute::new(self.ctx, intrinsic).into()),
            (
                "operandSegmentSizes",
                self.segment_sizes(&[operands.len(), 0]),
            ),
            ("op_bundle_sizes", self.segment_sizes(&[])),
        ];
        self.generic(
            "llvm.call_intrinsic",
            operands,
            results,
            &attributes,
            vec![],
            &[],
        )
    }

    /// `llvm.inline_asm has_side_effects "asm", "constraints" operands : result`.
    pub fn inline_asm_with_side_effects(
        &self,
        asm: &str,
        constraints: &str,
        operands: &[MlirValue],
        result: Type<'c>,
    ) -> Result<MlirValue, LowerError> {
        let attributes = [
            ("asm_string", StringAttribute::new(self.ctx, asm).into()),
            (
                "constraints",
                StringAttribute::new(self.ctx, constraints).into(),
            ),
            ("has_side_effects", Attribute::unit(self.ctx)),
        ];
        Ok(self.generic(
            "llvm.inline_asm",
            operands,
            &[result],
            &attributes,
            vec![],
            &[],
        )?[0])
    }

    /// `llvm.cond_br condition, ^then, ^otherwise` (successors without arguments).
    pub fn llvm_cond_br(
        &self,
        condition: MlirValue,
        then: MlirBlock,
        otherwise: MlirBlock,
    ) -> Result<(), LowerError> {
        let attributes = [("operandSegmentSizes", self.segment_sizes(&[1, 0, 0]))];
        self.generic(
            "llvm.cond_br",
            &[condition],
            &[],
            &attributes,
            vec![],
            &[then, otherwise],
        )?;
        Ok(())
    }

    fn segment_sizes(&self, sizes: &[usize]) -> Attribute<'c> {
        let sizes: Vec<i32> = sizes.iter().map(|s| *s as i32).collect();
        DenseI32ArrayAttribute::new(self.ctx, &sizes).into()
    }

    /// `llvm.mlir.global internal constant @symbol(dense<bytes>) {addr_space} :
    /// !llvm.array<n x i8>`.
    pub fn llvm_constant_bytes(
        &self,
        symbol: &str,
        bytes: &[u8],
        addr_space: u32,
    ) -> Result<(), LowerError> {
        self.llvm_bytes_global(symbol, bytes, addr_space, true)
    }

    /// `llvm.mlir.global internal [constant] @symbol(dense<bytes>) {addr_space} :
    /// !llvm.array<n x i8>`.
    pub fn llvm_bytes_global(
        &self,
        symbol: &str,
        bytes: &[u8],
        addr_space: u32,
        constant: bool,
    ) -> Result<(), LowerError> {
        let ctx = self.ctx;
        let array = llvm::r#type::array(IntegerType::new(ctx, 8).into(), bytes.len() as u32);
        // SAFETY: a plain constructor on a live context.
        let internal = unsafe {
            Attribute::from_raw(mlir_sys::mlirLLVMLinkageAttrGet(
                ctx.to_raw(),
                mlir_sys::MlirLLVMLinkage_MlirLLVMLinkageInternal,
            ))
        };
        let mut attributes = vec![
            ("sym_name", StringAttribute::new(ctx, symbol).into()),
            ("global_type", TypeAttribute::new(array).into()),
            ("linkage", internal),
            (
                "value",
                hipmlir_ir::dense_bytes_attribute(ctx, bytes.len() as u64, Some(bytes))
                    .ok_or_else(|| self.error("a byte string of another length"))?,
            ),
            (
                "addr_space",
                IntegerAttribute::new(IntegerType::new(ctx, 32).into(), addr_space.into()).into(),
            ),
        ];
        if constant {
            attributes.push(("constant", Attribute::unit(ctx)));
        }
        self.generic(
            "llvm.mlir.global",
            &[],
            &[],
            &attributes,
            vec![Region::new()],
            &[],
        )?;
        Ok(())
    }

    /// `func.func private @name(inputs) -> results`: a declaration when `body` is `None`, else
    /// a definition whose single block `body` fills from the arguments, returning the values
    /// the function returns. The function.
    #[allow(clippy::type_complexity)]
    pub fn private_function(
        &self,
        name: &str,
        inputs: &[Type<'c>],
        results: &[Type<'c>],
        body: Option<&dyn Fn(&Rewriter<'c>, &[MlirValue]) -> Result<Vec<MlirValue>, LowerError>>,
    ) -> Result<OperationRef<'c, 'c>, LowerError> {
        let ctx = self.ctx;
        let region = Region::new();
        if let Some(body) = body {
            let arguments: Vec<(Type, Location)> = inputs.iter().map(|t| (*t, self.loc)).collect();
            let block = Block::new(&arguments);
            let args: Vec<MlirValue> = (0..block.argument_count())
                .map(|i| block.argument(i).map(|a| a.to_raw()))
                .collect::<Result<_, _>>()
                .map_err(|e| self.error(e))?;
            let inner = Rewriter::at_end(ctx, &block, self.loc);
            let returned = body(&inner, &args)?;
            inner.emit(func::r#return(&values(&returned), self.loc));
            region.append_block(block);
        }
        let function_type = FunctionType::new(ctx, inputs, results);
        Ok(self.ops.insert(func::func(
            ctx,
            StringAttribute::new(ctx, name),
            TypeAttribute::new(function_type.into()),
            region,
            &[(
                Identifier::new(ctx, "sym_visibility"),
                StringAttribute::new(ctx, "private").into(),
            )],
            self.loc,
        )))
    }

    /// `llvm.func @name : function_type` with the body `region` (empty: a declaration).
    pub fn llvm_function(&self, name: &str, function_type: Type<'c>, region: Region<'c>) {
        let ctx = self.ctx;
        self.emit(llvm::func(
            ctx,
            StringAttribute::new(ctx, name),
            TypeAttribute::new(function_type),
            region,
            &[],
            self.loc,
        ));
    }

    /// `scf.if condition -> types { then } else { otherwise }`, each branch yielding the
    /// values it builds.
    pub fn scf_if_values(
        &self,
        condition: MlirValue,
        types: &[Type<'c>],
        then: impl FnOnce(&Rewriter<'c>) -> Result<Vec<MlirValue>, LowerError>,
        otherwise: impl FnOnce(&Rewriter<'c>) -> Result<Vec<MlirValue>, LowerError>,
    ) -> Result<Vec<MlirValue>, LowerError> {
        let then_region = self.values_region(then)?;
        let else_region = self.values_region(otherwise)?;
        Ok(self.emit(scf::r#if(
            value(condition),
            types,
            then_region,
            else_region,
            self.loc,
        )))
    }

    /// A region of one block that `body` fills, yielding the values it returns.
    fn values_region(
        &self,
        body: impl FnOnce(&Rewriter<'c>) -> Result<Vec<MlirValue>, LowerError>,
    ) -> Result<Region<'c>, LowerError> {
        let block = Block::new(&[]);
        let inner = Rewriter::at_end(self.ctx, &block, self.loc);
        let yielded = body(&inner)?;
        inner.emit(scf::r#yield(&values(&yielded), self.loc));
        let region = Region::new();
        region.append_block(block);
        Ok(region)
    }

    /// `scf.for %iv = lower to upper step step iter_args(%acc = init) -> ty`: `body` computes
    /// the next value of the one carried value from the induction variable and the current one.
    pub fn scf_for(
        &self,
        bounds: [MlirValue; 3],
        init: MlirValue,
        body: impl FnOnce(&Rewriter<'c>, MlirValue, MlirValue) -> Result<MlirValue, LowerError>,
    ) -> Result<MlirValue, LowerError> {
        let [lower, upper, step] = bounds;
        let ty = type_of(init);
        let block = Block::new(&[(type_of(lower), self.loc), (ty, self.loc)]);
        let iv = block.argument(0).map_err(|e| self.error(e))?.to_raw();
        let acc = block.argument(1).map_err(|e| self.error(e))?.to_raw();
        let inner = Rewriter::at_end(self.ctx, &block, self.loc);
        let next = body(&inner, iv, acc)?;
        inner.emit(scf::r#yield(&values(&[next]), self.loc));
        let region = Region::new();
        region.append_block(block);
        let [lower, upper, step, init] = [lower, upper, step, init].map(value);
        self.emit_value(ods::scf::r#for(
            self.ctx,
            &[ty],
            lower,
            upper,
            step,
            &[init],
            region,
            self.loc,
        ))
    }
}

/// The operation defining `v`, if an operation does (not a block argument).
pub(crate) fn definition<'c>(v: MlirValue) -> Option<OperationRef<'c, 'c>> {
    // SAFETY: structural queries on a live value.
    unsafe {
        mlir_sys::mlirValueIsAOpResult(v)
            .then(|| OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(v)))
    }
}

/// The value of an integer constant (`arith.constant`, `llvm.mlir.constant`, or
/// `spirv.Constant` once a target's lowering has converted it).
pub(crate) fn integer_constant(v: MlirValue) -> Option<i64> {
    let op = definition(v)?;
    let name = op.name();
    if !matches!(
        name.as_string_ref().as_str(),
        Ok("arith.constant" | "llvm.mlir.constant" | "spirv.Constant")
    ) {
        return None;
    }
    IntegerAttribute::try_from(op.attribute("value").ok()?)
        .ok()
        .map(|i| i.value())
}

/// The latest of `operations`, which are all in one block (None: there are none).
pub(crate) fn latest_in_block(
    operations: impl IntoIterator<Item = mlir_sys::MlirOperation>,
) -> Option<mlir_sys::MlirOperation> {
    operations.into_iter().reduce(|latest, op| {
        // SAFETY: live operations of the same block, as the caller promises.
        if unsafe { mlir_sys::mlirOperationIsBeforeInBlock(latest, op) } {
            op
        } else {
            latest
        }
    })
}

/// Whether `v` has exactly one use.
pub(crate) fn has_one_use(v: MlirValue) -> bool {
    // SAFETY: structural queries on a live value and its uses.
    unsafe {
        let first = mlir_sys::mlirValueGetFirstUse(v);
        !mlir_sys::mlirOpOperandIsNull(first)
            && mlir_sys::mlirOpOperandIsNull(mlir_sys::mlirOpOperandGetNextUse(first))
    }
}

/// The live value `v`.
pub(crate) fn value<'c, 'a>(v: MlirValue) -> Value<'c, 'a> {
    // SAFETY: `v` is a live value of the module being rewritten.
    unsafe { Value::from_raw(v) }
}

/// Live values.
fn values<'c, 'a>(vs: &[MlirValue]) -> Vec<Value<'c, 'a>> {
    vs.iter().map(|v| value(*v)).collect()
}

/// A `gpu.func`'s `function_type` follows its entry block's arguments (after a pass added or
/// retyped some); it returns nothing, as kernels do.
pub(crate) fn update_function_type(ctx: &Context, func: &OperationRef) -> Result<(), LowerError> {
    let region = func
        .region(0)
        .map_err(|e| LowerError::internal(func.location(), e))?;
    let Some(entry) = region.first_block() else {
        return Ok(());
    };
    let inputs: Vec<Type> = (0..entry.argument_count())
        .filter_map(|i| entry.argument(i).ok().map(|a| a.r#type()))
        .collect();
    let function_type = FunctionType::new(ctx, &inputs, &[]);
    // SAFETY: the live function; setting an attribute keeps it alive.
    let mut func = unsafe { melior::ir::operation::OperationRefMut::from_raw(func.to_raw()) };
    melior::ir::operation::OperationMutLike::set_attribute(
        &mut func,
        "function_type",
        TypeAttribute::new(function_type.into()).into(),
    );
    Ok(())
}
