//! Attributes built typed (never from attribute text): bytes, and the gpu and arith enum
//! attributes through a small C++ shim (cxx/attributes.cpp).

use melior::ir::r#type::{IntegerType, RankedTensorType};
use melior::ir::{Attribute, AttributeLike, Type, TypeLike};
use melior::Context;
use mlir_sys::{MlirAttribute, MlirContext};

/// `dense<...> : tensor<size x i8>`: a variable's initial bytes, a splat of zero when every
/// byte is (or `bytes` is `None`). `None` when the bytes are not `size` long.
pub fn dense_bytes_attribute<'c>(
    ctx: &'c Context,
    size: u64,
    bytes: Option<&[u8]>,
) -> Option<Attribute<'c>> {
    let byte = IntegerType::new(ctx, 8).into();
    let tensor: Type = RankedTensorType::new(&[size], byte, None).into();
    let nonzero = bytes.filter(|b| b.iter().any(|b| *b != 0));
    // SAFETY: plain constructors on a live context; MLIR copies the bytes.
    unsafe {
        Some(Attribute::from_raw(match nonzero {
            None => mlir_sys::mlirDenseElementsAttrUInt8SplatGet(tensor.to_raw(), 0),
            Some(b) if b.len() as u64 == size => mlir_sys::mlirDenseElementsAttrUInt8Get(
                tensor.to_raw(),
                b.len() as isize,
                b.as_ptr(),
            ),
            Some(_) => return None,
        }))
    }
}

/// The bytes of a dense i8 elements attribute (a splat repeats its one element), the inverse
/// of [`dense_bytes_attribute`]; `None` for another attribute.
pub fn dense_bytes(value: Attribute) -> Option<Vec<u8>> {
    let raw = value.to_raw();
    // SAFETY: type queries on a live attribute, then reads of its data as i8 elements.
    unsafe {
        if !mlir_sys::mlirAttributeIsADenseElements(raw) {
            return None;
        }
        let element = mlir_sys::mlirShapedTypeGetElementType(mlir_sys::mlirAttributeGetType(raw));
        if !mlir_sys::mlirTypeIsAInteger(element) || mlir_sys::mlirIntegerTypeGetWidth(element) != 8
        {
            return None;
        }
        let count = mlir_sys::mlirElementsAttrGetNumElements(raw) as usize;
        let data = mlir_sys::mlirDenseElementsAttrGetRawData(raw) as *const u8;
        Some(if mlir_sys::mlirDenseElementsAttrIsSplat(raw) {
            vec![*data; count]
        } else {
            std::slice::from_raw_parts(data, count).to_vec()
        })
    }
}

extern "C" {
    fn hipmlirGpuDimensionAttrGet(ctx: MlirContext, dimension: u32) -> MlirAttribute;
    fn hipmlirGpuAllReduceOperationAttrGet(ctx: MlirContext, op: u32) -> MlirAttribute;
    fn hipmlirGpuShuffleModeAttrGet(ctx: MlirContext, mode: u32) -> MlirAttribute;
    fn hipmlirArithNoSignedWrapAttrGet(ctx: MlirContext) -> MlirAttribute;
    fn hipmlirArithFastMathContractAttrGet(ctx: MlirContext) -> MlirAttribute;
    fn hipmlirLLVMLoopUnrollAnnotationGet(ctx: MlirContext, kind: u32, count: u32)
        -> MlirAttribute;
}

/// A dimension of the GPU grid (`#gpu<dim x>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum GpuDimension {
    X,
    Y,
    Z,
}

impl GpuDimension {
    pub const ALL: [GpuDimension; 3] = [GpuDimension::X, GpuDimension::Y, GpuDimension::Z];

    pub fn attribute(self, ctx: &Context) -> Attribute<'_> {
        // SAFETY: a plain constructor on a live context.
        unsafe { Attribute::from_raw(hipmlirGpuDimensionAttrGet(ctx.to_raw(), self as u32)) }
    }
}

/// The reductions of `gpu.all_reduce` and `gpu.subgroup_reduce` that hipmlir emits or lowers
/// (`#gpu<all_reduce_op add>`). The order is cxx/attributes.cpp's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum ReduceOperation {
    Add,
    Mul,
    And,
    Or,
    Xor,
    MinUi,
    MinSi,
    MaxUi,
    MaxSi,
    MinNumF,
    MaxNumF,
}

impl ReduceOperation {
    pub const ALL: [ReduceOperation; 11] = [
        ReduceOperation::Add,
        ReduceOperation::Mul,
        ReduceOperation::And,
        ReduceOperation::Or,
        ReduceOperation::Xor,
        ReduceOperation::MinUi,
        ReduceOperation::MinSi,
        ReduceOperation::MaxUi,
        ReduceOperation::MaxSi,
        ReduceOperation::MinNumF,
        ReduceOperation::MaxNumF,
    ];

    pub fn attribute(self, ctx: &Context) -> Attribute<'_> {
        // SAFETY: a plain constructor on a live context; every discriminant is in its table.
        unsafe {
            Attribute::from_raw(hipmlirGpuAllReduceOperationAttrGet(
                ctx.to_raw(),
                self as u32,
            ))
        }
    }

    /// The operation whose attribute `attribute` is.
    pub fn of(ctx: &Context, attribute: Attribute) -> Option<ReduceOperation> {
        ReduceOperation::ALL
            .into_iter()
            .find(|op| op.attribute(ctx) == attribute)
    }
}

