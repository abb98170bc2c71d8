//! Statements → structured control flow (scf.if / scf.while), with `return`, `break` and
//! `continue` lowered to flag variables that guard the statements after them.

use clang_sys::*;
use melior::dialect::arith::{self, CmpiPredicate};
use melior::ir::{Location, ValueLike};

use super::analysis::{assigned_vars, jumps, Jumps, VarKey};
use super::builder::{internal, Value};
use super::expr::promote;
use super::expr::{GepIndex, LValue};
use super::function::{FunctionCodegen, Val};
use crate::clang::{Binding, ConstValue, Cursor, ForParts, UnexposedDeclaration};
use crate::error::{FrontendError, Result};
use crate::types::Ty;

impl<'c> FunctionCodegen<'c, '_> {
    /// Emits a function body; returns the value `func.return` should return.
    pub fn emit_body(&mut self, body: &Cursor) -> Result<Val<'c>> {
        super::analysis::check_gotos(body)
            .map_err(|(at, what)| FrontendError::unsupported(at.location(), what))?;
        let stmts = body.children();
        let loc = self.loc(body);
        let tail_return = stmts
            .last()
            .is_some_and(|s| s.kind() == CXCursor_ReturnStmt);
        let returns = count_returns(body);
        if returns > usize::from(tail_return) {
            // Some return is not the last statement: everything after one must be skipped.
            self.set_flag(VarKey::Returned, false, loc)?;
            if self.return_ty != Ty::Void {
                let zero = self.zero(&self.return_ty.clone(), loc)?;
                self.bind(VarKey::RetVal, self.return_ty.clone(), zero);
            }
        }
        self.block(|this| this.emit_stmts(&stmts))?;
        match self.env.get(&VarKey::RetVal) {
            Some(b) => Ok(b.val),
            None if self.return_ty == Ty::Void => Ok(Val::Void),
            None if self.return_ty.is_pointer() => Err(FrontendError::unsupported(
                body.location(),
                "a function returning a pointer that does not end with a return statement",
            )),
            // Falling off the end of a non-void function is undefined; return zero.
            None => self.zero(&self.return_ty.clone(), loc),
        }
    }

    /// Emits a statement list; once a statement may have jumped, the rest runs under a guard,
    /// up to the label a `goto` taken there resumes at.
    pub fn emit_stmts(&mut self, stmts: &[Cursor]) -> Result<()> {
        // The flags of the gotos to this list's labels start cleared, those of labels inside
        // its statements too (a goto ahead may enter a block or `if` holding one).
        for s in stmts {
            for label in super::analysis::labels_in(s) {
                self.set_flag(VarKey::Goto(label), false, self.loc(s))?;
            }
        }
        self.emit_stmts_after(stmts, Jumps::default())
    }

    /// The body of a loop or a branch of an `if`, entered at the labels `entering` when a taken
    /// `goto` jumps there. One that is no block but holds gotos from one branch of an `if`
    /// into the other is a statement list of its own, which resolves them (running that `if`
    /// again, entered at the label) inside the enclosing statement: what a loop's head
    /// declares keeps its value and the head does not run again.
    fn emit_substatement(&mut self, s: &Cursor, entering: &[Cursor]) -> Result<()> {
        let own_list =
            s.kind() != CXCursor_CompoundStmt && !super::analysis::crossing_gotos(s).is_empty();
        if !own_list {
            return match entering.is_empty() {
                true => self.emit_stmt(s),
                false => self.emit_entering(s, entering),
            };
        }
        for label in super::analysis::labels_in(s) {
            if !entering.contains(&label) {
                self.set_flag(VarKey::Goto(label), false, self.loc(s))?;
            }
        }
        let pending = Jumps {
            gotos: entering.to_vec(),
            ..Jumps::default()
        };
        self.block(|this| this.emit_stmts_after(std::slice::from_ref(s), pending))
    }

    /// Emits statement `s` (a block, an `if`, a loop or a labeled statement) that a taken `goto`
    /// to one of the labels `into` inside it enters: the statements ahead of the label, the
    /// `if`'s condition and the loop's init-statement and first test are skipped while the
    /// goto's flag is set, which the label clears. Without a taken goto, `s` runs as usual.
    fn emit_entering(&mut self, s: &Cursor, into: &[Cursor]) -> Result<()> {
        let loc = self.loc(s);
        match s.kind() {
            CXCursor_LabelStmt => {
                let chain = super::analysis::label_chain(s);
                let labeled = super::analysis::labeled_statement(s)
                    .ok_or_else(|| internal(loc, "a label without its statement"))?;
                let (own, inner): (Vec<Cursor>, Vec<Cursor>) =
                    into.iter().partition(|l| chain.contains(l));
                let from_top = |this: &mut Self| -> Result<Vec<Value<'c>>> {
                    for key in &chain {
                        this.set_flag(VarKey::Goto(*key), false, loc)?;
                    }
                    this.emit_stmt(&labeled).map(|()| vec![])
                };
                if own.is_empty() {
                    return self.emit_entering(&labeled, into);
                }
                if inner.is_empty() {
                    return from_top(self).map(|_| ());
                }
                // Entered at its own label (from the top) or at one inside it.
                let flags: Vec<VarKey> = own.iter().map(|l| VarKey::Goto(*l)).collect();
                let at_top = self.any_flag(&flags, loc)?;
                let mut carried = self.assigned_in(std::slice::from_ref(s));
                for flag in into.iter().map(|l| VarKey::Goto(*l)) {
                    if !carried.contains(&flag) {
                        carried.push(flag);
                    }
                }
                self.emit_if(
                    at_top,
                    &carried,
                    &[],
                    from_top,
                    |this| this.emit_entering(&labeled, &inner).map(|()| vec![]),
                    loc,
                )?;
                Ok(())
            }
            CXCursor_CompoundStmt => self.block(|this| {
                let stmts = s.children();
                for stmt in &stmts {
                    for label in super::analysis::labels_in(stmt) {
                        if !into.contains(&label) {
                            this.set_flag(VarKey::Goto(label), false, this.loc(stmt))?;
                        }
                    }
                }
                let pending = Jumps {
                    gotos: into.to_vec(),
                    ..Jumps::default()
                };
                this.emit_stmts_after(&stmts, pending)
            }),
            CXCursor_IfStmt => {
                let parts = s
                    .if_parts()
                    .ok_or_else(|| internal(loc, "an if statement without its parts"))?;
                if parts.condition_variable.is_some() {
                    return Err(internal(
                        loc,
                        "a goto entering an if with a condition variable",
                    ));
                }
                let flags: Vec<VarKey> = into.iter().map(|l| VarKey::Goto(*l)).collect();
                let Some(init) = parts.init else {
                    return self.emit_if_entering(s, &parts, into, |this| this.emit_stmt(s));
                };
                // What the init-statement declares lives to the end of the whole statement. A
                // jump passes a declaration only without an initializer (clang refuses the
                // rest): its variables are declared either way, set by neither. An expression
                // is skipped.
                self.block(|this| {
                    if init.kind() == CXCursor_DeclStmt {
                        this.emit_stmt(&init)?;
                    } else {
                        let taken = this.any_flag(&flags, loc)?;
                        let running = this.not(taken, loc)?;
                        let carried = this.assigned_in(&[init]);
                        this.emit_guarded(running, &carried, |this| this.emit_stmt(&init), loc)?;
                    }
                    this.emit_if_entering(s, &parts, into, |this| {
                        this.emit_if_branches(&parts.cond, parts.then, parts.otherwise, loc)
                    })
                })
            }
            CXCursor_WhileStmt => match s.children().as_slice() {
                [cond, body] => self.emit_loop(s, Some(cond), None, body, into),
                _ => Err(internal(
                    loc,
                    "a goto entering a while with a condition variable",
                )),
            },
            CXCursor_ForStmt => self.emit_for(s, into),
            CXCursor_DoStmt => self.emit_do(s, into),
            CXCursor_SwitchStmt => self.emit_switch(s, into),
            _ => Err(internal(
                loc,
                "a goto entering a statement other than a block, if, loop or switch",
            )),
        }
    }

    /// The `if` statement `s` (its init-statement emitted) that a taken `goto` to one of the
    /// labels `into` enters: the branch holding the label, entered there; without a taken
    /// goto, `otherwise` (the condition and the branches).
    fn emit_if_entering(
        &mut self,
        s: &Cursor,
        parts: &crate::clang::IfParts,
        into: &[Cursor],
        otherwise: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<()> {
        let loc = self.loc(s);
        let flags: Vec<VarKey> = into.iter().map(|l| VarKey::Goto(*l)).collect();
        let taken = self.any_flag(&flags, loc)?;
        let mut carried = self.assigned_in(std::slice::from_ref(s));
        carried.extend(flags.iter().cloned());
        self.emit_if(
            taken,
            &carried,
            &[],
            |this| {
                // The branch holding the label the taken goto jumps to.
                for branch in std::iter::once(parts.then).chain(parts.otherwise) {
                    let inside = super::analysis::entered_by(&branch, into);
                    if inside.is_empty() {
                        continue;
                    }
                    let flags: Vec<VarKey> = inside.iter().map(|l| VarKey::Goto(*l)).collect();
                    let here = this.any_flag(&flags, loc)?;
                    // The label clears its flag inside.
                    let mut carried = this.assigned_in(&[branch]);
                    carried.extend(flags);
                    this.emit_guarded(
                        here,
                        &carried,
                        |this| this.emit_entering(&branch, &inside),
                        loc,
                    )?;
                }
                Ok(vec![])
            },
            |this| otherwise(this).map(|()| vec![]),
            loc,
        )?;
        Ok(())
    }

    /// Emits `stmts`, which run only while none of the `pending` jumps (taken before them) was
    /// taken: each statement in turn, and once one may jump, the rest under a guard.
    fn emit_stmts_after(&mut self, stmts: &[Cursor], pending: Jumps) -> Result<()> {
        if pending.any() {
            // The statements up to the first label a pending goto resumes at are skipped by a
            // taken jump; the label is reached by falling through or by its goto.
            let resume = stmts
                .iter()
                .position(|s| {
                    super::analysis::label_chain(s)
                        .iter()
                        .any(|l| pending.gotos.contains(l))
                        || !super::analysis::entered_by(s, &pending.gotos).is_empty()
                })
                .unwrap_or(stmts.len());
            let (skipped, after) = stmts.split_at(resume);
            let mut still = pending.clone();
            // A variable declared (without an initializer, as C++ requires) in what a goto
            // skips and used after its label is declared ahead, outside the guard.
            for var in bypassed_variables(skipped, after) {
                self.emit_local_decl(&var)?;
                self.declared_ahead.insert(var.canonical());
            }
            if !skipped.is_empty() {
                let loc = self.loc(&skipped[0]);
                let running = self.still_running(&pending, loc)?;
                let carried = self.assigned_in(skipped);
                // A scope of its own: what it builds is destroyed inside the guard, before what
                // the statements above built.
                self.emit_guarded(
                    running,
                    &carried,
                    |this| this.block(|this| this.emit_stmts(skipped)),
                    loc,
                )?;
                still = skipped.iter().fold(still, |j, s| j.union(&jumps(s)));
            }
            let Some(label) = after.first() else {
                return Ok(());
            };
            let direct = super::analysis::label_chain(label)
                .iter()
                .any(|l| still.gotos.contains(l));
            if !direct {
                // A label inside the statement: the taken goto enters it.
                let into = super::analysis::entered_by(label, &still.gotos);
                // Run only while no other pending jump was taken.
                let mut others = still.clone();
                others.gotos.retain(|l| !into.contains(l));
                let loc = self.loc(label);
                // Gotos of later statements may jump back into it too: a loop entering it.
                let back = backward_goto_segment(after, 0).filter(|b| b.nested);
                let last = back.as_ref().map_or(0, |b| b.last);
                let mut entering = into.clone();
                if let Some(b) = &back {
                    entering.extend(b.labels.iter().filter(|l| !into.contains(l)).copied());
                }
                let segment = &after[..=last];
                let emit = |this: &mut Self| -> Result<Jumps> {
                    match &back {
                        Some(b) => this.emit_goto_loop(b, &entering, segment),
                        None => this.emit_entering(label, &into).map(|()| jumps(label)),
                    }
                };
                let left = if others.any() {
                    let running = self.still_running(&others, loc)?;
                    let mut carried = self.assigned_in(segment);
                    carried.extend(entering.iter().map(|l| VarKey::Goto(*l)));
                    let mut left = Jumps::default();
                    self.emit_guarded(
                        running,
                        &carried,
                        |this| {
                            left = emit(this)?;
                            Ok(())
                        },
                        loc,
                    )?;
                    left
                } else {
                    emit(self)?
                };
                still = still.union(&left);
                still.gotos.retain(|l| !entering.contains(l));
                return self.emit_stmts_after(&after[last + 1..], still);
            }
            for key in super::analysis::label_chain(label) {
                self.set_flag(VarKey::Goto(key), false, self.loc(label))?;
                still.gotos.retain(|l| *l != key);
            }
            return self.emit_stmts_after(after, still);
        }
        for (i, stmt) in stmts.iter().enumerate() {
            // A label that a later goto of this list jumps back to begins a loop.
            if let Some(back) = backward_goto_segment(stmts, i) {
                let (last, entering) = (back.last, back.labels.clone());
                let segment = &stmts[i..=last];
                let j = self.emit_goto_loop(&back, &entering, segment)?;
                let rest = &stmts[last + 1..];
                if j.any() && !rest.is_empty() {
                    return self.emit_stmts_after(rest, j);
                }
                return self.emit_stmts_after(rest, Jumps::default());
            }
            self.emit_stmt(stmt)?;
            let rest = &stmts[i + 1..];
            let j = jumps(stmt);
            if j.any() && !rest.is_empty() {
                return self.emit_stmts_after(rest, j);
            }
        }
        Ok(())
    }

    /// `L: s1; ...; sn` where some `goto L` in the statements jumps back: a loop that runs
    /// them while the goto was taken (its flag cleared at the top of each round). Returns the
    /// other jumps leaving the statements. When the labels are inside `s1` (a block or `if`
    /// holding them), each round enters `s1` at the label whose flag is set (of `entering`: those
    /// jumped back to, and those a forward goto taken before enters), which clears it.
    fn emit_goto_loop(
        &mut self,
        back: &BackSegment,
        entering: &[Cursor],
        segment: &[Cursor],
    ) -> Result<Jumps> {
        let loc = self.loc(&segment[0]);
        let keys: Vec<VarKey> = back.labels.iter().map(|l| VarKey::Goto(*l)).collect();
        let mut carried = self.assigned_in(segment);
        let entering_keys = entering.iter().map(|l| VarKey::Goto(*l));
        for key in keys.iter().cloned().chain(entering_keys) {
            if !carried.contains(&key) {
                carried.push(key);
            }
        }
        if !back.nested {
            self.set_flag(keys[0].clone(), false, loc)?;
        }
        self.emit_repeat(
            back.labels[0],
            segment.iter().any(super::analysis::holds_loop),
            &carried,
            None,
            |this| {
                if !back.nested {
                    this.set_flag(keys[0].clone(), false, loc)?;
                }
                this.block(|this| {
                    // The labeled statement (entered at the label), then the rest under the
                    // guard of its jumps (a goto back included).
                    let mut j = Jumps::default();
                    if back.nested {
                        this.emit_entering(&segment[0], entering)?;
                        j = jumps(&segment[0]);
                        j.gotos.retain(|l| !entering.contains(l));
                    } else if let Some(first) = super::analysis::labeled_statement(&segment[0]) {
                        this.emit_stmt(&first)?;
                        j = jumps(&first);
                    }
                    this.emit_stmts_after(&segment[1..], j)
                })?;
                this.any_flag(&keys, loc)
            },
            loc,
        )?;
        let mut j = segment
            .iter()
            .fold(Jumps::default(), |j, s| j.union(&jumps(s)));
        j.gotos
            .retain(|l| !back.labels.contains(l) && !entering.contains(l));
        Ok(j)
    }

    /// The variables any of `stmts` may assign (loop flags refer to the innermost loop).
    fn assigned_in(&self, stmts: &[Cursor]) -> Vec<VarKey> {
        let mut keys = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for s in stmts {
            for k in assigned_vars(s, self.targets()) {
                if seen.insert(k.clone()) {
                    keys.push(k);
                }
            }
        }
        keys
    }

    /// `true` while none of the jumps in `j` has been taken.
    fn still_running(&mut self, j: &Jumps, loc: Location<'c>) -> Result<Value<'c>> {
        let mut flags = Vec::new();
        if j.returns {
            flags.push(VarKey::Returned);
        }
        flags.extend(j.gotos.iter().map(|l| VarKey::Goto(*l)));
        let targets = self.targets();
        if let (true, Some(t)) = (j.breaks, targets.break_to) {
            flags.push(VarKey::Break(t));
        }
        if let (true, Some(t)) = (j.continues, targets.continue_to) {
            flags.push(VarKey::Continue(t));
        }
        let stopped = self.any_flag(&flags, loc)?;
        self.not(stopped, loc)
    }

    fn any_flag(&mut self, flags: &[VarKey], loc: Location<'c>) -> Result<Value<'c>> {
        let mut acc = self.b.const_bool(false, loc)?;
        for f in flags {
            if self.env.contains_key(f) {
                let v = self.flag(f, loc)?;
                acc = self.or(acc, v, loc)?;
            }
        }
        Ok(acc)
    }

    pub fn emit_stmt(&mut self, s: &Cursor) -> Result<()> {
        let loc = self.loc(s);
        match s.kind() {
            CXCursor_CompoundStmt => self.block(|this| this.emit_stmts(&s.children())),
            CXCursor_NullStmt => Ok(()),
            CXCursor_DeclStmt => {
                for decl in s.children() {
                    self.emit_local_decl(&decl)?;
                }
                Ok(())
            }
            CXCursor_IfStmt => self.emit_if_stmt(s),
            CXCursor_ForStmt => self.emit_for(s, &[]),
            CXCursor_CXXForRangeStmt => self.emit_range_for(s),
            CXCursor_WhileStmt => match s.children().as_slice() {
                [cond, body] => self.emit_loop(s, Some(cond), None, body, &[]),
                // `while (T x = e)`: x is declared afresh and tested before each iteration.
                [var, test, body] if var.kind() == CXCursor_VarDecl => {
                    let each = PerIteration {
                        var,
                        test: Some(test),
                    };
                    self.emit_loop_with(s, None, None, Some(each), body, &[])
                }
                _ => Err(FrontendError::unsupported(s.location(), "while statement")),
            },
            CXCursor_DoStmt => self.emit_do(s, &[]),
            CXCursor_ReturnStmt => {
                if let Some(e) = s.children().first() {
                    let ty = self.return_ty.clone();
                    let v = match self.named_return_value(s)? {
                        Some(v) => v,
                        None if self.returns_reference => {
                            Val::Scalar(self.full_expression(|this| this.object_address(e))?)
                        }
                        // The result is built in place: a temporary clang marks is not destroyed.
                        None => self.full_expression(|this| {
                            let e = Self::in_place(e);
                            match constructor_call(&e) {
                                Some(call) if ty.is_aggregate() => {
                                    let ctor = call
                                        .referenced()
                                        .ok_or_else(|| internal(loc, "constructor"))?;
                                    this.construct_temporary(&ctor, &call, &call.arguments())
                                }
                                _ => this.rvalue_as(&e, &ty),
                            }
                        })?,
                    };
                    self.bind(VarKey::RetVal, ty, v);
                }
                if self.env.contains_key(&VarKey::Returned) {
                    self.set_flag(VarKey::Returned, true, loc)?;
                }
                Ok(())
            }
            CXCursor_BreakStmt | CXCursor_ContinueStmt => {
                let targets = self.targets();
                let key = match (s.kind(), targets.break_to, targets.continue_to) {
                    (CXCursor_BreakStmt, Some(t), _) => VarKey::Break(t),
                    (CXCursor_ContinueStmt, _, Some(t)) => VarKey::Continue(t),
                    _ => return Err(internal(loc, "a jump without a target")),
                };
                self.set_flag(key, true, loc)
            }
            CXCursor_SwitchStmt => self.emit_switch(s, &[]),
            CXCursor_LabelStmt => match s.children().as_slice() {
                [labeled] => self.emit_stmt(labeled),
                _ => Ok(()),
            },
            CXCursor_GotoStmt => {
                let label = super::analysis::goto_target(s)
                    .ok_or_else(|| internal(loc, "goto without a label"))?;
                self.set_flag(VarKey::Goto(label), true, loc)
            }
            // `#pragma unroll` and attributes wrap the statement they apply to; a loop hint goes
            // to the loop it wraps.
            CXCursor_UnexposedStmt => match s.children().as_slice() {
                [inner] if !inner.is_expression() => {
                    self.loop_unroll = s.loop_unroll().map(|unroll| (*inner, unroll));
                    self.emit_stmt(inner)
                }
                _ => Err(FrontendError::unsupported(s.location(), "statement")),
            },
            _ if s.is_expression() => self.full_expression(|this| this.rvalue(s)).map(|_| ()),
            _ => Err(FrontendError::unsupported(
                s.location(),
                format!("statement '{}'", s.kind_name()),
            )),
        }
    }

    fn emit_local_decl(&mut self, decl: &Cursor) -> Result<()> {
        match decl.kind() {
            CXCursor_VarDecl if self.declared_ahead.remove(&decl.canonical()) => return Ok(()),
            CXCursor_VarDecl => {}
            // `union { int i; float f; };` in a function declares an unnamed object, whose
            // members are named as variables; libclang shows only the union's declaration.
            CXCursor_StructDecl | CXCursor_ClassDecl | CXCursor_UnionDecl
                if decl.is_anonymous_record() =>
            {
                return match anonymous_object(decl) {
                    Some(object) => self.emit_local_decl(&object),
                    None => Ok(()),
                };
            }
            // Local declarations of types and names need no code.
            CXCursor_StructDecl
            | CXCursor_ClassDecl
            | CXCursor_UnionDecl
            | CXCursor_TypedefDecl
            | CXCursor_TypeAliasDecl
            | CXCursor_TypeAliasTemplateDecl
            | CXCursor_EnumDecl
            | CXCursor_NamespaceAlias
            | CXCursor_UsingDirective
            | CXCursor_UsingDeclaration
            | CXCursor_FunctionDecl
            | CXCursor_StaticAssert => return Ok(()),
            // `auto [a, b] = s;`: libclang shows the declaration as unexposed.
            CXCursor_UnexposedDecl => {
                if let Some(bindings) = decl.structured_bindings() {
                    return self.emit_structured_binding(decl, &bindings);
                }
                // `using enum E;` and `__label__ l;` only bring names into scope (a goto finds
                // its label statement as it finds any other).
                if matches!(
                    decl.unexposed_declaration(),
                    Some(UnexposedDeclaration::UsingEnum | UnexposedDeclaration::LocalLabel)
                ) {
                    return Ok(());
                }
                return Err(unsupported_local_declaration(decl));
            }
            _ => return Err(unsupported_local_declaration(decl)),
        }
        self.emit_variable(decl)
    }

    /// A structured binding declaration: the hidden variable holding the object decomposed (a
    /// copy, or a reference), then for a tuple-like type the reference variables initialized
    /// from `get<i>`; each name then stands for the object its binding expression names, whose
    /// address does not change over the name's scope (a bit-field, which has none, is read
    /// through its expression at each use).
    fn emit_structured_binding(&mut self, decl: &Cursor, bindings: &[Binding]) -> Result<()> {
        self.emit_variable(decl)?;
        for binding in bindings {
            if let Some(holding) = &binding.holding {
                self.emit_variable(holding)?;
            }
        }
        for binding in bindings {
            let names_bit_field = binding
                .expression
                .referenced()
                .is_some_and(|member| member.bit_field_width().is_some());
            if names_bit_field {
                continue;
            }
            let ty = Ty::of(&binding.expression)?;
            let address = self.full_expression(|this| this.object_address(&binding.expression))?;
            self.bind_memory(VarKey::Decl(binding.decl), ty, address);
        }
        Ok(())
    }

    /// A local variable (or the hidden one of a structured binding): its storage made and its
    /// initializer run.
    fn emit_variable(&mut self, decl: &Cursor) -> Result<()> {
        let loc = self.loc(decl);
        let key = VarKey::Decl(decl.canonical());
        if decl.has_attr(CXCursor_CUDASharedAttr) {
            return self.emit_shared_decl(decl, key, loc);
        }
        // A `static const` (or `constexpr`) local with an initializer can be an ordinary local:
        // nobody can tell the copies apart. A mutable one keeps state across calls.
        // A mutable `static` local of device code is a device variable of its own (as in CUDA):
        // one object for every thread and launch, holding its constant initializer from the
        // module's load on.
        if decl.has_global_storage() && !(is_const_object(decl) && decl.var_initializer().is_some())
        {
            let (ptr, ty) = self.device_variable_address(decl, loc)?;
            self.bind_memory(key, ty, ptr);
            return Ok(());
        }
        let init = decl.var_initializer();
        if let Some(lambda) = init.as_ref().and_then(super::lambdas::lambda_expression) {
            return self.bind_lambda(decl, &lambda);
        }
        if let Some(init) = &init {
            if self.bind_lambda_copy(decl, init)? {
                return Ok(());
            }
        }
        let ty = Ty::of(decl)?;
        if decl.ty().is_reference() {
            let Some(init) = init else {
                return Err(FrontendError::refused(
                    decl.location(),
                    "reference without an initializer",
                ));
            };
            let address = self.full_expression(|this| this.object_address(&init))?;
            self.bind(key, ty, Val::Scalar(address));
            return Ok(());
        }
        if ty.is_aggregate() || self.memory_locals.contains(&decl.canonical()) {
            let ptr = self.alloca(&ty, loc)?;
            // A local the function returns by the named return value optimization is not
            // destroyed once returned: a flag says so (clang's too).
            let returned = match decl.is_nrvo_variable() && self.needs_destruction(decl.ty()) {
                true => {
                    let flag = self.flag_in_memory(loc)?;
                    self.set_flag_in_memory(flag, false, loc)?;
                    self.nrvo_flags.insert(decl.canonical(), flag);
                    Some(flag)
                }
                false => None,
            };
            if let Some(init) = init {
                self.full_expression(|this| this.initialize(ptr, &ty, &init))?;
            }
            self.bind_memory(key, ty, ptr);
            return self.destroy_at_scope_end(ptr, decl.ty(), decl, false, returned);
        }
        let val = match init {
            Some(e) => self.full_expression(|this| this.rvalue_as(&e, &ty))?,
            // An uninitialized local is indeterminate in C; zero keeps results reproducible.
            None => self.zero(&ty, loc)?,
        };
        self.bind(key, ty, val);
        Ok(())
    }

    /// `__shared__ T name[...]` in a function: workgroup memory, one copy per block.
    fn emit_shared_decl(&mut self, decl: &Cursor, key: VarKey, loc: Location<'c>) -> Result<()> {
        // A default construction (`__shared__ float4 s[N];`) is no initialization: clang has
        // already refused any that is not empty.
        let initialized = decl.var_initializer().is_some_and(|init| {
            constructor_call(&init).is_none_or(|call| !call.arguments().is_empty())
        });
        if initialized {
            return Err(FrontendError::refused(
                decl.location(),
                "initialization is not supported for __shared__ variables",
            ));
        }
        let (ptr, ty) = self.shared_address(decl, loc)?;
        self.bind_memory(key, ty, ptr);
        Ok(())
    }

    /// The address and type of a `__shared__` variable (in a function or at file scope). Every
    /// `extern __shared__` array names the kernel's dynamic shared memory, sized at launch.
    pub fn shared_address(&mut self, decl: &Cursor, loc: Location<'c>) -> Result<(Value<'c>, Ty)> {
        let ty = Ty::of(decl)?;
        if decl.ty().canonical().kind() == CXType_IncompleteArray {
            return Ok((self.dynamic_shared_pointer(loc)?, ty));
        }
        let symbol = self.module.shared_variable(decl, &ty)?;
        let ptr_type = crate::types::pointer_type(self.ctx(), crate::types::AddrSpace::Workgroup);
        let ptr = self.b.address_of(&symbol, ptr_type, loc)?;
        Ok((ptr, ty))
    }

    /// The address of the kernel's dynamic shared memory (a placeholder global until
    /// dialect-passes gives each kernel its own argument).
    fn dynamic_shared_pointer(&mut self, loc: Location<'c>) -> Result<Value<'c>> {
        let symbol = self.module.dynamic_shared_placeholder(loc)?;
        let ptr_type = crate::types::pointer_type(self.ctx(), crate::types::AddrSpace::Workgroup);
        self.b.address_of(&symbol, ptr_type, loc)
    }

    /// Stores an initializer into the object of type `ty` at `ptr`: braced lists element by
    /// element (the rest zeroed, as C requires), anything else as one value.
    pub fn initialize(&mut self, ptr: Value<'c>, ty: &Ty, init: &Cursor) -> Result<()> {
        let init = &Self::in_place(init);
        let loc = self.loc(init);
        if let Some(call) = constructor_call(init) {
            let ctor = call
                .referenced()
                .ok_or_else(|| internal(loc, "constructor"))?;
            if let Ty::Array { .. } = ty {
                // `T a[N];` with a default constructor: each element built, first to last.
                return self.construct_elements(&ctor, ptr, ty, &call);
            }
            return self.construct(&ctor, ptr, ty, &call.arguments(), &call);
        }
        if let Some(list) = init_list(init) {
            return self.initialize_from_list(ptr, ty, &list);
        }
        if let Ty::Array { .. } = ty {
            if let Some(text) = crate::codegen::builtins::string_literal(init) {
                return self.initialize_from_string(ptr, ty, &text, loc);
            }
            if let Some(lp) = init.array_init_loop() {
                return self.initialize_by_loop(ptr, ty, &lp, init);
            }
            return Err(FrontendError::unsupported(
                init.location(),
                "array initializer",
            ));
        }
        let v = self.rvalue_as(init, ty)?;
        self.store(
            &LValue::Mem {
                ptr,
                ty: ty.clone(),
                volatile: false,
            },
            v,
            loc,
        )
    }

    /// The members of an aggregate with the GEP indices that reach each one.
    pub(super) fn members(
        &mut self,
        ty: &Ty,
        loc: Location<'c>,
    ) -> Result<Vec<(Ty, Vec<GepIndex<'c>>)>> {
        let i64t = Ty::LONG.value_mlir(self.ctx());
        let zero = self.b.const_int(i64t, 0, loc)?;
        Ok(match ty {
            Ty::Array { element, len } => {
                if *len > MAX_UNROLLED_ELEMENTS {
                    return Err(FrontendError::unsupported(
                        crate::SourceLoc::default(),
                        format!("an initialized local array of {len} elements"),
                    ));
                }
                let mut out = Vec::new();
                for i in 0..*len {
                    let index = self.b.const_int(i64t, i as i64, loc)?;
                    out.push((
                        (**element).clone(),
                        vec![GepIndex::Dynamic(zero), GepIndex::Dynamic(index)],
                    ));
                }
                out
            }
            // A union's storage as bytes (to zero it); initialization picks its first member.
            Ty::Record(r) if r.is_union => vec![(
                Ty::Array {
                    element: Box::new(Ty::Int {
                        bits: 8,
                        signed: false,
                    }),
                    len: r.size,
                },
                vec![GepIndex::Dynamic(zero), GepIndex::Field(0)],
            )],
            // The fields, and the bytes of bit-fields as their runs.
            Ty::Record(r) => r
                .fields
                .iter()
                .filter(|f| f.bit_field.is_none())
                .map(|f| (f.ty.clone(), f.llvm_index))
                .chain(r.bit_storage.iter().map(|s| (s.bytes(), s.llvm_index)))
                .map(|(ty, index)| (ty, vec![GepIndex::Dynamic(zero), GepIndex::Field(index)]))
                .collect(),
            scalar => vec![(scalar.clone(), vec![GepIndex::Dynamic(zero)])],
        })
    }

    pub(super) fn zero_fill(&mut self, ptr: Value<'c>, ty: &Ty, loc: Location<'c>) -> Result<()> {
        if ty.is_aggregate() {
            for (member_ty, path) in self.members(ty, loc)? {
                let member = self.gep(ptr, ty, &path, loc)?;
                self.zero_fill(member, &member_ty, loc)?;
            }
            return Ok(());
        }
        let zero = self.zero(ty, loc)?;
        self.store(
            &LValue::Mem {
                ptr,
                ty: ty.clone(),
                volatile: false,
            },
            zero,
            loc,
        )
    }

    fn emit_if_stmt(&mut self, s: &Cursor) -> Result<()> {
        let IfParts {
            before,
            cond,
            then,
            otherwise,
        } = if_parts(s)?;
        let loc = self.loc(s);
        // What the init-statement and condition declare lives to the end of the whole statement;
        // each branch is a scope of its own.
        self.block(|this| {
            for part in &before {
                match part.kind() {
                    CXCursor_VarDecl => this.emit_local_decl(part)?,
                    _ => this.emit_stmt(part)?,
                }
            }
            this.emit_if_branches(&cond, then, otherwise, loc)
        })
    }

    /// An `if`'s condition and branches (each a scope of its own).
    fn emit_if_branches(
        &mut self,
        cond: &Cursor,
        then: Cursor,
        otherwise: Option<Cursor>,
        loc: Location<'c>,
    ) -> Result<()> {
        let c = self.full_expression(|this| this.condition(cond))?;
        let branches: Vec<Cursor> = std::iter::once(then).chain(otherwise).collect();
        let carried = self.assigned_in(&branches);
        self.emit_if(
            c,
            &carried,
            &[],
            |this| {
                this.block(|this| this.emit_substatement(&then, &[]))
                    .map(|()| vec![])
            },
            |this| match otherwise {
                Some(e) => this
                    .block(|this| this.emit_substatement(&e, &[]))
                    .map(|()| vec![]),
                None => Ok(vec![]),
            },
            loc,
        )?;
        Ok(())
    }

    /// `for`; `entering`: the labels in its body a taken `goto` jumps to (the init-statement
    /// and the first test skipped).
    fn emit_for(&mut self, s: &Cursor, entering: &[Cursor]) -> Result<()> {
        let Some(ForParts {
            init,
            condition_variable,
            cond,
            inc,
            body,
        }) = s.for_parts()
        else {
            return Err(FrontendError::unsupported(
                s.location(),
                "for statement of this form",
            ));
        };
        // What the init-statement declares lives until the loop ends.
        self.block(|this| {
            if let Some(init) = init {
                // A jump passes a declaration only without an initializer (clang refuses the
                // rest): its variables are declared either way, set by neither.
                match entering.is_empty() || init.kind() == CXCursor_DeclStmt {
                    true => this.emit_stmt(&init)?,
                    false => {
                        let flags: Vec<VarKey> =
                            entering.iter().map(|l| VarKey::Goto(*l)).collect();
                        let loc = this.loc(&init);
                        let taken = this.any_flag(&flags, loc)?;
                        let running = this.not(taken, loc)?;
                        let carried = this.assigned_in(&[init]);
                        this.emit_guarded(running, &carried, |this| this.emit_stmt(&init), loc)?;
                    }
                }
            }
            match &condition_variable {
                // `for (...; T x = e; ...)`: x is declared afresh and tested before each
                // iteration.
                Some(var) => {
                    let each = PerIteration {
                        var,
                        test: cond.as_ref(),
                    };
                    this.emit_loop_with(s, None, inc.as_ref(), Some(each), &body, entering)
                }
                None => this.emit_loop(s, cond.as_ref(), inc.as_ref(), &body, entering),
            }
        })
    }

    /// `for (T x : range) body` as C++ defines it and clang rewrites it: `__range` bound to the
    /// range, `__begin` and `__end` from `begin()`/`end()` (members or free functions, pointers
    /// or iterator classes; a C array's bounds), then `for (; __begin != __end; ++__begin) { T
    /// x = *__begin; body }`. A temporary the range is bound to lives until the loop ends.
    fn emit_range_for(&mut self, s: &Cursor) -> Result<()> {
        let parts = s
            .range_for_parts()
            .ok_or_else(|| internal(self.loc(s), "range-based for without its parts"))?;
        self.block(|this| {
            if let Some(init) = &parts.init {
                this.emit_stmt(init)?;
            }
            for hidden in [&parts.range, &parts.begin, &parts.end] {
                this.emit_local_decl(hidden)?;
            }
            let each = PerIteration {
                var: &parts.var,
                test: None,
            };
            this.emit_loop_with(
                s,
                Some(&parts.cond),
                Some(&parts.inc),
                Some(each),
                &parts.body,
                &[],
            )
        })
    }

    /// `while (cond) { body; inc; }` as scf.while; `break`, `continue` and `return` inside set flags.
    fn emit_loop(
        &mut self,
        s: &Cursor,
        cond: Option<&Cursor>,
        inc: Option<&Cursor>,
        body: &Cursor,
        entering: &[Cursor],
    ) -> Result<()> {
        self.emit_loop_with(s, cond, inc, None, body, entering)
    }

    /// [`Self::emit_loop`] with a variable declared afresh at the start of each iteration, in
    /// the body's scope (a range-based for's loop variable, a condition variable). `entering`:
    /// the labels in the body a taken `goto` jumps to: while one's flag is set, the test is
    /// skipped and the body entered at the label, which clears it.
    fn emit_loop_with(
        &mut self,
        s: &Cursor,
        cond: Option<&Cursor>,
        inc: Option<&Cursor>,
        each: Option<PerIteration>,
        body: &Cursor,
        entering: &[Cursor],
    ) -> Result<()> {
        let loc = self.loc(s);
        let entering_flags: Vec<VarKey> = entering.iter().map(|l| VarKey::Goto(*l)).collect();
        let j = jumps_of_loop_body(body);
        // A failed test of a condition variable leaves the loop as a `break` does.
        let tested = each.as_ref().is_some_and(|e| e.test.is_some());
        if j.breaks || tested {
            self.set_flag(VarKey::Break(*s), false, loc)?;
        }
        self.targets.push(*s);
        let mut parts: Vec<Cursor> = vec![*body];
        parts.extend(cond.copied());
        parts.extend(inc.copied());
        if let Some(e) = &each {
            parts.push(*e.var);
            parts.extend(e.test.copied());
        }
        let mut carried = self.assigned_in(&parts);
        if tested && !carried.contains(&VarKey::Break(*s)) {
            carried.push(VarKey::Break(*s));
        }
        for flag in &entering_flags {
            if !carried.contains(flag) {
                carried.push(flag.clone());
            }
        }
        let stop_flags = loop_stop_flags(s, &j);
        let unroll = self.loop_unroll_of(s);
        let result = self.emit_while(
            &carried,
            unroll,
            |this| {
                if entering_flags.is_empty() {
                    return this.loop_condition(cond, &stop_flags, loc);
                }
                // Entered by a goto: no test.
                let taken = this.any_flag(&entering_flags, loc)?;
                let i1 = Ty::Bool.value_mlir(this.ctx());
                let mut carried: Vec<VarKey> = Vec::new();
                if let Some(cond) = cond {
                    carried = assigned_vars(cond, this.targets());
                }
                let out = this.emit_if(
                    taken,
                    &carried,
                    &[i1],
                    |this| Ok(vec![this.b.const_bool(true, loc)?]),
                    |this| Ok(vec![this.loop_condition(cond, &stop_flags, loc)?]),
                    loc,
                )?;
                Ok(out[0])
            },
            |this| {
                if j.continues {
                    this.set_flag(VarKey::Continue(*s), false, loc)?;
                }
                // Each iteration is a scope: what the body builds is destroyed before the next.
                this.block(|this| {
                    let Some(each) = &each else {
                        return this.emit_substatement(body, entering);
                    };
                    this.emit_local_decl(each.var)?;
                    let Some(test) = each.test else {
                        return this.emit_substatement(body, &[]);
                    };
                    let holds = this.full_expression(|this| this.condition(test))?;
                    let failed = this.not(holds, loc)?;
                    this.bind(VarKey::Break(*s), Ty::Bool, Val::Scalar(failed));
                    let carried = this.assigned_in(&[*body]);
                    this.emit_guarded(
                        holds,
                        &carried,
                        |this| this.emit_substatement(body, &[]),
                        loc,
                    )
                })?;
                if let Some(inc) = inc {
                    let stop = this.any_flag(&stop_flags, loc)?;
                    let running = this.not(stop, loc)?;
                    let carried = this.assigned_in(&[*inc]);
                    this.emit_guarded(
                        running,
                        &carried,
                        |this| this.full_expression(|this| this.rvalue(inc)).map(|_| ()),
                        loc,
                    )?;
                }
                Ok(())
            },
            loc,
        );
        self.targets.pop();
        result
    }

    /// `switch`: each case label sets the "entered" flag when it matches (default when no case
    /// does), and every statement runs while the flag is set and no `break` has run. Fallthrough
    /// is just the flag staying set.
    /// `entering`: the labels in its body a taken `goto` jumps to (the init-statement, the
    /// condition and the case dispatch skipped).
    fn emit_switch(&mut self, s: &Cursor, entering: &[Cursor]) -> Result<()> {
        let children = s.children();
        let Some((body, [before @ .., cond])) = children.split_last() else {
            return Err(FrontendError::unsupported(s.location(), "switch statement"));
        };
        let init = s.switch_init();
        if before.is_empty() && init.is_none() {
            return self.emit_switch_on(s, cond, body, entering);
        }
        if !entering.is_empty() && !before.is_empty() {
            return Err(internal(
                self.loc(s),
                "a goto entering a switch with a condition variable",
            ));
        }
        // `switch (init; T x = e)`: what they declare lives until the switch ends.
        self.block(|this| {
            if let Some(init) = &init {
                // A jump passes a declaration only without an initializer (clang refuses the
                // rest): its variables are declared either way, set by neither.
                match entering.is_empty() || init.kind() == CXCursor_DeclStmt {
                    true => this.emit_stmt(init)?,
                    false => {
                        let loc = this.loc(init);
                        let flags: Vec<VarKey> =
                            entering.iter().map(|l| VarKey::Goto(*l)).collect();
                        let taken = this.any_flag(&flags, loc)?;
                        let run = this.not(taken, loc)?;
                        let carried = this.assigned_in(std::slice::from_ref(init));
                        this.emit_guarded(run, &carried, |this| this.emit_stmt(init), loc)?;
                    }
                }
            }
            for b in before {
                match b.kind() {
                    CXCursor_VarDecl => this.emit_local_decl(b)?,
                    _ => this.emit_stmt(b)?,
                }
            }
            this.emit_switch_on(s, cond, body, entering)
        })
    }

    /// The switch `s` on `cond`; `entering`: the labels in its body a taken `goto` jumps to,
    /// which skips the condition and the case dispatch. A `goto` among the body's statements
    /// (or into one of them) skips those ahead of its label, like a `break` until the label,
    /// which then runs as a matched case does, falling through.
    fn emit_switch_on(
        &mut self,
        s: &Cursor,
        cond: &Cursor,
        body: &Cursor,
        entering: &[Cursor],
    ) -> Result<()> {
        let loc = self.loc(s);
        let cond_ty = promote(&Ty::of(cond)?);
        let entering_flags: Vec<VarKey> = entering.iter().map(|l| VarKey::Goto(*l)).collect();
        let dispatch = match entering.is_empty() {
            true => None,
            false => {
                let taken = self.any_flag(&entering_flags, loc)?;
                Some(self.not(taken, loc)?)
            }
        };
        let value = match dispatch {
            None => self
                .full_expression(|this| this.rvalue_as(cond, &cond_ty))?
                .scalar(),
            Some(dispatch) => {
                let ty = cond_ty.value_mlir(self.ctx());
                let carried = assigned_vars(cond, self.targets());
                self.emit_if(
                    dispatch,
                    &carried,
                    &[ty],
                    |this| {
                        let v = this.full_expression(|this| this.rvalue_as(cond, &cond_ty))?;
                        Ok(vec![v.scalar()])
                    },
                    |this| Ok(vec![this.b.const_int(ty, 0, loc)?]),
                    loc,
                )?[0]
            }
        };
        let mut items = Vec::new();
        for stmt in body.children() {
            flatten_labels(&stmt, &mut items)?;
        }
        let cases: Vec<i64> = items
            .iter()
            .filter_map(|i| match i {
                SwitchItem::Case(v) => Some(*v),
                _ => None,
            })
            .collect();
        // Whether some case matches: the default label is entered only when none does.
        let mut any_case = self.b.const_bool(false, loc)?;
        for c in &cases {
            let cv = self.b.const_int(value.r#type(), *c, loc)?;
            let eq = self.compare_eq(value, cv, loc)?;
            any_case = self.or(any_case, eq, loc)?;
        }
        let mut no_case = self.not(any_case, loc)?;
        if let Some(dispatch) = dispatch {
            no_case = self.b.insert_value(arith::andi(no_case, dispatch, loc))?;
        }
        let entered = VarKey::SwitchEntered(*s);
        self.set_flag(entered.clone(), false, loc)?;
        if jumps_in_switch(body) {
            self.set_flag(VarKey::Break(*s), false, loc)?;
        }
        self.targets.push(*s);
        let sw = SwitchState {
            s: *s,
            value,
            dispatch,
            no_case,
            // Gotos leaving the switch skip the rest of it.
            leaving: jumps(body).gotos,
            body_labels: super::analysis::labels_in(body),
            entering: entering.to_vec(),
            stmts: items
                .iter()
                .filter_map(|i| match i {
                    SwitchItem::Stmt(stmt) => Some(*stmt),
                    _ => None,
                })
                .collect(),
        };
        // The body is one scope: what a statement under a label builds is destroyed at its
        // end, if that statement ran.
        let result = self.block(|this| this.emit_switch_items(&items, &sw, false));
        self.targets.pop();
        result
    }

    /// The items of a switch's body, in order: case labels set the "entered" flag when they
    /// match, statements run while it is set and no jump is pending. Where a later statement
    /// jumps back to a label of one (unless `first_repeats`: the loop that statement begins is
    /// being emitted), the statements from it to the last such goto become a loop.
    fn emit_switch_items(
        &mut self,
        items: &[SwitchItem],
        sw: &SwitchState<'c>,
        first_repeats: bool,
    ) -> Result<()> {
        let loc = self.loc(&sw.s);
        let entered = VarKey::SwitchEntered(sw.s);
        for (at, item) in items.iter().enumerate() {
            match item {
                SwitchItem::Case(c) => {
                    let cv = self.b.const_int(sw.value.r#type(), *c, loc)?;
                    let mut eq = self.compare_eq(sw.value, cv, loc)?;
                    if let Some(dispatch) = sw.dispatch {
                        eq = self.b.insert_value(arith::andi(eq, dispatch, loc))?;
                    }
                    let now = self.flag(&entered, loc)?;
                    let v = self.or(now, eq, loc)?;
                    self.bind(entered.clone(), Ty::Bool, Val::Scalar(v));
                }
                SwitchItem::Default => {
                    let now = self.flag(&entered, loc)?;
                    let v = self.or(now, sw.no_case, loc)?;
                    self.bind(entered.clone(), Ty::Bool, Val::Scalar(v));
                }
                SwitchItem::Stmt(stmt) => {
                    if !(first_repeats && at == 0) {
                        if let Some((last, labels)) = switch_back_segment(items, at) {
                            return self.emit_switch_loop(items, at, last, &labels, sw);
                        }
                    }
                    self.emit_switch_stmt(stmt, sw)?;
                }
            }
        }
        Ok(())
    }

    /// `items[first..=last]` of a switch's body as a loop that runs again while a goto back to
    /// one of `labels` (in `items[first]`) was taken; then the items after them.
    fn emit_switch_loop(
        &mut self,
        items: &[SwitchItem],
        first: usize,
        last: usize,
        labels: &[Cursor],
        sw: &SwitchState<'c>,
    ) -> Result<()> {
        let loc = self.loc(&sw.s);
        let segment = &items[first..=last];
        let stmts: Vec<Cursor> = segment
            .iter()
            .filter_map(|i| match i {
                SwitchItem::Stmt(stmt) => Some(*stmt),
                _ => None,
            })
            .collect();
        let mut carried = self.assigned_in(&stmts);
        carried.push(VarKey::SwitchEntered(sw.s));
        for stmt in &stmts {
            carried.extend(
                super::analysis::labels_in(stmt)
                    .into_iter()
                    .map(VarKey::Goto),
            );
        }
        let keys: Vec<VarKey> = labels.iter().map(|l| VarKey::Goto(*l)).collect();
        self.emit_repeat(
            labels[0],
            stmts.iter().any(super::analysis::holds_loop),
            &carried,
            None,
            |this| {
                this.block(|this| this.emit_switch_items(segment, sw, true))?;
                this.any_flag(&keys, loc)
            },
            loc,
        )?;
        self.emit_switch_items(&items[last + 1..], sw, false)
    }

    /// One statement of a switch's body: run while the switch was entered and no jump is
    /// pending, or when a goto jumps to a label of it (control is there, whatever the dispatch
    /// said), which clears the goto's flag; the switch is entered from there on.
    fn emit_switch_stmt(&mut self, stmt: &Cursor, sw: &SwitchState<'c>) -> Result<()> {
        let loc = self.loc(stmt);
        let entered = VarKey::SwitchEntered(sw.s);
        let labels = sw.jumped_to(stmt);
        let own = super::analysis::label_chain(stmt);
        let (direct, inside): (Vec<Cursor>, Vec<Cursor>) =
            labels.into_iter().partition(|l| own.contains(l));
        let direct_flags: Vec<VarKey> = direct.iter().map(|l| VarKey::Goto(*l)).collect();
        let inside_flags: Vec<VarKey> = inside.iter().map(|l| VarKey::Goto(*l)).collect();
        if !direct.is_empty() {
            let hit = self.any_flag(&direct_flags, loc)?;
            let now = self.flag(&entered, loc)?;
            let v = self.or(now, hit, loc)?;
            self.bind(entered.clone(), Ty::Bool, Val::Scalar(v));
            for flag in direct_flags {
                self.set_flag(flag, false, loc)?;
            }
        }
        let hit_inside = self.any_flag(&inside_flags, loc)?;
        let mut flags = vec![
            VarKey::Break(sw.s),
            VarKey::Returned,
            match self.targets().continue_to {
                Some(l) => VarKey::Continue(l),
                None => VarKey::Returned,
            },
        ];
        flags.extend(sw.leaving.iter().map(|l| VarKey::Goto(*l)));
        // A goto pending to another label of the body skips the statement.
        flags.extend(sw.body_labels.iter().map(|l| VarKey::Goto(*l)));
        let stop = self.any_flag(&flags, loc)?;
        let running = self.not(stop, loc)?;
        let now = self.flag(&entered, loc)?;
        let run = self.b.insert_value(arith::andi(now, running, loc))?;
        let mut carried = self.assigned_in(std::slice::from_ref(stmt));
        if inside.is_empty() {
            return self.emit_guarded(run, &carried, |this| this.emit_stmt(stmt), loc);
        }
        // Entered at a label inside it (which clears the goto's flag), then on as a matched
        // case.
        let run = self.or(run, hit_inside, loc)?;
        carried.extend(inside_flags);
        self.emit_guarded(run, &carried, |this| this.emit_entering(stmt, &inside), loc)?;
        let now = self.flag(&entered, loc)?;
        let v = self.or(now, hit_inside, loc)?;
        self.bind(entered, Ty::Bool, Val::Scalar(v));
        Ok(())
    }

    fn compare_eq(&self, a: Value<'c>, b: Value<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        self.b.cmpi(CmpiPredicate::Eq, a, b, loc)
    }

    /// `do body while (cond);`: the body and the condition both run in scf.while's "before" region.
    /// `do body while (cond);`; `entering`: the labels in its body a taken `goto` jumps to.
    fn emit_do(&mut self, s: &Cursor, entering: &[Cursor]) -> Result<()> {
        let children = s.children();
        let [body, cond] = children.as_slice() else {
            return Err(FrontendError::unsupported(s.location(), "do statement"));
        };
        let loc = self.loc(s);
        let j = jumps_of_loop_body(body);
        if j.breaks {
            self.set_flag(VarKey::Break(*s), false, loc)?;
        }
        self.targets.push(*s);
        let mut carried = self.assigned_in(&[*body, *cond]);
        for label in entering {
            let flag = VarKey::Goto(*label);
            if !carried.contains(&flag) {
                carried.push(flag);
            }
        }
        let stop_flags = loop_stop_flags(s, &j);
        let unroll = self.loop_unroll_of(s);
        let result = self.emit_repeat(
            *s,
            super::analysis::holds_loop(body),
            &carried,
            unroll,
            |this| {
                if j.continues {
                    this.set_flag(VarKey::Continue(*s), false, loc)?;
                }
                this.block(|this| this.emit_substatement(body, entering))?;
                this.loop_condition(Some(cond), &stop_flags, loc)
            },
            loc,
        );
        self.targets.pop();
        result
    }

    /// The loop hint on the loop statement `s`, taken (a loop nested in its body has its own).
    fn loop_unroll_of(&mut self, s: &Cursor) -> Option<hipmlir_ir::LoopUnroll> {
        match self.loop_unroll.take() {
            Some((at, unroll)) if at == *s => Some(unroll),
            _ => None,
        }
    }

    /// The loop condition, evaluated only while no `break` or `return` has run.
    fn loop_condition(
        &mut self,
        cond: Option<&Cursor>,
        stop_flags: &[VarKey],
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let live_flags = self.live(stop_flags);
        let Some(cond) = cond else {
            let stop = self.any_flag(&live_flags, loc)?;
            return self.not(stop, loc);
        };
        if live_flags.is_empty() {
            return self.full_expression(|this| this.condition(cond));
        }
        let stop = self.any_flag(&live_flags, loc)?;
        let running = self.not(stop, loc)?;
        let i1 = Ty::Bool.value_mlir(self.ctx());
        let carried = assigned_vars(cond, self.targets());
        let out = self.emit_if(
            running,
            &carried,
            &[i1],
            |this| Ok(vec![this.full_expression(|this| this.condition(cond))?]),
            |this| Ok(vec![this.b.const_bool(false, loc)?]),
            loc,
        )?;
        Ok(out[0])
    }

    /// A condition converted to `i1` as C converts to bool.
    pub fn condition(&mut self, e: &Cursor) -> Result<Value<'c>> {
        Ok(self.rvalue_as(e, &Ty::Bool)?.scalar())
    }
}

/// Whether a variable is const all the way down (`const int`, `const float[4]`).
fn is_const_object(decl: &Cursor) -> bool {
    // Clang keeps an array's `const` on the array type or on its elements.
    let mut ty = decl.ty().canonical();
    while matches!(ty.kind(), CXType_ConstantArray | CXType_IncompleteArray) && !ty.is_const() {
        ty = ty.element().canonical();
    }
    ty.is_const()
}

/// What the statements of a switch's body are emitted with.
struct SwitchState<'c> {
    s: Cursor,
    /// The condition's value.
    value: Value<'c>,
    /// Whether the case dispatch applies (None: always; false when a goto entered the body).
    dispatch: Option<Value<'c>>,
    /// Whether the default label matches.
    no_case: Value<'c>,
    /// The labels outside the switch that gotos in its body jump to.
    leaving: Vec<Cursor>,
    body_labels: Vec<Cursor>,
    /// The labels in the body a goto from outside jumps to.
    entering: Vec<Cursor>,
    /// The body's statements (between its case labels).
    stmts: Vec<Cursor>,
}

impl SwitchState<'_> {
    /// The labels in `stmt` (one of the body's) that gotos jump to from outside it (from
    /// another statement of the body, or from outside the switch), and its own labels that
    /// gotos in it jump back to.
    fn jumped_to(&self, stmt: &Cursor) -> Vec<Cursor> {
        let mut targets = self.entering.clone();
        for other in self.stmts.iter().filter(|o| *o != stmt) {
            targets.extend(super::analysis::goto_targets(other));
        }
        targets.extend(super::analysis::label_chain(stmt));
        super::analysis::entered_by(stmt, &targets)
    }
}

/// Where a goto among a switch's statements jumps back to the statement `items[at]` (to a
/// label of the statement itself, from itself or later; to one inside it, from later): the
/// index of the last item of the loop that makes, which takes in every later goto back to
/// a statement of it, and the labels of its statements.
fn switch_back_segment(items: &[SwitchItem], at: usize) -> Option<(usize, Vec<Cursor>)> {
    let SwitchItem::Stmt(first) = items.get(at)? else {
        return None;
    };
    let stmt_at = |i: usize| match items.get(i) {
        Some(SwitchItem::Stmt(stmt)) => Some(*stmt),
        _ => None,
    };
    // The last item at or after `from` holding a goto to one of `labels`.
    let last_goto = |labels: &[Cursor], from: usize| {
        (from..items.len())
            .rev()
            .find(|i| stmt_at(*i).is_some_and(|s| labels.iter().any(|l| jumps_to(&s, l))))
    };
    let own = super::analysis::label_chain(first);
    let inner: Vec<Cursor> = super::analysis::labels_in(first)
        .into_iter()
        .filter(|l| !own.contains(l))
        .collect();
    let mut last = last_goto(&own, at).max(last_goto(&inner, at + 1))?;
    let mut labels = super::analysis::labels_in(first);
    let mut seen = at;
    while seen < last {
        seen += 1;
        if let Some(stmt) = stmt_at(seen) {
            let more = super::analysis::labels_in(&stmt);
            last = last.max(last_goto(&more, seen + 1).unwrap_or(last));
            labels.extend(more);
        }
    }
    Some((last, labels))
}

/// A switch body as a flat list: labels and the statements between them.
enum SwitchItem {
    Case(i64),
    Default,
    Stmt(Cursor),
}

fn flatten_labels(stmt: &Cursor, out: &mut Vec<SwitchItem>) -> Result<()> {
    match stmt.kind() {
        CXCursor_CaseStmt => {
            let children = stmt.children();
            let [value, inner] = children.as_slice() else {
                return Err(FrontendError::unsupported(stmt.location(), "case range"));
            };
            let Some(ConstValue::Int(v)) = value.evaluate() else {
                return Err(FrontendError::unsupported(
                    value.location(),
                    "non-constant case",
                ));
            };
            out.push(SwitchItem::Case(v as i64));
            flatten_labels(inner, out)
        }
        CXCursor_DefaultStmt => {
            out.push(SwitchItem::Default);
            match stmt.children().as_slice() {
                [inner] => flatten_labels(inner, out),
                _ => Ok(()),
            }
        }
        _ => {
            out.push(SwitchItem::Stmt(*stmt));
            Ok(())
        }
    }
}

/// Whether a switch body contains a `break` of the switch itself.
/// The variables declared by the statements of `skipped` (the declarations a goto may jump
/// over) that `after` uses.
fn bypassed_variables(skipped: &[Cursor], after: &[Cursor]) -> Vec<Cursor> {
    fn uses(c: &Cursor, var: &Cursor) -> bool {
        (c.kind() == CXCursor_DeclRefExpr && c.referenced().is_some_and(|d| d.canonical() == *var))
            || c.children().iter().any(|child| uses(child, var))
    }
    skipped
        .iter()
        .filter(|s| s.kind() == CXCursor_DeclStmt)
        .flat_map(|s| s.children())
        .filter(|d| d.kind() == CXCursor_VarDecl)
        .filter(|d| after.iter().any(|a| uses(a, &d.canonical())))
        .collect()
}

/// A loop a backward `goto` makes of `stmts[at..=last]`.
struct BackSegment {
    last: usize,
    /// The labels jumped back to.
    labels: Vec<Cursor>,
    /// Whether they are inside `stmts[at]` (a block or `if` holding them), which each round
    /// enters, rather than its own.
    nested: bool,
}

/// When `stmts[at]` has a label that a `goto` in `stmts[at..]` jumps back to, or holds labels
/// (in blocks and `if`s) that gotos of later statements jump back into, or that gotos inside it
/// jump to across it: the segment.
fn backward_goto_segment(stmts: &[Cursor], at: usize) -> Option<BackSegment> {
    let first = stmts.get(at)?;
    let own = super::analysis::label_chain(first);
    // Labels jumped to across `stmts[at]` itself (from one branch of an `if` into the other):
    // the statement runs again, entered at the label.
    let crossing = super::analysis::crossing_gotos(first);
    let last_goto = |key: &Cursor, from: usize| {
        stmts
            .iter()
            .enumerate()
            .skip(from)
            .rfind(|(_, s)| jumps_to(s, key))
            .map(|(i, _)| i)
    };
    if let Some((last, key)) = own
        .iter()
        .filter(|_| crossing.is_empty())
        .find_map(|key| last_goto(key, at).map(|i| (i, *key)))
    {
        return Some(BackSegment {
            last,
            labels: vec![key],
            nested: false,
        });
    }
    // Its own labels among them, once it is entered at labels inside it.
    let mut last = (!crossing.is_empty()).then_some(at);
    let mut labels = crossing;
    for key in super::analysis::labels_in(first) {
        let from = if own.contains(&key) { at } else { at + 1 };
        if let Some(i) = last_goto(&key, from) {
            if !labels.contains(&key) {
                labels.push(key);
            }
            last = last.max(Some(i));
        }
    }
    Some(BackSegment {
        last: last?,
        labels,
        nested: true,
    })
}

/// Whether a `goto` to `label` is in `c`.
fn jumps_to(c: &Cursor, label: &Cursor) -> bool {
    (c.kind() == CXCursor_GotoStmt && super::analysis::goto_target(c).as_ref() == Some(label))
        || c.children().iter().any(|child| jumps_to(child, label))
}

/// The flags that end a loop: a `return`, its `break`, a `goto` leaving its body.
fn loop_stop_flags(s: &Cursor, body_jumps: &Jumps) -> Vec<VarKey> {
    let mut flags = vec![VarKey::Returned, VarKey::Break(*s)];
    flags.extend(body_jumps.gotos.iter().map(|l| VarKey::Goto(*l)));
    flags
}

fn jumps_in_switch(body: &Cursor) -> bool {
    jumps(body).breaks
}

/// The jumps inside a loop body that belong to the loop itself.
fn jumps_of_loop_body(body: &Cursor) -> Jumps {
    jumps(body)
}

fn count_returns(c: &Cursor) -> usize {
    usize::from(c.kind() == CXCursor_ReturnStmt)
        + c.children().iter().map(count_returns).sum::<usize>()
}

/// The parts of an `if` statement.
struct IfParts {
    /// `if (init; ...)` and `if (T x = ...)`: run before the condition, in order.
    before: Vec<Cursor>,
    cond: Cursor,
    then: Cursor,
    otherwise: Option<Cursor>,
}

fn if_parts(s: &Cursor) -> Result<IfParts> {
    let unreadable = || FrontendError::unsupported(s.location(), "if statement of this form");
    let parts = s.if_parts().ok_or_else(unreadable)?;
    Ok(IfParts {
        before: parts
            .init
            .into_iter()
            .chain(parts.condition_variable)
            .collect(),
        cond: parts.cond,
        then: parts.then,
        otherwise: parts.otherwise,
    })
}

/// What a loop declares at the start of each iteration: the variable, and for a condition
/// variable the test that ends the loop when it fails.
struct PerIteration<'a> {
    var: &'a Cursor,
    test: Option<&'a Cursor>,
}

/// Initializers of local arrays are written element by element up to this many elements.
const MAX_UNROLLED_ELEMENTS: u64 = 4096;

/// The constructor call an initializer is, looking through the wrappers libclang shows.
pub(super) fn constructor_call(e: &Cursor) -> Option<Cursor> {
    match e.kind() {
        CXCursor_CallExpr
            if e.referenced()
                .is_some_and(|c| c.kind() == CXCursor_Constructor) =>
        {
            Some(*e)
        }
        CXCursor_UnexposedExpr => match e.children().as_slice() {
            [only] => constructor_call(only),
            _ => None,
        },
        _ => None,
    }
}

/// The braced list an initializer is, looking through the wrappers libclang shows around it.
pub(super) fn init_list(e: &Cursor) -> Option<Cursor> {
    match e.kind() {
        CXCursor_InitListExpr => Some(*e),
        CXCursor_UnexposedExpr => match e.children().as_slice() {
            [only] => init_list(only),
            _ => None,
        },
        _ => None,
    }
}

/// The error for a declaration in a function body that device code cannot hold, named as C++
/// names it (libclang shows many kinds only as unexposed declarations).
fn unsupported_local_declaration(decl: &Cursor) -> FrontendError {
    let what = match decl.unexposed_declaration() {
        Some(UnexposedDeclaration::StructuredBinding) => {
            "a structured binding whose bindings clang did not resolve"
        }
        Some(UnexposedDeclaration::Directive) => "an OpenMP or OpenACC declaration",
        _ => match decl.kind() {
            CXCursor_FunctionTemplate | CXCursor_ClassTemplate => "a template in a function body",
            _ => "this kind of declaration in a function body",
        },
    };
    FrontendError::unsupported(decl.location(), what)
}

/// The unnamed object of an anonymous struct or union declared in a function: the variable
/// that the function's uses of its members refer to (none when no member is used).
fn anonymous_object(record: &Cursor) -> Option<Cursor> {
    fn find(c: &Cursor, record: &Cursor) -> Option<Cursor> {
        if c.kind() == CXCursor_DeclRefExpr {
            if let Some(v) = c
                .referenced()
                .filter(|v| v.kind() == CXCursor_VarDecl && v.ty().declaration() == *record)
            {
                return Some(v);
            }
        }
        c.children().iter().find_map(|child| find(child, record))
    }
    find(&record.semantic_parent()?, record)
}
