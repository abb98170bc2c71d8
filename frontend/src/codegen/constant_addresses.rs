//! Addresses in the constant initializers of device variables (`__device__ int* cursor =
//! &table[8];`, `__constant__ const char* names[] = {"red", "green"};`): each is a variable's
//! symbol and a byte offset, evaluated from the expression as clang's constant evaluator would
//! (array elements, members, base classes, pointer arithmetic, casts). The variable holding it
//! records a relocation (see `globals`), which each target's loader resolves.

use clang_sys::*;

use super::expr::class_delta;
use super::function_pointers::is_null_constant;
use super::globals::{is_device_variable, is_host_constant};
use super::module::ModuleCodegen;
use super::virtual_bases::is_virtual_path;
use crate::clang::{ConstValue, Cursor};
use crate::error::{FrontendError, Result};
use crate::types::Ty;

/// A constant address: `offset` bytes into the global `symbol`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    pub symbol: String,
    pub offset: i64,
}

impl Address {
    fn plus(self, bytes: i64) -> Address {
        Address {
            offset: self.offset + bytes,
            ..self
        }
    }
}

fn not_constant(e: &Cursor) -> FrontendError {
    FrontendError::unsupported(
        e.location(),
        "a device pointer initializer that is not a constant address (the address of a \
         device variable, an element or member of one, or a string literal)",
    )
}

/// The one child of an implicit node.
fn only_child(e: &Cursor) -> Result<Cursor> {
    match e.children().as_slice() {
        [only] => Ok(*only),
        _ => Err(not_constant(e)),
    }
}

fn is_array(e: &Cursor) -> bool {
    matches!(
        e.ty().canonical().kind(),
        CXType_ConstantArray | CXType_IncompleteArray
    )
}

/// The size of the objects a pointer-typed expression points to.
fn pointee_size(e: &Cursor) -> Result<i64> {
    match Ty::of(e)? {
        Ty::Pointer { pointee } => Ok(match *pointee {
            // GNU arithmetic on `void*` counts bytes.
            Ty::Void => 1,
            ref t => t.size() as i64,
        }),
        _ => Err(not_constant(e)),
    }
}

/// An integer constant expression's value.
fn integer(e: &Cursor) -> Result<i64> {
    match e.evaluate() {
        Some(ConstValue::Int(i)) => i64::try_from(i).map_err(|_| not_constant(e)),
        _ => Err(not_constant(e)),
    }
}

/// The byte adjustment of a conversion between classes (derived to base and back), of the
/// objects themselves or of the pointees of pointers. One through a virtual base is refused:
/// where that base is, the object's class id says at run time (virtual_bases.rs).
fn class_adjustment(from: &Cursor, to: &Cursor) -> Result<i64> {
    let (f, t) = (from.ty().canonical(), to.ty().canonical());
    let (f, t) = match (f.kind(), t.kind()) {
        (CXType_Pointer, CXType_Pointer) => (f.pointee(), t.pointee()),
        _ => (f, t),
    };
    if class_delta(&f, &t).is_none() && is_virtual_path(&f, &t) {
        return Err(FrontendError::unsupported(
            to.location(),
            "an address constant converted to a virtual base class",
        ));
    }
    Ok(class_delta(&f, &t).unwrap_or(0))
}

