//! Appending MLIR operations to a block: melior's typed dialect builders where melior has them,
//! else one typed helper per op kind here (its name written once, its attributes built typed),
//! all inserted through hipmlir-ir's one op-builder.
//!
//! Values handed around the codegen are `Value<'c, 'static>`: every operation the frontend creates
//! lives in the module until the frontend returns it, and the frontend never erases one, so a
//! value's handle stays valid for the whole walk (hipmlir-ir's `OpBuilder` makes the same
//! assumption).

use hipmlir_ir::OpBuilder;
use melior::dialect::arith;
use melior::ir::attribute::{
    DenseI32ArrayAttribute, FlatSymbolRefAttribute, FloatAttribute, IntegerAttribute,
    StringAttribute, TypeAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationMutLike};
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{Attribute, Block, Location, Operation, Region, Type, ValueLike};
use melior::Context;

use crate::clang::Linkage;
use crate::error::{FrontendError, Result};

use hipmlir_ir::ShuffleMode;
pub use hipmlir_ir::{GpuDimension, ReduceOperation, Value};

/// Inserts operations into one block (at its end unless told otherwise).
#[derive(Clone, Copy)]
pub struct Builder<'c> {
    pub ctx: &'c Context,
    ops: OpBuilder<'c>,
}

impl<'c> Builder<'c> {
    /// A builder for `block`, which must end up owned by the module being built.
    pub fn new<'a>(ctx: &'c Context, block: &impl BlockLike<'c, 'a>) -> Self
    where
        'c: 'a,
    {
        Builder {
            ctx,
            ops: OpBuilder::at_end(ctx, block),
        }
    }

    /// The same block, inserting at its start (ahead of the operation that is first now).
    pub fn at_start(&self) -> Self {
        Builder {
            ops: self.ops.start_of_block(),
            ..*self
        }
    }

    /// The same block, inserting after the run of globals at its start (at its end when it
    /// holds nothing else).
    pub fn after_globals(&self) -> Self {
        let block = self.ops.block();
        let mut next = block.first_operation();
        while let Some(op) = next.filter(|op| op.name().as_string_ref().as_str() == Ok(LLVM_GLOBAL))
        {
            next = op.next_in_block();
        }
        let ops = match next {
            Some(op) => OpBuilder::before(self.ctx, &op),
            None => OpBuilder::at_end(self.ctx, &block),
        };
        Builder { ops, ..*self }
    }

    /// The same block, inserting right after the operation that defines `v`.
    pub fn after(&self, v: Value<'c>) -> Self {
        Builder {
            ops: self.ops.after_definition_of(v),
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
        self.ops
            .op(name, operands, results, attributes, regions, loc)
            .map_err(|e| internal(loc, e))
    }

    /// Inserts an operation built by one of melior's dialect builders and returns its results.
    pub fn insert(&self, operation: Operation<'c>) -> Vec<Value<'c>> {
        self.ops.insert_results(operation)
    }

    /// Inserts an operation with exactly one result and returns it.
    pub fn insert_value(&self, operation: Operation<'c>) -> Result<Value<'c>> {
        let loc = operation.location();
        let name = operation.name();
        let name = name
            .as_string_ref()
            .as_str()
            .unwrap_or("operation")
            .to_string();
        self.insert(operation)
            .first()
            .copied()
            .ok_or_else(|| internal(loc, format!("'{name}' has no result")))
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

    /// `func.func @symbol` of `function_type`, with `extra` attributes and `body` (an empty
    /// region for a declaration).
    pub fn function(
        &self,
        symbol: &str,
        function_type: FunctionType<'c>,
        extra: &[(&str, Attribute<'c>)],
        body: Region<'c>,
        loc: Location<'c>,
    ) -> Result<()> {
        let mut attributes = vec![
            ("sym_name", StringAttribute::new(self.ctx, symbol).into()),
            (
                "function_type",
                TypeAttribute::new(function_type.into()).into(),
            ),
        ];
        attributes.extend_from_slice(extra);
        self.op(FUNC_FUNC, &[], &[], &attributes, vec![body], loc)?;
        Ok(())
    }

    /// `llvm.mlir.global @symbol : global_type` with `extra` attributes (linkage, address
    /// space, initial value).
    pub fn llvm_global(
        &self,
        symbol: &str,
        global_type: Type<'c>,
        extra: &[(&str, Attribute<'c>)],
        loc: Location<'c>,
    ) -> Result<()> {
        let mut attributes = vec![
            ("sym_name", StringAttribute::new(self.ctx, symbol).into()),
            ("global_type", TypeAttribute::new(global_type).into()),
        ];
        attributes.extend_from_slice(extra);
        self.op(LLVM_GLOBAL, &[], &[], &attributes, vec![Region::new()], loc)?;
        Ok(())
    }

    pub fn const_int(&self, ty: Type<'c>, value: i64, loc: Location<'c>) -> Result<Value<'c>> {
        let attr = IntegerAttribute::new(ty, value).into();
        self.insert_value(arith::constant(self.ctx, attr, loc))
    }

    pub fn const_bool(&self, value: bool, loc: Location<'c>) -> Result<Value<'c>> {
        self.const_int(IntegerType::new(self.ctx, 1).into(), value as i64, loc)
    }

    pub fn const_float(&self, ty: Type<'c>, value: f64, loc: Location<'c>) -> Result<Value<'c>> {
        let attr = FloatAttribute::new(self.ctx, ty, value).into();
        self.insert_value(arith::constant(self.ctx, attr, loc))
    }

    /// An integer comparison.
    pub fn cmpi(
        &self,
        predicate: arith::CmpiPredicate,
        a: Value<'c>,
        b: Value<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        self.insert_value(arith::cmpi(self.ctx, predicate, a, b, loc))
    }

    /// A float comparison.
    pub fn cmpf(
        &self,
        predicate: arith::CmpfPredicate,
        a: Value<'c>,
        b: Value<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        self.insert_value(arith::cmpf(self.ctx, predicate, a, b, loc))
    }

    /// `arith.truncf` (melior's builder infers a result type, which truncf cannot).
    pub fn truncf(&self, v: Value<'c>, to: Type<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        self.value(ARITH_TRUNCF, &[v], to, &[], loc)
    }

    /// `a op b` with signed overflow undefined (`nsw`), for C's signed `+`, `-`, `*`.
    pub fn no_signed_wrap(&self, op: Operation<'c>) -> Result<Value<'c>> {
        let mut op = op;
        op.set_attribute("overflowFlags", hipmlir_ir::arith_no_signed_wrap(self.ctx));
        self.insert_value(op)
    }

    /// Inserts a float operation that may be fused with another (`fastmath<contract>`: a
    /// multiply and an add become one FMA where the target has it, as hipcc compiles them).
    pub fn contractible(&self, op: Operation<'c>) -> Result<Value<'c>> {
        let mut op = op;
        op.set_attribute("fastmath", hipmlir_ir::arith_fastmath_contract(self.ctx));
        self.insert_value(op)
    }

    /// `llvm.ptrtoint`.
    pub fn ptr_to_int(&self, p: Value<'c>, to: Type<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        self.value(LLVM_PTRTOINT, &[p], to, &[], loc)
    }

    /// `llvm.inttoptr`.
    pub fn int_to_ptr(&self, i: Value<'c>, to: Type<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        self.value(LLVM_INTTOPTR, &[i], to, &[], loc)
    }

    /// `llvm.addrspacecast`.
    pub fn addrspace_cast(
        &self,
        p: Value<'c>,
        to: Type<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        self.value(LLVM_ADDRSPACECAST, &[p], to, &[], loc)
    }

    /// `llvm.mlir.addressof @symbol` as a pointer of type `ptr`.
    pub fn address_of(&self, symbol: &str, ptr: Type<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        let sym = FlatSymbolRefAttribute::new(self.ctx, symbol).into();
        self.value(LLVM_ADDRESSOF, &[], ptr, &[("global_name", sym)], loc)
    }

    /// `llvm.getelementptr base[indices]`: `raw` holds the constant indices, `i32::MIN` where
    /// the next of `dynamic` goes.
    pub fn get_element_ptr(
        &self,
        base: Value<'c>,
        raw: &[i32],
        dynamic: &[Value<'c>],
        element: Type<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let operands: Vec<Value<'c>> = std::iter::once(base)
            .chain(dynamic.iter().copied())
            .collect();
        let raw = DenseI32ArrayAttribute::new(self.ctx, raw).into();
        let element = TypeAttribute::new(element).into();
        self.value(
            LLVM_GETELEMENTPTR,
            &operands,
            base.r#type(),
            &[("rawConstantIndices", raw), ("elem_type", element)],
            loc,
        )
    }

    /// `llvm.load` (volatile when `volatile`), of LLVM's ABI alignment for `ty`.
    pub fn load(
        &self,
        ptr: Value<'c>,
        ty: Type<'c>,
        volatile: bool,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        self.load_aligned(ptr, ty, volatile, None, loc)
    }

    /// `llvm.load` of an object `align` bytes aligned (clang's alignment of its type): a
    /// record's can exceed what LLVM infers from its members (`__half2` is 4-byte aligned,
    /// its members 2), and lets NVPTX read it in one access.
    pub fn load_aligned(
        &self,
        ptr: Value<'c>,
        ty: Type<'c>,
        volatile: bool,
        align: Option<u64>,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let options = melior::dialect::llvm::LoadStoreOptions::new()
            .volatile(volatile)
            .align(self.alignment(align));
        self.insert_value(melior::dialect::llvm::load(self.ctx, ptr, ty, loc, options))
    }

    /// `llvm.store` (volatile when `volatile`), of LLVM's ABI alignment for the value's type.
    pub fn store(&self, v: Value<'c>, ptr: Value<'c>, volatile: bool, loc: Location<'c>) {
        self.store_aligned(v, ptr, volatile, None, loc);
    }

    /// `llvm.store` to an object `align` bytes aligned (see [`Self::load_aligned`]).
    pub fn store_aligned(
        &self,
        v: Value<'c>,
        ptr: Value<'c>,
        volatile: bool,
        align: Option<u64>,
        loc: Location<'c>,
    ) {
        let options = melior::dialect::llvm::LoadStoreOptions::new()
            .volatile(volatile)
            .align(self.alignment(align));
        self.insert(melior::dialect::llvm::store(self.ctx, v, ptr, loc, options));
    }

    /// The `alignment` attribute of a load or store (an i64, as LLVM's dialect takes it).
    fn alignment(&self, align: Option<u64>) -> Option<IntegerAttribute<'c>> {
        align
            .filter(|a| a.is_power_of_two())
            .map(|a| IntegerAttribute::new(IntegerType::new(self.ctx, 64).into(), a as i64))
    }

    /// `llvm.fence` with LLVM's ordering number and a sync scope (`""` is the whole system).
    pub fn fence(&self, ordering: i64, scope: &str, loc: Location<'c>) -> Result<()> {
        let attrs = self.sync_attributes(ordering, scope);
        self.op(LLVM_FENCE, &[], &[], &attrs, vec![], loc).map(drop)
    }

    /// The `ordering` and (unless empty) `syncscope` attributes of an atomic operation.
    pub fn sync_attributes(
        &self,
        ordering: i64,
        scope: &str,
    ) -> Vec<(&'static str, Attribute<'c>)> {
        let mut attrs = vec![("ordering", self.i64_attr(ordering))];
        if !scope.is_empty() {
            attrs.push(("syncscope", StringAttribute::new(self.ctx, scope).into()));
        }
        attrs
    }

    /// A 64-bit integer attribute (LLVM's enum numbers).
    pub fn i64_attr(&self, value: i64) -> Attribute<'c> {
        IntegerAttribute::new(IntegerType::new(self.ctx, 64).into(), value).into()
    }

    /// `gpu.thread_id x` and its kin, as an `index`.
    pub fn gpu_index(
        &self,
        op: GpuIndex,
        dim: GpuDimension,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let name = match op {
            GpuIndex::ThreadId => "gpu.thread_id",
            GpuIndex::BlockId => "gpu.block_id",
            GpuIndex::BlockDim => "gpu.block_dim",
            GpuIndex::GridDim => "gpu.grid_dim",
        };
        let dim = dim.attribute(self.ctx);
        self.value(name, &[], Type::index(self.ctx), &[("dimension", dim)], loc)
    }

    /// `gpu.subgroup_size` as an `index`.
    pub fn subgroup_size(&self, loc: Location<'c>) -> Result<Value<'c>> {
        self.value(GPU_SUBGROUP_SIZE, &[], Type::index(self.ctx), &[], loc)
    }

    /// `gpu.lane_id` as an `index`.
    pub fn lane_id(&self, loc: Location<'c>) -> Result<Value<'c>> {
        self.value(GPU_LANE_ID, &[], Type::index(self.ctx), &[], loc)
    }

    /// `gpu.barrier`.
    pub fn barrier(&self, loc: Location<'c>) -> Result<()> {
        self.op(GPU_BARRIER, &[], &[], &[], vec![], loc).map(drop)
    }

    /// `llvm.intr.trap`: stops the kernel where the target can (`__builtin_trap()`).
    pub fn trap(&self, loc: Location<'c>) -> Result<()> {
        self.op(LLVM_TRAP, &[], &[], &[], vec![], loc).map(drop)
    }

    /// `gpu.all_reduce` of `v` over the workgroup (every work-item takes part: `uniform`).
    pub fn all_reduce(
        &self,
        op: ReduceOperation,
        v: Value<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let attrs = [
            ("op", op.attribute(self.ctx)),
            ("uniform", Attribute::unit(self.ctx)),
        ];
        let results = self.op(
            GPU_ALL_REDUCE,
            &[v],
            &[v.r#type()],
            &attrs,
            vec![Region::new()],
            loc,
        )?;
        Ok(results[0])
    }

    /// `gpu.subgroup_reduce` of `v` over the active lanes.
    pub fn subgroup_reduce(
        &self,
        op: ReduceOperation,
        v: Value<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let attrs = [("op", op.attribute(self.ctx))];
        self.value(GPU_SUBGROUP_REDUCE, &[v], v.r#type(), &attrs, loc)
    }

    /// `gpu.shuffle idx`: `value` of lane `source` among the first `width` lanes.
    pub fn shuffle_index(
        &self,
        value: Value<'c>,
        source: Value<'c>,
        width: Value<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let mode = ShuffleMode::Idx.attribute(self.ctx);
        let i1 = IntegerType::new(self.ctx, 1).into();
        let results = self.op(
            GPU_SHUFFLE,
            &[value, source, width],
            &[value.r#type(), i1],
            &[("mode", mode)],
            vec![],
            loc,
        )?;
        Ok(results[0])
    }
}

const FUNC_FUNC: &str = "func.func";
const LLVM_GLOBAL: &str = "llvm.mlir.global";
const ARITH_TRUNCF: &str = "arith.truncf";
const LLVM_PTRTOINT: &str = "llvm.ptrtoint";
const LLVM_INTTOPTR: &str = "llvm.inttoptr";
const LLVM_ADDRSPACECAST: &str = "llvm.addrspacecast";
const LLVM_ADDRESSOF: &str = "llvm.mlir.addressof";
const LLVM_GETELEMENTPTR: &str = "llvm.getelementptr";
const LLVM_FENCE: &str = "llvm.fence";
const GPU_SUBGROUP_SIZE: &str = "gpu.subgroup_size";
const GPU_LANE_ID: &str = "gpu.lane_id";
const GPU_BARRIER: &str = "gpu.barrier";
const LLVM_TRAP: &str = "llvm.intr.trap";
const GPU_ALL_REDUCE: &str = "gpu.all_reduce";
const GPU_SUBGROUP_REDUCE: &str = "gpu.subgroup_reduce";
const GPU_SHUFFLE: &str = "gpu.shuffle";

/// `#llvm.linkage<...>`, through the LLVM dialect's C API.
pub fn linkage_attribute(ctx: &Context, linkage: Linkage) -> Attribute<'_> {
    use mlir_sys::*;
    let linkage = match linkage {
        Linkage::External => MlirLLVMLinkage_MlirLLVMLinkageExternal,
        Linkage::Internal => MlirLLVMLinkage_MlirLLVMLinkageInternal,
        Linkage::LinkOnceOdr => MlirLLVMLinkage_MlirLLVMLinkageLinkonceODR,
    };
    // SAFETY: a plain constructor on a live context.
    unsafe { Attribute::from_raw(mlirLLVMLinkageAttrGet(ctx.to_raw(), linkage)) }
}

/// The attributes of a function the compiler adds to a module for its own use (the stop
/// function, virtual dispatch helpers): internal linkage, private visibility.
pub fn helper_function_attributes(ctx: &Context) -> [(&'static str, Attribute<'_>); 2] {
    [
        (
            hipmlir_device_image::LINKAGE_ATTRIBUTE,
            linkage_attribute(ctx, Linkage::Internal),
        ),
        (
            "sym_visibility",
            melior::ir::attribute::StringAttribute::new(ctx, "private").into(),
        ),
    ]
}

/// The work-item index operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuIndex {
    ThreadId,
    BlockId,
    BlockDim,
    GridDim,
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
    FrontendError::internal(
        hipmlir_ir::source_location(loc).unwrap_or_default(),
        message,
    )
}
