//! Bit-fields, read and written in the bytes of their storage run as clang's record layout
//! places them (bit 0 is the least significant bit of the run's first byte, on every target
//! hipmlir compiles for). A read assembles the bytes the field spans into an integer, then
//! shifts out the bits around it (sign-extending a signed field). A write changes only the
//! field's bits: a byte that is wholly the field's is stored, the others are read, masked and
//! merged. Only the bytes the field spans are touched, never a neighbouring member's.

use melior::dialect::arith;
use melior::ir::r#type::IntegerType;
use melior::ir::{Location, Type};

use crate::codegen::builder::{internal, Value};
use crate::codegen::function::{FunctionCodegen, Val};
use crate::error::Result;
use crate::types::{BitField, Ty};

/// The bytes a bit-field spans and the integer they are assembled in.
struct Span {
    first: u64,
    bytes: u64,
    /// The field's first bit within the first byte.
    shift: u64,
    /// 32 or 64.
    bits: u32,
}

fn span(field: BitField, loc: Location<'_>) -> Result<Span> {
    let shift = field.bit_offset % 8;
    let bytes = (shift + u64::from(field.width)).div_ceil(8);
    if bytes > 8 {
        return Err(internal(loc, "a bit-field spanning more than 8 bytes"));
    }
    Ok(Span {
        first: field.bit_offset / 8,
        bytes,
        shift,
        bits: if bytes <= 4 { 32 } else { 64 },
    })
}

/// The field's type as an integer: its own (bool is one bit, unsigned).
fn integer(ty: &Ty) -> (u32, bool) {
    match ty {
        Ty::Int { bits, signed } => (*bits, *signed),
        _ => (1, false),
    }
}

impl<'c> FunctionCodegen<'c, '_> {
    /// The value of a bit-field of type `ty` in the run at `run`.
    pub(super) fn load_bit_field(
        &mut self,
        run: Value<'c>,
        field: BitField,
        ty: &Ty,
        loc: Location<'c>,
    ) -> Result<Val<'c>> {
        let s = span(field, loc)?;
        let wide: Type<'c> = IntegerType::new(self.ctx(), s.bits).into();
        let byte: Type<'c> = IntegerType::new(self.ctx(), 8).into();
        let mut acc = self.b.const_int(wide, 0, loc)?;
        for k in 0..s.bytes {
            let at = self.byte_offset(run, (s.first + k) as i64, loc)?;
            let b = self.b.load(at, byte, false, loc)?;
            let mut z = self.b.insert_value(arith::extui(b, wide, loc))?;
            if k > 0 {
                let by = self.b.const_int(wide, 8 * k as i64, loc)?;
                z = self.b.insert_value(arith::shli(z, by, loc))?;
            }
            acc = self.b.insert_value(arith::ori(acc, z, loc))?;
        }
        // Shift the field to the top, then back down: the bits around it go.
        let (bits, signed) = integer(ty);
        let up = u64::from(s.bits) - s.shift - u64::from(field.width);
        let up = self.b.const_int(wide, up as i64, loc)?;
        let v = self.b.insert_value(arith::shli(acc, up, loc))?;
        let down = self
            .b
            .const_int(wide, i64::from(s.bits - field.width), loc)?;
        let v = match signed {
            true => self.b.insert_value(arith::shrsi(v, down, loc))?,
            false => self.b.insert_value(arith::shrui(v, down, loc))?,
        };
        let to: Type<'c> = IntegerType::new(self.ctx(), bits).into();
        let v = match bits.cmp(&s.bits) {
            std::cmp::Ordering::Less => self.b.insert_value(arith::trunci(v, to, loc))?,
            std::cmp::Ordering::Equal => v,
            std::cmp::Ordering::Greater if signed => {
                self.b.insert_value(arith::extsi(v, to, loc))?
            }
            std::cmp::Ordering::Greater => self.b.insert_value(arith::extui(v, to, loc))?,
        };
        Ok(Val::Scalar(v))
    }

    /// Stores `value` (of type `ty`) into a bit-field in the run at `run`: its low bits.
    pub(super) fn store_bit_field(
        &mut self,
        run: Value<'c>,
        field: BitField,
        ty: &Ty,
        value: Val<'c>,
        loc: Location<'c>,
    ) -> Result<()> {
        let s = span(field, loc)?;
        let wide: Type<'c> = IntegerType::new(self.ctx(), s.bits).into();
        let byte: Type<'c> = IntegerType::new(self.ctx(), 8).into();
        let (bits, _) = integer(ty);
        let v = value.scalar();
        let v = match bits.cmp(&s.bits) {
            std::cmp::Ordering::Less => self.b.insert_value(arith::extui(v, wide, loc))?,
            std::cmp::Ordering::Equal => v,
            std::cmp::Ordering::Greater => self.b.insert_value(arith::trunci(v, wide, loc))?,
        };
        let field_mask: u128 = ((1u128 << field.width) - 1) << s.shift;
        let low = self
            .b
            .const_int(wide, ((1u128 << field.width) - 1) as u64 as i64, loc)?;
        let v = self.b.insert_value(arith::andi(v, low, loc))?;
        let shift = self.b.const_int(wide, s.shift as i64, loc)?;
        let placed = self.b.insert_value(arith::shli(v, shift, loc))?;
        for k in 0..s.bytes {
            let mask = ((field_mask >> (8 * k)) & 0xff) as u8;
            let mut part = placed;
            if k > 0 {
                let by = self.b.const_int(wide, 8 * k as i64, loc)?;
                part = self.b.insert_value(arith::shrui(part, by, loc))?;
            }
            let part = self.b.insert_value(arith::trunci(part, byte, loc))?;
            let at = self.byte_offset(run, (s.first + k) as i64, loc)?;
            let new = if mask == 0xff {
                part
            } else {
                let old = self.b.load(at, byte, false, loc)?;
                let keep = self.b.const_int(byte, i64::from(!mask as i8), loc)?;
                let kept = self.b.insert_value(arith::andi(old, keep, loc))?;
                self.b.insert_value(arith::ori(kept, part, loc))?
            };
            self.b.store(new, at, false, loc);
        }
        Ok(())
    }
}
