//! `hipmlir-address-spaces-to-spirv` and `hipmlir-address-spaces-to-nvptx`: the frontend's
//! target-neutral address spaces (device-image's `vocabulary::address_space`: generic 0,
//! global 1, shared 3, constant 4, private 5) renumbered for one target, in every type of the
//! module (values, block arguments, function types, types inside attributes) and in globals'
//! `addr_space`. Until one of these runs, nothing in the IR is specific to a target.
//!
//! The module records the target it was renumbered for (`hipmlir.address_spaces`), so a second
//! renumbering, which would scramble the spaces, is refused.

use hipmlir_device_image::{address_space as neutral, ADDRESS_SPACES_ATTRIBUTE};
use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::attribute::{IntegerAttribute, StringAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRefMut};
use melior::ir::r#type::IntegerType;
use melior::ir::{
    Attribute, AttributeLike, Module, OperationRef, RegionLike, Type, TypeLike, ValueLike,
};
use melior::Context;
use mlir_sys::{
    mlirArrayAttrGet, mlirArrayAttrGetElement, mlirArrayAttrGetNumElements, mlirAttributeIsAArray,
    mlirAttributeIsADictionary, mlirAttributeIsAType, mlirDictionaryAttrGet,
    mlirDictionaryAttrGetElement, mlirDictionaryAttrGetNumElements, mlirFunctionTypeGet,
    mlirFunctionTypeGetInput, mlirFunctionTypeGetNumInputs, mlirFunctionTypeGetNumResults,
    mlirFunctionTypeGetResult, mlirLLVMArrayTypeGet, mlirLLVMArrayTypeGetElementType,
    mlirLLVMFunctionTypeGet, mlirLLVMFunctionTypeGetInput, mlirLLVMFunctionTypeGetNumInputs,
    mlirLLVMFunctionTypeGetReturnType, mlirLLVMPointerTypeGet, mlirLLVMPointerTypeGetAddressSpace,
    mlirLLVMStructTypeGetElementType, mlirLLVMStructTypeGetNumElementTypes,
    mlirLLVMStructTypeIsLiteral, mlirLLVMStructTypeIsPacked, mlirLLVMStructTypeLiteralGet,
    mlirNamedAttributeGet, mlirOperationGetAttribute, mlirOperationGetNumAttributes,
    mlirTypeAttrGet, mlirTypeAttrGetValue, mlirTypeIsAFunction, mlirTypeIsALLVMPointerType,
    mlirTypeIsALLVMStructType, mlirValueSetType, MlirAttribute, MlirContext, MlirNamedAttribute,
    MlirType,
};

use crate::builder::value;
use crate::LowerError;

/// SPIR-V's storage classes as LLVM address spaces (the SPIR/OpenCL numbering clang uses for
/// spirv64), which MLIR's SPIR-V lowering and hipmlir's pointer lowering read.
pub(crate) mod spirv {
    pub const FUNCTION: u32 = 0;
    pub const CROSS_WORKGROUP: u32 = 1;
    pub const UNIFORM_CONSTANT: u32 = 2;
    pub const WORKGROUP: u32 = 3;
    pub const GENERIC: u32 = 4;
}

/// NVPTX's address spaces (LLVM's NVPTX backend).
pub(crate) mod nvptx {
    pub const GENERIC: u32 = 0;
    pub const GLOBAL: u32 = 1;
    pub const SHARED: u32 = 3;
    pub const CONSTANT: u32 = 4;
}

/// A target's numbering of the neutral spaces.
#[derive(Clone, Copy)]
pub struct Numbering {
    pub target: &'static str,
    map: fn(u32) -> Option<u32>,
}

pub const SPIRV: Numbering = Numbering {
    target: "spirv",
    map: |space| match space {
        neutral::GENERIC => Some(spirv::GENERIC),
        neutral::GLOBAL => Some(spirv::CROSS_WORKGROUP),
        neutral::SHARED => Some(spirv::WORKGROUP),
        neutral::CONSTANT => Some(spirv::UNIFORM_CONSTANT),
        neutral::PRIVATE => Some(spirv::FUNCTION),
        _ => None,
    },
};

pub const NVPTX: Numbering = Numbering {
    target: "nvptx",
    map: |space| match space {
        neutral::GENERIC => Some(nvptx::GENERIC),
        neutral::GLOBAL => Some(nvptx::GLOBAL),
        neutral::SHARED => Some(nvptx::SHARED),
        neutral::CONSTANT => Some(nvptx::CONSTANT),
        // Allocas stay generic: NVPTX's backend moves them to local memory itself (as for
        // MLIR's own GPU lowering), and its data layout has no alloca address space.
        neutral::PRIVATE => Some(nvptx::GENERIC),
        _ => None,
    },
};

