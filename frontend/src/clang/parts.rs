//! Typed views of what libclang shows only as unnamed children or as spelled text: the parts of
//! `for`/`if` statements, the operand of a cast, the hidden parts of a range-based for and of a
//! structured binding, and whether a class is a lambda's closure. The codegen reads the AST through these and never
//! guesses a part from a child's position or a name's spelling itself.

use std::os::raw::c_void;

use clang_sys::*;
use hipmlir_ir::LoopUnroll;

use super::{
    hipmlir_binding_expression, hipmlir_decomposition_bindings, hipmlir_is_lambda_class,
    hipmlir_lambda_captures, hipmlir_loop_unroll, hipmlir_range_for_parts, hipmlir_switch_init,
    CType, Cursor,
};

/// The parts of a `for` statement, each the child that holds it.
#[derive(Debug, Clone, Copy)]
pub struct ForParts {
    pub init: Option<Cursor>,
    /// `for (...; T x = ...; ...)`: the condition variable's declaration.
    pub condition_variable: Option<Cursor>,
    pub cond: Option<Cursor>,
    pub inc: Option<Cursor>,
    pub body: Cursor,
}

/// A range-based for `for (init; T x : range) body`, as clang rewrites it: `auto&& __range =
/// range; auto __begin = begin-expr; auto __end = end-expr; for (; __begin != __end;
/// ++__begin) { T x = *__begin; body }`.
#[derive(Debug, Clone, Copy)]
pub struct RangeForParts {
    pub init: Option<Cursor>,
    /// The hidden variables `__range`, `__begin` and `__end`.
    pub range: Cursor,
    pub begin: Cursor,
    pub end: Cursor,
    /// `__begin != __end` and `++__begin`.
    pub cond: Cursor,
    pub inc: Cursor,
    /// The loop variable, initialized from `*__begin`.
    pub var: Cursor,
    pub body: Cursor,
}

/// The parts of an `if` statement, each the child that holds it.
#[derive(Debug, Clone, Copy)]
pub struct IfParts {
    /// `if (init; ...)`
    pub init: Option<Cursor>,
    /// `if (T x = ...)`: the condition variable's declaration.
    pub condition_variable: Option<Cursor>,
    pub cond: Cursor,
    pub then: Cursor,
    pub otherwise: Option<Cursor>,
}

impl Cursor {
    /// The parts of a `for` statement (libclang lists only the parts present; clang's node says
    /// which they are). `None` for other cursors or a node whose parts cannot be matched.
    pub fn for_parts(&self) -> Option<ForParts> {
        if self.kind() != CXCursor_ForStmt {
            return None;
        }
        let [init, condition_variable, cond, inc, body] = self.statement_parts()?;
        Some(ForParts {
            init,
            condition_variable,
            cond,
            inc,
            body: body?,
        })
    }

    /// The parts of an `if` statement, as [`Cursor::for_parts`] reads them.
    pub fn if_parts(&self) -> Option<IfParts> {
        if self.kind() != CXCursor_IfStmt {
            return None;
        }
        let [init, condition_variable, cond, then, otherwise] = self.statement_parts()?;
        Some(IfParts {
            init,
            condition_variable,
            cond: cond?,
            then: then?,
            otherwise,
        })
    }

    /// Whether this is a cast written in the source (C-style, functional, or a named C++ cast).
    pub fn is_explicit_cast(&self) -> bool {
        matches!(
            self.kind(),
            CXCursor_CStyleCastExpr
                | CXCursor_CXXStaticCastExpr
                | CXCursor_CXXFunctionalCastExpr
                | CXCursor_CXXConstCastExpr
                | CXCursor_CXXReinterpretCastExpr
        )
    }

    /// The operand of a cast written in the source: libclang lists the type references of the
    /// target type first, the operand last. `None` for other cursors.
    pub fn explicit_cast_operand(&self) -> Option<Cursor> {
        if !self.is_explicit_cast() {
            return None;
        }
        self.last_expression_child()
    }

    /// The brace list of a compound literal `(float2){x, y}` (after its type's references).
    pub fn compound_literal_initializer(&self) -> Option<Cursor> {
        if self.kind() != CXCursor_CompoundLiteralExpr {
            return None;
        }
        self.last_expression_child()
    }

