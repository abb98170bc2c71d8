//! Pointers and memory: addresses of globals, address-space casts, GEPs, loads and stores.

use melior::dialect::arith::{self, CmpiPredicate};
use melior::dialect::llvm;
use melior::ir::{Location, ValueLike};

use super::{GepIndex, LValue};
use crate::clang::Cursor;
use crate::codegen::builder::{internal, Value};
use crate::codegen::function::{pointer_key, FunctionCodegen, Val};
use crate::error::{FrontendError, Result};
use crate::types::{pointer_type, AddrSpace, Ty};

impl<'c> FunctionCodegen<'c, '_> {
    /// `llvm.mlir.addressof @symbol` in `space`.
    pub fn global_address(
        &mut self,
        symbol: &str,
        space: AddrSpace,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        self.b
            .address_of(symbol, pointer_type(self.ctx(), space), loc)
    }

    /// The address of device variable `decl` and its type: its global, or for a `__managed__`
    /// variable the managed memory whose address the global holds.
    pub fn device_variable_address(
        &mut self,
        decl: &Cursor,
        loc: Location<'c>,
    ) -> Result<(Value<'c>, Ty)> {
        let (symbol, ty) = self.module.device_variable(decl)?;
        let global = self.global_address(&symbol, AddrSpace::Global, loc)?;
        if !crate::codegen::globals::is_managed(decl) {
            return Ok((global, ty));
        }
        let generic = pointer_type(self.ctx(), AddrSpace::Generic);
        Ok((self.b.load(global, generic, false, loc)?, ty))
    }

    /// A pointer cast to the generic address space (a no-op if it is generic already).
    pub fn to_generic(&self, ptr: Value<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        let generic = pointer_type(self.ctx(), AddrSpace::Generic);
        if ptr.r#type() == generic {
            return Ok(ptr);
        }
        self.b.addrspace_cast(ptr, generic, loc)
    }

    pub fn null_pointer(&self, loc: Location<'c>) -> Result<Val<'c>> {
        let generic = pointer_type(self.ctx(), AddrSpace::Generic);
        Ok(Val::Scalar(self.b.insert_value(llvm::zero(generic, loc))?))
    }

    pub(in crate::codegen) fn ptr_to_int(
        &self,
        p: Value<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let i64t = Ty::LONG.value_mlir(self.ctx());
        self.b.ptr_to_int(p, i64t, loc)
    }

    /// `ptr + bytes`.
    pub fn byte_offset(
        &mut self,
        ptr: Value<'c>,
        bytes: i64,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let i64t = Ty::LONG.value_mlir(self.ctx());
        let n = self.b.const_int(i64t, bytes, loc)?;
        self.gep(
            ptr,
            &Ty::Int {
                bits: 8,
                signed: false,
            },
            &[GepIndex::Dynamic(n)],
            loc,
        )
    }

    /// `llvm.getelementptr base[indices]` over objects of type `element`.
    pub fn gep(
        &self,
        base: Value<'c>,
        element: &Ty,
        indices: &[GepIndex<'c>],
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let ctx = self.ctx();
        let raw: Vec<i32> = indices
            .iter()
            .map(|i| match i {
                GepIndex::Dynamic(_) => i32::MIN,
                GepIndex::Field(f) => *f,
            })
            .collect();
        let dynamic: Vec<Value<'c>> = indices
            .iter()
            .filter_map(|i| match i {
                GepIndex::Dynamic(v) => Some(*v),
                GepIndex::Field(_) => None,
            })
            .collect();
        let out = self
            .b
            .get_element_ptr(base, &raw, &dynamic, element.memory_mlir(ctx), loc)?;
        // Whatever is reached from a pointer into a packed record is aligned no better than
        // the record (clang takes the lesser of the two; the record's is never more).
        let known = self.underaligned.borrow().get(&pointer_key(base)).copied();
        let packed = match element {
            Ty::Record(r) if r.is_underaligned() => Some(r.align),
            _ => None,
        };
        if let Some(align) = known.or(packed) {
            self.underaligned
                .borrow_mut()
                .insert(pointer_key(out), align);
        }
        Ok(out)
    }

    /// The alignment of an access of a `ty` at `ptr`: its type's, less where `ptr` points into a
    /// packed record.
    pub fn access_alignment(&self, ptr: Value<'c>, ty: &Ty) -> u64 {
        let known = self.underaligned.borrow().get(&pointer_key(ptr)).copied();
        known.map_or(ty.align(), |a| a.min(ty.align()))
    }

    pub fn load(&mut self, lv: &LValue<'c>, loc: Location<'c>) -> Result<Val<'c>> {
        match lv {
            LValue::Var(key, _) => Ok(self.env[key].val),
            LValue::Mem { ptr, ty, volatile } => {
                if matches!(ty, Ty::Array { .. }) {
                    return Err(internal(loc, "an array loaded as a value"));
                }
                let mem = ty.memory_mlir(self.ctx());
                let v = self.b.load_aligned(
                    *ptr,
                    mem,
                    *volatile,
                    Some(self.access_alignment(*ptr, ty)),
                    loc,
                )?;
                if *ty == Ty::Bool {
                    let zero = self.b.const_int(mem, 0, loc)?;
                    return self
                        .b
                        .cmpi(CmpiPredicate::Ne, v, zero, loc)
                        .map(Val::Scalar);
                }
                Ok(Val::Scalar(v))
            }
            LValue::BitField { run, field, ty } => self.load_bit_field(*run, *field, ty, loc),
        }
    }

    pub fn store(&mut self, lv: &LValue<'c>, v: Val<'c>, loc: Location<'c>) -> Result<()> {
        match lv {
            LValue::Var(key, ty) => {
                self.bind(key.clone(), ty.clone(), v);
                Ok(())
            }
            LValue::Mem { ptr, ty, volatile } => {
                let mut value = v.scalar();
                if *ty == Ty::Bool {
                    let mem = ty.memory_mlir(self.ctx());
                    value = self.b.insert_value(arith::extui(value, mem, loc))?;
                }
                let align = self.access_alignment(*ptr, ty);
                self.b
                    .store_aligned(value, *ptr, *volatile, Some(align), loc);
                Ok(())
            }
            LValue::BitField { run, field, ty } => self.store_bit_field(*run, *field, ty, v, loc),
        }
    }

    /// `p + i` (or `p - i` when `negate`) for a pointer `p` of type `ptr_ty`.
    pub(super) fn offset_pointer(
        &mut self,
        p: Value<'c>,
        ptr_ty: &Ty,
        i: &Cursor,
        negate: bool,
    ) -> Result<Value<'c>> {
        let loc = self.loc(i);
        let Some(pointee) = ptr_ty.pointee() else {
            return Err(FrontendError::unsupported(
                i.location(),
                "pointer arithmetic",
            ));
        };
        if *pointee == Ty::Void {
            return Err(FrontendError::unsupported(
                i.location(),
                "arithmetic on a void pointer",
            ));
        }
        let pointee = pointee.clone();
        let mut delta = self.rvalue_as(i, &Ty::LONG)?.scalar();
        if negate {
            let zero = self.b.const_int(delta.r#type(), 0, loc)?;
            delta = self.b.insert_value(arith::subi(zero, delta, loc))?;
        }
        self.gep(p, &pointee, &[GepIndex::Dynamic(delta)], loc)
    }
}
