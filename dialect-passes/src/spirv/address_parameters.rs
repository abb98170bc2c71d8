//! `hipmlir-kernel-address-parameters`: a kernel's global-memory pointer parameters become 64-bit
//! integers at its entry point, so that the OpenCL runtime sets them with a plain `clSetKernelArg`
//! of the address, which costs what a `cl_mem` argument does. Intel's runtime spends several
//! times that per pointer in `clSetKernelArgMemPointerINTEL`/`clSetKernelArgSVMPointer`.
//!
//! The entry point becomes a thin wrapper with the kernel's name. It converts each integer to its
//! pointer (`spirv.ConvertUToPtr`) and calls the kernel's own function, renamed `NAME.body` and
//! marked `Inline`. The body keeps its pointer parameters and what they tell the driver's
//! compiler (the `NoAlias` of `__restrict__`, decorated after serialization): the driver inlines
//! it, and LLVM's inliner turns `noalias` parameters into scoped alias metadata, so kernels
//! vectorize as before. By-value structs (`ByVal` pointers, decorated on the wrapper) and
//! workgroup pointers (dynamic shared memory) pass through as they are. The kernel's metadata
//! (`hipmlir.kernel_args`, the host's argument block) does not change; it moves to the wrapper.

use std::collections::HashSet;

use hipmlir_device_image::NOALIAS_ATTRIBUTE;
use hipmlir_ir::rewrite::{apply_patterns, Outcome, Pattern, PatternRewriter, RewritePatternSet};
use melior::ir::attribute::{StringAttribute, TypeAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRefMut};
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{Attribute, Block, Module, OperationRef, Region, RegionLike, Type, ValueLike};
use melior::Context;
use mlir_sys::MlirValue;

use crate::builder::Rewriter;
use crate::spirv::builder::Cast;
use crate::spirv::ir::{self as spirv_ir, StorageClass};
use crate::symbols::symbol;
use crate::LowerError;

/// The suffix of a wrapped kernel's own function.
pub const BODY_SUFFIX: &str = ".body";

/// `Capability::Int64`.
const CAPABILITY_INT64: i64 = 11;

/// `FunctionControl::Inline`.
const FUNCTION_CONTROL_INLINE: u32 = 0x1;

pub fn kernel_address_parameters(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns
        .add(Pattern::new("spirv.EntryPoint", note_entry_point))
        .next_stage()
        .add(Pattern::new("spirv.func", wrap_kernel));
    apply_patterns(ctx, &module.as_operation(), &patterns, &mut HashSet::new())
}

/// Collects the entry points' function names.
fn note_entry_point<'c>(
    _: &mut PatternRewriter<'c>,
    entry_points: &mut HashSet<String>,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    entry_points.extend(symbol(&op, "fn"));
    Ok(Outcome::NoMatch)
}

/// Whether a parameter of this type is taken as an integer at the entry point.
fn by_address(t: Type) -> bool {
    spirv_ir::pointer_storage_class(t) == Some(StorageClass::CrossWorkgroup)
}

fn wrap_kernel<'c>(
    rw: &mut PatternRewriter<'c>,
    entry_points: &mut HashSet<String>,
    func: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let ctx = rw.ctx;
    let Some(name) = symbol(&func, "sym_name").filter(|n| entry_points.contains(n)) else {
        return Ok(Outcome::NoMatch);
    };
    let bad = |what: &str| LowerError::internal(func.location(), format!("kernel {name}: {what}"));
    let function_type = func
        .attribute("function_type")
        .ok()
        .and_then(|a| TypeAttribute::try_from(a).ok())
        .and_then(|a| FunctionType::try_from(a.value()).ok())
        .ok_or_else(|| bad("no function type"))?;
    let inputs: Vec<Type<'c>> = (0..function_type.input_count())
        .map(|i| function_type.input(i))
        .collect::<Result<_, _>>()
        .map_err(|e| bad(&e.to_string()))?;
    if function_type.result_count() != 0 {
        return Err(bad("a kernel returns a value"));
    }
    if !inputs.iter().any(|t| by_address(*t)) {
        return Ok(Outcome::NoMatch);
    }
    let i64_type: Type = IntegerType::new(ctx, 64).into();
    let wrapper_inputs: Vec<Type<'c>> = inputs
        .iter()
        .map(|t| if by_address(*t) { i64_type } else { *t })
        .collect();

    // The kernel's function becomes its body: renamed, inlined, keeping the pointers' no-alias
    // facts; every other hipmlir attribute (metadata, by-value structs) goes to the wrapper.
    let body_name = format!("{name}{BODY_SUFFIX}");
    let moved: Vec<(String, Attribute<'c>)> = func
        .attributes()
        .filter_map(|(id, value)| {
            let key = id.as_string_ref().as_str().ok()?.to_string();
            (key.starts_with("hipmlir.") && key != NOALIAS_ATTRIBUTE).then_some((key, value))
        })
        .collect();
    // SAFETY: the live function; changing attributes keeps it alive.
    let mut body = unsafe { OperationRefMut::from_raw(func.to_raw()) };
    body.set_attribute("sym_name", StringAttribute::new(ctx, &body_name).into());
    body.set_attribute(
        "function_control",
        spirv_ir::function_control_attr(ctx, FUNCTION_CONTROL_INLINE),
    );
    for (key, _) in &moved {
        body.remove_attribute(key)
            .map_err(|e| bad(&e.to_string()))?;
    }

    // The wrapper, just after it: integers to pointers, the call, return.
    let at = Rewriter::after(ctx, &func);
    let loc = func.location();
    let block = Block::new(&wrapper_inputs.iter().map(|t| (*t, loc)).collect::<Vec<_>>());
    {
        let inner = Rewriter::at_end(ctx, &block, loc);
        let mut operands: Vec<MlirValue> = Vec::with_capacity(inputs.len());
        for (i, t) in inputs.iter().enumerate() {
            let arg = block.argument(i).map_err(|e| bad(&e.to_string()))?.to_raw();
            operands.push(if by_address(*t) {
                inner.convert(Cast::ConvertUToPtr, arg, *t)?
            } else {
                arg
            });
        }
        inner.void_function_call(&body_name, &operands)?;
        inner.spirv_return()?;
    }
    let region = Region::new();
    region.append_block(block);
    let wrapper_type = FunctionType::new(ctx, &wrapper_inputs, &[]);
    let mut attributes: Vec<(&str, Attribute<'c>)> = vec![
        ("sym_name", StringAttribute::new(ctx, &name).into()),
        (
            "function_type",
            TypeAttribute::new(wrapper_type.into()).into(),
        ),
        (
            "function_control",
            spirv_ir::function_control_attr(ctx, spirv_ir::FUNCTION_CONTROL_NONE),
        ),
    ];
    attributes.extend(moved.iter().map(|(k, v)| (k.as_str(), *v)));
    at.function(&attributes, region)?;

    // The integers are 64-bit: the module must declare Int64 (spirv-update-vce ran before).
    let module = func
        .parent_operation()
        .ok_or_else(|| bad("outside a spirv.module"))?;
    let vce = module
        .attribute("vce_triple")
        .map_err(|e| bad(&e.to_string()))?;
    let vce = spirv_ir::vce_with(vce, Some(CAPABILITY_INT64), None)
        .ok_or_else(|| bad(&format!("bad vce triple {vce}")))?;
    // SAFETY: the live spirv.module; setting an attribute keeps it alive.
    unsafe { OperationRefMut::from_raw(module.to_raw()) }.set_attribute("vce_triple", vce);
    Ok(Outcome::Rewrote)
}
