//! Calls: device builtins, constructors, trivial special members, member and plain functions.

use clang_sys::*;
use melior::dialect::func;
use melior::ir::attribute::FlatSymbolRefAttribute;
use melior::ir::Type;

use super::LValue;
use crate::clang::{Cursor, SpecialMember};
use crate::codegen::assignment::calls_written_assignment;
use crate::codegen::builder::Value;
use crate::codegen::function::{FunctionCodegen, Val};
use crate::codegen::objects::has_this;
use crate::codegen::virtual_bases::{has_virtual_bases, takes_construction_context};
use crate::codegen::virtuals::vtable_slots;
use crate::error::{FrontendError, Result};
use crate::types::Ty;

impl<'c> FunctionCodegen<'c, '_> {
    /// A call: a builtin, a constructor (a temporary), a compiler-generated assignment, a member
    /// function (with its object) or a device function.
    pub(super) fn call(&mut self, e: &Cursor) -> Result<Val<'c>> {
        if let Some(v) = self.member_pointer_call(e)? {
            return Ok(v);
        }
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
        if let [arg] = args.as_slice() {
            if STD_ADDRESS_BUILTINS.contains(&name.as_str()) && callee.is_in_std_namespace() {
                // The result is the argument itself: its address (the caller loads through it
                // where it reads a value, as for any call returning a reference).
                return Ok(Val::Scalar(self.object_address(arg)?));
            }
        }
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
            return self.trivial_special_member(special, &callee, e, &args);
        }
        // A virtual function named without a qualifier calls the dynamic class's overrider.
        if callee.is_virtual_method() && !e.is_qualified_member_call() {
            return self.virtual_call(e, &callee, &args);
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
        let closures = self.closure_arguments(callee, args)?;
        let sig = self.module.declare_device_function(callee, e)?;
        self.call_with_leading(callee, &sig, this.into_iter().collect(), args, closures, e)
    }

    /// [`Self::closure_argument`] of each argument.
    pub fn closure_arguments(
        &mut self,
        callee: &Cursor,
        args: &[Cursor],
    ) -> Result<Vec<Option<Vec<Value<'c>>>>> {
        (args.iter().enumerate())
            .map(|(index, a)| self.closure_argument(callee, index, a))
            .collect()
    }

    /// Calls `sig`'s function with `leading` operands (`this`, a lambda's captures) before the
    /// arguments `args` of `callee`'s parameters.
    pub fn call_with_leading(
        &mut self,
        callee: &Cursor,
        sig: &crate::codegen::module::FunctionSig,
        leading: Vec<Value<'c>>,
        args: &[Cursor],
        closures: Vec<Option<Vec<Value<'c>>>>,
        e: &Cursor,
    ) -> Result<Val<'c>> {
        let loc = self.loc(e);
        // A constructor of a class with virtual bases: the context set for it where a base
        // subobject is built, else a complete object's.
        let context = match takes_construction_context(callee) {
            false => None,
            true => {
                let class = callee.semantic_parent().map(|c| c.canonical());
                Some(match self.base_construction.take() {
                    Some((key, value)) if Some(key) == class => value,
                    other => {
                        self.base_construction = other;
                        self.b.const_int(Ty::LONG.value_mlir(self.ctx()), 0, loc)?
                    }
                })
            }
        };
        let params = callee.arguments();
        let mismatch = || {
            FrontendError::unsupported(
                e.location(),
                format!("call to '{}' with these arguments", callee.spelling()),
            )
        };
        let mut param_types = sig.params.iter().skip(leading.len());
        let mut operands = leading;
        // C's variable arguments (`f(...)`, the fallback overload of SFINAE dispatch): they are
        // evaluated for their side effects and not passed, as the body cannot read them
        // (va_start is refused where the body is compiled).
        let variadic = callee.ty().is_variadic();
        let (args, extra) = if variadic && args.len() > params.len() {
            args.split_at(params.len())
        } else {
            (args, &[][..])
        };
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
            let indirect = params
                .get(i)
                .is_some_and(crate::codegen::module::passed_indirectly);
            operands.push(if indirect {
                // The caller's temporary, destroyed by the caller after the call.
                self.materialize(arg, !Self::is_temporary(arg))?
            } else if by_reference {
                self.object_address(arg)?
            } else {
                self.rvalue_as(arg, ty)?.scalar()
            });
        }
        if let Some(context) = context {
            param_types.next().ok_or_else(mismatch)?;
            operands.push(context);
        }
        if param_types.next().is_some() || args.len() > params.len() {
            return Err(mismatch());
        }
        for arg in extra {
            self.rvalue(arg)?;
        }
        let result_types: Vec<Type<'c>> = match sig.result {
            Ty::Void => vec![],
            ref t => vec![t.value_mlir(self.ctx())],
        };
        let callee = FlatSymbolRefAttribute::new(self.ctx(), &sig.symbol);
        let results = self.b.insert(func::call(
            self.ctx(),
            callee,
            &operands,
            &result_types,
            loc,
        ));
        Ok(results.first().map_or(Val::Void, |v| Val::Scalar(*v)))
    }

    /// Implicit and defaulted constructors and assignments: a copy of the object, or nothing.
    pub(super) fn trivial_special_member(
        &mut self,
        special: SpecialMember,
        callee: &Cursor,
        e: &Cursor,
        args: &[Cursor],
    ) -> Result<Val<'c>> {
        let loc = self.loc(e);
        match (special, args) {
            (SpecialMember::DefaultConstructor, []) => Ok(Val::Void),
            (SpecialMember::CopyConstructor, [source]) => self.rvalue(source),
            (SpecialMember::CopyAssignment, [target, source]) => {
                let class = target.ty().non_reference().canonical();
                let moving = callee.is_move_assignment();
                if has_virtual_bases(class) || calls_written_assignment(class, moving) {
                    // A copy of the bytes would take the virtual bases from where the source's
                    // own class puts them, and skip the operators its parts' classes define:
                    // part by part (assignment.rs).
                    let to = self.object_address(target)?;
                    let from = self.object_address(source)?;
                    self.assign_implicitly(to, from, class, moving, e)?;
                    return Ok(Val::Scalar(self.to_generic(to, loc)?));
                }
                let lv = self.lvalue(target)?;
                // The source's object as the target's class (a derived object's base part).
                let from = self.object_address(source)?;
                let v = self.load(
                    &LValue::Mem {
                        ptr: from,
                        ty: super::lvalues::lvalue_ty(&lv),
                        volatile: false,
                    },
                    loc,
                )?;
                // Assignment keeps the target's dynamic class (its ids, see virtuals.rs).
                let mut ids = Vec::new();
                if let LValue::Mem { ptr, .. } = &lv {
                    let i64t = Ty::LONG.value_mlir(self.ctx());
                    for offset in vtable_slots(target.ty().non_reference().canonical(), e)? {
                        let slot = self.byte_offset(*ptr, offset as i64, loc)?;
                        ids.push((slot, self.b.load(slot, i64t, false, loc)?));
                    }
                }
                self.store(&lv, v, loc)?;
                for (slot, id) in ids {
                    self.b.store(id, slot, false, loc);
                }
                // The result is the target object, evaluated once (`a[i++] = b`).
                match lv {
                    LValue::Mem { ptr, .. } => Ok(Val::Scalar(self.to_generic(ptr, loc)?)),
                    LValue::Var(..) | LValue::BitField { .. } => Ok(Val::Void),
                }
            }
            _ => Err(FrontendError::unsupported(
                e.location(),
                "call of a compiler-generated member with these arguments",
            )),
        }
    }
}

/// The standard library's functions that clang treats as builtins: their calls name the
/// function template, but clang instantiates no body for them. Each gives its argument back,
/// as a reference (`std::move`, `std::forward`, ...) or as a pointer (`std::addressof`): the
/// argument's address, either way.
pub(crate) const STD_ADDRESS_BUILTINS: &[&str] = &[
    "move",
    "forward",
    "move_if_noexcept",
    "as_const",
    "forward_like",
    "addressof",
    "__addressof",
];

/// Whether a DeclRefExpr names one of the builtins declared by hipmlir's own header.
pub(super) fn is_builtin_decl(e: &Cursor) -> bool {
    e.referenced().is_some_and(|d| is_builtin_decl_cursor(&d))
}

/// Whether a declaration comes from hipmlir's own device headers (its first declaration does:
/// <math.h> may redeclare a C function later).
pub(in crate::codegen) fn is_builtin_decl_cursor(decl: &Cursor) -> bool {
    let file = decl.canonical().location().file;
    file.ends_with("hip/hipmlir_device.h") || file.ends_with("hip/hipmlir_math.h")
}