    /// A field's default member initializer (`float w = 2.0f;`): the last of the expressions
    /// among its children, after those its type shows (array bounds, template arguments).
    pub fn default_member_initializer(&self) -> Option<Cursor> {
        if !self.has_in_class_initializer() {
            return None;
        }
        self.last_expression_child()
    }

    /// A function definition's body (after its parameters, attributes and, for a constructor,
    /// its member initializers).
    pub fn function_body(&self) -> Option<Cursor> {
        self.children()
            .into_iter()
            .rfind(|c| c.kind() == CXCursor_CompoundStmt)
    }

    fn last_expression_child(&self) -> Option<Cursor> {
        self.children().into_iter().rfind(|c| c.is_expression())
    }

    /// What a loop hint on this statement (`#pragma unroll` and its kin, which libclang shows
    /// as an unexposed statement around the loop) asks of the loop it wraps.
    pub fn loop_unroll(&self) -> Option<LoopUnroll> {
        if self.kind() != CXCursor_UnexposedStmt {
            return None;
        }
        let mut count = 0u32;
        // SAFETY: a statement cursor holds its `clang::Stmt *` in data[1]; the shim checks it.
        match unsafe { hipmlir_loop_unroll(self.0.data[1], &mut count) } {
            1 => Some(LoopUnroll::Enable),
            2 => Some(LoopUnroll::Full),
            3 => Some(LoopUnroll::Count(count)),
            4 => Some(LoopUnroll::Disable),
            _ => None,
        }
    }

    /// The init-statement of `switch (init; cond)` (libclang does not show it).
    pub fn switch_init(&self) -> Option<Cursor> {
        if self.kind() != CXCursor_SwitchStmt {
            return None;
        }
        let mut kind = 0;
        // SAFETY: a statement cursor holds its `clang::Stmt *` in data[1]; the shim checks it.
        let node = unsafe { hipmlir_switch_init(self.0.data[1], &mut kind) };
        self.semantic_child(node, kind, &mut Vec::new())
    }

    /// The parts of a range-based for, the hidden ones as clang rewrites the statement.
    pub fn range_for_parts(&self) -> Option<RangeForParts> {
        if self.kind() != CXCursor_CXXForRangeStmt {
            return None;
        }
        let mut nodes = [std::ptr::null::<c_void>(); 5];
        let mut kinds = [0i32; 5];
        // SAFETY: a statement cursor holds its `clang::Stmt *` in data[1]; the shim checks it.
        if unsafe { hipmlir_range_for_parts(self.0.data[1], &mut nodes, &mut kinds) } == 0 {
            return None;
        }
        let variable = |i: usize| self.declaration_cursor(nodes[i], CXCursor_VarDecl);
        let mut written = Vec::new();
        let cond = self.semantic_child(nodes[3], kinds[3], &mut written)?;
        let inc = self.semantic_child(nodes[4], kinds[4], &mut written)?;
        let children = self.children();
        let (init, [var, _range, body]) = match children.as_slice() {
            [var, range, body] => (None, [*var, *range, *body]),
            [init, var, range, body] => (Some(*init), [*var, *range, *body]),
            _ => return None,
        };
        Some(RangeForParts {
            init,
            range: variable(0),
            begin: variable(1),
            end: variable(2),
            cond,
            inc,
            var,
            body,
        })
    }

    /// The bindings of a structured binding declaration (`auto [a, b] = s;`, which libclang
    /// shows as an unexposed declaration: clang's variable holding the object decomposed), in
    /// order; None for any other cursor.
    pub fn structured_bindings(&self) -> Option<Vec<Binding>> {
        const MAX: usize = 256;
        if unsafe { clang_isDeclaration(self.kind()) } == 0 {
            return None;
        }
        let mut nodes = [std::ptr::null(); MAX];
        // SAFETY: a declaration cursor holds its `clang::Decl *` in data[0]; the shim checks its
        // class and writes at most MAX entries.
        let count = unsafe {
            hipmlir_decomposition_bindings(self.0.data[0], MAX as i32, nodes.as_mut_ptr())
        };
        let count = usize::try_from(count).ok()?;
        nodes[..count]
            .iter()
            .map(|node| {
                self.declaration_cursor(*node, CXCursor_UnexposedDecl)
                    .binding()
            })
            .collect()
    }

