//! `linearize-warp-blocks`: HIP numbers warp lanes by the x-fastest linear thread index of the
//! block, but OpenCL leaves the mapping of a 2-D or 3-D work-group onto subgroups to the device
//! (on Intel's CPU runtime 2-D shuffles came out wrong). A kernel that uses warp operations is
//! therefore launched with a 1-D work-group of the block's size, and recomputes HIP's
//! `threadIdx` from the linear local id; `blockDim`, which OpenCL no longer knows, arrives as
//! three trailing `i32` arguments. The kernel is marked `hipmlir.linear_block` so that the
//! metadata tells the runtime.

use hipmlir_device_image::LINEAR_BLOCK_ATTRIBUTE;
use hipmlir_ir::{GpuDimension, OpBuilder};
use melior::ir::attribute::TypeAttribute;
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRefMut};
use melior::ir::operation::{WalkOrder, WalkResult};
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{Attribute, Location, Module, RegionLike, Type, ValueLike};
use melior::Context;
use mlir_sys::{
    mlirOperationDestroy, mlirOperationRemoveFromParent, mlirValueReplaceAllUsesOfWith,
    MlirOperation,
};

use crate::passes::SUBGROUP_OPS;
use crate::LowerError;

fn err(e: impl std::fmt::Display) -> LowerError {
    LowerError::bug(format!("linearizing blocks: {e}"))
}

pub fn linearize_warp_blocks(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut kernels = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("gpu.func") && op.has_attribute("gpu.kernel") {
            let mut uses_warps = false;
            let mut dims = Vec::new();
            op.walk(WalkOrder::PreOrder, |inner| {
                let name = inner.name();
                let name = name.as_string_ref().as_str().unwrap_or("");
                if SUBGROUP_OPS.contains(&name) {
                    uses_warps = true;
                }
                if name == "gpu.thread_id" || name == "gpu.block_dim" {
                    dims.push(inner.to_raw());
                }
                WalkResult::Advance
            });
            if uses_warps {
                kernels.push((op.to_raw(), dims));
            }
        }
        WalkResult::Advance
    });
    for (kernel, dims) in kernels {
        linearize(ctx, kernel, &dims)?;
    }
    Ok(())
}

fn linearize<'c>(
    ctx: &'c Context,
    kernel: MlirOperation,
    dims: &[MlirOperation],
) -> Result<(), LowerError> {
    // SAFETY: a live gpu.func found by the walk.
    let mut func = unsafe { OperationRefMut::from_raw(kernel) };
    let loc: Location = func.location();
    let i32t: Type = IntegerType::new(ctx, 32).into();
    let index = Type::index(ctx);
    let region = func.region(0).map_err(err)?;
    let entry = region.first_block().ok_or_else(|| err("empty kernel"))?;
    // blockDim.x, .y, .z as trailing arguments.
    let block_dims: Vec<hipmlir_ir::Value<'c>> = (0..3)
        // SAFETY: the arguments live as long as the kernel.
        .map(|_| unsafe { hipmlir_ir::Value::from_raw(entry.add_argument(i32t, loc).to_raw()) })
        .collect();

    // At the top of the kernel: the linear id and HIP's thread and block coordinates.
    // Each in front of the kernel's first operation, in order.
    let at = OpBuilder::at_start(ctx, &entry);
    let emit = |name: &str,
                operands: &[hipmlir_ir::Value<'c>],
                attrs: &[(&str, Attribute<'c>)]|
     -> Result<hipmlir_ir::Value<'c>, LowerError> {
        Ok(at
            .op(name, operands, &[index], attrs, vec![], loc)
            .map_err(err)?[0])
    };
    let x = GpuDimension::X.attribute(ctx);
    let linear = emit("gpu.thread_id", &[], &[("dimension", x)])?;
    let mut dim = Vec::new();
    for d in &block_dims {
        dim.push(emit("arith.index_castui", &[*d], &[])?);
    }
    let tx = emit("arith.remui", &[linear, dim[0]], &[])?;
    let rows = emit("arith.divui", &[linear, dim[0]], &[])?;
    let ty = emit("arith.remui", &[rows, dim[1]], &[])?;
    let tz = emit("arith.divui", &[rows, dim[1]], &[])?;
    let threads = [tx, ty, tz];

    for raw in dims {
        // SAFETY: live gpu.thread_id / gpu.block_dim ops of this kernel; replaced and destroyed.
        let op = unsafe { melior::ir::OperationRef::from_raw(*raw) };
        let dimension = op.attribute("dimension").map_err(err)?;
        let which = GpuDimension::ALL
            .iter()
            .position(|d| d.attribute(ctx) == dimension)
            .ok_or_else(|| err("a gpu dimension other than x, y, z"))?;
        let replacement = if op.name().as_string_ref().as_str() == Ok("gpu.thread_id") {
            threads[which]
        } else {
            dim[which]
        };
        let result = op.result(0).map_err(err)?;
        unsafe {
            mlirValueReplaceAllUsesOfWith(result.to_raw(), replacement.to_raw());
            mlirOperationRemoveFromParent(*raw);
            mlirOperationDestroy(*raw);
        }
    }

    let inputs: Vec<Type> = (0..entry.argument_count())
        .filter_map(|i| entry.argument(i).ok().map(|a| a.r#type()))
        .collect();
    func.set_attribute(
        "function_type",
        TypeAttribute::new(FunctionType::new(ctx, &inputs, &[]).into()).into(),
    );
    func.set_attribute(LINEAR_BLOCK_ATTRIBUTE, Attribute::unit(ctx));
    Ok(())
}
