//! The operations hipmlir's SPIR-V passes build, one typed helper per operation, each op name
//! written once here. melior has builders for the upstream dialects (scf, arith, func, llvm)
//! but none for spirv; its attributes and types come from `spirv_ir`.

use melior::dialect::{arith, func, llvm, ods, scf};
use melior::ir::attribute::{
    ArrayAttribute, DenseI32ArrayAttribute, FlatSymbolRefAttribute, IntegerAttribute,
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

use crate::spirv_ir::{self, MemorySemantics, Scope, StorageClass};
use crate::LowerError;

/// Two operands and a result of their type.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Binary {
    IAdd,
    ISub,
    BitwiseAnd,
    BitwiseOr,
    BitwiseXor,
    FAdd,
    FSub,
    SMax,
    SMin,
    UMax,
    UMin,
    FMax,
    FMin,
}

impl Binary {
    fn name(self) -> &'static str {
        match self {
            Binary::IAdd => "spirv.IAdd",
            Binary::ISub => "spirv.ISub",
            Binary::BitwiseAnd => "spirv.BitwiseAnd",
            Binary::BitwiseOr => "spirv.BitwiseOr",
            Binary::BitwiseXor => "spirv.BitwiseXor",
            Binary::FAdd => "spirv.FAdd",
            Binary::FSub => "spirv.FSub",
            Binary::SMax => "spirv.CL.s_max",
            Binary::SMin => "spirv.CL.s_min",
            Binary::UMax => "spirv.CL.u_max",
            Binary::UMin => "spirv.CL.u_min",
            Binary::FMax => "spirv.CL.fmax",
            Binary::FMin => "spirv.CL.fmin",
        }
    }
}

/// Two operands and a boolean result.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Compare {
    IEqual,
    INotEqual,
    UGreaterThan,
    UGreaterThanEqual,
    LogicalOr,
}

impl Compare {
    fn name(self) -> &'static str {
        match self {
            Compare::IEqual => "spirv.IEqual",
            Compare::INotEqual => "spirv.INotEqual",
            Compare::UGreaterThan => "spirv.UGreaterThan",
            Compare::UGreaterThanEqual => "spirv.UGreaterThanEqual",
            Compare::LogicalOr => "spirv.LogicalOr",
        }
    }
}

/// One operand converted to a given type.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Cast {
    Bitcast,
    ConvertPtrToU,
    ConvertUToPtr,
    GenericCastToPtr,
    GenericCastToPtrExplicit,
    PtrCastToGeneric,
    FNegate,
}

impl Cast {
    fn name(self) -> &'static str {
        match self {
            Cast::Bitcast => "spirv.Bitcast",
            Cast::ConvertPtrToU => "spirv.ConvertPtrToU",
            Cast::ConvertUToPtr => "spirv.ConvertUToPtr",
            Cast::GenericCastToPtr => "spirv.GenericCastToPtr",
            Cast::GenericCastToPtrExplicit => "spirv.GenericCastToPtrExplicit",
            Cast::PtrCastToGeneric => "spirv.PtrCastToGeneric",
            Cast::FNegate => "spirv.FNegate",
        }
    }
}

/// Atomic read-modify-write instructions: pointer and value in, old value out.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Atomic {
    Exchange,
    IAdd,
    ISub,
    And,
    Or,
    Xor,
    SMax,
    SMin,
    UMax,
    UMin,
    /// SPV_EXT_shader_atomic_float_add.
    FAddExt,
}

impl Atomic {
    fn name(self) -> &'static str {
        match self {
            Atomic::Exchange => "spirv.AtomicExchange",
            Atomic::IAdd => "spirv.AtomicIAdd",
            Atomic::ISub => "spirv.AtomicISub",
            Atomic::And => "spirv.AtomicAnd",
            Atomic::Or => "spirv.AtomicOr",
            Atomic::Xor => "spirv.AtomicXor",
            Atomic::SMax => "spirv.AtomicSMax",
            Atomic::SMin => "spirv.AtomicSMin",
            Atomic::UMax => "spirv.AtomicUMax",
            Atomic::UMin => "spirv.AtomicUMin",
            Atomic::FAddExt => "spirv.EXT.AtomicFAdd",
        }
    }
}

