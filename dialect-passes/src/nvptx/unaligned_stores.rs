//! A store of floating-point bits below their alignment (a member of a packed record) stores
//! the bits as an integer that a `mov` wrote. NVPTX splits such a store into byte stores of
//! the register the float instruction wrote (`mul.rn.f32 %r2, ...; st.global.b8 [p], %r2`),
//! and ptxas converts a float-written register to the narrower type (18.7 is stored as 0x12)
//! where PTX says its bits are truncated; a register `mov.b32` wrote is truncated, as nvcc's
//! code has it. Records are stored member by member, arrays element by element, so that every
//! float among them goes this way.

use hipmlir_ir::rewrite::{Outcome, PatternRewriter};
use melior::dialect::llvm::{self, LoadStoreOptions};
use melior::ir::attribute::{DenseI32ArrayAttribute, DenseI64ArrayAttribute, IntegerAttribute};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::r#type::IntegerType;
use melior::ir::{Type, TypeLike, ValueLike};
use mlir_sys::MlirValue;

use crate::builder::{value, Rewriter};
use crate::layout::{size_and_align, struct_layout};
use crate::nvptx::lower::Lowering;
use crate::LowerError;

/// Arrays with more elements are left whole (none of hipmlir's records has one of floats).
const MAX_ELEMENTS: u64 = 256;

pub(crate) fn store_float_bits_unaligned<'c>(
    rw: &mut PatternRewriter<'c>,
    _: &mut Lowering,
    op: OperationRef<'c, 'c>,
) -> Result<Outcome, LowerError> {
    let (Ok(stored), Ok(address)) = (op.operand(0), op.operand(1)) else {
        return Ok(Outcome::NoMatch);
    };
    let ty = stored.r#type();
    let Some(align) = op
        .attribute("alignment")
        .ok()
        .and_then(|a| IntegerAttribute::try_from(a).ok())
        .and_then(|a| u64::try_from(a.value()).ok())
    else {
        return Ok(Outcome::NoMatch);
    };
    if !stores_floats_unaligned(ty, align) {
        return Ok(Outcome::NoMatch);
    }
    let store = Store {
        at: Rewriter::before(rw.ctx, &op),
        volatile: op.attribute("volatile_").is_ok(),
    };
    store.pieces(stored.to_raw(), ty, address.to_raw(), align)?;
    rw.erase_op(&op);
    Ok(Outcome::Rewrote)
}

/// Whether storing a `t` at an address `align` bytes aligned stores floating-point bits (a
/// scalar, a vector's, a member's or an element's) below their own alignment.
fn stores_floats_unaligned(t: Type, align: u64) -> bool {
    if let Some(members) = struct_members(t) {
        let Some((offsets, _, _)) = struct_layout(t) else {
            return false;
        };
        return members
            .into_iter()
            .zip(offsets)
            .any(|(m, offset)| stores_floats_unaligned(m, gcd_alignment(align, offset)));
    }
    if let Some((element, _)) = array_element(t) {
        // The element at the least aligned offset decides (its alignment only lowers it).
        let size = size_and_align(element).map_or(1, |(size, _)| size);
        return stores_floats_unaligned(element, gcd_alignment(align, size));
    }
    let floats = t.is_float() || vector_element(t).is_some_and(|e| e.is_float());
    floats && size_and_align(t).is_some_and(|(_, natural)| align < natural)
}

struct Store<'c> {
    at: Rewriter<'c>,
    volatile: bool,
}

