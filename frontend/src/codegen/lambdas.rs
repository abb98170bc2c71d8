//! Lambdas in device code: a local initialized with a lambda, called by name, or a lambda called
//! where it is written. Each becomes a device function (later inlined like any other) whose
//! leading parameters are its captures: the value a by-copy capture had when the lambda was
//! created, the address of a by-reference one (which therefore lives in memory).

use std::collections::HashMap;

use clang_sys::*;

use super::analysis::{lambda_captures, VarKey};
use super::builder::Value;
use super::expr::strip_implicit;
use super::function::{FunctionCodegen, LambdaValue, Val};
use crate::clang::Cursor;
use crate::error::{FrontendError, Result};

/// The lambda an initializer is, if it is one.
pub fn lambda_expression(init: &Cursor) -> Option<Cursor> {
    let e = strip_implicit(init);
    (e.kind() == CXCursor_LambdaExpr).then_some(e)
}

impl<'c> FunctionCodegen<'c, '_> {
    /// `auto f = [...](...) {...};`: remembers the lambda and its by-copy captures' values now.
    pub fn bind_lambda(&mut self, decl: &Cursor, lambda: &Cursor) -> Result<()> {
        let mut copies = HashMap::new();
        for capture in self.captures_of(lambda)? {
            let key = VarKey::Decl(capture.decl);
            match self.env.get(&key) {
                Some(b) if !capture.by_ref && !b.in_memory => {
                    copies.insert(capture.decl, b.val);
                }
                _ => {}
            }
        }
        self.lambdas.insert(
            decl.canonical(),
            LambdaValue {
                lambda: *lambda,
                copies,
            },
        );
        Ok(())
    }

    fn captures_of(&self, lambda: &Cursor) -> Result<Vec<super::analysis::LambdaCapture>> {
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
                .is_some_and(|class| class.ty().canonical().spelling().contains(LAMBDA_TYPE));
        if !is_lambda_method {
            return Ok(None);
        }
        let Some(object) = e.children().first().map(strip_implicit) else {
            return Ok(None);
        };
        let held = match object.kind() {
            CXCursor_LambdaExpr => LambdaValue {
                lambda: object,
                copies: HashMap::new(),
            },
            CXCursor_DeclRefExpr => {
                match object
                    .referenced()
                    .and_then(|d| self.lambdas.get(&d.canonical()))
                {
                    Some(held) => held.clone(),
                    None => return Err(not_held(e)),
                }
            }
            _ => return Err(not_held(e)),
        };
        let loc = self.loc(e);
        let mut operands: Vec<Value<'c>> = Vec::new();
        let mut captures = Vec::new();
        for capture in self.captures_of(&held.lambda)? {
            let key = VarKey::Decl(capture.decl);
            let Some(binding) = self.env.get(&key).cloned() else {
                return Err(FrontendError::unsupported(
                    e.location(),
                    format!(
                        "lambda capturing '{}' (not a local of this function)",
                        capture.decl.spelling()
                    ),
                ));
            };
            let ty = binding.ty.clone();
            if let Some(value) = held.copies.get(&capture.decl) {
                operands.push(value.scalar());
                captures.push((capture.decl, ty, false));
            } else if binding.in_memory {
                // A by-reference capture, or a copy of an aggregate (read through its address:
                // a lambda that is not `mutable` cannot change its copy).
                let address = self.to_generic(binding.val.scalar(), loc)?;
                operands.push(address);
                captures.push((capture.decl, ty, true));
            } else {
                operands.push(binding.val.scalar());
                captures.push((capture.decl, ty, false));
            }
        }
        let sig = self
            .module
            .declare_lambda(callee, &held.lambda, captures.clone())?;
        let params = callee.arguments();
        let own_args = &args[args.len().saturating_sub(params.len())..];
        let value = self.call_with_leading(callee, &sig, operands, own_args, e)?;
        Ok(Some(value))
    }
}

/// How clang spells a closure type: `(lambda at file:line:col)`.
const LAMBDA_TYPE: &str = "(lambda at ";

fn not_held(e: &Cursor) -> FrontendError {
    FrontendError::unsupported(
        e.location(),
        "call of a lambda passed as an argument or copied (only lambdas held by a local and \
         called by it, or called where written, are supported)",
    )
}

/// A lambda named other than to call it: passed to a function or copied.
pub fn lambda_used_as_value(e: &Cursor) -> FrontendError {
    FrontendError::unsupported(
        e.location(),
        format!(
            "lambda '{}' passed to a function or copied (only calls of lambdas are supported)",
            e.spelling()
        ),
    )
}
