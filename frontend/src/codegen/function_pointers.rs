//! Function pointers in device code.
//!
//! SPIR-V without extensions has no function pointers, and MLIR's SPIR-V dialect has no operations
//! for SPV_INTEL_function_pointers, so a function pointer is an integer that names one of the
//! module's address-taken functions: a 64-bit hash of the function's symbol, 0 being null. The
//! module lists those functions with their ids in [`FUNCTION_POINTERS_ATTRIBUTE`]. A call through a
//! pointer is `func.call_indirect` of the integer cast to the function type; dialect-passes'
//! `devirtualize-function-pointers` turns it into a choice among the listed functions of that type
//! (a call of any other value, null or a host address, reports itself and yields zero).
//!
//! Hashed ids rather than numbers: a pointer stored by one translation unit's device code means the
//! same function in every module that has it, and nothing (never another function) in one that
//! does not. Functions with internal linkage hash their file too, as two sources may each have a
//! `static` function of one name.

use clang_sys::*;
use melior::ir::attribute::{DictionaryAttribute, IntegerAttribute};
use melior::ir::operation::OperationMutLike;
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{Identifier, Type, ValueLike};

use super::builder::Value;
use super::function::{FunctionCodegen, Val};
use super::module::{is_kernel, ModuleCodegen};
use super::objects::has_this;
use crate::clang::{CType, Cursor};
use crate::error::{FrontendError, Result};
use crate::types::{function_pointer, is_function_type, Ty};

pub use hipmlir_device_image::FUNCTION_POINTERS_ATTRIBUTE;

/// Whether a declaration is a function a pointer can name (free functions, static members).
pub fn is_function_decl(decl: &Cursor) -> bool {
    matches!(decl.kind(), CXCursor_FunctionDecl | CXCursor_CXXMethod)
}

/// The function a constant expression designates (`f`, `&f`, `(f)`, casts of them); None for
/// anything else.
pub fn named_function(e: &Cursor) -> Option<Cursor> {
    match e.kind() {
        CXCursor_DeclRefExpr => e.referenced().filter(is_function_decl),
        CXCursor_UnaryOperator if e.unary_operator() == CXUnaryOperator_AddrOf => {
            only(e).and_then(|c| named_function(&c))
        }
        CXCursor_ParenExpr | CXCursor_UnexposedExpr => only(e).and_then(|c| named_function(&c)),
        CXCursor_CStyleCastExpr
        | CXCursor_CXXStaticCastExpr
        | CXCursor_CXXReinterpretCastExpr
        | CXCursor_CXXFunctionalCastExpr => {
            e.explicit_cast_operand().and_then(|c| named_function(&c))
        }
        _ => None,
    }
}

/// Whether a constant expression is a null pointer (`nullptr`, `0`, `NULL`, casts of them).
pub fn is_null_constant(e: &Cursor) -> bool {
    match e.kind() {
        CXCursor_CXXNullPtrLiteralExpr | CXCursor_GNUNullExpr => true,
        CXCursor_IntegerLiteral => matches!(e.evaluate(), Some(crate::clang::ConstValue::Int(0))),
        CXCursor_ParenExpr | CXCursor_UnexposedExpr => e
            .children()
            .into_iter()
            .rfind(|c| c.is_expression())
            .is_some_and(|c| is_null_constant(&c)),
        CXCursor_CStyleCastExpr | CXCursor_CXXStaticCastExpr | CXCursor_CXXFunctionalCastExpr => e
            .explicit_cast_operand()
            .is_some_and(|c| is_null_constant(&c)),
        _ => false,
    }
}

fn only(e: &Cursor) -> Option<Cursor> {
    match e.children().as_slice() {
        [only] => Some(*only),
        _ => None,
    }
}