impl<'c> Store<'c> {
    /// Stores `v` of type `ty` at `address`, `align` bytes aligned.
    fn pieces(
        &self,
        v: MlirValue,
        ty: Type<'c>,
        address: MlirValue,
        align: u64,
    ) -> Result<(), LowerError> {
        let ctx = self.at.ctx;
        if !stores_floats_unaligned(ty, align) {
            return self.store(v, address, align);
        }
        if let Some(members) = struct_members(ty) {
            let (offsets, _, _) =
                struct_layout(ty).ok_or_else(|| self.at.error(format!("no layout for {ty}")))?;
            for (i, (member, offset)) in members.into_iter().zip(offsets).enumerate() {
                let part = self.extract(v, i as i64, member)?;
                let at = self.member_address(address, ty, i as i32)?;
                self.pieces(part, member, at, gcd_alignment(align, offset))?;
            }
            return Ok(());
        }
        if let Some((element, count)) = array_element(ty) {
            if count > MAX_ELEMENTS {
                return Err(self
                    .at
                    .error(format!("a store of {ty} below its alignment")));
            }
            let (size, _) = size_and_align(element)
                .ok_or_else(|| self.at.error(format!("no layout for {element}")))?;
            for i in 0..count {
                let part = self.extract(v, i as i64, element)?;
                let at = self.member_address(address, ty, i as i32)?;
                self.pieces(part, element, at, gcd_alignment(align, i * size))?;
            }
            return Ok(());
        }
        // A float or a vector of floats: its bits, through `mov.bN`.
        let (size, _) =
            size_and_align(ty).ok_or_else(|| self.at.error(format!("no layout for {ty}")))?;
        let (register, constraint) = match size {
            2 => ("b16", "h"),
            4 => ("b32", "r"),
            8 => ("b64", "l"),
            _ => {
                return Err(self
                    .at
                    .error(format!("a store of {ty} below its alignment")))
            }
        };
        let int: Type = IntegerType::new(ctx, (size * 8) as u32).into();
        let bits = self
            .at
            .emit_value(llvm::bitcast(value(v), int, self.at.loc))?;
        let moved = self.at.inline_asm(
            &format!("mov.{register} $0, $1;"),
            &format!("={constraint},{constraint}"),
            &[bits],
            int,
            false,
        )?;
        self.store(moved, address, align)
    }

    fn store(&self, v: MlirValue, address: MlirValue, align: u64) -> Result<(), LowerError> {
        let ctx = self.at.ctx;
        let alignment = IntegerAttribute::new(IntegerType::new(ctx, 64).into(), align as i64);
        let options = LoadStoreOptions::new()
            .align(Some(alignment))
            .volatile(self.volatile);
        self.at.emit(llvm::store(
            ctx,
            value(v),
            value(address),
            self.at.loc,
            options,
        ));
        Ok(())
    }

    fn extract(&self, v: MlirValue, index: i64, ty: Type<'c>) -> Result<MlirValue, LowerError> {
        let position = DenseI64ArrayAttribute::new(self.at.ctx, &[index]);
        self.at.emit_value(llvm::extract_value(
            self.at.ctx,
            value(v),
            position,
            ty,
            self.at.loc,
        ))
    }

    /// The address of member (or element) `index` of the `aggregate` at `address`.
    fn member_address(
        &self,
        address: MlirValue,
        aggregate: Type<'c>,
        index: i32,
    ) -> Result<MlirValue, LowerError> {
        let ctx = self.at.ctx;
        let pointer = value(address).r#type();
        let indices = DenseI32ArrayAttribute::new(ctx, &[0, index]);
        self.at.emit_value(llvm::get_element_ptr(
            ctx,
            value(address),
            indices,
            aggregate,
            pointer,
            self.at.loc,
        ))
    }
}

/// The alignment of an address `offset` bytes past one `align` bytes aligned.
fn gcd_alignment(align: u64, offset: u64) -> u64 {
    if offset == 0 {
        align
    } else {
        align.min(1 << offset.trailing_zeros())
    }
}

fn vector_element(t: Type) -> Option<Type> {
    // SAFETY: type queries on a live type; the element only after the kind check.
    unsafe {
        mlir_sys::mlirTypeIsAVector(t.to_raw())
            .then(|| Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(t.to_raw())))
    }
}

fn struct_members(t: Type) -> Option<Vec<Type>> {
    // SAFETY: type queries on a live type; members only after the kind check.
    unsafe {
        use mlir_sys::*;
        let raw = t.to_raw();
        mlirTypeIsALLVMStructType(raw).then(|| {
            (0..mlirLLVMStructTypeGetNumElementTypes(raw))
                .map(|i| Type::from_raw(mlirLLVMStructTypeGetElementType(raw, i)))
                .collect()
        })
    }
}

fn array_element(t: Type) -> Option<(Type, u64)> {
    let count = crate::spirv::ir::llvm_array_length(t)?;
    // SAFETY: an LLVM array type (it has a length).
    let element = unsafe { Type::from_raw(mlir_sys::mlirLLVMArrayTypeGetElementType(t.to_raw())) };
    Some((element, count))
}
