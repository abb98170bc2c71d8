//! Which lambdas must be closure objects in memory. hipmlir holds a lambda as its captures (see
//! lambdas.rs) unless something needs the object itself: its address is taken or a reference is
//! bound to it (`addressed_locals`), or a lambda whose closure is written to memory (stored in a
//! member or an element, returned, copied into such a closure, passed to a function that does
//! any of these) captures it by reference, since that closure holds the captured lambda's
//! address, through which its calls read the captures and change a mutable lambda's state.
//!
//! Read from each function's body: the lambdas whose closures may be written to memory, then
//! the lambdas those capture by reference (and, through copies, those they capture by copy),
//! as far as it goes. A lambda passed to a function takes what that function needs of its
//! parameter, read from the function's own body; a reference parameter whose body needs the
//! object receives the closure object's address instead of the lambda's captures.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use clang_sys::*;

use super::analysis::addressed_locals;
use super::lambdas::{closure_declaration, is_closure_copy, without_closure_copy};
use crate::captures::{call_operator, lambda_captures, Captured};
use crate::clang::{Cursor, ExprNode};

/// What one function needs of the lambdas it holds.
#[derive(Debug, Default)]
pub struct LambdaNeeds {
    /// Locals and parameters (canonical declarations) holding lambdas that must be closure
    /// objects in memory.
    pub objects: HashSet<Cursor>,
    /// Lambdas whose closures may be written to memory: locals and parameters by declaration,
    /// lambda expressions by closure type.
    stored: HashSet<Cursor>,
}

/// The needs of the functions read so far.
#[derive(Default)]
pub struct LambdaObjects {
    functions: RefCell<HashMap<Cursor, Rc<LambdaNeeds>>>,
}

impl LambdaObjects {
    /// What function definition `root` (or lambda expression, whose body it is) needs.
    pub fn needs(&self, root: &Cursor) -> Rc<LambdaNeeds> {
        let key = match root.kind() {
            CXCursor_LambdaExpr => closure_declaration(root.ty()),
            _ => root.canonical(),
        };
        if let Some(known) = self.functions.borrow().get(&key) {
            return known.clone();
        }
        // A recursive call, read while its function is, takes its lambdas as objects: a caller
        // holding an object can pass captures too, should the function not need it.
        self.functions
            .borrow_mut()
            .insert(key, Rc::new(provisional(root)));
        let mut graph = Graph {
            needs: LambdaNeeds {
                objects: addressed_locals(root),
                stored: HashSet::new(),
            },
            ..Graph::default()
        };
        graph.walk(root, self);
        let needs = Rc::new(graph.solve());
        self.functions.borrow_mut().insert(key, needs.clone());
        needs
    }

    /// Whether parameter `index` of function `f`, a reference to a closure, receives the
    /// closure object's address rather than the lambda's captures: `f`'s body needs the object.
    pub fn takes_object(&self, f: &Cursor, index: usize) -> bool {
        let Some(def) = f.definition() else {
            return false;
        };
        let Some(param) = def.arguments().get(index).copied() else {
            return false;
        };
        param.ty().is_reference()
            && param.ty().is_lambda_closure()
            && self.needs(&def).objects.contains(&param.canonical())
    }

    /// What passing a lambda to parameter `index` of `f` needs of it: to be an object (the
    /// parameter takes its address), to have its closure written to memory.
    fn passing_needs(&self, f: &Cursor, index: usize) -> (bool, bool) {
        let def = f.definition();
        let Some((def, param)) = def.and_then(|d| Some((d, *d.arguments().get(index)?))) else {
            // A function hipmlir cannot read here may store what it is given.
            return (false, true);
        };
        let needs = self.needs(&def);
        let key = param.canonical();
        let object = needs.objects.contains(&key);
        let stored = object || needs.stored.contains(&key);
        match param.ty().is_reference() {
            true => (object && param.ty().is_lambda_closure(), stored),
            // A copy: the callee's object is its own, made from the argument's captures.
            false => (false, stored),
        }
    }
}

/// One function's lambdas and how their needs pass from one to another.
#[derive(Default)]
struct Graph {
    needs: LambdaNeeds,
    /// (a, b): lambda `a` captures `b` by reference; `a` stored needs `b` as an object.
    by_reference: Vec<(Cursor, Cursor)>,
    /// (a, b): `a` stored writes `b`'s closure too (`a` is a copy of `b`, or captures it by copy).
    flows: Vec<(Cursor, Cursor)>,
    /// Uses already read with their parents (arguments, called lambdas).
    read: HashSet<ExprNode>,
}

impl Graph {
    fn walk(&mut self, c: &Cursor, objects: &LambdaObjects) {
        if c.kind() == CXCursor_LambdaExpr {
            self.captures(c);
        }
        if c.kind() == CXCursor_CallExpr && !is_closure_copy(c) {
            self.call(c, objects);
        }
        let children = c.children();
        if !transparent(c, &children) {
            for child in &children {
                let e = without_closure_copy(child);
                if let Some(node) = lambda_node(&e) {
                    if e.expr_node().is_some_and(|n| !self.read.contains(&n)) {
                        self.used(c, node);
                    }
                }
            }
        }
        for child in &children {
            self.walk(child, objects);
        }
    }