struct Mapper {
    ctx: MlirContext,
    numbering: Numbering,
    /// The first address space the numbering does not know.
    unknown: Option<u32>,
}

impl Mapper {
    fn space(&mut self, space: u32) -> u32 {
        (self.numbering.map)(space).unwrap_or_else(|| {
            self.unknown.get_or_insert(space);
            space
        })
    }

    /// `t` with every pointer inside renumbered (the same type when nothing changes).
    fn map_type(&mut self, t: MlirType) -> MlirType {
        // SAFETY: type queries and constructors on live types of one context; element accessors
        // only after the kind checks.
        unsafe {
            if mlirTypeIsALLVMPointerType(t) {
                let space = self.space(mlirLLVMPointerTypeGetAddressSpace(t));
                return mlirLLVMPointerTypeGet(self.ctx, space);
            }
            if mlirTypeIsALLVMStructType(t) {
                // The frontend writes literal structs only; an identified struct's body cannot
                // be changed without renaming it, and holds no pointer of ours.
                if !mlirLLVMStructTypeIsLiteral(t) {
                    return t;
                }
                let n = mlirLLVMStructTypeGetNumElementTypes(t);
                let fields: Vec<MlirType> = (0..n)
                    .map(|i| self.map_type(mlirLLVMStructTypeGetElementType(t, i)))
                    .collect();
                return mlirLLVMStructTypeLiteralGet(
                    self.ctx,
                    n,
                    fields.as_ptr(),
                    mlirLLVMStructTypeIsPacked(t),
                );
            }
            if mlirTypeIsAFunction(t) {
                let inputs: Vec<MlirType> = (0..mlirFunctionTypeGetNumInputs(t))
                    .map(|i| self.map_type(mlirFunctionTypeGetInput(t, i)))
                    .collect();
                let results: Vec<MlirType> = (0..mlirFunctionTypeGetNumResults(t))
                    .map(|i| self.map_type(mlirFunctionTypeGetResult(t, i)))
                    .collect();
                return mlirFunctionTypeGet(
                    self.ctx,
                    inputs.len() as isize,
                    inputs.as_ptr(),
                    results.len() as isize,
                    results.as_ptr(),
                );
            }
        }
        // The C API has no kind checks for LLVM arrays and function types, nor an array length
        // accessor: their printed forms say (`!llvm.array<N x T>`, `!llvm.func<R (A, ...)>`).
        let text = unsafe { Type::from_raw(t) }.to_string();
        if let Some(rest) = text.strip_prefix("!llvm.array<") {
            if let Some(len) = rest.split(" x ").next().and_then(|n| n.parse::<u32>().ok()) {
                // SAFETY: `t` is an LLVM array type.
                unsafe {
                    let element = self.map_type(mlirLLVMArrayTypeGetElementType(t));
                    return mlirLLVMArrayTypeGet(element, len);
                }
            }
        }
        if text.starts_with("!llvm.func<") {
            // SAFETY: `t` is an LLVM function type.
            unsafe {
                let result = self.map_type(mlirLLVMFunctionTypeGetReturnType(t));
                let inputs: Vec<MlirType> = (0..mlirLLVMFunctionTypeGetNumInputs(t))
                    .map(|i| self.map_type(mlirLLVMFunctionTypeGetInput(t, i)))
                    .collect();
                let var_arg = text.ends_with("...)>");
                return mlirLLVMFunctionTypeGet(
                    result,
                    inputs.len() as isize,
                    inputs.as_ptr(),
                    var_arg,
                );
            }
        }
        t
    }

    /// `a` with the types inside it (type attributes, nested in arrays and dictionaries)
    /// renumbered.
    fn map_attribute(&mut self, a: MlirAttribute) -> MlirAttribute {
        // SAFETY: attribute queries and constructors on live attributes; element accessors
        // only after the kind checks.
        unsafe {
            if mlirAttributeIsAType(a) {
                return mlirTypeAttrGet(self.map_type(mlirTypeAttrGetValue(a)));
            }
            if mlirAttributeIsAArray(a) {
                let elements: Vec<MlirAttribute> = (0..mlirArrayAttrGetNumElements(a))
                    .map(|i| self.map_attribute(mlirArrayAttrGetElement(a, i)))
                    .collect();
                return mlirArrayAttrGet(self.ctx, elements.len() as isize, elements.as_ptr());
            }
            if mlirAttributeIsADictionary(a) {
                let entries: Vec<MlirNamedAttribute> = (0..mlirDictionaryAttrGetNumElements(a))
                    .map(|i| {
                        let e = mlirDictionaryAttrGetElement(a, i);
                        mlirNamedAttributeGet(e.name, self.map_attribute(e.attribute))
                    })
                    .collect();
                return mlirDictionaryAttrGet(self.ctx, entries.len() as isize, entries.as_ptr());
            }
        }
        a
    }
}