impl ModuleCodegen<'_> {
    /// The address a pointer-typed constant initializer holds; `None` for a null pointer.
    pub(super) fn constant_address(&mut self, e: &Cursor) -> Result<Option<Address>> {
        if is_null_constant(e) || matches!(e.evaluate(), Some(ConstValue::Int(0))) {
            return Ok(None);
        }
        self.pointer_value(e).map(Some)
    }

    /// The address a pointer-valued expression computes.
    fn pointer_value(&mut self, e: &Cursor) -> Result<Address> {
        if is_array(e) {
            // An array where libclang shows no decay (a string literal in a braced list).
            return self.object_address(e);
        }
        match e.kind() {
            CXCursor_ParenExpr => self.pointer_value(&only_child(e)?),
            _ if e.is_explicit_cast() => {
                let inner = e.explicit_cast_operand().ok_or_else(|| not_constant(e))?;
                self.converted_pointer(&inner, e)
            }
            CXCursor_UnexposedExpr => self.converted_pointer(&only_child(e)?, e),
            CXCursor_UnaryOperator if e.unary_operator() == CXUnaryOperator_AddrOf => {
                self.object_address(&only_child(e)?)
            }
            CXCursor_BinaryOperator => {
                let [lhs, rhs] = e.children()[..] else {
                    return Err(not_constant(e));
                };
                let sign = match e.binary_operator() {
                    CXBinaryOperator_Add => 1,
                    CXBinaryOperator_Sub => -1,
                    _ => return Err(not_constant(e)),
                };
                let size = pointee_size(e)?;
                // `n + p` is `p + n`; only a pointer can be subtracted from.
                let (pointer, count) = if Ty::of(&lhs)?.is_pointer() {
                    (lhs, rhs)
                } else if sign > 0 {
                    (rhs, lhs)
                } else {
                    return Err(not_constant(e));
                };
                let base = self.pointer_value(&pointer)?;
                Ok(base.plus(sign * integer(&count)? * size))
            }
            _ => Err(not_constant(e)),
        }
    }

    /// The address `operand`, converted to the type of `conversion`, holds: an array's first
    /// element where it decays, a base or derived class subobject where classes convert.
    fn converted_pointer(&mut self, operand: &Cursor, conversion: &Cursor) -> Result<Address> {
        if is_array(operand) {
            return self.object_address(operand);
        }
        let address = self.pointer_value(operand)?;
        Ok(address.plus(class_adjustment(operand, conversion)?))
    }

    /// The address of the object an lvalue expression names.
    fn object_address(&mut self, e: &Cursor) -> Result<Address> {
        match e.kind() {
            CXCursor_ParenExpr => self.object_address(&only_child(e)?),
            _ if e.is_explicit_cast() => {
                let inner = e.explicit_cast_operand().ok_or_else(|| not_constant(e))?;
                let address = self.object_address(&inner)?;
                Ok(address.plus(class_adjustment(&inner, e)?))
            }
            CXCursor_UnexposedExpr => {
                let inner = only_child(e)?;
                let address = self.object_address(&inner)?;
                Ok(address.plus(class_adjustment(&inner, e)?))
            }
            CXCursor_DeclRefExpr => {
                let decl = e.referenced().ok_or_else(|| not_constant(e))?;
                self.variable_address(&decl, e)
            }
            CXCursor_StringLiteral => {
                let text = super::builtins::string_literal(e).ok_or_else(|| not_constant(e))?;
                let loc = self.location_of(e);
                Ok(Address {
                    symbol: self.relocated_string(&text, loc)?,
                    offset: 0,
                })
            }
            CXCursor_ArraySubscriptExpr => {
                let [base, index] = e.children()[..] else {
                    return Err(not_constant(e));
                };
                // `i[p]` is `p[i]`.
                let (base, index) =
                    if Ty::of(&base)?.is_pointer() || matches!(Ty::of(&base)?, Ty::Array { .. }) {
                        (base, index)
                    } else {
                        (index, base)
                    };
                let element = Ty::of(e)?.size() as i64;
                let address = self.pointer_value(&base)?;
                Ok(address.plus(integer(&index)? * element))
            }
            CXCursor_MemberRefExpr => {
                let member = e.referenced().ok_or_else(|| not_constant(e))?;
                if member.kind() == CXCursor_VarDecl {
                    // A static data member.
                    return self.variable_address(&member, e);
                }
                let offset = member.field_offset_bits().ok_or_else(|| not_constant(e))?;
                if member.bit_field_width().is_some() {
                    return Err(not_constant(e));
                }
                let object = e
                    .children()
                    .into_iter()
                    .find(|c| c.is_expression())
                    .ok_or_else(|| not_constant(e))?;
                let base = if Ty::of(&object)?.is_pointer() {
                    self.pointer_value(&object)?
                } else {
                    self.object_address(&object)?
                };
                Ok(base.plus((offset / 8) as i64))
            }
            CXCursor_UnaryOperator if e.unary_operator() == CXUnaryOperator_Deref => {
                self.pointer_value(&only_child(e)?)
            }
            _ => Err(not_constant(e)),
        }
    }

    /// The address of a variable named in an initializer: a device variable, or the device copy
    /// of a host constant.
    fn variable_address(&mut self, decl: &Cursor, at: &Cursor) -> Result<Address> {
        let symbol = if is_device_variable(decl) {
            self.device_variable(decl)?.0
        } else if is_host_constant(decl) {
            self.host_constant(decl)?.0
        } else {
            return Err(FrontendError::unsupported(
                at.location(),
                format!(
                    "the address of '{}' in a device variable's initializer (only device \
                     variables and constants have device addresses)",
                    decl.spelling()
                ),
            ));
        };
        Ok(Address { symbol, offset: 0 })
    }
}
