//! Expressions → arith/memref/gpu operations, with C's conversion rules.

use clang_sys::*;
use melior::ir::{Attribute, Location, Type, ValueLike};

use super::analysis::{assigned_vars, VarKey};
use super::builder::{internal, Value};
use super::function::{FunctionCodegen, Val};
use super::objects::has_this;
use crate::clang::{CType, ConstValue, Cursor, LifetimeNode, SpecialMember};
use crate::error::{FrontendError, Result};
use crate::types::{is_function_type, pointer_type, AddrSpace, Ty};

/// Where an assignable expression lives.
#[derive(Debug, Clone)]
pub enum LValue<'c> {
    /// A local variable held as an SSA value.
    Var(VarKey, Ty),
    /// An object of type `ty` in memory at `ptr` (any address space); `volatile` when it is
    /// named through a volatile-qualified lvalue.
    Mem {
        ptr: Value<'c>,
        ty: Ty,
        volatile: bool,
    },
}

/// One index of a `llvm.getelementptr`.
#[derive(Debug, Clone, Copy)]
pub enum GepIndex<'c> {
    Dynamic(Value<'c>),
    Field(i32),
}

/// The GPU work-item builtins (`threadIdx.x` → `gpu.thread_id x`).
const DIM_BUILTINS: &[(&str, &str)] = &[
    ("threadIdx", "gpu.thread_id"),
    ("blockIdx", "gpu.block_id"),
    ("blockDim", "gpu.block_dim"),
    ("gridDim", "gpu.grid_dim"),
];

/// Integer and float ops of the binary operators, by kind: (integer signed, integer unsigned, float).
fn arith_op(kind: CXBinaryOperatorKind) -> Option<(&'static str, &'static str, &'static str)> {
    Some(match kind {
        CXBinaryOperator_Add | CXBinaryOperator_AddAssign => {
            ("arith.addi", "arith.addi", "arith.addf")
        }
        CXBinaryOperator_Sub | CXBinaryOperator_SubAssign => {
            ("arith.subi", "arith.subi", "arith.subf")
        }
        CXBinaryOperator_Mul | CXBinaryOperator_MulAssign => {
            ("arith.muli", "arith.muli", "arith.mulf")
        }
        CXBinaryOperator_Div | CXBinaryOperator_DivAssign => {
            ("arith.divsi", "arith.divui", "arith.divf")
        }
        CXBinaryOperator_Rem | CXBinaryOperator_RemAssign => {
            ("arith.remsi", "arith.remui", "arith.remf")
        }
        CXBinaryOperator_And | CXBinaryOperator_AndAssign => ("arith.andi", "arith.andi", ""),
        CXBinaryOperator_Or | CXBinaryOperator_OrAssign => ("arith.ori", "arith.ori", ""),
        CXBinaryOperator_Xor | CXBinaryOperator_XorAssign => ("arith.xori", "arith.xori", ""),
        CXBinaryOperator_Shl | CXBinaryOperator_ShlAssign => ("arith.shli", "arith.shli", ""),
        CXBinaryOperator_Shr | CXBinaryOperator_ShrAssign => ("arith.shrsi", "arith.shrui", ""),
        _ => return None,
    })
}

/// Comparison predicates: (arith.cmpi signed, arith.cmpi unsigned, arith.cmpf), as the
/// predicates' enum values. Float `!=` is unordered (true for NaN), the rest ordered, as in C.
fn compare_predicates(kind: CXBinaryOperatorKind) -> Option<(i64, i64, i64)> {
    Some(match kind {
        CXBinaryOperator_EQ => (0, 0, 1),  // eq, eq, oeq
        CXBinaryOperator_NE => (1, 1, 13), // ne, ne, une
        CXBinaryOperator_LT => (2, 6, 4),  // slt, ult, olt
        CXBinaryOperator_LE => (3, 7, 5),  // sle, ule, ole
        CXBinaryOperator_GT => (4, 8, 2),  // sgt, ugt, ogt
        CXBinaryOperator_GE => (5, 9, 3),  // sge, uge, oge
        _ => return None,
    })
}

fn is_cast_expr(kind: CXCursorKind) -> bool {
    matches!(
        kind,
        CXCursor_CStyleCastExpr
            | CXCursor_CXXStaticCastExpr
            | CXCursor_CXXFunctionalCastExpr
            | CXCursor_CXXConstCastExpr
            | CXCursor_CXXReinterpretCastExpr
    )
}

