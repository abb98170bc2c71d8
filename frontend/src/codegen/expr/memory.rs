//! Pointers and memory: addresses of globals, address-space casts, GEPs, loads and stores.

use melior::ir::{Location, ValueLike};

use super::{GepIndex, LValue};
use crate::clang::Cursor;
use crate::codegen::builder::{internal, Value};
use crate::codegen::function::{FunctionCodegen, Val};
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
        let sym = melior::ir::attribute::FlatSymbolRefAttribute::new(self.ctx(), symbol).into();
        self.b.value(
            "llvm.mlir.addressof",
            &[],
            pointer_type(self.ctx(), space),
            &[("global_name", sym)],
            loc,
        )
    }

    /// A pointer cast to the generic address space (a no-op if it is generic already).
    pub fn to_generic(&self, ptr: Value<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        let generic = pointer_type(self.ctx(), AddrSpace::Generic);
        if ptr.r#type() == generic {
            return Ok(ptr);
        }
        self.b
            .value("llvm.addrspacecast", &[ptr], generic, &[], loc)
    }

    pub fn null_pointer(&self, loc: Location<'c>) -> Result<Val<'c>> {
        let generic = pointer_type(self.ctx(), AddrSpace::Generic);
        Ok(Val::Scalar(self.b.value(
            "llvm.mlir.zero",
            &[],
            generic,
            &[],
            loc,
        )?))
    }

    pub(in crate::codegen) fn ptr_to_int(
        &self,
        p: Value<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let i64t = Ty::LONG.value_mlir(self.ctx());
        self.b.value("llvm.ptrtoint", &[p], i64t, &[], loc)
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
        let operands: Vec<Value<'c>> = std::iter::once(base)
            .chain(indices.iter().filter_map(|i| match i {
                GepIndex::Dynamic(v) => Some(*v),
                GepIndex::Field(_) => None,
            }))
            .collect();
        let raw_attr = melior::ir::attribute::DenseI32ArrayAttribute::new(ctx, &raw).into();
        let elem_attr = melior::ir::attribute::TypeAttribute::new(element.memory_mlir(ctx)).into();
        self.b.value(
            "llvm.getelementptr",
            &operands,
            base.r#type(),
            &[("rawConstantIndices", raw_attr), ("elem_type", elem_attr)],
            loc,
        )
    }

    pub fn load(&mut self, lv: &LValue<'c>, loc: Location<'c>) -> Result<Val<'c>> {
        match lv {
            LValue::Var(key, _) => Ok(self.env[key].val),
            LValue::Mem { ptr, ty, volatile } => {
                if matches!(ty, Ty::Array { .. }) {
                    return Err(internal(loc, "an array loaded as a value"));
                }
                let mem = ty.memory_mlir(self.ctx());
                let attrs = self.volatile_attrs(*volatile);
                let v = self.b.value("llvm.load", &[*ptr], mem, &attrs, loc)?;
                if *ty == Ty::Bool {
                    let zero = self.b.const_int(mem, 0, loc)?;
                    return self.cmpi(1, v, zero, loc).map(Val::Scalar);
                }
                Ok(Val::Scalar(v))
            }
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
                    value = self.b.value("arith.extui", &[value], mem, &[], loc)?;
                }
                let attrs = self.volatile_attrs(*volatile);
                self.b
                    .op("llvm.store", &[value, *ptr], &[], &attrs, vec![], loc)?;
                Ok(())
            }
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
            delta = self
                .b
                .value("arith.subi", &[zero, delta], delta.r#type(), &[], loc)?;
        }
        self.gep(p, &pointee, &[GepIndex::Dynamic(delta)], loc)
    }
}
