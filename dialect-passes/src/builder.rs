//! The operations hipmlir's SPIR-V passes build, one typed helper per operation, each op name
//! written once here. melior has builders for the upstream dialects (scf, arith, func, llvm)
//! but none for spirv; its attributes and types come from `spirv_ir`.

use melior::dialect::scf;
use melior::ir::attribute::{
    ArrayAttribute, FlatSymbolRefAttribute, IntegerAttribute, StringAttribute, TypeAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{
    Attribute, Block, BlockRef, Location, Operation, OperationRef, Region, RegionLike, Type, Value,
    ValueLike,
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

    /// The generic form every helper below goes through.
    fn op(
        &self,
        name: &str,
        operands: &[MlirValue],
        results: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
    ) -> Result<Vec<MlirValue>, LowerError> {
        // SAFETY: operands are live values of the module being rewritten.
        let operands: Vec<Value> = operands
            .iter()
            .map(|v| unsafe { Value::from_raw(*v) })
            .collect();
        self.ops
            .op(name, &operands, results, attributes, vec![], self.loc)
            .map(raw_values)
            .map_err(|e| self.error(e))
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

    /// `spirv.func @name(...) "Pure"`, imported by linkage (a declaration: no body).
    pub fn imported_pure_function(
        &self,
        name: &str,
        function_type: FunctionType<'c>,
    ) -> Result<(), LowerError> {
        let ctx = self.ctx;
        let attributes = [
            ("sym_name", StringAttribute::new(ctx, name).into()),
            (
                "function_type",
                TypeAttribute::new(function_type.into()).into(),
            ),
            (
                "function_control",
                spirv_ir::function_control_attr(ctx, spirv_ir::FUNCTION_CONTROL_PURE),
            ),
            (
                "linkage_attributes",
                spirv_ir::linkage_attributes(ctx, name, spirv_ir::LINKAGE_IMPORT),
            ),
        ];
        self.ops
            .build(
                "spirv.func",
                &[],
                &[],
                &attributes,
                vec![Region::new()],
                self.loc,
            )
            .map_err(|e| self.error(e))?;
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