/// Renumbers the module's address spaces for `numbering`'s target.
pub fn map_address_spaces(
    ctx: &Context,
    module: &mut Module,
    numbering: Numbering,
) -> Result<(), LowerError> {
    if let Ok(done) = module.as_operation().attribute(ADDRESS_SPACES_ATTRIBUTE) {
        return Err(LowerError::pass_failed(
            format!("renumbering address spaces for {}", numbering.target),
            format!("the module's address spaces were already renumbered for a target ({done})"),
        ));
    }
    let mut mapper = Mapper {
        ctx: ctx.to_raw(),
        numbering,
        unknown: None,
    };
    let mut patterns = RewritePatternSet::new();
    patterns.add(Pattern::any(renumber));
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut mapper)?;
    if let Some(space) = mapper.unknown {
        return Err(LowerError::pass_failed(
            format!("renumbering address spaces for {}", numbering.target),
            format!(
                "address space {space} is none of hipmlir's (generic {}, global {}, shared {}, \
                 constant {}, private {})",
                neutral::GENERIC,
                neutral::GLOBAL,
                neutral::SHARED,
                neutral::CONSTANT,
                neutral::PRIVATE
            ),
        ));
    }
    module.as_operation_mut().set_attribute(
        ADDRESS_SPACES_ATTRIBUTE,
        StringAttribute::new(ctx, numbering.target).into(),
    );
    Ok(())
}

/// Renumbers the spaces in `op`'s result types, its regions' block arguments and its
/// attributes (and a global's `addr_space`).
fn renumber<'c>(
    rw: &mut PatternRewriter<'c>,
    mapper: &mut Mapper,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let ctx = rw.ctx;
    let raw = op.to_raw();
    // SAFETY: the live operation; only types and attributes change.
    let mut op = unsafe { OperationRefMut::from_raw(raw) };
    for r in op.results() {
        let mapped = mapper.map_type(r.r#type().to_raw());
        // SAFETY: a live result; its uses see the same value with the renumbered type.
        unsafe { mlirValueSetType(r.to_raw(), mapped) };
    }
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            for i in 0..b.argument_count() {
                if let Ok(a) = b.argument(i) {
                    let mapped = mapper.map_type(a.r#type().to_raw());
                    // SAFETY: a live block argument.
                    unsafe { mlirValueSetType(a.to_raw(), mapped) };
                }
            }
            block = b.next_in_region();
        }
    }
    // SAFETY: attribute access by index within the operation's count.
    let named: Vec<MlirNamedAttribute> = unsafe {
        (0..mlirOperationGetNumAttributes(raw))
            .map(|i| mlirOperationGetAttribute(raw, i))
            .collect()
    };
    let is_global = op.name().as_string_ref().as_str() == Ok("llvm.mlir.global");
    for a in named {
        // SAFETY: the identifier and attribute of a live operation's attribute.
        let (name, attribute) = unsafe {
            (
                melior::ir::Identifier::from_raw(a.name),
                Attribute::from_raw(a.attribute),
            )
        };
        let name = name.as_string_ref().as_str().unwrap_or("").to_string();
        let mapped = if is_global && name == "addr_space" {
            match IntegerAttribute::try_from(attribute) {
                Ok(space) => IntegerAttribute::new(
                    IntegerType::new(ctx, 32).into(),
                    mapper.space(space.value() as u32) as i64,
                )
                .into(),
                Err(_) => attribute,
            }
        } else {
            // SAFETY: the mapped attribute lives in the same context.
            unsafe { Attribute::from_raw(mapper.map_attribute(attribute.to_raw())) }
        };
        if mapped != attribute {
            op.set_attribute(&name, mapped);
        }
    }
    // A global in the default (generic) space has no `addr_space`: only the neutral
    // generic space is 0, so it takes the target's number.
    if is_global && !op.has_attribute("addr_space") {
        let space = mapper.space(neutral::GENERIC);
        if space != 0 {
            op.set_attribute(
                "addr_space",
                IntegerAttribute::new(IntegerType::new(ctx, 32).into(), space as i64).into(),
            );
        }
    }
    // Two neutral spaces may be one on the target (NVPTX's private is generic): a cast
    // between them is no cast, and LLVM IR has no address-space cast to the same space.
    if op.name().as_string_ref().as_str() == Ok("llvm.addrspacecast") {
        if let (Ok(from), Ok(to)) = (op.operand(0), op.result(0)) {
            if from.r#type() == to.r#type() {
                rw.replace_op(&op, &[value(from.to_raw())]);
            }
        }
    }
    Ok(Outcome::Rewrote)
}
