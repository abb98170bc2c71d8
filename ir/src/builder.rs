//! The one op-builder: where new operations go in a block, and the generic form every typed
//! helper of the frontend and the passes builds through.
//!
//! Values handed out are `Value<'c, 'static>`: an operation inserted here is owned by its
//! block, which the module owns for as long as the caller works on it, and the callers never
//! erase an operation whose results they still hold. This one assumption keeps melior's
//! borrow-based lifetimes out of recursive code generation and rewriting.

use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::{
    Attribute, Block, BlockRef, Identifier, Location, Operation, OperationRef, Region, Type,
    ValueLike,
};
use melior::Context;
use mlir_sys::{MlirBlock, MlirOperation};

pub type Value<'c> = melior::ir::Value<'c, 'static>;

/// An operation that MLIR would not build (a bug of hipmlir's: a wrong operand or attribute).
#[derive(Debug, thiserror::Error)]
#[error("cannot build '{operation}': {cause}")]
pub struct BuildError {
    pub operation: String,
    pub cause: melior::Error,
}

/// Where new operations go in the block.
#[derive(Clone, Copy)]
enum InsertPoint {
    End,
    Before(MlirOperation),
    After(MlirOperation),
}

/// Inserts operations at one point of one block.
#[derive(Clone, Copy)]
pub struct OpBuilder<'c> {
    pub ctx: &'c Context,
    block: MlirBlock,
    point: InsertPoint,
}

impl<'c> OpBuilder<'c> {
    /// At the end of `block`, which must end up owned by the module being built.
    pub fn at_end<'a>(ctx: &'c Context, block: &impl BlockLike<'c, 'a>) -> Self
    where
        'c: 'a,
    {
        OpBuilder {
            ctx,
            block: block.to_raw(),
            point: InsertPoint::End,
        }
    }

    /// At the start of `block`: in front of the operation that is first now.
    pub fn at_start<'a>(ctx: &'c Context, block: &impl BlockLike<'c, 'a>) -> Self
    where
        'c: 'a,
    {
        OpBuilder::at_end(ctx, block).start_of_block()
    }

    /// In front of `op`, which sits in a block.
    pub fn before<'a>(ctx: &'c Context, op: &impl OperationLike<'c, 'a>) -> Self
    where
        'c: 'a,
    {
        OpBuilder {
            ctx,
            // SAFETY: a live operation in a block.
            block: unsafe { mlir_sys::mlirOperationGetBlock(op.to_raw()) },
            point: InsertPoint::Before(op.to_raw()),
        }
    }

    /// Just after `op`, which sits in a block.
    pub fn after<'a>(ctx: &'c Context, op: &impl OperationLike<'c, 'a>) -> Self
    where
        'c: 'a,
    {
        OpBuilder {
            ctx,
            // SAFETY: a live operation in a block.
            block: unsafe { mlir_sys::mlirOperationGetBlock(op.to_raw()) },
            point: InsertPoint::After(op.to_raw()),
        }
    }

    /// The block operations go into.
    pub fn block(&self) -> BlockRef<'c, 'c> {
        // SAFETY: see the module comment.
        unsafe { BlockRef::from_raw(self.block) }
    }

    /// The same block, in front of the operation that is first now.
    pub fn start_of_block(&self) -> Self {
        let point = match self.block().first_operation() {
            Some(first) => InsertPoint::Before(first.to_raw()),
            None => InsertPoint::End,
        };
        OpBuilder { point, ..*self }
    }

    /// The same block, right after the operation that defines `v` (an operation result of
    /// this block).
    pub fn after_definition_of(&self, v: Value<'c>) -> Self {
        // SAFETY: `v` is an operation result (see the module comment).
        let op = unsafe { mlir_sys::mlirOpResultGetOwner(v.to_raw()) };
        OpBuilder {
            point: InsertPoint::After(op),
            ..*self
        }
    }

    /// Inserts a built operation (from melior's dialect builders or [`OpBuilder::build`]).
    pub fn insert(&self, operation: Operation<'c>) -> OperationRef<'c, 'c> {
        let block = self.block();
        match self.point {
            InsertPoint::End => block.append_operation(operation),
            // SAFETY: the anchors are live operations of this block.
            InsertPoint::Before(anchor) => {
                block.insert_operation_before(unsafe { OperationRef::from_raw(anchor) }, operation)
            }
            InsertPoint::After(anchor) => {
                block.insert_operation_after(unsafe { OperationRef::from_raw(anchor) }, operation)
            }
        }
    }

    /// Inserts a built operation and returns its results.
    pub fn insert_results(&self, operation: Operation<'c>) -> Vec<Value<'c>> {
        results(self.insert(operation))
    }

    /// Inserts `name` with the given operands, result types, attributes and regions; returns
    /// the new operation.
    pub fn build(
        &self,
        name: &str,
        operands: &[Value<'c>],
        result_types: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
        regions: Vec<Region<'c>>,
        loc: Location<'c>,
    ) -> Result<OperationRef<'c, 'c>, BuildError> {
        self.build_with_successors(name, operands, result_types, attributes, regions, &[], loc)
    }

    /// [`OpBuilder::build`] of a terminator with successor blocks.
    #[allow(clippy::too_many_arguments)]
    pub fn build_with_successors(
        &self,
        name: &str,
        operands: &[Value<'c>],
        result_types: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
        regions: Vec<Region<'c>>,
        successors: &[&Block<'c>],
        loc: Location<'c>,
    ) -> Result<OperationRef<'c, 'c>, BuildError> {
        let attributes: Vec<_> = attributes
            .iter()
            .map(|(n, a)| (Identifier::new(self.ctx, n), *a))
            .collect();
        let operation = OperationBuilder::new(name, loc)
            .add_operands(operands)
            .add_results(result_types)
            .add_attributes(&attributes)
            .add_regions_vec(regions)
            .add_successors(successors)
            .build()
            .map_err(|cause| BuildError {
                operation: name.to_string(),
                cause,
            })?;
        Ok(self.insert(operation))
    }

    /// [`OpBuilder::build`] returning the new operation's results.
    pub fn op(
        &self,
        name: &str,
        operands: &[Value<'c>],
        result_types: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
        regions: Vec<Region<'c>>,
        loc: Location<'c>,
    ) -> Result<Vec<Value<'c>>, BuildError> {
        self.build(name, operands, result_types, attributes, regions, loc)
            .map(results)
    }
}

/// The results of an operation.
pub fn results<'c>(op: OperationRef<'c, '_>) -> Vec<Value<'c>> {
    op.results()
        // SAFETY: see the module comment.
        .map(|r| unsafe { Value::from_raw(r.to_raw()) })
        .collect()
}