    /// A lambda's captures: what its closure being stored needs of them.
    fn captures(&mut self, lambda: &Cursor) {
        let Ok(captures) = lambda_captures(lambda) else {
            return;
        };
        let node = closure_declaration(lambda.ty());
        for capture in captures {
            match capture.captured {
                Captured::Variable(d) if d.ty().is_lambda_closure() => match capture.by_ref {
                    true => self.by_reference.push((node, d.canonical())),
                    false => self.flows.push((node, d.canonical())),
                },
                Captured::Init(d) => {
                    let init = d.var_initializer().map(|i| without_closure_copy(&i));
                    let Some(source) = init.as_ref().and_then(lambda_node) else {
                        continue;
                    };
                    // `[&r = f]` reaches `f` by its address wherever the lambda is made.
                    if capture.by_ref {
                        self.needs.objects.insert(source);
                    } else {
                        self.flows.push((node, d.canonical()));
                        self.flows.push((d.canonical(), source));
                    }
                }
                _ => {}
            }
        }
    }

    /// A call's arguments holding lambdas, as the callee needs them; the lambda a call of a
    /// lambda calls needs nothing.
    fn call(&mut self, c: &Cursor, objects: &LambdaObjects) {
        let Some(callee) = c.referenced() else {
            return;
        };
        let lambda_call = is_lambda_call_operator(&callee);
        if lambda_call {
            if let Some(n) = c
                .children()
                .first()
                .and_then(|o| o.without_implicit().expr_node())
            {
                self.read.insert(n);
            }
        }
        let params = callee.arguments().len();
        let args = c.arguments();
        // A member operator's call (`f(x)` of a lambda or functor) lists the object first.
        let skip = usize::from(callee.kind() == CXCursor_CXXMethod && args.len() == params + 1);
        for (index, arg) in args.iter().skip(skip).enumerate() {
            let e = without_closure_copy(arg);
            let (Some(node), Some(n)) = (lambda_node(&e), e.expr_node()) else {
                continue;
            };
            self.read.insert(n);
            let (object, stored) = objects.passing_needs(&callee, index);
            if object {
                self.needs.objects.insert(node);
            }
            if stored {
                self.needs.stored.insert(node);
            }
        }
    }

    /// A lambda `node` used as a child of `parent` (not a call's argument).
    fn used(&mut self, parent: &Cursor, node: Cursor) {
        match parent.kind() {
            // Called as `f.operator()(x)`.
            CXCursor_MemberRefExpr
                if parent
                    .referenced()
                    .is_some_and(|m| is_lambda_call_operator(&m)) => {}
            // Its captures, read from the capture list.
            CXCursor_LambdaExpr => {}
            CXCursor_VarDecl if parent.ty().is_reference() => {
                self.needs.objects.insert(node);
            }
            CXCursor_VarDecl if parent.ty().is_lambda_closure() => {
                self.flows.push((parent.canonical(), node));
            }
            CXCursor_UnaryOperator if parent.unary_operator() == CXUnaryOperator_AddrOf => {
                self.needs.objects.insert(node);
            }
            // A member initializer may bind a reference member to it.
            CXCursor_Constructor => {
                self.needs.objects.insert(node);
            }
            _ => {
                self.needs.stored.insert(node);
            }
        }
    }

    fn solve(mut self) -> LambdaNeeds {
        let needs = &mut self.needs;
        loop {
            let mut changed = false;
            for object in &needs.objects {
                changed |= needs.stored.insert(*object);
            }
            for (a, b) in &self.by_reference {
                if needs.stored.contains(a) {
                    changed |= needs.objects.insert(*b);
                }
            }
            for (a, b) in &self.flows {
                if needs.stored.contains(a) {
                    changed |= needs.stored.insert(*b);
                }
            }
            if !changed {
                return self.needs;
            }
        }
    }
}

/// What a function read while it is read needs: every parameter holding a lambda an object.
fn provisional(root: &Cursor) -> LambdaNeeds {
    let params = match root.kind() {
        CXCursor_LambdaExpr => call_operator(root).map(|op| op.arguments()),
        _ => Some(root.arguments()),
    };
    let objects: HashSet<Cursor> = (params.unwrap_or_default().iter())
        .filter(|p| p.ty().is_lambda_closure())
        .map(|p| p.canonical())
        .collect();
    LambdaNeeds {
        stored: objects.clone(),
        objects,
    }
}

/// What a lambda is known by here: a local or parameter holding one by its declaration, a
/// lambda expression by its closure type.
fn lambda_node(e: &Cursor) -> Option<Cursor> {
    match e.kind() {
        CXCursor_LambdaExpr => Some(closure_declaration(e.ty())),
        CXCursor_DeclRefExpr => {
            let d = e.referenced()?;
            (matches!(d.kind(), CXCursor_VarDecl | CXCursor_ParmDecl) && d.ty().is_lambda_closure())
                .then(|| d.canonical())
        }
        _ => None,
    }
}

/// Whether a node only wraps its one child as far as lambdas go: an implicit conversion,
/// parentheses, a closure's copy (read through, as `without_closure_copy` reads them).
fn transparent(c: &Cursor, children: &[Cursor]) -> bool {
    children.len() == 1
        && (matches!(c.kind(), CXCursor_UnexposedExpr | CXCursor_ParenExpr) || is_closure_copy(c))
}

fn is_lambda_call_operator(f: &Cursor) -> bool {
    f.spelling() == "operator()"
        && f.semantic_parent()
            .is_some_and(|class| class.is_lambda_class())
}
