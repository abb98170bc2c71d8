//! `lower-dynamic-shared`: dynamic shared memory (`extern __shared__`) becomes a trailing
//! workgroup-pointer argument of each kernel that uses it, sized at launch
//! (`clSetKernelArg(index, bytes, NULL)`), as chipStar's HipDynMem does. The argument is added to
//! the kernel's `hipmlir.kernel_args` with the workgroup address space and no bytes in the
//! packed argument block.

use hipmlir_device_image::{KERNEL_ARGS_ATTRIBUTE, KERNEL_ARGS_SIZE_ATTRIBUTE};
use melior::ir::attribute::{
    ArrayAttribute, BoolAttribute, DictionaryAttribute, IntegerAttribute, StringAttribute,
    TypeAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::{
    OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult,
};
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{
    Attribute, AttributeLike, Identifier, Location, Module, RegionLike, Type, ValueLike,
};
use melior::Context;
use mlir_sys::{
    mlirArrayAttrGetElement, mlirArrayAttrGetNumElements, mlirOperationDestroy,
    mlirOperationRemoveFromParent, mlirValueReplaceAllUsesOfWith, MlirOperation,
};

use crate::LowerError;

/// The frontend's placeholder global (see hipmlir-frontend's DYNAMIC_SHARED_SYMBOL).
const PLACEHOLDER: &str = "__hipmlir_dynamic_shared";
/// It runs after the address spaces are renumbered for SPIR-V.
const WORKGROUP: u32 = crate::address_space_map::spirv::WORKGROUP;

fn err(e: impl std::fmt::Display) -> LowerError {
    LowerError::bug(format!("dynamic shared memory: {e}"))
}

fn names_placeholder(op: &melior::ir::OperationRef) -> bool {
    op.name().as_string_ref().as_str() == Ok("llvm.mlir.addressof")
        && op
            .attribute("global_name")
            .is_ok_and(|a| a.to_string().trim_start_matches('@').trim_matches('"') == PLACEHOLDER)
}

pub fn lower_dynamic_shared(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut kernels: Vec<(MlirOperation, Vec<MlirOperation>)> = Vec::new();
    let mut placeholders: Vec<MlirOperation> = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or("");
        if name == "gpu.func" && op.has_attribute("gpu.kernel") {
            let mut uses = Vec::new();
            op.walk(WalkOrder::PreOrder, |inner| {
                if names_placeholder(&inner) {
                    uses.push(inner.to_raw());
                }
                WalkResult::Advance
            });
            if !uses.is_empty() {
                kernels.push((op.to_raw(), uses));
            }
        } else if name == "llvm.mlir.global"
            && op
                .attribute("sym_name")
                .is_ok_and(|a| a.to_string().trim_matches('"') == PLACEHOLDER)
        {
            placeholders.push(op.to_raw());
        }
        WalkResult::Advance
    });
    for (kernel, uses) in kernels {
        add_argument(ctx, kernel, &uses)?;
    }
    for raw in placeholders {
        // SAFETY: every use of the placeholder was replaced above.
        unsafe {
            mlirOperationRemoveFromParent(raw);
            mlirOperationDestroy(raw);
        }
    }
    Ok(())
}

fn add_argument(
    ctx: &Context,
    kernel: MlirOperation,
    uses: &[MlirOperation],
) -> Result<(), LowerError> {
    // SAFETY: a live gpu.func found by the walk.
    let mut op = unsafe { OperationRefMut::from_raw(kernel) };
    let loc: Location = op.location();
    let ptr_type: Type = melior::dialect::llvm::r#type::pointer(ctx, WORKGROUP);
    let entry = op
        .region(0)
        .map_err(err)?
        .first_block()
        .ok_or_else(|| err("empty kernel"))?;
    let arg = entry.add_argument(ptr_type, loc);
    for u in uses {
        // SAFETY: each use is a live llvm.mlir.addressof with one result; it is replaced, then
        // destroyed.
        unsafe {
            let result = mlir_sys::mlirOperationGetResult(*u, 0);
            mlirValueReplaceAllUsesOfWith(result, arg.to_raw());
            mlirOperationRemoveFromParent(*u);
            mlirOperationDestroy(*u);
        }
    }
    let inputs: Vec<Type> = (0..entry.argument_count())
        .filter_map(|i| entry.argument(i).ok().map(|a| a.r#type()))
        .collect();
    op.set_attribute(
        "function_type",
        TypeAttribute::new(FunctionType::new(ctx, &inputs, &[]).into()).into(),
    );

    // The metadata gains the argument, after the packed block (it has no bytes there).
    let args = op.attribute(KERNEL_ARGS_ATTRIBUTE).map_err(err)?;
    let size = IntegerAttribute::try_from(op.attribute(KERNEL_ARGS_SIZE_ATTRIBUTE).map_err(err)?)
        .map_err(err)?
        .value();
    let i64t: Type = IntegerType::new(ctx, 64).into();
    let int = |v: i64| -> Attribute { IntegerAttribute::new(i64t, v).into() };
    let entry_attr: Attribute = DictionaryAttribute::new(
        ctx,
        &[
            (
                Identifier::new(ctx, "name"),
                StringAttribute::new(ctx, PLACEHOLDER).into(),
            ),
            (
                Identifier::new(ctx, "type"),
                StringAttribute::new(ctx, "char[]").into(),
            ),
            (Identifier::new(ctx, "offset"), int(size)),
            (Identifier::new(ctx, "size"), int(0)),
            (Identifier::new(ctx, "align"), int(16)),
            (
                Identifier::new(ctx, "is_pointer"),
                BoolAttribute::new(ctx, true).into(),
            ),
            (
                Identifier::new(ctx, "addr_space"),
                StringAttribute::new(ctx, "workgroup").into(),
            ),
        ],
    )
    .into();
    // SAFETY: hipmlir.kernel_args is an array attribute (the frontend writes it).
    let mut elements: Vec<Attribute> = unsafe {
        (0..mlirArrayAttrGetNumElements(args.to_raw()))
            .map(|i| Attribute::from_raw(mlirArrayAttrGetElement(args.to_raw(), i)))
            .collect()
    };
    elements.push(entry_attr);
    op.set_attribute(
        KERNEL_ARGS_ATTRIBUTE,
        ArrayAttribute::new(ctx, &elements).into(),
    );
    Ok(())
}
