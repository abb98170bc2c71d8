//! L-values: the object an assignable expression names (a local held as SSA, or memory).

use clang_sys::*;
use melior::ir::Location;

use super::conversions::{class_delta, class_offset};
use super::{cast_operand, only_child, GepIndex, LValue};
use crate::clang::{Cursor, LifetimeNode};
use crate::codegen::analysis::{assigned_vars, VarKey};
use crate::codegen::builder::{internal, Value};
use crate::codegen::function::{FunctionCodegen, Val};
use crate::error::{FrontendError, Result};
use crate::types::{pointer_type, AddrSpace, Ty};

impl<'c> FunctionCodegen<'c, '_> {
    /// An array lvalue used as a pointer to its first element.
    pub(super) fn decay(&mut self, array: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(array);
        match self.lvalue(array)? {
            LValue::Mem { ptr, .. } => Ok(Val::Scalar(self.to_generic(ptr, loc)?)),
            LValue::Var(..) | LValue::BitField { .. } => {
                Err(FrontendError::unsupported(array.location(), "array value"))
            }
        }
    }

    /// The object an lvalue expression names; an access through a volatile-qualified lvalue
    /// (`volatile float* s; s[i]`, `*(volatile int*)&x`) is a volatile load or store.
    pub fn lvalue(&mut self, e: &Cursor) -> Result<LValue<'c>> {
        Ok(match self.lvalue_of(e)? {
            LValue::Mem { ptr, ty, volatile } => LValue::Mem {
                ptr,
                ty,
                volatile: volatile || e.ty().is_volatile(),
            },
            var => var,
        })
    }

    pub(super) fn lvalue_of(&mut self, e: &Cursor) -> Result<LValue<'c>> {
        let loc = self.loc(e);
        if let Some(ptr) = self.array_copy_source(e) {
            // An array-init loop's source, evaluated once before the loop.
            return Ok(LValue::Mem {
                ptr,
                ty: Ty::of(e)?,
                volatile: false,
            });
        }
        match e.kind() {
            CXCursor_ParenExpr => self.lvalue(&only_child(e)?),
            // A string literal used as a value (`const char* s = "text"`, `f("text")`): a
            // read-only copy in global memory, so that its address is an ordinary pointer.
            CXCursor_StringLiteral => {
                let text = crate::codegen::builtins::string_literal(e).ok_or_else(|| {
                    FrontendError::unsupported(e.location(), "a string literal that is not plain C")
                })?;
                let symbol = self.module.string_value(&text, loc)?;
                let ptr = self.global_address(&symbol, AddrSpace::Global, loc)?;
                Ok(LValue::Mem {
                    ptr,
                    ty: Ty::of(e)?,
                    volatile: false,
                })
            }
            // `(float2){x, y}`: an unnamed object initialized by its brace list.
            CXCursor_CompoundLiteralExpr => {
                let init = e
                    .compound_literal_initializer()
                    .ok_or_else(|| FrontendError::unsupported(e.location(), "compound literal"))?;
                let ty = Ty::of(e)?;
                let ptr = self.alloca(&ty, loc)?;
                self.initialize(ptr, &ty, &init)?;
                Ok(LValue::Mem {
                    ptr,
                    ty,
                    volatile: false,
                })
            }
            // A cast to a reference type (`T&` or `T&&`) names the same object as another type (a
            // derived-to-base cast moves to the base subobject).
            _ if e.is_explicit_cast() && e.is_glvalue() => {
                let inner = cast_operand(e)?;
                let LValue::Mem { ptr, .. } = self.lvalue(&inner)? else {
                    return Err(FrontendError::unsupported(
                        e.location(),
                        "reference cast of a variable held in a register",
                    ));
                };
                let ptr = match class_delta(&inner.ty(), &e.ty()) {
                    Some(delta) if delta != 0 => self.byte_offset(ptr, delta, loc)?,
                    Some(_) => ptr,
                    None => self
                        .through_virtual_base(ptr, &inner.ty(), &e.ty(), false, loc)?
                        .unwrap_or(ptr),
                };
                Ok(LValue::Mem {
                    ptr,
                    ty: Ty::of(e)?,
                    volatile: false,
                })
            }
            CXCursor_UnexposedExpr if Self::is_temporary(e) => Ok(LValue::Mem {
                ptr: self.materialize(e, false)?,
                ty: Ty::of(e)?,
                volatile: false,
            }),
            CXCursor_UnexposedExpr if e.lifetime_node() == Some(LifetimeNode::FullExpression) => {
                let inner = only_child(e)?;
                self.full_expression(|this| this.lvalue(&inner))
            }
            CXCursor_UnexposedExpr => {
                let child = only_child(e)?;
                let inner = self.lvalue(&child)?;
                // A derived-class object seen as its base class: the base subobject.
                match (&inner, class_offset(&child.ty(), &e.ty())) {
                    (LValue::Mem { ptr, .. }, Some(offset)) => Ok(LValue::Mem {
                        ptr: if offset == 0 {
                            *ptr
                        } else {
                            self.byte_offset(*ptr, offset as i64, loc)?
                        },
                        ty: Ty::of(e)?,
                        volatile: false,
                    }),
                    (LValue::Mem { ptr, .. }, None) => {
                        match self.through_virtual_base(*ptr, &child.ty(), &e.ty(), false, loc)? {
                            Some(ptr) => Ok(LValue::Mem {
                                ptr,
                                ty: Ty::of(e)?,
                                volatile: false,
                            }),
                            None => Ok(inner),
                        }
                    }
                    _ => Ok(inner),
                }
            }
            CXCursor_DeclRefExpr => {
                let decl = e
                    .referenced()
                    .ok_or_else(|| FrontendError::unsupported(e.location(), "unresolved name"))?;
                let key = VarKey::Decl(decl.canonical());
                // A structured binding to a bit-field (one without an address, which the
                // declaration did not bind): its member, read afresh.
                if !self.env.contains_key(&key) && decl.kind() == CXCursor_UnexposedDecl {
                    if let Some(binding) = decl.binding() {
                        return self.lvalue(&binding.expression);
                    }
                }
                if !self.env.contains_key(&key) && decl.has_attr(CXCursor_CUDASharedAttr) {
                    let (ptr, ty) = self.shared_address(&decl, loc)?;
                    return Ok(LValue::Mem {
                        ptr,
                        ty,
                        volatile: false,
                    });
                }
                if !self.env.contains_key(&key)
                    && crate::codegen::globals::is_device_variable(&decl)
                {
                    let (ptr, ty) = self.device_variable_address(&decl, loc)?;
                    return Ok(LValue::Mem {
                        ptr,
                        ty,
                        volatile: false,
                    });
                }
                if !self.env.contains_key(&key) && crate::codegen::globals::is_host_constant(&decl)
                {
                    let (symbol, ty) = self.module.host_constant(&decl)?;
                    let ptr = self.global_address(&symbol, AddrSpace::Global, loc)?;
                    return Ok(LValue::Mem {
                        ptr,
                        ty,
                        volatile: false,
                    });
                }
                if self.lambdas.contains_key(&decl.canonical()) {
                    return Err(crate::codegen::lambdas::lambda_used_as_value(e));
                }
                let Some(binding) = self.env.get(&key) else {
                    return Err(FrontendError::unsupported(
                        e.location(),
                        format!(
                            "reference to '{}' (globals are not supported yet)",
                            e.spelling()
                        ),
                    ));
                };
                if binding.in_memory {
                    return Ok(LValue::Mem {
                        ptr: binding.val.scalar(),
                        ty: binding.ty.clone(),
                        volatile: false,
                    });
                }
                if decl.ty().is_reference() {
                    // A reference holds the address of the object it names.
                    let ty = binding.ty.pointee().cloned().unwrap_or(Ty::Void);
                    return Ok(LValue::Mem {
                        ptr: binding.val.scalar(),
                        ty,
                        volatile: false,
                    });
                }
                Ok(LValue::Var(key, binding.ty.clone()))
            }
            CXCursor_ArraySubscriptExpr => {
                let children = e.children();
                let [base, index] = children.as_slice() else {
                    return Err(FrontendError::unsupported(e.location(), "subscript"));
                };
                // `i[p]` is legal C; put the pointer first.
                let (ptr, idx) = if Ty::of(base)?.is_pointer() {
                    (base, index)
                } else {
                    (index, base)
                };
                let p = self.rvalue(ptr)?.scalar();
                let element = self.offset_pointer(p, &Ty::of(ptr)?, idx, false)?;
                Ok(LValue::Mem {
                    ptr: element,
                    ty: Ty::of(e)?,
                    volatile: false,
                })
            }
            // `__extension__ x` (glibc's assert writes `__extension__ __PRETTY_FUNCTION__`).
            CXCursor_UnaryOperator if e.unary_operator() == CXUnaryOperator_Extension => {
                self.lvalue(&only_child(e)?)
            }
            _ if crate::codegen::member_pointers::is_member_access(e) => self.data_member_lvalue(e),
            CXCursor_UnaryOperator if e.unary_operator() == CXUnaryOperator_Deref => {
                let ptr = only_child(e)?;
                let p = self.rvalue(&ptr)?.scalar();
                Ok(LValue::Mem {
                    ptr: p,
                    ty: Ty::of(e)?,
                    volatile: false,
                })
            }
            CXCursor_MemberRefExpr => {
                // The object expression, if any: a qualifier (`Base::x`) is no expression.
                let base = e.children().into_iter().find(|c| c.is_expression());
                let (ptr, record) = match base.as_ref() {
                    // A member of `this`, named without it.
                    None => {
                        // The class declaring it (past anonymous structs and unions).
                        let mut owner = e.referenced().and_then(|m| m.semantic_parent());
                        while let Some(o) = owner.filter(|o| o.is_anonymous_record()) {
                            owner = o.semantic_parent();
                        }
                        self.implicit_this(owner.as_ref(), e)?
                    }
                    Some(base) => match Ty::of(base)? {
                        // `p->field`
                        Ty::Pointer { pointee } => (self.rvalue(base)?.scalar(), *pointee),
                        // `s.field`, also of a temporary
                        record => (self.object_address(base)?, record),
                    },
                };
                if !matches!(record, Ty::Record(_)) {
                    return Err(FrontendError::unsupported(
                        e.location(),
                        "member of a non-record",
                    ));
                }
                let name = e.spelling();
                // libclang shows some of the implicit accesses of anonymous members (the outer
                // ones of a nested anonymous struct in an anonymous union), named by their type.
                let anonymous = e
                    .referenced()
                    .is_some_and(|f| f.ty().declaration().is_anonymous_record());
                // A field of the record itself is found by its declaration (a closure's fields
                // have no names); one of an anonymous member by its name.
                let referenced = e.referenced().map(|d| d.canonical());
                let direct = match (&record, referenced) {
                    (Ty::Record(r), Some(decl)) => r
                        .fields
                        .iter()
                        .zip(&r.field_decls)
                        .find(|(_, d)| d.canonical() == decl)
                        .map(|(f, _)| vec![(&record, f)]),
                    _ => None,
                };
                let path = if direct.is_some() {
                    direct
                } else if anonymous {
                    let ty = Ty::of(e)?;
                    record.anonymous_member(&ty).map(|f| vec![(&record, f)])
                } else {
                    record.member_path(&name)
                };
                let path = path.ok_or_else(|| {
                    FrontendError::unsupported(e.location(), format!("member '{name}'"))
                })?;
                let mut field_ptr = ptr;
                for (owner, f) in &path {
                    field_ptr = self.field_pointer(field_ptr, owner, f.llvm_index, loc)?;
                }
                let field = path
                    .last()
                    .map(|(_, f)| *f)
                    .ok_or_else(|| internal(loc, "member"))?;
                if let Some(bits) = field.bit_field {
                    return Ok(LValue::BitField {
                        run: field_ptr,
                        field: bits,
                        ty: field.ty.clone(),
                    });
                }
                if e.referenced().is_some_and(|f| f.ty().is_reference()) {
                    // A reference member holds the address of the object it names.
                    let referent = self.load(
                        &LValue::Mem {
                            ptr: field_ptr,
                            ty: field.ty.clone(),
                            volatile: false,
                        },
                        loc,
                    )?;
                    return Ok(LValue::Mem {
                        ptr: referent.scalar(),
                        ty: Ty::of(e)?,
                        volatile: false,
                    });
                }
                Ok(LValue::Mem {
                    ptr: field_ptr,
                    ty: field.ty.clone(),
                    volatile: false,
                })
            }
            // `c ? a : b` with lvalue arms is an lvalue: choose between the two addresses.
            CXCursor_ConditionalOperator if crate::codegen::objects::is_lvalue_expression(e) => {
                let children = e.children();
                let [cond, a, b] = children.as_slice() else {
                    return Err(internal(loc, "conditional operator"));
                };
                let c = self.condition(cond)?;
                let generic = pointer_type(self.ctx(), AddrSpace::Generic);
                let mut carried = assigned_vars(a, self.targets());
                carried.extend(assigned_vars(b, self.targets()));
                let out = self.emit_if(
                    c,
                    &carried,
                    &[generic],
                    |this| Ok(this.address_of(a)?.flatten()),
                    |this| Ok(this.address_of(b)?.flatten()),
                    loc,
                )?;
                Ok(LValue::Mem {
                    ptr: out[0],
                    ty: Ty::of(e)?,
                    volatile: false,
                })
            }
            CXCursor_CallExpr if self.returns_reference(e) => {
                let ptr = self.call(e)?.scalar();
                Ok(LValue::Mem {
                    ptr,
                    ty: Ty::of(e)?,
                    volatile: false,
                })
            }
            _ => Err(FrontendError::unsupported(
                e.location(),
                format!("assignment to '{}'", e.kind_name()),
            )),
        }
    }

    /// The address of field `llvm_index` of the record at `ptr`.
    pub fn field_pointer(
        &mut self,
        ptr: Value<'c>,
        record: &Ty,
        llvm_index: i32,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let zero = self.b.const_int(Ty::LONG.value_mlir(self.ctx()), 0, loc)?;
        self.gep(
            ptr,
            record,
            &[GepIndex::Dynamic(zero), GepIndex::Field(llvm_index)],
            loc,
        )
    }

    /// `this` for a member named without `this->`, declared in class `owner`: when that is a base
    /// class of `this`'s class, the base subobject. Returns the pointer and the record type.
    pub fn implicit_this(&mut self, owner: Option<&Cursor>, e: &Cursor) -> Result<(Value<'c>, Ty)> {
        let loc = self.loc(e);
        let this = self
            .env
            .get(&VarKey::This)
            .ok_or_else(|| FrontendError::unsupported(e.location(), "member access"))?;
        let (ptr, record) = (
            this.val.scalar(),
            this.ty.pointee().cloned().unwrap_or(Ty::Void),
        );
        let (Some(class), Some(owner)) = (self.this_class, owner) else {
            return Ok((ptr, record));
        };
        let owner_ty = owner.ty();
        match class_offset(&class, &owner_ty) {
            Some(offset) => {
                let base = if offset == 0 {
                    ptr
                } else {
                    self.byte_offset(ptr, offset as i64, loc)?
                };
                Ok((base, Ty::from_clang(owner_ty, &e.location())?))
            }
            None => match self.through_virtual_base(ptr, &class, &owner_ty, false, loc)? {
                Some(base) => Ok((base, Ty::from_clang(owner_ty, &e.location())?)),
                None => Ok((ptr, record)),
            },
        }
    }

    /// The generic address of an lvalue (for `&x`, reference binding).
    pub fn address_of(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        match self.lvalue(e)? {
            LValue::Mem { ptr, .. } => Ok(Val::Scalar(self.to_generic(ptr, loc)?)),
            LValue::Var(..) => Err(internal(loc, "address of a variable held in a register")),
            LValue::BitField { .. } => Err(internal(loc, "address of a bit-field")),
        }
    }
}

pub(super) fn lvalue_ty(lv: &LValue<'_>) -> Ty {
    match lv {
        LValue::Var(_, ty) | LValue::Mem { ty, .. } | LValue::BitField { ty, .. } => ty.clone(),
    }
}
