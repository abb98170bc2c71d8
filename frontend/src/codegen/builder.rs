//! Appending MLIR operations to a block through melior's generic builder.
//!
//! Values handed around the codegen are `Value<'c, 'static>`: every operation the frontend creates
//! lives in the module until the frontend returns it, and the frontend never erases one, so a
//! value's handle stays valid for the whole walk. This one assumption keeps melior's borrow-based
//! lifetimes out of the recursive codegen.

use melior::ir::attribute::{FloatAttribute, IntegerAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::r#type::IntegerType;
use melior::ir::{
    Attribute, Block, BlockRef, Identifier, Location, OperationRef, Region, Type, ValueLike,
};
use melior::Context;
use mlir_sys::{MlirBlock, MlirOperation};

use crate::error::{FrontendError, Result, SourceLoc};

pub type Value<'c> = melior::ir::Value<'c, 'static>;

/// Where new operations go in the block.
#[derive(Clone, Copy)]
enum InsertPoint {
    End,
    Start,
    After(MlirOperation),
}

/// Inserts operations into one block (at its end unless told otherwise).
#[derive(Clone, Copy)]
pub struct Builder<'c> {
    pub ctx: &'c Context,
    block: MlirBlock,
    point: InsertPoint,
}

impl<'c> Builder<'c> {
    /// A builder for `block`, which must end up owned by the module being built.
    pub fn new(ctx: &'c Context, block: &impl BlockLike<'c, 'c>) -> Self {
        Builder {
            ctx,
            block: block.to_raw(),
            point: InsertPoint::End,
        }
    }

    /// The same block, inserting at its start.
    pub fn at_start(&self) -> Self {
        Builder {
            point: InsertPoint::Start,
            ..*self
        }
    }

    /// The same block, inserting right after the operation that defines `v`.
    pub fn after(&self, v: Value<'c>) -> Self {
        // SAFETY: `v` is an operation result of this block (see the module comment).
        let op = unsafe { mlir_sys::mlirOpResultGetOwner(v.to_raw()) };
        Builder {
            point: InsertPoint::After(op),
            ..*self
        }
    }

    /// Appends `name` with the given operands, result types, attributes and regions.
    pub fn op(
        &self,
        name: &str,
        operands: &[Value<'c>],
        results: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
        regions: Vec<Region<'c>>,
        loc: Location<'c>,
    ) -> Result<Vec<Value<'c>>> {
        let attributes: Vec<_> = attributes
            .iter()
            .map(|(n, a)| (Identifier::new(self.ctx, n), *a))
            .collect();
        let operation = OperationBuilder::new(name, loc)
            .add_operands(operands)
            .add_results(results)
            .add_attributes(&attributes)
            .add_regions_vec(regions)
            .build()
            .map_err(|e| internal(loc, format!("cannot build '{name}': {e}")))?;
        // SAFETY: see the module comment; the block outlives the codegen.
        let block = unsafe { BlockRef::<'c, '_>::from_raw(self.block) };
        let inserted = match self.point {
            InsertPoint::End => block.append_operation(operation),
            InsertPoint::Start => block.insert_operation(0, operation),
            InsertPoint::After(anchor) => {
                // SAFETY: `anchor` is a live operation of this block.
                let anchor = unsafe { OperationRef::from_raw(anchor) };
                block.insert_operation_after(anchor, operation)
            }
        };
        Ok(op_results(inserted))
    }

    /// Appends an operation with exactly one result and returns it.
    pub fn value(
        &self,
        name: &str,
        operands: &[Value<'c>],
        result: Type<'c>,
        attributes: &[(&str, Attribute<'c>)],
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        Ok(self.op(name, operands, &[result], attributes, vec![], loc)?[0])
    }

    pub fn const_int(&self, ty: Type<'c>, value: i64, loc: Location<'c>) -> Result<Value<'c>> {
        let attr = IntegerAttribute::new(ty, value).into();
        self.value("arith.constant", &[], ty, &[("value", attr)], loc)
    }

    pub fn const_bool(&self, value: bool, loc: Location<'c>) -> Result<Value<'c>> {
        self.const_int(IntegerType::new(self.ctx, 1).into(), value as i64, loc)
    }

    pub fn const_float(&self, ty: Type<'c>, value: f64, loc: Location<'c>) -> Result<Value<'c>> {
        let attr = FloatAttribute::new(self.ctx, ty, value).into();
        self.value("arith.constant", &[], ty, &[("value", attr)], loc)
    }

    /// Parses an attribute written in MLIR syntax (enum-like attributes such as `#gpu<dim x>`).
    pub fn attr(&self, text: &str, loc: Location<'c>) -> Result<Attribute<'c>> {
        Attribute::parse(self.ctx, text)
            .ok_or_else(|| internal(loc, format!("bad attribute {text}")))
    }
}

/// The results of an operation as codegen values.
fn op_results<'c>(op: OperationRef<'c, '_>) -> Vec<Value<'c>> {
    op.results()
        // SAFETY: see the module comment.
        .map(|r| unsafe { Value::from_raw(r.to_raw()) })
        .collect()
}

/// The arguments of a block as codegen values.
pub fn block_arguments<'c>(block: &Block<'c>) -> Vec<Value<'c>> {
    (0..block.argument_count())
        .map(|i| {
            let arg = block.argument(i).expect("index in range");
            // SAFETY: see the module comment.
            unsafe { Value::from_raw(arg.to_raw()) }
        })
        .collect()
}

/// An error in hipmlir itself, reported at the source location being compiled.
pub fn internal(loc: Location<'_>, message: impl std::fmt::Display) -> FrontendError {
    FrontendError::single(
        SourceLoc {
            file: loc.to_string(),
            line: 0,
            column: 0,
        },
        format!("internal compiler error: {message}"),
    )
}
