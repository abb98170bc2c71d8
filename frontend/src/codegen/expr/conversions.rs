//! C's conversions between scalar types, class-pointer casts, and the usual arithmetic conversions.

use clang_sys::*;
use melior::dialect::arith::{self, CmpfPredicate, CmpiPredicate};
use melior::ir::{Location, Type, ValueLike};

use super::GepIndex;
use crate::clang::{CType, ConstValue, Cursor};
use crate::codegen::builder::Value;
use crate::codegen::function::{FunctionCodegen, Val};
use crate::codegen::virtual_bases::is_virtual_path;
use crate::error::{FrontendError, Result};
use crate::types::Ty;

impl<'c> FunctionCodegen<'c, '_> {
    /// A conversion between pointers to a class and to one of its base classes (either way):
    /// the pointer moves by the base subobject's offset. `None` for any other conversion.
    pub(super) fn class_pointer_cast(
        &mut self,
        from: &Cursor,
        to: &Cursor,
    ) -> Result<Option<Val<'c>>> {
        let (from_ty, to_ty) = (from.ty().canonical(), to.ty().canonical());
        if from_ty.kind() != CXType_Pointer || to_ty.kind() != CXType_Pointer {
            return Ok(None);
        }
        let Some(delta) = class_delta(&from_ty.pointee(), &to_ty.pointee()) else {
            // To a base through a virtual one: where the object's class puts it.
            let (derived, base) = (from_ty.pointee(), to_ty.pointee());
            if !is_virtual_path(&derived, &base) {
                return Ok(None);
            }
            let loc = self.loc(to);
            let v = self.rvalue(from)?.scalar();
            return Ok(self
                .through_virtual_base(v, &derived, &base, true, loc)?
                .map(Val::Scalar));
        };
        let loc = self.loc(to);
        let v = self.rvalue(from)?.scalar();
        if delta == 0 {
            return Ok(Some(Val::Scalar(v)));
        }
        // A null pointer stays null, as C++ requires: it moves by nothing.
        let as_int = self.ptr_to_int(v, loc)?;
        let zero = self.b.const_int(as_int.r#type(), 0, loc)?;
        let is_null = self.b.cmpi(CmpiPredicate::Eq, as_int, zero, loc)?;
        let delta = self.b.const_int(as_int.r#type(), delta, loc)?;
        let bytes = self
            .b
            .insert_value(arith::select(is_null, zero, delta, loc))?;
        let moved = self.gep(
            v,
            &Ty::Int {
                bits: 8,
                signed: false,
            },
            &[GepIndex::Dynamic(bytes)],
            loc,
        )?;
        Ok(Some(Val::Scalar(moved)))
    }

    /// Applies a C conversion from `from` to `to` to the value of expression `e`.
    pub fn convert(&mut self, v: Val<'c>, from: &Ty, to: &Ty, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        self.convert_at(v, from, to, loc, Some(e))
    }

    /// A conversion of a computed value (no source expression).
    pub fn convert_value(
        &mut self,
        v: Value<'c>,
        from: &Ty,
        to: &Ty,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        Ok(self
            .convert_at(Val::Scalar(v), from, to, loc, None)?
            .scalar())
    }

    pub(super) fn convert_at(
        &mut self,
        v: Val<'c>,
        from: &Ty,
        to: &Ty,
        loc: Location<'c>,
        e: Option<&Cursor>,
    ) -> Result<Val<'c>> {
        if from == to || matches!(to, Ty::Void) {
            return Ok(v);
        }
        let ctx = self.ctx();
        let unsupported = || {
            FrontendError::unsupported(
                e.map(|e| e.location()).unwrap_or_default(),
                format!("conversion from '{from}' to '{to}'"),
            )
        };
        let x = match v {
            Val::Scalar(x) => x,
            _ => return Err(unsupported()),
        };
        let target: Type<'c> = match to {
            Ty::Bool
            | Ty::Int { .. }
            | Ty::Float { .. }
            | Ty::Pointer { .. }
            | Ty::FnPtr { .. } => to.value_mlir(ctx),
            // Records convert only to themselves (copies), handled above.
            _ => return Err(unsupported()),
        };
        let out = match (from, to) {
            // Pointers are opaque: casts between pointer types change nothing.
            (Ty::Pointer { .. }, Ty::Pointer { .. }) | (Ty::FnPtr { .. }, Ty::FnPtr { .. }) => {
                return Ok(v)
            }
            // A function pointer is an integer id (0 is null; see function_pointers.rs).
            (Ty::FnPtr { .. }, Ty::Bool) => {
                let zero = self.b.const_int(x.r#type(), 0, loc)?;
                self.b.cmpi(CmpiPredicate::Ne, x, zero, loc)?
            }
            (Ty::FnPtr { .. }, Ty::Int { .. }) => {
                return self.convert_at(v, &Ty::LONG, to, loc, e);
            }
            (Ty::FnPtr { .. }, Ty::Pointer { .. }) => self.b.int_to_ptr(x, target, loc)?,
            (Ty::Pointer { .. }, Ty::FnPtr { .. }) => self.ptr_to_int(x, loc)?,
            (Ty::Int { .. } | Ty::Bool, Ty::FnPtr { .. }) => {
                return self.convert_at(v, from, &Ty::LONG, loc, e);
            }
            (Ty::Pointer { .. }, Ty::Bool) => {
                let i = self.ptr_to_int(x, loc)?;
                let zero = self.b.const_int(i.r#type(), 0, loc)?;
                self.b.cmpi(CmpiPredicate::Ne, i, zero, loc)?
            }
            (Ty::Pointer { .. }, Ty::Int { .. }) => {
                let i = self.ptr_to_int(x, loc)?;
                return self.convert_at(Val::Scalar(i), &Ty::LONG, to, loc, e);
            }
            (Ty::Int { .. } | Ty::Bool, Ty::Pointer { .. }) => {
                if let Some(ConstValue::Int(0)) = e.and_then(|e| e.evaluate()) {
                    return self.null_pointer(loc);
                }
                let wide = self.convert_at(v, from, &Ty::LONG, loc, e)?.scalar();
                self.b.int_to_ptr(wide, target, loc)?
            }
            (Ty::Int { .. } | Ty::Bool, Ty::Bool) => {
                let zero = self.b.const_int(x.r#type(), 0, loc)?;
                self.b.cmpi(CmpiPredicate::Ne, x, zero, loc)?
            }
            (Ty::Float { .. }, Ty::Bool) => {
                let zero = self.b.const_float(x.r#type(), 0.0, loc)?;
                // une: NaN converts to true
                self.b.cmpf(CmpfPredicate::Une, x, zero, loc)?
            }
            (Ty::Bool, Ty::Int { .. }) => self.b.insert_value(arith::extui(x, target, loc))?,
            (Ty::Int { bits: fb, signed }, Ty::Int { bits: tb, .. }) => {
                let op = match fb.cmp(tb) {
                    std::cmp::Ordering::Equal => return Ok(v),
                    std::cmp::Ordering::Greater => arith::trunci,
                    std::cmp::Ordering::Less if *signed => arith::extsi,
                    std::cmp::Ordering::Less => arith::extui,
                };
                self.b.insert_value(op(x, target, loc))?
            }
            (Ty::Bool, Ty::Float { .. }) => self.b.insert_value(arith::uitofp(x, target, loc))?,
            (Ty::Int { signed, .. }, Ty::Float { .. }) => {
                let op = if *signed {
                    arith::sitofp
                } else {
                    arith::uitofp
                };
                self.b.insert_value(op(x, target, loc))?
            }
            (Ty::Float { .. }, Ty::Int { signed, .. }) => {
                let op = if *signed {
                    arith::fptosi
                } else {
                    arith::fptoui
                };
                self.b.insert_value(op(x, target, loc))?
            }
            (Ty::Float { bits: fb }, Ty::Float { bits: tb }) => {
                if fb < tb {
                    self.b.insert_value(arith::extf(x, target, loc))?
                } else {
                    self.b.truncf(x, target, loc)?
                }
            }
            _ => return Err(unsupported()),
        };
        Ok(Val::Scalar(out))
    }
}

/// C's integer promotion: types narrower than int become int.
pub fn promote(ty: &Ty) -> Ty {
    match ty {
        Ty::Bool => Ty::INT,
        Ty::Int { bits, .. } if *bits < 32 => Ty::INT,
        other => other.clone(),
    }
}

/// C's usual arithmetic conversions on two promoted operand types.
pub fn usual_arithmetic(a: &Ty, b: &Ty) -> Ty {
    match (a, b) {
        (Ty::Float { bits: x }, Ty::Float { bits: y }) => Ty::Float { bits: *x.max(y) },
        (Ty::Float { .. }, _) => a.clone(),
        (_, Ty::Float { .. }) => b.clone(),
        (
            Ty::Int {
                bits: ab,
                signed: asg,
            },
            Ty::Int {
                bits: bb,
                signed: bsg,
            },
        ) => {
            if ab == bb {
                Ty::Int {
                    bits: *ab,
                    signed: *asg && *bsg,
                }
            } else if ab > bb {
                a.clone()
            } else {
                b.clone()
            }
        }
        _ => a.clone(),
    }
}

/// How many bytes an object's address moves converting from class `from` to class `to`, one a
/// base class of the other: forward to a base subobject, back from one. `None` for other types.
pub(in crate::codegen) fn class_delta(from: &CType, to: &CType) -> Option<i64> {
    match (class_offset(from, to), class_offset(to, from)) {
        (Some(up), _) => Some(up as i64),
        (None, Some(down)) => Some(-(down as i64)),
        (None, None) => None,
    }
}

/// Where the `base` class subobject is in an object of class `derived` (both clang types, as
/// written): `None` unless both are records and `base` is a base of `derived`.
pub(super) fn class_offset(derived: &CType, base: &CType) -> Option<u64> {
    let (d, b) = (derived.canonical(), base.canonical());
    if d.kind() != CXType_Record || b.kind() != CXType_Record {
        return None;
    }
    d.base_offset(&b)
}
