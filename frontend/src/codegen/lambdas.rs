//! Lambdas in device code: called where written, held by the local they initialize, or passed to
//! functions. Each becomes a device function (later inlined like any other) whose leading
//! parameters are its captures: the value a by-copy capture had when the lambda was created, the
//! address of a by-reference one (which therefore lives in memory). A lambda passed to a function
//! is passed as its captures too: its closure type is unique, so the function's instance for it
//! knows which lambda its parameter holds.

use std::collections::HashMap;

use clang_sys::*;

use super::analysis::VarKey;
use super::builder::{internal, Value};
use super::expr::LValue;
use super::function::{FunctionCodegen, LambdaValue, Val};
use crate::captures::{lambda_captures, LambdaCapture};
use crate::clang::{CType, Cursor};
use crate::error::{FrontendError, Result};
use crate::types::Ty;
use melior::ir::Location;

/// The lambda an initializer is, if it is one.
pub fn lambda_expression(init: &Cursor) -> Option<Cursor> {
    let e = init.without_implicit();
    (e.kind() == CXCursor_LambdaExpr).then_some(e)
}

impl<'c> FunctionCodegen<'c, '_> {
    /// `auto f = [...](...) {...};`: remembers the lambda and its by-copy captures' values now.
    pub fn bind_lambda(&mut self, decl: &Cursor, lambda: &Cursor) -> Result<()> {
        let loc = self.loc(lambda);
        let mut copies = HashMap::new();
        let mut copied_objects = HashMap::new();
        for capture in self.captures_of(lambda)? {
            let key = VarKey::Decl(capture.decl);
            match self.env.get(&key).cloned() {
                Some(b) if !capture.by_ref && !b.in_memory => {
                    copies.insert(capture.decl, b.val);
                }
                Some(b) if !capture.by_ref => {
                    // An object captured by copy: the lambda keeps its own copy, made now.
                    let copy = self.alloca(&b.ty, loc)?;
                    self.copy_object(copy, b.val.scalar(), &b.ty, loc)?;
                    copied_objects.insert(capture.decl, copy);
                }
                _ => {}
            }
        }
        self.lambdas.insert(
            decl.canonical(),
            LambdaValue {
                lambda: *lambda,
                copies,
                copied_objects,
            },
        );
        Ok(())
    }

    /// Copies the object of type `ty` at `source` to `target`, member by member.
    fn copy_object(
        &mut self,
        target: Value<'c>,
        source: Value<'c>,
        ty: &Ty,
        loc: Location<'c>,
    ) -> Result<()> {
        if !ty.is_aggregate() {
            let from = LValue::Mem {
                ptr: source,
                ty: ty.clone(),
                volatile: false,
            };
            let value = self.load(&from, loc)?;
            let to = LValue::Mem {
                ptr: target,
                ty: ty.clone(),
                volatile: false,
            };
            return self.store(&to, value, loc);
        }
        for (member_ty, path) in self.members(ty, loc)? {
            let to = self.gep(target, ty, &path, loc)?;
            let from = self.gep(source, ty, &path, loc)?;
            self.copy_object(to, from, &member_ty, loc)?;
        }
        Ok(())
    }

    /// A kernel parameter holding the closure object of a lambda written in host code: each
    /// capture is the object's field, used in place (a lambda that is not `mutable` does not
    /// change them).
    pub fn bind_closure_object(
        &mut self,
        param: &Cursor,
        lambda: &Cursor,
        loc: Location<'c>,
    ) -> Result<()> {
        let object = self.env.get(&VarKey::Decl(param.canonical())).cloned();
        let Some(object) = object.filter(|b| b.in_memory) else {
            return Err(internal(loc, "closure parameter without a home"));
        };
        let Ty::Record(record) = &object.ty else {
            return Err(internal(loc, "closure parameter that is no record"));
        };
        let captures = self.captures_of(lambda)?;
        if captures.len() != record.fields.len() {
            return Err(internal(loc, "closure fields and captures differ"));
        }
        for (capture, field) in captures.iter().zip(&record.fields) {
            let name = capture.decl.spelling();
            if capture.by_ref {
                // clang rejects this for device lambdas; a host address means nothing there.
                return Err(FrontendError::unsupported(
                    lambda.location(),
                    format!("lambda passed from host code capturing '{name}' by reference"),
                ));
            }
            let key = VarKey::Decl(capture.decl);
            if self.env.contains_key(&key) {
                return Err(FrontendError::unsupported(
                    param.location(),
                    format!("two lambdas capturing '{name}' passed to one kernel"),
                ));
            }
            let ptr = self.field_pointer(object.val.scalar(), &object.ty, field.llvm_index, loc)?;
            self.bind_memory(key, field.ty.clone(), ptr);
        }
        self.lambdas.insert(
            param.canonical(),
            LambdaValue {
                lambda: *lambda,
                copies: HashMap::new(),
                copied_objects: HashMap::new(),
            },
        );
        Ok(())
    }

    fn captures_of(&self, lambda: &Cursor) -> Result<Vec<LambdaCapture>> {
        lambda_captures(lambda)
            .map_err(|(at, what)| FrontendError::unsupported(at.location(), what))
    }

    /// A call of a lambda's `operator()`: `f(args)` for a local `f` holding a lambda, or
    /// `[...](...) {...}(args)`. None when `callee` is not a lambda's.
    pub fn lambda_call(
        &mut self,
        e: &Cursor,
        callee: &Cursor,
        args: &[Cursor],
    ) -> Result<Option<Val<'c>>> {
        let is_lambda_method = callee.spelling() == "operator()"
            && callee
                .semantic_parent()
                .is_some_and(|class| class.is_lambda_class());
        if !is_lambda_method {
            return Ok(None);
        }
        let Some(object) = e.children().first().map(Cursor::without_implicit) else {
            return Ok(None);
        };
        let Some(held) = self.held_lambda(&object) else {
            return Err(not_held(e));
        };
        let (operands, captures) = self.capture_operands(&held, e)?;
        let sig = self.module.declare_lambda(callee, &held.lambda, captures)?;
        let params = callee.arguments();
        let own_args = &args[args.len().saturating_sub(params.len())..];
        let closures = self.closure_arguments(own_args)?;
        let value = self.call_with_leading(callee, &sig, operands, own_args, closures, e)?;
        Ok(Some(value))
    }

    /// Binds a captured variable inside a lambda's function (or a function given the lambda):
    /// by address, or as a value (in memory if its address is taken there).
    pub fn bind_capture(
        &mut self,
        decl: Cursor,
        ty: &Ty,
        by_address: bool,
        arg: Value<'c>,
        loc: Location<'c>,
    ) -> Result<()> {
        let key = VarKey::Decl(decl);
        if by_address {
            self.bind_memory(key, ty.clone(), arg);
        } else if self.memory_locals.contains(&decl) {
            let ptr = self.alloca(ty, loc)?;
            let place = LValue::Mem {
                ptr,
                ty: ty.clone(),
                volatile: false,
            };
            self.store(&place, Val::Scalar(arg), loc)?;
            self.bind_memory(key, ty.clone(), ptr);
        } else {
            self.bind(key, ty.clone(), Val::Scalar(arg));
        }
        Ok(())
    }

    /// The lambda an expression names: a lambda written there, or a local or parameter holding
    /// one.
    fn held_lambda(&self, e: &Cursor) -> Option<LambdaValue<'c>> {
        match e.kind() {
            CXCursor_LambdaExpr => Some(LambdaValue {
                lambda: *e,
                copies: HashMap::new(),
                copied_objects: HashMap::new(),
            }),
            CXCursor_DeclRefExpr => e
                .referenced()
                .and_then(|d| self.lambdas.get(&d.canonical()))
                .cloned(),
            _ => None,
        }
    }

    /// The operands that stand for a lambda's captures, and the captures as (declaration,
    /// type, passed by address).
    fn capture_operands(
        &mut self,
        held: &LambdaValue<'c>,
        e: &Cursor,
    ) -> Result<(Vec<Value<'c>>, Vec<Capture>)> {
        let loc = self.loc(e);
        let mut operands: Vec<Value<'c>> = Vec::new();
        let mut captures = Vec::new();
        for capture in self.captures_of(&held.lambda)? {
            let key = VarKey::Decl(capture.decl);
            let Some(binding) = self.env.get(&key).cloned() else {
                return Err(FrontendError::unsupported(
                    e.location(),
                    format!(
                        "lambda capturing '{}' (a lambda, or not a local of this function)",
                        capture.decl.spelling()
                    ),
                ));
            };
            let ty = binding.ty.clone();
            if let Some(value) = held.copies.get(&capture.decl) {
                operands.push(value.scalar());
                captures.push((capture.decl, ty, false));
            } else if let Some(copy) = held.copied_objects.get(&capture.decl) {
                // An object captured by copy: the copy made with the lambda, by address (a lambda
                // that is not `mutable` cannot change it).
                let address = self.to_generic(*copy, loc)?;
                operands.push(address);
                captures.push((capture.decl, ty, true));
            } else if binding.in_memory {
                // A by-reference capture, or a copy of an object by a lambda called where it is
                // written (nothing can change the object in between).
                let address = self.to_generic(binding.val.scalar(), loc)?;
                operands.push(address);
                captures.push((capture.decl, ty, true));
            } else {
                operands.push(binding.val.scalar());
                captures.push((capture.decl, ty, false));
            }
        }
        Ok((operands, captures))
    }

    /// A lambda passed to a function: the operands that replace it (its captures), after
    /// recording them under its closure type so the callee's signature and body can use them.
    /// None for any other argument.
    pub fn closure_argument(&mut self, arg: &Cursor) -> Result<Option<Vec<Value<'c>>>> {
        let e = without_closure_copy(arg);
        if closure_type_key(e.ty()).is_none() {
            return Ok(None);
        }
        let Some(held) = self.held_lambda(&e) else {
            return Err(lambda_used_as_value(arg));
        };
        let (operands, captures) = self.capture_operands(&held, arg)?;
        self.module.closures.insert(
            closure_declaration(e.ty()),
            Closure {
                lambda: held.lambda,
                captures,
            },
        );
        Ok(Some(operands))
    }
}