/// FNV-1a: stable across runs and compilers, so the same function gets the same id everywhere.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl<'c> ModuleCodegen<'c> {
    /// The id of function `f`, whose address is taken at `site`; its definition is queued for
    /// emission like a called function's.
    pub fn function_pointer_id(&mut self, f: &Cursor, site: &Cursor) -> Result<i64> {
        if is_kernel(f) {
            return Err(FrontendError::unsupported(
                site.location(),
                format!("address of kernel '{}' in device code", f.spelling()),
            ));
        }
        if has_this(f) {
            return Err(FrontendError::unsupported(
                site.location(),
                format!("pointer to member function '{}'", f.spelling()),
            ));
        }
        let sig = self.declare_device_function(f, site)?;
        let file = f.has_internal_linkage().then(|| f.location().file);
        self.symbol_pointer_id(sig.symbol, file, site)
    }

    /// The id of member function `method` in a pointer to member: a virtual function's
    /// dispatcher's (virtuals.rs), which calls the object's overrider; the function's own
    /// otherwise.
    pub fn member_function_id(&mut self, method: &Cursor, site: &Cursor) -> Result<i64> {
        if !has_this(method) {
            return self.function_pointer_id(method, site);
        }
        let sig = match method.is_virtual_method() {
            true => self.dispatcher(method)?,
            false => self.declare_device_function(method, site)?,
        };
        let file = method
            .has_internal_linkage()
            .then(|| method.location().file);
        self.symbol_pointer_id(sig.symbol, file, site)
    }

    /// The id of the function `symbol` (whose file is named when it has internal linkage),
    /// listed on the module.
    fn symbol_pointer_id(
        &mut self,
        symbol: String,
        file: Option<String>,
        site: &Cursor,
    ) -> Result<i64> {
        if let Some(id) = self.function_pointers.get(&symbol) {
            return Ok(*id);
        }
        let mut key = symbol.clone().into_bytes();
        if let Some(file) = file {
            key.extend_from_slice(format!("@{file}").as_bytes());
        }
        let id = match fnv1a(&key) as i64 {
            0 => 1,
            id => id,
        };
        if let Some((other, _)) = self.function_pointers.iter().find(|(_, v)| **v == id) {
            return Err(FrontendError::internal(
                site.location(),
                format!(
                    "functions '{other}' and '{symbol}' hash to the same \
                     function pointer id; please report this"
                ),
            ));
        }
        self.function_pointers.insert(symbol, id);
        Ok(id)
    }

    /// Lists the address-taken functions on the module (for devirtualization).
    pub(super) fn record_function_pointers(&mut self) {
        if self.function_pointers.is_empty() {
            return;
        }
        let ctx = self.ctx;
        let i64t: Type = IntegerType::new(ctx, 64).into();
        let entries: Vec<_> = self
            .function_pointers
            .iter()
            .map(|(symbol, id)| {
                (
                    Identifier::new(ctx, symbol),
                    IntegerAttribute::new(i64t, *id).into(),
                )
            })
            .collect();
        let table = DictionaryAttribute::new(ctx, &entries);
        self.module
            .as_operation_mut()
            .set_attribute(FUNCTION_POINTERS_ATTRIBUTE, table.into());
    }
}