    /// What this structured binding names (see [`Binding`]); None for any other declaration.
    pub fn binding(&self) -> Option<Binding> {
        if unsafe { clang_isDeclaration(self.kind()) } == 0 {
            return None;
        }
        let mut kind = 0;
        let mut holding = std::ptr::null();
        // SAFETY: a declaration cursor holds its `clang::Decl *` in data[0]; the shim checks its
        // class.
        let node = unsafe { hipmlir_binding_expression(self.0.data[0], &mut kind, &mut holding) };
        let expression = self.semantic_child(node, kind, &mut Vec::new())?;
        Some(Binding {
            decl: self.canonical(),
            expression,
            holding: (!holding.is_null())
                .then(|| self.declaration_cursor(holding, CXCursor_VarDecl)),
        })
    }

    /// The captures of this lambda closure class in clang's order (the order of its fields);
    /// None for any other declaration.
    pub fn closure_captures(&self) -> Option<Vec<ClosureCapture>> {
        const MAX: usize = 256;
        if unsafe { clang_isDeclaration(self.kind()) } == 0 {
            return None;
        }
        let mut captured = [std::ptr::null(); MAX];
        let mut kinds = [0i32; MAX];
        // SAFETY: a declaration cursor holds its `clang::Decl *` in data[0]; the shim checks its
        // class and writes at most MAX entries.
        let count = unsafe {
            hipmlir_lambda_captures(
                self.0.data[0],
                MAX as i32,
                captured.as_mut_ptr(),
                kinds.as_mut_ptr(),
            )
        };
        let count = usize::try_from(count).ok()?;
        Some(
            (0..count)
                .map(|i| match kinds[i] {
                    0 => ClosureCapture::Variable(
                        self.declaration_cursor(captured[i], CXCursor_VarDecl)
                            .canonical(),
                    ),
                    1 => ClosureCapture::Variable(
                        self.declaration_cursor(captured[i], CXCursor_ParmDecl)
                            .canonical(),
                    ),
                    2 => ClosureCapture::This,
                    5 => ClosureCapture::Binding(
                        self.declaration_cursor(captured[i], CXCursor_UnexposedDecl)
                            .canonical(),
                    ),
                    3 => ClosureCapture::InitCapture(
                        self.declaration_cursor(captured[i], CXCursor_VarDecl)
                            .canonical(),
                    ),
                    _ => ClosureCapture::Other,
                })
                .collect(),
        )
    }

    /// Whether this declaration is a lambda's closure class.
    pub fn is_lambda_class(&self) -> bool {
        // SAFETY: a declaration cursor holds its `clang::Decl *` in data[0]; the shim checks its
        // class.
        unsafe {
            clang_isDeclaration(self.kind()) != 0 && hipmlir_is_lambda_class(self.0.data[0]) != 0
        }
    }
}

impl CType {
    /// Whether this is a lambda's closure type, looking through references and qualifiers.
    pub fn is_lambda_closure(&self) -> bool {
        let declaration = self.non_reference().unqualified().canonical().declaration();
        !declaration.is_null() && declaration.is_lambda_class()
    }
}

/// What one capture of a lambda holds (see `Cursor::closure_captures`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClosureCapture {
    /// A local variable or parameter of an enclosing function (its canonical declaration).
    Variable(Cursor),
    /// `this` or `*this`.
    This,
    /// `[y = expr]`: a variable the capture itself declares (its canonical declaration, whose
    /// initializer is `expr`).
    InitCapture(Cursor),
    /// A structured binding (its canonical declaration).
    Binding(Cursor),
    /// A variable-length array bound.
    Other,
}

/// One name a structured binding declaration introduces (clang's BindingDecl).
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// The binding's canonical declaration, which uses of the name refer to.
    pub decl: Cursor,
    /// What the name stands for (clang's binding expression): a member or an element of the
    /// object decomposed, or for a tuple-like type the hidden variable `holding`.
    pub expression: Cursor,
    /// For a tuple-like type: the reference variable initialized from `get<i>`, declared with
    /// the decomposition.
    pub holding: Option<Cursor>,
}