impl<'c> FunctionCodegen<'c, '_> {
    /// An rvalue converted to `ty` (as for an initializer, argument or return).
    pub fn rvalue_as(&mut self, e: &Cursor, ty: &Ty) -> Result<Val<'c>> {
        let from = match (e.kind(), Ty::of(e)?) {
            // A string literal's value is a pointer to its first character.
            (CXCursor_StringLiteral, Ty::Array { element, .. }) => Ty::Pointer { pointee: element },
            (_, from) => from,
        };
        let v = self.rvalue(e)?;
        self.convert(v, &from, ty, e)
    }

    pub fn rvalue(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        match e.kind() {
            CXCursor_IntegerLiteral
            | CXCursor_CharacterLiteral
            | CXCursor_FloatingLiteral
            | CXCursor_CXXBoolLiteralExpr
            | CXCursor_UnaryExpr
            // `sizeof...(Ts)`: a constant in an instance.
            | CXCursor_SizeOfPackExpr => self.constant(e),
            CXCursor_CXXNullPtrLiteralExpr => self.null_pointer(loc),
            // GCC's `__null` (glibc's NULL in C++): a zero of its integer type.
            CXCursor_GNUNullExpr => self.zero(&Ty::of(e)?, loc),
            CXCursor_CXXThisExpr => match self.env.get(&VarKey::This) {
                Some(b) => Ok(b.val),
                None => Err(FrontendError::unsupported(
                    e.location(),
                    "'this' outside a member",
                )),
            },
            CXCursor_ParenExpr => self.rvalue(&only_child(e)?),
            CXCursor_CompoundLiteralExpr => {
                let lv = self.lvalue(e)?;
                self.load(&lv, loc)
            }
            CXCursor_UnexposedExpr => {
                match e.lifetime_node() {
                    Some(LifetimeNode::FullExpression) => {
                        let inner = only_child(e)?;
                        return self.full_expression(|this| this.rvalue(&inner));
                    }
                    Some(LifetimeNode::BindTemporary | LifetimeNode::Materialize { .. }) => {
                        return self.temporary_value(e);
                    }
                    Some(LifetimeNode::ValueInit) => return self.zero(&Ty::of(e)?, loc),
                    _ => {}
                }
                if let Some((name, operands)) = e.atomic_parts() {
                    return self.atomic_builtin(&name, e, &operands);
                }
                let children = e.children();
                match children.as_slice() {
                    // An implicit conversion (or a no-op wrapper): convert the child to our type.
                    [child] => {
                        let to = Ty::of(e)?;
                        if matches!(Ty::of(child)?, Ty::Array { .. }) && to.is_pointer() {
                            return self.decay(child);
                        }
                        if let Some(v) = self.class_pointer_cast(child, e)? {
                            return Ok(v);
                        }
                        self.rvalue_as(child, &to)
                    }
                    _ => self.constant(e),
                }
            }
            k if is_cast_expr(k) => {
                let inner = cast_operand(e)?;
                if let Some(v) = self.class_pointer_cast(&inner, e)? {
                    return Ok(v);
                }
                let to = Ty::of(e)?;
                self.rvalue_as(&inner, &to)
            }
            // A substituted non-type template parameter shows as a reference to nothing with
            // the argument's expression as its child.
            CXCursor_DeclRefExpr if e.referenced().is_none() => match e.children().as_slice() {
                [value] => {
                    let ty = Ty::of(e)?;
                    self.rvalue_as(value, &ty)
                }
                _ => self.constant(e),
            },
            CXCursor_DeclRefExpr | CXCursor_ArraySubscriptExpr | CXCursor_MemberRefExpr => {
                if let Some(f) = self.designated_function(e) {
                    return self.function_address(&f, e);
                }
                if let Some(v) = self.builtin_value(e, loc)? {
                    return Ok(v);
                }
                if let Some(ConstValue::Int(_)) = enum_constant(e) {
                    return self.constant(e);
                }
                if self.is_named_constant(e) {
                    return self.constant(e);
                }
                let lv = self.lvalue(e)?;
                self.load(&lv, loc)
            }
            // A braced list as a value (`return {a, b};`, `f({a, b})`, `T{}`): an aggregate is
            // built in a temporary; a scalar is zero or its one item converted.
            CXCursor_InitListExpr => {
                let ty = Ty::of(e)?;
                if ty.is_aggregate() {
                    let ptr = self.alloca(&ty, loc)?;
                    self.initialize(ptr, &ty, e)?;
                    return self.load(
                        &LValue::Mem {
                            ptr,
                            ty,
                            volatile: false,
                        },
                        loc,
                    );
                }
                match e.children().as_slice() {
                    [] => self.zero(&ty, loc),
                    [item] => self.rvalue_as(item, &ty),
                    _ => Err(FrontendError::unsupported(
                        e.location(),
                        "a braced scalar initializer with several items",
                    )),
                }
            }
            CXCursor_CXXNewExpr => self.new_expression(e),
            CXCursor_CXXDeleteExpr => self.delete_expression(e),
            CXCursor_BinaryOperator => self.binary(e),
            CXCursor_CompoundAssignOperator => self.compound_assign(e),
            CXCursor_UnaryOperator => self.unary(e),
            CXCursor_ConditionalOperator => self.conditional(e),
            // A string literal read as a value is its address (the array decays).
            CXCursor_StringLiteral => self.decay(e),
            CXCursor_CallExpr => {
                let v = self.call(e)?;
                if self.returns_reference(e) {
                    let ty = Ty::of(e)?;
                    return self.load(
                        &LValue::Mem {
                            ptr: v.scalar(),
                            ty,
                            volatile: false,
                        },
                        loc,
                    );
                }
                Ok(v)
            }
            _ => Err(FrontendError::unsupported(
                e.location(),
                format!("expression '{}'", e.kind_name()),
            )),
        }
    }

    /// An array lvalue used as a pointer to its first element.
    fn decay(&mut self, array: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(array);
        match self.lvalue(array)? {
            LValue::Mem { ptr, .. } => Ok(Val::Scalar(self.to_generic(ptr, loc)?)),
            LValue::Var(..) => Err(FrontendError::unsupported(array.location(), "array value")),
        }
    }

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

    pub(super) fn ptr_to_int(&self, p: Value<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        let i64t = Ty::LONG.value_mlir(self.ctx());
        self.b.value("llvm.ptrtoint", &[p], i64t, &[], loc)
    }

    /// A `const`/`constexpr` variable with a constant value that has no binding here: one at
    /// namespace or class scope, or a local of an enclosing function that a lambda reads without
    /// capturing it.
    fn is_named_constant(&self, e: &Cursor) -> bool {
        e.kind() == CXCursor_DeclRefExpr
            && e.referenced().is_some_and(|d| {
                d.kind() == CXCursor_VarDecl
                    && !self.env.contains_key(&VarKey::Decl(d.canonical()))
                    && d.ty().is_const()
            })
            && e.evaluate().is_some()
    }

    /// Whether a call returns a reference (its value is an address).
    fn returns_reference(&self, call: &Cursor) -> bool {
        call.referenced()
            .is_some_and(|f| f.result_type().is_reference())
    }

    /// A literal or other constant expression, as a constant of the expression's type.
    fn constant(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let ty = Ty::of(e)?;
        let loc = self.loc(e);
        let value = e.evaluate().ok_or_else(|| {
            FrontendError::unsupported(e.location(), format!("expression '{}'", e.kind_name()))
        })?;
        let v = match (&ty, value) {
            (Ty::Bool, ConstValue::Int(i)) => self.b.const_bool(i != 0, loc)?,
            (Ty::Int { .. }, ConstValue::Int(i)) => {
                self.b.const_int(ty.value_mlir(self.ctx()), i as i64, loc)?
            }
            (Ty::Float { .. }, ConstValue::Float(f)) => {
                self.b.const_float(ty.value_mlir(self.ctx()), f, loc)?
            }
            (Ty::Float { .. }, ConstValue::Int(i)) => {
                self.b
                    .const_float(ty.value_mlir(self.ctx()), i as f64, loc)?
            }
            (Ty::Int { .. } | Ty::Bool, ConstValue::Float(f)) => {
                self.b.const_int(ty.value_mlir(self.ctx()), f as i64, loc)?
            }
            _ => {
                return Err(FrontendError::unsupported(
                    e.location(),
                    format!("constant of type '{}'", e.ty().spelling()),
                ))
            }
        };
        Ok(Val::Scalar(v))
    }

    /// A zero of `ty` (for uninitialized locals and the return value before a return ran).
    pub fn zero(&mut self, ty: &Ty, loc: Location<'c>) -> Result<Val<'c>> {
        let v = match ty {
            Ty::Float { .. } => self.b.const_float(ty.value_mlir(self.ctx()), 0.0, loc)?,
            Ty::Int { .. } | Ty::Bool => self.b.const_int(ty.value_mlir(self.ctx()), 0, loc)?,
            Ty::Void => return Ok(Val::Void),
            Ty::Pointer { .. } => return self.null_pointer(loc),
            Ty::FnPtr { .. } => self.b.const_int(ty.value_mlir(self.ctx()), 0, loc)?,
            // Structs, unions and arrays: a zero-filled private copy, loaded (the lowering knows
            // loads of aggregates, not aggregate constants).
            Ty::Record(_) | Ty::Array { .. } => {
                let ptr = self.alloca(ty, loc)?;
                self.zero_fill(ptr, ty, loc)?;
                return self.load(
                    &LValue::Mem {
                        ptr,
                        ty: ty.clone(),
                        volatile: false,
                    },
                    loc,
                );
            }
        };
        Ok(Val::Scalar(v))
    }

    /// `threadIdx.x` and friends, `warpSize`; None if `e` is not a builtin.
    fn builtin_value(&mut self, e: &Cursor, loc: Location<'c>) -> Result<Option<Val<'c>>> {
        let i32t = Ty::UINT.value_mlir(self.ctx());
        if e.kind() == CXCursor_DeclRefExpr && e.spelling() == "warpSize" && is_builtin_decl(e) {
            let sg = self.b.value(
                "gpu.subgroup_size",
                &[],
                melior::ir::Type::index(self.ctx()),
                &[],
                loc,
            )?;
            let v = self.b.value("arith.index_castui", &[sg], i32t, &[], loc)?;
            return Ok(Some(Val::Scalar(v)));
        }
        if e.kind() != CXCursor_MemberRefExpr {
            return Ok(None);
        }
        let Some(base) = e.children().first().copied() else {
            return Ok(None);
        };
        let base = base.without_implicit();
        if base.kind() != CXCursor_DeclRefExpr || !is_builtin_decl(&base) {
            return Ok(None);
        }
        let Some((_, op)) = DIM_BUILTINS.iter().find(|(n, _)| *n == base.spelling()) else {
            return Ok(None);
        };
        let dim = e.spelling();
        if !matches!(dim.as_str(), "x" | "y" | "z") {
            return Ok(None);
        }
        let attr = self.b.attr(&format!("#gpu<dim {dim}>"), loc)?;
        let idx = self.b.value(
            op,
            &[],
            melior::ir::Type::index(self.ctx()),
            &[("dimension", attr)],
            loc,
        )?;
        let v = self.b.value("arith.index_castui", &[idx], i32t, &[], loc)?;
        Ok(Some(Val::Scalar(v)))
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

    /// `volatile_` on `llvm.load`/`llvm.store` for a volatile access.
    fn volatile_attrs(&self, volatile: bool) -> Vec<(&'static str, melior::ir::Attribute<'c>)> {
        if volatile {
            vec![("volatile_", melior::ir::Attribute::unit(self.ctx()))]
        } else {
            Vec::new()
        }
    }

    fn lvalue_of(&mut self, e: &Cursor) -> Result<LValue<'c>> {
        let loc = self.loc(e);
        match e.kind() {
            CXCursor_ParenExpr => self.lvalue(&only_child(e)?),
            // A string literal used as a value (`const char* s = "text"`, `f("text")`): a
            // read-only copy in global memory, so that its address is an ordinary pointer.
            CXCursor_StringLiteral => {
                let text = super::builtins::string_literal(e).ok_or_else(|| {
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
                    .children()
                    .into_iter()
                    .rfind(|c| c.is_expression())
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
            // A cast to a reference type names the same object as another type (a derived-to-base
            // cast moves to the base subobject).
            k if is_cast_expr(k) && e.is_lvalue() => {
                let inner = cast_operand(e)?;
                let LValue::Mem { ptr, .. } = self.lvalue(&inner)? else {
                    return Err(FrontendError::unsupported(
                        e.location(),
                        "reference cast of a variable held in a register",
                    ));
                };
                let ptr = match class_delta(&inner.ty(), &e.ty()) {
                    Some(delta) if delta != 0 => self.byte_offset(ptr, delta, loc)?,
                    _ => ptr,
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
                    _ => Ok(inner),
                }
            }
            CXCursor_DeclRefExpr => {
                let decl = e
                    .referenced()
                    .ok_or_else(|| FrontendError::unsupported(e.location(), "unresolved name"))?;
                let key = VarKey::Decl(decl.canonical());
                if !self.env.contains_key(&key) && decl.has_attr(CXCursor_CUDASharedAttr) {
                    let (ptr, ty) = self.shared_address(&decl, loc)?;
                    return Ok(LValue::Mem {
                        ptr,
                        ty,
                        volatile: false,
                    });
                }
                if !self.env.contains_key(&key) && super::globals::is_device_variable(&decl) {
                    let (symbol, ty) = self.module.device_variable(&decl)?;
                    let ptr = self.global_address(&symbol, AddrSpace::Global, loc)?;
                    return Ok(LValue::Mem {
                        ptr,
                        ty,
                        volatile: false,
                    });
                }
                if self.lambdas.contains_key(&decl.canonical()) {
                    return Err(super::lambdas::lambda_used_as_value(e));
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
                let (ptr, record) = match e.children().first() {
                    // A member of `this`, named without it.
                    None => {
                        let owner = e.referenced().and_then(|m| m.semantic_parent());
                        self.implicit_this(owner.as_ref(), e)?
                    }
                    Some(base) => match Ty::of(base)? {
                        // `p->field`
                        Ty::Pointer { pointee } => (self.rvalue(base)?.scalar(), *pointee),
                        // `s.field`, also of a temporary
                        record => (self.object_address(base)?, record),
                    },
                };
                let Ty::Record(r) = &record else {
                    return Err(FrontendError::unsupported(
                        e.location(),
                        "member of a non-record",
                    ));
                };
                let name = e.spelling();
                let field = r.fields.iter().find(|f| f.name == name).ok_or_else(|| {
                    FrontendError::unsupported(e.location(), format!("member '{name}'"))
                })?;
                let field_ptr = self.field_pointer(ptr, &record, field.llvm_index, loc)?;
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
            CXCursor_ConditionalOperator if super::objects::is_lvalue_expression(e) => {
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
            None => Ok((ptr, record)),
        }
    }

    /// A conversion between pointers to a class and to one of its base classes (either way):
    /// the pointer moves by the base subobject's offset. `None` for any other conversion.
    fn class_pointer_cast(&mut self, from: &Cursor, to: &Cursor) -> Result<Option<Val<'c>>> {
        let (from_ty, to_ty) = (from.ty().canonical(), to.ty().canonical());
        if from_ty.kind() != CXType_Pointer || to_ty.kind() != CXType_Pointer {
            return Ok(None);
        }
        let Some(delta) = class_delta(&from_ty.pointee(), &to_ty.pointee()) else {
            return Ok(None);
        };
        let loc = self.loc(to);
        let v = self.rvalue(from)?.scalar();
        if delta == 0 {
            return Ok(Some(Val::Scalar(v)));
        }
        // A null pointer stays null, as C++ requires: it moves by nothing.
        let as_int = self.ptr_to_int(v, loc)?;
        let zero = self.b.const_int(as_int.r#type(), 0, loc)?;
        let is_null = self.cmpi(0, as_int, zero, loc)?;
        let delta = self.b.const_int(as_int.r#type(), delta, loc)?;
        let bytes = self.b.value(
            "arith.select",
            &[is_null, zero, delta],
            as_int.r#type(),
            &[],
            loc,
        )?;
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
    fn offset_pointer(
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

    pub(super) fn cmpi(
        &self,
        pred: i64,
        a: Value<'c>,
        b: Value<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let i1 = Ty::Bool.value_mlir(self.ctx());
        let attr = self.pred_attr(pred);
        self.b
            .value("arith.cmpi", &[a, b], i1, &[("predicate", attr)], loc)
    }

    fn pred_attr(&self, pred: i64) -> melior::ir::Attribute<'c> {
        melior::ir::attribute::IntegerAttribute::new(
            melior::ir::r#type::IntegerType::new(self.ctx(), 64).into(),
            pred,
        )
        .into()
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

    fn convert_at(
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
                self.cmpi(1, x, zero, loc)?
            }
            (Ty::FnPtr { .. }, Ty::Int { .. }) => {
                return self.convert_at(v, &Ty::LONG, to, loc, e);
            }
            (Ty::FnPtr { .. }, Ty::Pointer { .. }) => {
                self.b.value("llvm.inttoptr", &[x], target, &[], loc)?
            }
            (Ty::Pointer { .. }, Ty::FnPtr { .. }) => self.ptr_to_int(x, loc)?,
            (Ty::Int { .. } | Ty::Bool, Ty::FnPtr { .. }) => {
                return self.convert_at(v, from, &Ty::LONG, loc, e);
            }
            (Ty::Pointer { .. }, Ty::Bool) => {
                let i = self.ptr_to_int(x, loc)?;
                let zero = self.b.const_int(i.r#type(), 0, loc)?;
                self.cmpi(1, i, zero, loc)?
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
                self.b.value("llvm.inttoptr", &[wide], target, &[], loc)?
            }
            (Ty::Int { .. } | Ty::Bool, Ty::Bool) => {
                let zero = self.b.const_int(x.r#type(), 0, loc)?;
                self.cmpi(1, x, zero, loc)?
            }
            (Ty::Float { .. }, Ty::Bool) => {
                let zero = self.b.const_float(x.r#type(), 0.0, loc)?;
                let attr = self.pred_attr(13); // une: NaN converts to true
                self.b.value(
                    "arith.cmpf",
                    &[x, zero],
                    target,
                    &[("predicate", attr)],
                    loc,
                )?
            }
            (Ty::Bool, Ty::Int { .. }) => self.b.value("arith.extui", &[x], target, &[], loc)?,
            (Ty::Int { bits: fb, signed }, Ty::Int { bits: tb, .. }) => {
                let op = match fb.cmp(tb) {
                    std::cmp::Ordering::Equal => return Ok(v),
                    std::cmp::Ordering::Greater => "arith.trunci",
                    std::cmp::Ordering::Less if *signed => "arith.extsi",
                    std::cmp::Ordering::Less => "arith.extui",
                };
                self.b.value(op, &[x], target, &[], loc)?
            }
            (Ty::Bool, Ty::Float { .. }) => self.b.value("arith.uitofp", &[x], target, &[], loc)?,
            (Ty::Int { signed, .. }, Ty::Float { .. }) => {
                let op = if *signed {
                    "arith.sitofp"
                } else {
                    "arith.uitofp"
                };
                self.b.value(op, &[x], target, &[], loc)?
            }
            (Ty::Float { .. }, Ty::Int { signed, .. }) => {
                let op = if *signed {
                    "arith.fptosi"
                } else {
                    "arith.fptoui"
                };
                self.b.value(op, &[x], target, &[], loc)?
            }
            (Ty::Float { bits: fb }, Ty::Float { bits: tb }) => {
                let op = if fb < tb {
                    "arith.extf"
                } else {
                    "arith.truncf"
                };
                self.b.value(op, &[x], target, &[], loc)?
            }
            _ => return Err(unsupported()),
        };
        Ok(Val::Scalar(out))
    }

    fn binary(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let children = e.children();
        let [lhs, rhs] = children.as_slice() else {
            return Err(FrontendError::unsupported(e.location(), "binary operator"));
        };
        let kind = e.binary_operator();
        match kind {
            CXBinaryOperator_Assign => {
                let lv = self.lvalue(lhs)?;
                let ty = lvalue_ty(&lv);
                let v = self.rvalue_as(rhs, &ty)?;
                self.store(&lv, v, loc)?;
                Ok(v)
            }
            CXBinaryOperator_Comma => {
                self.rvalue(lhs)?;
                self.rvalue(rhs)
            }
            CXBinaryOperator_LAnd | CXBinaryOperator_LOr => self.logical(e, lhs, rhs, kind),
            _ => {
                let (lt, rt) = (Ty::of(lhs)?, Ty::of(rhs)?);
                // Pointer arithmetic and comparison.
                if lt.is_pointer() || rt.is_pointer() {
                    return self.pointer_binary(e, lhs, rhs, kind);
                }
                let a = self.rvalue(lhs)?;
                let b = self.rvalue(rhs)?;
                if let Some(preds) = compare_predicates(kind) {
                    return self.compare(preds, a.scalar(), b.scalar(), &lt, loc);
                }
                let result_ty = Ty::of(e)?;
                // Shifts keep the left operand's type; the count may have another.
                let b = if matches!(kind, CXBinaryOperator_Shl | CXBinaryOperator_Shr) {
                    self.convert(b, &rt, &lt, rhs)?
                } else {
                    b
                };
                let v = self.arith(kind, a.scalar(), b.scalar(), &lt, e)?;
                self.convert(Val::Scalar(v), &lt, &result_ty, e)
            }
        }
    }

    fn compare(
        &mut self,
        (signed, unsigned, float): (i64, i64, i64),
        a: Value<'c>,
        b: Value<'c>,
        operand_ty: &Ty,
        loc: Location<'c>,
    ) -> Result<Val<'c>> {
        let v = if operand_ty.is_float() {
            let i1 = Ty::Bool.value_mlir(self.ctx());
            let attr = self.pred_attr(float);
            self.b
                .value("arith.cmpf", &[a, b], i1, &[("predicate", attr)], loc)?
        } else {
            self.cmpi(
                if operand_ty.is_signed() {
                    signed
                } else {
                    unsigned
                },
                a,
                b,
                loc,
            )?
        };
        Ok(Val::Scalar(v))
    }

    fn arith(
        &mut self,
        kind: CXBinaryOperatorKind,
        a: Value<'c>,
        b: Value<'c>,
        ty: &Ty,
        e: &Cursor,
    ) -> Result<Value<'c>> {
        let loc = self.loc(e);
        let (s, u, f) = arith_op(kind).ok_or_else(|| {
            FrontendError::unsupported(
                e.location(),
                format!("operator '{}'", e.binary_operator_spelling()),
            )
        })?;
        let op = match ty {
            Ty::Float { .. } => f,
            Ty::Int { signed: true, .. } => s,
            _ => u,
        };
        if op.is_empty() {
            return Err(FrontendError::unsupported(
                e.location(),
                "operator on a float",
            ));
        }
        // Signed overflow is undefined in C: say so, as clang does (`nsw`), so that the device
        // compiler may fold index arithmetic.
        if matches!(ty, Ty::Int { signed: true, .. })
            && matches!(op, "arith.addi" | "arith.subi" | "arith.muli")
        {
            if let Some(nsw) = Attribute::parse(self.ctx(), "#arith.overflow<nsw>") {
                return self
                    .b
                    .value(op, &[a, b], a.r#type(), &[("overflowFlags", nsw)], loc);
            }
        }
        self.b.value(op, &[a, b], a.r#type(), &[], loc)
    }

    fn pointer_binary(
        &mut self,
        e: &Cursor,
        lhs: &Cursor,
        rhs: &Cursor,
        kind: CXBinaryOperatorKind,
    ) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let (lt, rt) = (Ty::of(lhs)?, Ty::of(rhs)?);
        match kind {
            CXBinaryOperator_Add | CXBinaryOperator_Sub if !rt.is_pointer() => {
                let p = self.rvalue(lhs)?.scalar();
                let negate = kind == CXBinaryOperator_Sub;
                Ok(Val::Scalar(self.offset_pointer(p, &lt, rhs, negate)?))
            }
            CXBinaryOperator_Add => {
                let p = self.rvalue(rhs)?.scalar();
                Ok(Val::Scalar(self.offset_pointer(p, &rt, lhs, false)?))
            }
            _ if lt.is_pointer() && rt.is_pointer() => {
                // Compare or subtract addresses.
                let a = self.rvalue(lhs)?.scalar();
                let b = self.rvalue(rhs)?.scalar();
                let (a, b) = (self.ptr_to_int(a, loc)?, self.ptr_to_int(b, loc)?);
                if let Some(preds) = compare_predicates(kind) {
                    let unsigned = Ty::Int {
                        bits: 64,
                        signed: false,
                    };
                    return self.compare(preds, a, b, &unsigned, loc);
                }
                if kind == CXBinaryOperator_Sub {
                    let bytes = self.b.value("arith.subi", &[a, b], a.r#type(), &[], loc)?;
                    let size = lt.pointee().map(Ty::size).unwrap_or(1).max(1);
                    let size = self.b.const_int(a.r#type(), size as i64, loc)?;
                    let d = self
                        .b
                        .value("arith.divsi", &[bytes, size], a.r#type(), &[], loc)?;
                    return self.convert(Val::Scalar(d), &Ty::LONG, &Ty::of(e)?, e);
                }
                Err(FrontendError::unsupported(e.location(), "pointer operator"))
            }
            _ => Err(FrontendError::unsupported(
                e.location(),
                format!("operator '{}' on a pointer", e.binary_operator_spelling()),
            )),
        }
    }

    /// `a && b`, `a || b` with C's short circuit: `b` runs inside an scf.if.
    fn logical(
        &mut self,
        e: &Cursor,
        lhs: &Cursor,
        rhs: &Cursor,
        kind: CXBinaryOperatorKind,
    ) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let a = self.condition(lhs)?;
        let i1 = Ty::Bool.value_mlir(self.ctx());
        let carried = assigned_vars(rhs, self.targets());
        let is_and = kind == CXBinaryOperator_LAnd;
        let rhs_branch = |this: &mut Self| Ok(vec![this.condition(rhs)?]);
        let short = move |this: &mut Self| Ok(vec![this.b.const_bool(!is_and, loc)?]);
        let out = if is_and {
            self.emit_if(a, &carried, &[i1], rhs_branch, short, loc)?
        } else {
            self.emit_if(a, &carried, &[i1], short, rhs_branch, loc)?
        };
        let result = Ty::of(e)?;
        self.convert(Val::Scalar(out[0]), &Ty::Bool, &result, e)
    }

    fn compound_assign(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let children = e.children();
        let [lhs, rhs] = children.as_slice() else {
            return Err(FrontendError::unsupported(
                e.location(),
                "compound assignment",
            ));
        };
        let kind = e.binary_operator();
        let lv = self.lvalue(lhs)?;
        let lt = lvalue_ty(&lv);
        let old = self.load(&lv, loc)?;
        let new = if lt.is_pointer() {
            let negate = kind == CXBinaryOperator_SubAssign;
            if !matches!(
                kind,
                CXBinaryOperator_AddAssign | CXBinaryOperator_SubAssign
            ) {
                return Err(FrontendError::unsupported(
                    e.location(),
                    "pointer compound assignment",
                ));
            }
            Val::Scalar(self.offset_pointer(old.scalar(), &lt, rhs, negate)?)
        } else {
            // C computes in the common type of both operands, then converts back.
            let rt = Ty::of(rhs)?;
            let shift = matches!(
                kind,
                CXBinaryOperator_ShlAssign | CXBinaryOperator_ShrAssign
            );
            let common = if shift {
                promote(&lt)
            } else {
                usual_arithmetic(&promote(&lt), &promote(&rt))
            };
            let a = self.convert(old, &lt, &common, lhs)?;
            let b = self.rvalue_as(rhs, &common)?;
            let r = self.arith(kind, a.scalar(), b.scalar(), &common, e)?;
            self.convert(Val::Scalar(r), &common, &lt, e)?
        };
        self.store(&lv, new, loc)?;
        Ok(new)
    }

    fn unary(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let operand = only_child(e)?;
        let kind = e.unary_operator();
        match kind {
            CXUnaryOperator_PostInc
            | CXUnaryOperator_PostDec
            | CXUnaryOperator_PreInc
            | CXUnaryOperator_PreDec => {
                let lv = self.lvalue(&operand)?;
                let ty = lvalue_ty(&lv);
                let old = self.load(&lv, loc)?;
                let inc = matches!(kind, CXUnaryOperator_PostInc | CXUnaryOperator_PreInc);
                let new = self.step(old, &ty, inc, &operand)?;
                self.store(&lv, new, loc)?;
                let post = matches!(kind, CXUnaryOperator_PostInc | CXUnaryOperator_PostDec);
                Ok(if post { old } else { new })
            }
            CXUnaryOperator_Plus => self.rvalue(&operand),
            CXUnaryOperator_Minus => {
                let ty = Ty::of(e)?;
                let v = self.rvalue_as(&operand, &ty)?.scalar();
                let out = if ty.is_float() {
                    self.b.value("arith.negf", &[v], v.r#type(), &[], loc)?
                } else {
                    let zero = self.b.const_int(v.r#type(), 0, loc)?;
                    self.b
                        .value("arith.subi", &[zero, v], v.r#type(), &[], loc)?
                };
                Ok(Val::Scalar(out))
            }
            CXUnaryOperator_Not => {
                let ty = Ty::of(e)?;
                let v = self.rvalue_as(&operand, &ty)?.scalar();
                let ones = self.b.const_int(v.r#type(), -1, loc)?;
                Ok(Val::Scalar(self.b.value(
                    "arith.xori",
                    &[v, ones],
                    v.r#type(),
                    &[],
                    loc,
                )?))
            }
            CXUnaryOperator_LNot => {
                let c = self.condition(&operand)?;
                let n = self.not(c, loc)?;
                let ty = Ty::of(e)?;
                self.convert(Val::Scalar(n), &Ty::Bool, &ty, e)
            }
            // `*fp` and `&f` are the same function pointer value.
            CXUnaryOperator_Deref | CXUnaryOperator_AddrOf
                if is_function_type(e.ty()) || is_function_type(operand.ty()) =>
            {
                let ty = Ty::of(e)?;
                self.rvalue_as(&operand, &ty)
            }
            CXUnaryOperator_Deref => {
                let lv = self.lvalue(e)?;
                self.load(&lv, loc)
            }
            CXUnaryOperator_AddrOf => match self.lvalue(&operand)? {
                LValue::Mem { ptr, .. } => Ok(Val::Scalar(self.to_generic(ptr, loc)?)),
                LValue::Var(..) => Err(internal(loc, "address of a variable held in a register")),
            },
            _ => Err(FrontendError::unsupported(
                e.location(),
                format!("operator '{}'", e.unary_operator_spelling()),
            )),
        }
    }

    /// `x + 1` or `x - 1` for `++`/`--` on integers, floats and pointers.
    fn step(&mut self, v: Val<'c>, ty: &Ty, inc: bool, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        match (v, ty) {
            (Val::Scalar(p), Ty::Pointer { pointee }) => {
                let one = self.b.const_int(
                    Ty::LONG.value_mlir(self.ctx()),
                    if inc { 1 } else { -1 },
                    loc,
                )?;
                let pointee = (**pointee).clone();
                Ok(Val::Scalar(self.gep(
                    p,
                    &pointee,
                    &[GepIndex::Dynamic(one)],
                    loc,
                )?))
            }
            (Val::Scalar(x), Ty::Float { .. }) => {
                let one = self.b.const_float(x.r#type(), 1.0, loc)?;
                let op = if inc { "arith.addf" } else { "arith.subf" };
                Ok(Val::Scalar(self.b.value(
                    op,
                    &[x, one],
                    x.r#type(),
                    &[],
                    loc,
                )?))
            }
            (Val::Scalar(x), Ty::Int { .. }) => {
                let one = self.b.const_int(x.r#type(), 1, loc)?;
                let op = if inc { "arith.addi" } else { "arith.subi" };
                Ok(Val::Scalar(self.b.value(
                    op,
                    &[x, one],
                    x.r#type(),
                    &[],
                    loc,
                )?))
            }
            _ => Err(FrontendError::unsupported(
                e.location(),
                "++/-- on this type",
            )),
        }
    }

    /// `c ? a : b`: both arms run inside an scf.if, so only the chosen one has effects.
    fn conditional(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let children = e.children();
        let [cond, a, b] = children.as_slice() else {
            return Err(FrontendError::unsupported(
                e.location(),
                "conditional operator",
            ));
        };
        let ty = Ty::of(e)?;
        let c = self.condition(cond)?;
        let types: Vec<Type<'c>> = match ty {
            Ty::Void => vec![],
            _ => vec![ty.value_mlir(self.ctx())],
        };
        let mut carried = assigned_vars(a, self.targets());
        carried.extend(assigned_vars(b, self.targets()));
        // A void conditional (`ok ? void(0) : fail()`, as assert writes) yields nothing: its
        // branches run for their effects only.
        let branch = |this: &mut Self, x: &Cursor| -> Result<Vec<Value<'c>>> {
            if ty == Ty::Void {
                this.rvalue(x)?;
                return Ok(vec![]);
            }
            Ok(this.rvalue_as(x, &ty)?.flatten())
        };
        let out = self.emit_if(
            c,
            &carried,
            &types,
            |this| branch(this, a),
            |this| branch(this, b),
            loc,
        )?;
        Ok(out.first().map_or(Val::Void, |v| Val::Scalar(*v)))
    }

    /// A call: a builtin, a constructor (a temporary), a compiler-generated assignment, a member
    /// function (with its object) or a device function.
    fn call(&mut self, e: &Cursor) -> Result<Val<'c>> {
        // A callee that names no function (a variable, a member, an element, a parameter holding
        // a pointer) is a call through a function pointer.
        let callee = match e.referenced() {
            Some(c)
                if !matches!(
                    c.kind(),
                    CXCursor_VarDecl
                        | CXCursor_ParmDecl
                        | CXCursor_FieldDecl
                        | CXCursor_NonTypeTemplateParameter
                ) =>
            {
                c
            }
            _ => return self.indirect_call(e),
        };
        let args = e.arguments();
        let name = callee.spelling();
        if is_builtin_decl_cursor(&callee) || name.starts_with("__builtin_") {
            if let Some(v) = self.builtin_call(&name, e, &args)? {
                return Ok(v);
            }
            if let Some(v) = self.math_call(&name, e, &args)? {
                return Ok(v);
            }
            if let Some(v) = self.warp_call(&name, e, &args)? {
                return Ok(v);
            }
            return Err(FrontendError::unsupported(
                e.location(),
                format!("device builtin '{name}'"),
            ));
        }
        if callee.kind() == CXCursor_Constructor {
            return self.construct_temporary(&callee, e, &args);
        }
        if let Some(special) = callee.trivial_special_member() {
            return self.trivial_special_member(special, e, &args);
        }
        if callee.is_virtual_method() {
            return Err(FrontendError::unsupported(
                e.location(),
                format!("call of virtual function '{name}'"),
            ));
        }
        if let Some(v) = self.lambda_call(e, &callee, &args)? {
            return Ok(v);
        }
        if has_this(&callee) {
            let (object, rest) = self.method_object(e, &args, callee.arguments().len())?;
            return self.call_function(&callee, Some(object), rest, e);
        }
        self.call_function(&callee, None, &args, e)
    }

    /// Calls a device function (or member function, with `this`). A reference parameter
    /// receives the argument's address; a function returning a reference returns an address
    /// (the caller loads it if needed).
    pub fn call_function(
        &mut self,
        callee: &Cursor,
        this: Option<Value<'c>>,
        args: &[Cursor],
        e: &Cursor,
    ) -> Result<Val<'c>> {
        // Lambdas among the arguments first: the callee's signature takes their captures.
        let closures = self.closure_arguments(args)?;
        let sig = self.module.declare_device_function(callee, e)?;
        self.call_with_leading(callee, &sig, this.into_iter().collect(), args, closures, e)
    }

    /// [`Self::closure_argument`] of each argument.
    pub fn closure_arguments(&mut self, args: &[Cursor]) -> Result<Vec<Option<Vec<Value<'c>>>>> {
        args.iter().map(|a| self.closure_argument(a)).collect()
    }

    /// Calls `sig`'s function with `leading` operands (`this`, a lambda's captures) before the
    /// arguments `args` of `callee`'s parameters.
    pub fn call_with_leading(
        &mut self,
        callee: &Cursor,
        sig: &super::module::FunctionSig,
        leading: Vec<Value<'c>>,
        args: &[Cursor],
        closures: Vec<Option<Vec<Value<'c>>>>,
        e: &Cursor,
    ) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let params = callee.arguments();
        let mismatch = || {
            FrontendError::unsupported(
                e.location(),
                format!("call to '{}' with these arguments", callee.spelling()),
            )
        };
        let mut param_types = sig.params.iter().skip(leading.len());
        let mut operands = leading;
        for (i, (arg, closure)) in args.iter().zip(closures).enumerate() {
            if let Some(captures) = closure {
                // A lambda argument is passed as its captures.
                for capture in captures {
                    param_types.next().ok_or_else(mismatch)?;
                    operands.push(capture);
                }
                continue;
            }
            let ty = param_types.next().ok_or_else(mismatch)?;
            let by_reference = params.get(i).is_some_and(|p| p.ty().is_reference());
            let indirect = params.get(i).is_some_and(super::module::passed_indirectly);
            operands.push(if indirect {
                // The caller's temporary, destroyed by the caller after the call.
                self.materialize(arg, !Self::is_temporary(arg))?
            } else if by_reference {
                self.object_address(arg)?
            } else {
                self.rvalue_as(arg, ty)?.scalar()
            });
        }
        if param_types.next().is_some() || args.len() > params.len() {
            return Err(mismatch());
        }
        let result_types: Vec<Type<'c>> = match sig.result {
            Ty::Void => vec![],
            ref t => vec![t.value_mlir(self.ctx())],
        };
        let callee_attr =
            melior::ir::attribute::FlatSymbolRefAttribute::new(self.ctx(), &sig.symbol).into();
        let results = self.b.op(
            "func.call",
            &operands,
            &result_types,
            &[("callee", callee_attr)],
            vec![],
            loc,
        )?;
        Ok(results.first().map_or(Val::Void, |v| Val::Scalar(*v)))
    }

    /// Implicit and defaulted constructors and assignments: a copy of the object, or nothing.
    fn trivial_special_member(
        &mut self,
        special: SpecialMember,
        e: &Cursor,
        args: &[Cursor],
    ) -> Result<Val<'c>> {
        let loc = self.loc(e);
        match (special, args) {
            (SpecialMember::DefaultConstructor, []) => Ok(Val::Void),
            (SpecialMember::CopyConstructor, [source]) => self.rvalue(source),
            (SpecialMember::CopyAssignment, [target, source]) => {
                let lv = self.lvalue(target)?;
                let v = self.rvalue(source)?;
                self.store(&lv, v, loc)?;
                // The result is the target object, evaluated once (`a[i++] = b`).
                match lv {
                    LValue::Mem { ptr, .. } => Ok(Val::Scalar(self.to_generic(ptr, loc)?)),
                    LValue::Var(..) => Ok(Val::Void),
                }
            }
            _ => Err(FrontendError::unsupported(
                e.location(),
                "call of a compiler-generated member with these arguments",
            )),
        }
    }

    /// The generic address of an lvalue (for `&x`, reference binding).
    pub fn address_of(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        match self.lvalue(e)? {
            LValue::Mem { ptr, .. } => Ok(Val::Scalar(self.to_generic(ptr, loc)?)),
            LValue::Var(..) => Err(internal(loc, "address of a variable held in a register")),
        }
    }
}

fn lvalue_ty(lv: &LValue<'_>) -> Ty {
    match lv {
        LValue::Var(_, ty) | LValue::Mem { ty, .. } => ty.clone(),
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

fn only_child(e: &Cursor) -> Result<Cursor> {
    let children = e.children();
    match children.as_slice() {
        [only] => Ok(*only),
        _ => Err(FrontendError::unsupported(
            e.location(),
            format!("expression '{}'", e.kind_name()),
        )),
    }
}

/// Whether a DeclRefExpr names one of the builtins declared by hipmlir's own header.
fn is_builtin_decl(e: &Cursor) -> bool {
    e.referenced().is_some_and(|d| is_builtin_decl_cursor(&d))
}

/// Whether a declaration comes from hipmlir's own device headers (its first declaration does:
/// <math.h> may redeclare a C function later).
pub(super) fn is_builtin_decl_cursor(decl: &Cursor) -> bool {
    let file = decl.canonical().location().file;
    file.ends_with("hip/hipmlir_device.h") || file.ends_with("hip/hipmlir_math.h")
}

fn enum_constant(e: &Cursor) -> Option<ConstValue> {
    let decl = e.referenced()?;
    (decl.kind() == CXCursor_EnumConstantDecl)
        .then(|| e.evaluate())
        .flatten()
}

/// The operand of a cast expression (type references come before it).
fn cast_operand(e: &Cursor) -> Result<Cursor> {
    e.children()
        .into_iter()
        .rev()
        .find(|c| c.is_expression())
        .ok_or_else(|| FrontendError::unsupported(e.location(), "empty cast"))
}

/// How many bytes an object's address moves converting from class `from` to class `to`, one a
/// base class of the other: forward to a base subobject, back from one. `None` for other types.
fn class_delta(from: &CType, to: &CType) -> Option<i64> {
    match (class_offset(from, to), class_offset(to, from)) {
        (Some(up), _) => Some(up as i64),
        (None, Some(down)) => Some(-(down as i64)),
        (None, None) => None,
    }
}

/// Where the `base` class subobject is in an object of class `derived` (both clang types, as
/// written): `None` unless both are records and `base` is a base of `derived`.
fn class_offset(derived: &CType, base: &CType) -> Option<u64> {
    let (d, b) = (derived.canonical(), base.canonical());
    if d.kind() != CXType_Record || b.kind() != CXType_Record {
        return None;
    }
    d.base_offset(&b)
}
