//! `linearize-warp-blocks`: HIP numbers warp lanes by the x-fastest linear thread index of the
//! block, but OpenCL leaves the mapping of a 2-D or 3-D work-group onto subgroups to the device
//! (on Intel's CPU runtime 2-D shuffles came out wrong). A kernel that uses warp operations is
//! therefore launched with a 1-D work-group of the block's size, and recomputes HIP's
//! `threadIdx` from the linear local id; `blockDim`, which OpenCL no longer knows, arrives as
//! three trailing `i32` arguments. The kernel is marked `hipmlir.linear_block` so that the
//! metadata tells the runtime.

use std::collections::HashMap;

use hipmlir_device_image::LINEAR_BLOCK_ATTRIBUTE;
use hipmlir_ir::rewrite::{
    apply_patterns, enclosing, Outcome, Pattern, PatternRewriter, RewritePatternSet,
};
use hipmlir_ir::{GpuDimension, OpBuilder};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationMutLike, OperationRefMut};
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, Location, Module, OperationRef, RegionLike, Type, ValueLike};
use melior::Context;
use mlir_sys::MlirValue;

use crate::builder::{update_function_type, value};
use crate::spirv::uses_warp_operations;
use crate::LowerError;

fn err(e: impl std::fmt::Display) -> LowerError {
    LowerError::bug(format!("linearizing blocks: {e}"))
}

/// A linearized kernel's HIP coordinates: threadIdx.{x,y,z} and blockDim.{x,y,z}.
struct Coordinates {
    threads: [MlirValue; 3],
    dims: [MlirValue; 3],
}

/// The linearized kernels (by address) and their coordinates.
type Linearized = HashMap<usize, Coordinates>;

pub fn linearize_warp_blocks(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut patterns = RewritePatternSet::new();
    patterns
        .add(Pattern::new("gpu.func", linearize_kernel))
        .next_stage()
        .add(Pattern::new("gpu.thread_id", replace_coordinate))
        .add(Pattern::new("gpu.block_dim", replace_coordinate));
    apply_patterns(
        ctx,
        &module.as_operation(),
        &patterns,
        &mut Linearized::new(),
    )
}

/// A kernel using warp operations gets blockDim as arguments and computes its coordinates
/// from the linear local id at its start.
fn linearize_kernel<'c>(
    rw: &mut PatternRewriter<'c>,
    linearized: &mut Linearized,
    func: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    if !func.has_attribute("gpu.kernel") || !uses_warp_operations(&func) {
        return Ok(Outcome::NoMatch);
    }
    let ctx = rw.ctx;
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

    update_function_type(ctx, &func)?;
    // SAFETY: the live kernel; setting an attribute keeps it alive.
    let mut kernel = unsafe { OperationRefMut::from_raw(func.to_raw()) };
    kernel.set_attribute(LINEAR_BLOCK_ATTRIBUTE, Attribute::unit(ctx));
    linearized.insert(
        func.to_raw().ptr as usize,
        Coordinates {
            threads: [tx, ty, tz].map(|v| v.to_raw()),
            dims: [dim[0], dim[1], dim[2]].map(|v| v.to_raw()),
        },
    );
    Ok(Outcome::Rewrote)
}

/// `gpu.thread_id` and `gpu.block_dim` of a linearized kernel: its computed coordinates.
fn replace_coordinate<'c>(
    rw: &mut PatternRewriter<'c>,
    linearized: &mut Linearized,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let Some(coordinates) =
        enclosing(&op, "gpu.func").and_then(|f| linearized.get(&(f.to_raw().ptr as usize)))
    else {
        return Ok(Outcome::NoMatch);
    };
    let dimension = op.attribute("dimension").map_err(err)?;
    let which = GpuDimension::ALL
        .iter()
        .position(|d| d.attribute(rw.ctx) == dimension)
        .ok_or_else(|| err("a gpu dimension other than x, y, z"))?;
    let replacement = if op.name().as_string_ref().as_str() == Ok("gpu.thread_id") {
        coordinates.threads[which]
    } else {
        coordinates.dims[which]
    };
    rw.replace_op(&op, &[value(replacement)]);
    Ok(Outcome::Rewrote)
}