pub(crate) const SPEC_CONSTANT: &str = "spirv.SpecConstant";

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

    /// [`Rewriter::generic`] without regions or successors: the form most helpers below take.
    fn op(
        &self,
        name: &str,
        operands: &[MlirValue],
        results: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
    ) -> Result<Vec<MlirValue>, LowerError> {
        self.generic(name, operands, results, attributes, vec![], &[])
    }

    fn one(
        &self,
        name: &str,
        operands: &[MlirValue],
        result: Type<'c>,
        attributes: &[(&str, Attribute<'c>)],
    ) -> Result<MlirValue, LowerError> {
        Ok(self.op(name, operands, &[result], attributes)?[0])
    }

    pub fn binary(&self, op: Binary, a: MlirValue, b: MlirValue) -> Result<MlirValue, LowerError> {
        self.one(op.name(), &[a, b], type_of(a), &[])
    }

    pub fn compare(
        &self,
        op: Compare,
        a: MlirValue,
        b: MlirValue,
    ) -> Result<MlirValue, LowerError> {
        let bool_t = IntegerType::new(self.ctx, 1).into();
        self.one(op.name(), &[a, b], bool_t, &[])
    }

    pub fn convert(&self, op: Cast, v: MlirValue, to: Type<'c>) -> Result<MlirValue, LowerError> {
        self.one(op.name(), &[v], to, &[])
    }

    pub fn select(
        &self,
        condition: MlirValue,
        yes: MlirValue,
        no: MlirValue,
    ) -> Result<MlirValue, LowerError> {
        self.one("spirv.Select", &[condition, yes, no], type_of(yes), &[])
    }

    pub fn int_constant(&self, ty: Type<'c>, value: i64) -> Result<MlirValue, LowerError> {
        let attr = IntegerAttribute::new(ty, value).into();
        self.one("spirv.Constant", &[], ty, &[("value", attr)])
    }

    pub fn load(
        &self,
        ptr: MlirValue,
        ty: Type<'c>,
        volatile: bool,
    ) -> Result<MlirValue, LowerError> {
        self.one("spirv.Load", &[ptr], ty, &self.access(volatile))
    }

    pub fn store(
        &self,
        ptr: MlirValue,
        value: MlirValue,
        volatile: bool,
    ) -> Result<(), LowerError> {
        self.op("spirv.Store", &[ptr, value], &[], &self.access(volatile))?;
        Ok(())
    }

    fn access(&self, volatile: bool) -> Vec<(&'static str, Attribute<'c>)> {
        if volatile {
            let access = spirv_ir::memory_access_attr(self.ctx, spirv_ir::MEMORY_ACCESS_VOLATILE);
            vec![("memory_access", access)]
        } else {
            Vec::new()
        }
    }

    pub fn ptr_access_chain(
        &self,
        base: MlirValue,
        indices: &[MlirValue],
        result: Type<'c>,
    ) -> Result<MlirValue, LowerError> {
        let mut operands = vec![base];
        operands.extend_from_slice(indices);
        self.one("spirv.PtrAccessChain", &operands, result, &[])
    }

    pub fn atomic(
        &self,
        op: Atomic,
        ptr: MlirValue,
        value: MlirValue,
        scope: Scope,
        semantics: MemorySemantics,
    ) -> Result<MlirValue, LowerError> {
        let attributes = [
            ("memory_scope", spirv_ir::scope_attr(self.ctx, scope)),
            (
                "semantics",
                spirv_ir::memory_semantics_attr(self.ctx, semantics),
            ),
        ];
        self.one(op.name(), &[ptr, value], type_of(value), &attributes)
    }

    pub fn atomic_compare_exchange(
        &self,
        ptr: MlirValue,
        new: MlirValue,
        compare: MlirValue,
        scope: Scope,
        semantics: MemorySemantics,
    ) -> Result<MlirValue, LowerError> {
        let semantics = spirv_ir::memory_semantics_attr(self.ctx, semantics);
        let attributes = [
            ("memory_scope", spirv_ir::scope_attr(self.ctx, scope)),
            ("equal_semantics", semantics),
            ("unequal_semantics", semantics),
        ];
        self.one(
            "spirv.AtomicCompareExchange",
            &[ptr, new, compare],
            type_of(compare),
            &attributes,
        )
    }

    pub fn memory_barrier(
        &self,
        scope: Scope,
        semantics: MemorySemantics,
    ) -> Result<(), LowerError> {
        let attributes = [
            ("memory_scope", spirv_ir::scope_attr(self.ctx, scope)),
            (
                "memory_semantics",
                spirv_ir::memory_semantics_attr(self.ctx, semantics),
            ),
        ];
        self.op("spirv.MemoryBarrier", &[], &[], &attributes)?;
        Ok(())
    }

    /// A function-local variable of pointer type `ty`.
    pub fn function_variable(&self, ty: Type<'c>) -> Result<MlirValue, LowerError> {
        let storage = spirv_ir::storage_class_attr(self.ctx, StorageClass::Function);
        self.one("spirv.Variable", &[], ty, &[("storage_class", storage)])
    }

    /// `spirv.GlobalVariable @symbol : ty` with extra attributes (an initializer).
    pub fn global_variable(
        &self,
        symbol: Attribute<'c>,
        ty: Type<'c>,
        extra: &[(&str, Attribute<'c>)],
    ) -> Result<(), LowerError> {
        let mut attributes = vec![
            ("sym_name", symbol),
            ("type", TypeAttribute::new(ty).into()),
        ];
        attributes.extend_from_slice(extra);
        self.op("spirv.GlobalVariable", &[], &[], &attributes)?;
        Ok(())
    }

    pub fn address_of(&self, symbol: Attribute<'c>, ty: Type<'c>) -> Result<MlirValue, LowerError> {
        self.one("spirv.mlir.addressof", &[], ty, &[("variable", symbol)])
    }

    /// `spirv.SpecConstant @name = value` (never specialized: no SpecId).
    pub fn spec_constant(&self, name: &str, value: Attribute<'c>) -> Result<(), LowerError> {
        let attributes = [
            ("sym_name", StringAttribute::new(self.ctx, name).into()),
            ("default_value", value),
        ];
        self.op(SPEC_CONSTANT, &[], &[], &attributes)?;
        Ok(())
    }

    pub fn spec_constant_composite(
        &self,
        name: &str,
        ty: Type<'c>,
        constituents: &[&str],
    ) -> Result<(), LowerError> {
        let constituents: Vec<Attribute> = constituents
            .iter()
            .map(|c| FlatSymbolRefAttribute::new(self.ctx, c).into())
            .collect();
        let attributes = [
            ("sym_name", StringAttribute::new(self.ctx, name).into()),
            ("type", TypeAttribute::new(ty).into()),
            (
                "constituents",
                ArrayAttribute::new(self.ctx, &constituents).into(),
            ),
        ];
        self.op("spirv.SpecConstantComposite", &[], &[], &attributes)?;
        Ok(())
    }

    /// An OpenCL.std instruction or a core instruction of the same shape (`spirv.CL.sin`,
    /// `spirv.IsNan`): operands in, one result; `name` comes from the math pass's tables.
    pub fn instruction(
        &self,
        name: &str,
        operands: &[MlirValue],
        result: Type<'c>,
    ) -> Result<MlirValue, LowerError> {
        self.one(name, operands, result, &[])
    }

    pub fn function_call(
        &self,
        callee: &str,
        operands: &[MlirValue],
        result: Type<'c>,
    ) -> Result<MlirValue, LowerError> {
        let callee = FlatSymbolRefAttribute::new(self.ctx, callee).into();
        self.one(
            "spirv.FunctionCall",
            operands,
            result,
            &[("callee", callee)],
        )
    }

    /// `spirv.func @name(...)`, imported by linkage (a declaration: no body); `"Pure"` when
    /// `pure` (calls with the same operands give the same result).
    pub fn imported_function(
        &self,
        name: &str,
        function_type: FunctionType<'c>,
        pure: bool,
    ) -> Result<(), LowerError> {
        let ctx = self.ctx;
        let control = match pure {
            true => spirv_ir::FUNCTION_CONTROL_PURE,
            false => spirv_ir::FUNCTION_CONTROL_NONE,
        };
        let attributes = [
            ("sym_name", StringAttribute::new(ctx, name).into()),
            (
                "function_type",
                TypeAttribute::new(function_type.into()).into(),
            ),
            (
                "function_control",
                spirv_ir::function_control_attr(ctx, control),
            ),
            (
                "linkage_attributes",
                spirv_ir::linkage_attributes(ctx, name, spirv_ir::LINKAGE_IMPORT),
            ),
        ];
        self.generic(
            "spirv.func",
            &[],
            &[],
            &attributes,
            vec![Region::new()],
            &[],
        )?;
        Ok(())
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
        let ctx = self.ctx;
        let array = llvm::r#type::array(IntegerType::new(ctx, 8).into(), bytes.len() as u32);
        // SAFETY: a plain constructor on a live context.
        let internal = unsafe {
            Attribute::from_raw(mlir_sys::mlirLLVMLinkageAttrGet(
                ctx.to_raw(),
                mlir_sys::MlirLLVMLinkage_MlirLLVMLinkageInternal,
            ))
        };
        let attributes = [
            ("sym_name", StringAttribute::new(ctx, symbol).into()),
            ("global_type", TypeAttribute::new(array).into()),
            ("linkage", internal),
            ("constant", Attribute::unit(ctx)),
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
    /// the function returns.
    #[allow(clippy::type_complexity)]
    pub fn private_function(
        &self,
        name: &str,
        inputs: &[Type<'c>],
        results: &[Type<'c>],
        body: Option<&dyn Fn(&Rewriter<'c>, &[MlirValue]) -> Result<Vec<MlirValue>, LowerError>>,
    ) -> Result<(), LowerError> {
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
        self.emit(func::func(
            ctx,
            StringAttribute::new(ctx, name),
            TypeAttribute::new(function_type.into()),
            region,
            &[(
                Identifier::new(ctx, "sym_visibility"),
                StringAttribute::new(ctx, "private").into(),
            )],
            self.loc,
        ));
        Ok(())
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

/// The live value `v`.
fn value<'c, 'a>(v: MlirValue) -> Value<'c, 'a> {
    // SAFETY: `v` is a live value of the module being rewritten.
    unsafe { Value::from_raw(v) }
}

/// Live values.
fn values<'c, 'a>(vs: &[MlirValue]) -> Vec<Value<'c, 'a>> {
    vs.iter().map(|v| value(*v)).collect()
}
