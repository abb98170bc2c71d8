//! The SPIR-V operations hipmlir's SPIR-V passes build, one typed helper per operation, each op
//! name written once here (melior has no builders for the spirv dialect); its attributes and
//! types come from `spirv::ir`.

use melior::ir::attribute::{
    ArrayAttribute, FlatSymbolRefAttribute, IntegerAttribute, StringAttribute, TypeAttribute,
};
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{Attribute, Region, Type};
use mlir_sys::MlirValue;

use crate::builder::{type_of, Rewriter};
use crate::spirv::ir::{self as spirv_ir, MemorySemantics, Scope, StorageClass};
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

/// SPIR-V operations at the rewriter's point.
impl<'c> Rewriter<'c> {
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

    /// `-v` of a float.
    pub fn fnegate(&self, v: MlirValue) -> Result<MlirValue, LowerError> {
        self.one("spirv.FNegate", &[v], type_of(v), &[])
    }

    /// `OpGroupNonUniformBallot` of `condition` over the subgroup: a bit per invocation, in a
    /// `vector<4xi32>`.
    pub fn subgroup_ballot(&self, condition: MlirValue) -> Result<MlirValue, LowerError> {
        let i32t: Type = IntegerType::new(self.ctx, 32).into();
        let mask = Type::vector(&[4], i32t);
        let scope = spirv_ir::scope_attr(self.ctx, Scope::Subgroup);
        self.one(
            "spirv.GroupNonUniformBallot",
            &[condition],
            mask,
            &[("execution_scope", scope)],
        )
    }

    /// Component `index` of a vector or struct, of type `ty`.
    pub fn composite_extract(
        &self,
        composite: MlirValue,
        index: i64,
        ty: Type<'c>,
    ) -> Result<MlirValue, LowerError> {
        let i32t: Type = IntegerType::new(self.ctx, 32).into();
        let indices = ArrayAttribute::new(self.ctx, &[IntegerAttribute::new(i32t, index).into()]);
        self.one(
            "spirv.CompositeExtract",
            &[composite],
            ty,
            &[("indices", indices.into())],
        )
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
        access: Access,
    ) -> Result<MlirValue, LowerError> {
        self.one("spirv.Load", &[ptr], ty, &self.access(access))
    }

    pub fn store(
        &self,
        ptr: MlirValue,
        value: MlirValue,
        access: Access,
    ) -> Result<(), LowerError> {
        self.op("spirv.Store", &[ptr, value], &[], &self.access(access))?;
        Ok(())
    }

    fn access(&self, access: Access) -> Vec<(&'static str, Attribute<'c>)> {
        let mut bits = 0;
        let mut attributes = Vec::new();
        if access.volatile {
            bits |= spirv_ir::MEMORY_ACCESS_VOLATILE;
        }
        if let Some(align) = access.aligned {
            bits |= spirv_ir::MEMORY_ACCESS_ALIGNED;
            let i32t = IntegerType::new(self.ctx, 32).into();
            attributes.push((
                "alignment",
                IntegerAttribute::new(i32t, align.into()).into(),
            ));
        }
        if bits != 0 {
            attributes.insert(
                0,
                (
                    "memory_access",
                    spirv_ir::memory_access_attr(self.ctx, bits),
                ),
            );
        }
        attributes
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

    /// `spirv.FunctionCall @callee(operands)` of a function returning nothing.
    pub fn void_function_call(
        &self,
        callee: &str,
        operands: &[MlirValue],
    ) -> Result<(), LowerError> {
        let callee = FlatSymbolRefAttribute::new(self.ctx, callee).into();
        self.op("spirv.FunctionCall", operands, &[], &[("callee", callee)])?;
        Ok(())
    }

    pub fn spirv_return(&self) -> Result<(), LowerError> {
        self.op("spirv.Return", &[], &[], &[])?;
        Ok(())
    }

    /// `spirv.func` with these attributes (`sym_name`, `function_type`, `function_control`, ...)
    /// and body.
    pub fn function(
        &self,
        attributes: &[(&str, Attribute<'c>)],
        body: Region<'c>,
    ) -> Result<(), LowerError> {
        self.generic("spirv.func", &[], &[], attributes, vec![body], &[])?;
        Ok(())
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
}

/// How a `spirv.Load` or `spirv.Store` accesses memory.
#[derive(Debug, Clone, Copy, Default)]
pub struct Access {
    pub volatile: bool,
    /// `Aligned N`, for an access below its type's own alignment (a member of a packed
    /// struct): without it the device compiler assumes the type's.
    pub aligned: Option<u32>,
}

impl Access {
    pub const PLAIN: Access = Access {
        volatile: false,
        aligned: None,
    };
}