/// The closure an argument copies: a closure object passed by value is copied by its (implicit)
/// copy constructor, which is no call here.
fn without_closure_copy(arg: &Cursor) -> Cursor {
    let mut e = arg.without_implicit();
    while e.kind() == CXCursor_CallExpr
        && e.referenced()
            .is_some_and(|c| c.kind() == CXCursor_Constructor)
        && closure_type_key(e.ty()).is_some()
    {
        match e.children().as_slice() {
            [only] => e = only.without_implicit(),
            _ => break,
        }
    }
    e
}

/// A capture as a function parameter: (canonical declaration, type, passed by address).
pub type Capture = (Cursor, Ty, bool);

/// A lambda passed to functions: its expression and its captures, by closure type.
#[derive(Debug, Clone)]
pub struct Closure {
    pub lambda: Cursor,
    pub captures: Vec<Capture>,
}

impl Closure {
    /// The parameter types its captures take.
    pub fn param_types(&self) -> Vec<Ty> {
        self.captures
            .iter()
            .map(|(_, ty, by_address)| match by_address {
                true => Ty::Pointer {
                    pointee: Box::new(ty.clone()),
                },
                false => ty.clone(),
            })
            .collect()
    }
}

/// The key of a closure type (`(lambda at file:line:col)`), looking through references and
/// qualifiers; None for other types.
pub fn closure_type_key(ty: CType) -> Option<String> {
    ty.is_lambda_closure()
        .then(|| ty.non_reference().unqualified().canonical().spelling())
}

/// The declaration of a closure type (looking through references and qualifiers): the key of
/// the lambda it belongs to. Closure types of one lambda in different instances of a template,
/// or of lambdas written by one macro, are spelled alike but declared apart.
pub fn closure_declaration(ty: CType) -> Cursor {
    ty.non_reference().canonical().declaration().canonical()
}

fn not_held(e: &Cursor) -> FrontendError {
    FrontendError::unsupported(
        e.location(),
        "call of a lambda that was copied or stored (lambdas are supported where they are \
         written, in the local they initialize, and as arguments)",
    )
}

/// A lambda named other than to call it or pass it to a function: copied or stored.
pub fn lambda_used_as_value(e: &Cursor) -> FrontendError {
    FrontendError::unsupported(
        e.location(),
        format!(
            "lambda '{}' copied or stored (lambdas are supported where they are written, in the \
             local they initialize, and as arguments)",
            e.spelling()
        ),
    )
}