/// The modes of `gpu.shuffle` (`#gpu<shuffle_mode idx>`). The order is cxx/attributes.cpp's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum ShuffleMode {
    Xor,
    Up,
    Down,
    Idx,
}

impl ShuffleMode {
    pub fn attribute(self, ctx: &Context) -> Attribute<'_> {
        // SAFETY: a plain constructor on a live context; every discriminant is in its table.
        unsafe { Attribute::from_raw(hipmlirGpuShuffleModeAttrGet(ctx.to_raw(), self as u32)) }
    }
}

/// `#arith.overflow<nsw>`: signed arithmetic that does not wrap (C's signed overflow is UB).
pub fn arith_no_signed_wrap(ctx: &Context) -> Attribute<'_> {
    // SAFETY: a plain constructor on a live context.
    unsafe { Attribute::from_raw(hipmlirArithNoSignedWrapAttrGet(ctx.to_raw())) }
}

/// `#arith.fastmath<contract>`: a multiply and add that may fuse (clang's default
/// -ffp-contract=fast-honor-pragmas for HIP).
pub fn arith_fastmath_contract(ctx: &Context) -> Attribute<'_> {
    // SAFETY: a plain constructor on a live context.
    unsafe { Attribute::from_raw(hipmlirArithFastMathContractAttrGet(ctx.to_raw())) }
}

/// What a loop hint (`#pragma unroll` and its kin) asks of a loop, as LLVM's loop metadata
/// says it. The order is cxx/attributes.cpp's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopUnroll {
    /// `#pragma unroll`: fully where the trip count is known, else as the unroller sees fit
    /// (`llvm.loop.unroll.enable`).
    Enable,
    /// `#pragma clang loop unroll(full)`.
    Full,
    /// `#pragma unroll N` with N > 1.
    Count(u32),
    /// `#pragma nounroll`, `#pragma unroll 1`.
    Disable,
}

/// The name of the attribute that carries a loop's annotation: `scf.while` hands it on to the
/// loop's back edge (`cf.br`, then `llvm.br`), whose inherent attribute it is.
pub const LOOP_ANNOTATION_ATTRIBUTE: &str = "loop_annotation";

impl LoopUnroll {
    /// `#llvm.loop_annotation<unroll = #llvm.loop_unroll<...>>`.
    pub fn annotation(self, ctx: &Context) -> Attribute<'_> {
        let (kind, count) = match self {
            LoopUnroll::Enable => (0, 0),
            LoopUnroll::Full => (1, 0),
            LoopUnroll::Count(n) => (2, n),
            LoopUnroll::Disable => (3, 0),
        };
        // SAFETY: a plain constructor on a live context; every kind is in its switch.
        unsafe {
            Attribute::from_raw(hipmlirLLVMLoopUnrollAnnotationGet(
                ctx.to_raw(),
                kind,
                count,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each typed attribute is the one MLIR parses from its spelling: the C++ tables and the
    /// Rust enums agree.
    #[test]
    fn typed_attributes_match_their_spellings() {
        let ctx = Context::new();
        ctx.load_all_available_dialects();
        let registry = melior::dialect::DialectRegistry::new();
        melior::utility::register_all_dialects(&registry);
        ctx.append_dialect_registry(&registry);
        ctx.load_all_available_dialects();
        let parsed = |text: &str| Attribute::parse(&ctx, text).expect(text);
        for (unroll, spelled) in [
            (LoopUnroll::Enable, "disable = false"),
            (LoopUnroll::Full, "full = true"),
            (LoopUnroll::Count(4), "count = 4 : i32"),
            (LoopUnroll::Disable, "disable = true"),
        ] {
            assert_eq!(
                unroll.annotation(&ctx),
                parsed(&format!(
                    "#llvm.loop_annotation<unroll = #llvm.loop_unroll<{spelled}>>"
                ))
            );
        }
        for (d, name) in GpuDimension::ALL.into_iter().zip(["x", "y", "z"]) {
            assert_eq!(d.attribute(&ctx), parsed(&format!("#gpu<dim {name}>")));
        }
        let names = [
            "add", "mul", "and", "or", "xor", "minui", "minsi", "maxui", "maxsi", "minnumf",
            "maxnumf",
        ];
        for (op, name) in ReduceOperation::ALL.into_iter().zip(names) {
            let attribute = parsed(&format!("#gpu<all_reduce_op {name}>"));
            assert_eq!(op.attribute(&ctx), attribute);
            assert_eq!(ReduceOperation::of(&ctx, attribute), Some(op));
        }
        let modes = [
            ShuffleMode::Xor,
            ShuffleMode::Up,
            ShuffleMode::Down,
            ShuffleMode::Idx,
        ];
        for (mode, name) in modes.into_iter().zip(["xor", "up", "down", "idx"]) {
            assert_eq!(
                mode.attribute(&ctx),
                parsed(&format!("#gpu<shuffle_mode {name}>"))
            );
        }
        assert_eq!(arith_no_signed_wrap(&ctx), parsed("#arith.overflow<nsw>"));
        assert_eq!(
            arith_fastmath_contract(&ctx),
            parsed("#arith.fastmath<contract>")
        );
    }
}