impl<'c> FunctionCodegen<'c, '_> {
    /// The function a name designates: a function, or a namespace-scope constant initialized
    /// with one (`constexpr BinOp add_fn = add;`).
    pub(super) fn designated_function(&self, e: &Cursor) -> Option<Cursor> {
        if e.kind() != CXCursor_DeclRefExpr {
            return None;
        }
        let decl = e.referenced()?;
        if is_function_decl(&decl) {
            return Some(decl);
        }
        let constant = decl.kind() == CXCursor_VarDecl
            && decl.has_global_storage()
            && decl.ty().is_const()
            && !super::globals::is_device_variable(&decl)
            && !self
                .env
                .contains_key(&super::analysis::VarKey::Decl(decl.canonical()));
        if !constant || !matches!(Ty::of(&decl), Ok(Ty::FnPtr { .. })) {
            return None;
        }
        named_function(&decl.definition()?.var_initializer()?)
    }

    /// The value of function designator `f` (named at `e`): its id.
    pub(super) fn function_address(&mut self, f: &Cursor, e: &Cursor) -> Result<Val<'c>> {
        if super::expr::is_builtin_decl_cursor(f) || f.spelling().starts_with("__builtin_") {
            return Err(FrontendError::unsupported(
                e.location(),
                format!("address of device library function '{}'", f.spelling()),
            ));
        }
        let id = self.module.function_pointer_id(f, e)?;
        let loc = self.loc(e);
        let i64t = IntegerType::new(self.ctx(), 64).into();
        Ok(Val::Scalar(self.b.const_int(i64t, id, loc)?))
    }

    /// A call whose callee is a function pointer value: `func.call_indirect` of the pointer's
    /// integer seen as the function type (devirtualized in dialect-passes).
    pub(super) fn indirect_call(&mut self, e: &Cursor) -> Result<Val<'c>> {
        if let Some(v) = self.member_pointer_call(e)? {
            return Ok(v);
        }
        let children = e.children();
        let callee = children
            .first()
            .ok_or_else(|| FrontendError::unsupported(e.location(), "call without a callee"))?;
        let callee_ty = callee.ty().canonical();
        let function_ty = if is_function_type(callee_ty) {
            callee_ty
        } else {
            callee_ty.pointee().canonical()
        };
        if !matches!(Ty::of(callee)?, Ty::FnPtr { .. }) {
            return Err(FrontendError::unsupported(
                e.location(),
                format!("call of a value of type '{}'", callee.ty().spelling()),
            ));
        }
        let id = self.rvalue_as(callee, &Ty::of(callee)?)?.scalar();
        self.call_through(id, Vec::new(), function_ty, &e.arguments(), e)
    }

    /// Calls the function whose id is `id`, of C type `function_ty`, with `leading` operands
    /// (a member function's `this`) before the arguments `args`.
    pub(super) fn call_through(
        &mut self,
        id: Value<'c>,
        leading: Vec<Value<'c>>,
        function_ty: CType,
        args: &[Cursor],
        e: &Cursor,
    ) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let Ty::FnPtr { params, result } = function_pointer(function_ty, &e.location())? else {
            return Err(FrontendError::unsupported(
                e.location(),
                "call of a non-function",
            ));
        };
        if function_ty.function_result().is_reference() {
            return Err(FrontendError::unsupported(
                e.location(),
                "call through a function pointer returning a reference",
            ));
        }
        if result.is_aggregate() {
            return Err(FrontendError::unsupported(
                e.location(),
                "call through a function pointer returning a struct by value",
            ));
        }
        let clang_params = function_ty.function_args();
        if args.len() != params.len() || clang_params.len() != params.len() {
            return Err(FrontendError::unsupported(
                e.location(),
                "call through a function pointer with these arguments",
            ));
        }
        let ctx = self.ctx();
        let mut inputs: Vec<Type<'c>> = leading.iter().map(|v| v.r#type()).collect();
        let mut operands = leading;
        for ((arg, ty), clang_param) in args.iter().zip(&params).zip(&clang_params) {
            let indirect = clang_param.canonical().kind() == clang_sys::CXType_Record
                && clang_param.passed_indirectly();
            if indirect {
                // As in a direct call (module.rs's parameter_type): the address of the caller's
                // temporary, which the caller destroys after the call.
                operands.push(self.materialize(arg, !Self::is_temporary(arg))?);
                inputs.push(
                    Ty::Pointer {
                        pointee: Box::new(ty.clone()),
                    }
                    .value_mlir(ctx),
                );
                continue;
            }
            operands.push(if clang_param.is_reference() {
                self.object_address(arg)?
            } else {
                self.rvalue_as(arg, ty)?.scalar()
            });
            inputs.push(ty.value_mlir(ctx));
        }
        let results: Vec<Type<'c>> = match *result {
            Ty::Void => vec![],
            ref t => vec![t.value_mlir(ctx)],
        };
        let function_type: Type<'c> = FunctionType::new(ctx, &inputs, &results).into();
        // A pointer naming no device function stops the program there (dialect-passes).
        self.module.stop_function(loc)?;
        let function = self.b.value(
            "builtin.unrealized_conversion_cast",
            &[id],
            function_type,
            &[],
            loc,
        )?;
        let mut call_operands = vec![function];
        call_operands.extend(operands);
        let r = self.b.op(
            "func.call_indirect",
            &call_operands,
            &results,
            &[],
            vec![],
            loc,
        )?;
        Ok(r.first().map_or(Val::Void, |v| Val::Scalar(*v)))
    }
}
