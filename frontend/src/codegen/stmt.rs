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
use crate::clang::{ConstValue, Cursor, ForParts};
use crate::error::{FrontendError, Result};
use crate::types::Ty;

impl<'c> FunctionCodegen<'c, '_> {
    /// Emits a function body; returns the value `func.return` should return.
    pub fn emit_body(&mut self, body: &Cursor) -> Result<Val<'c>> {
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

    /// Emits a statement list; once a statement may have jumped, the rest runs under a guard.
    pub fn emit_stmts(&mut self, stmts: &[Cursor]) -> Result<()> {
        for (i, stmt) in stmts.iter().enumerate() {
            self.emit_stmt(stmt)?;
            let rest = &stmts[i + 1..];
            let j = jumps(stmt);
            if j.any() && !rest.is_empty() {
                let loc = self.loc(&rest[0]);
                let running = self.still_running(j, loc)?;
                let carried = self.assigned_in(rest);
                // The rest of the block is a scope of its own: what it builds is destroyed
                // inside the guard, before what the statements above built.
                return self.emit_guarded(
                    running,
                    &carried,
                    |this| this.block(|this| this.emit_stmts(rest)),
                    loc,
                );
            }
        }
        Ok(())
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
    fn still_running(&mut self, j: Jumps, loc: Location<'c>) -> Result<Value<'c>> {
        let mut flags = Vec::new();
        if j.returns {
            flags.push(VarKey::Returned);
        }
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
            CXCursor_ForStmt => self.emit_for(s),
            CXCursor_CXXForRangeStmt => self.emit_range_for(s),
            CXCursor_WhileStmt => {
                let children = s.children();
                let [cond, body] = children.as_slice() else {
                    return Err(FrontendError::unsupported(
                        s.location(),
                        "while loop with a condition variable",
                    ));
                };
                self.emit_loop(s, Some(cond), None, body)
            }
            CXCursor_DoStmt => self.emit_do(s),
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
            CXCursor_SwitchStmt => self.emit_switch(s),
            // `#pragma unroll` and attributes wrap the statement they apply to: accepted, and the
            // loop is left to the device compiler's own unrolling.
            CXCursor_UnexposedStmt => match s.children().as_slice() {
                [inner] if !inner.is_expression() => self.emit_stmt(inner),
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
            CXCursor_VarDecl => {}
            // Local type declarations need no code.
            CXCursor_StructDecl
            | CXCursor_ClassDecl
            | CXCursor_TypedefDecl
            | CXCursor_TypeAliasDecl
            | CXCursor_EnumDecl => return Ok(()),
            _ => {
                return Err(FrontendError::unsupported(
                    decl.location(),
                    format!("declaration '{}' in a function body", decl.kind_name()),
                ))
            }
        }
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
        let ty = Ty::of(decl)?;
        if decl.ty().is_reference() {
            let Some(init) = init else {
                return Err(FrontendError::single(
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
            return Err(FrontendError::single(
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
            Ty::Record(r) => r
                .fields
                .iter()
                .map(|f| {
                    (
                        f.ty.clone(),
                        vec![GepIndex::Dynamic(zero), GepIndex::Field(f.llvm_index)],
                    )
                })
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
            let c = this.full_expression(|this| this.condition(&cond))?;
            let branches: Vec<Cursor> = std::iter::once(then).chain(otherwise).collect();
            let carried = this.assigned_in(&branches);
            this.emit_if(
                c,
                &carried,
                &[],
                |this| this.block(|this| this.emit_stmt(&then)).map(|()| vec![]),
                |this| match otherwise {
                    Some(e) => this.block(|this| this.emit_stmt(&e)).map(|()| vec![]),
                    None => Ok(vec![]),
                },
                loc,
            )?;
            Ok(())
        })
    }

    fn emit_for(&mut self, s: &Cursor) -> Result<()> {
        let (ForHeader { init, cond, inc }, body) = for_header(s)?;
        // What the init-statement declares lives until the loop ends.
        self.block(|this| {
            if let Some(init) = init {
                this.emit_stmt(&init)?;
            }
            this.emit_loop(s, cond.as_ref(), inc.as_ref(), &body)
        })
    }

    /// `for (T x : array) body` over a C array, as C++ defines it: a hidden pointer `__begin`
    /// walks the array to its end and `x` is initialized from `*__begin` each time round. Clang
    /// names `__begin` in `x`'s initializer; it is bound here and carried by the loop.
    fn emit_range_for(&mut self, s: &Cursor) -> Result<()> {
        // A temporary the range is bound to lives until the loop ends.
        self.block(|this| this.emit_range_for_in_scope(s))
    }

    fn emit_range_for_in_scope(&mut self, s: &Cursor) -> Result<()> {
        let loc = self.loc(s);
        let children = s.children();
        let [var, range, body] = children.as_slice() else {
            return Err(FrontendError::unsupported(
                s.location(),
                "range-based for statement with an init-statement",
            ));
        };
        let Some(begin) = s.range_for_begin_variable() else {
            return Err(internal(loc, "range-based for without its begin variable"));
        };
        let (start, end, element) = self.range_bounds(range, &begin)?;
        let end = self.ptr_to_int(end, loc)?;
        let begin_key = VarKey::Decl(begin.canonical());
        let pointer = Ty::Pointer {
            pointee: Box::new(element.clone()),
        };
        let i64t = Ty::LONG.value_mlir(self.ctx());
        self.bind(begin_key.clone(), pointer.clone(), Val::Scalar(start));

        let j = jumps_of_loop_body(body);
        if j.breaks {
            self.set_flag(VarKey::Break(*s), false, loc)?;
        }
        self.targets.push(*s);
        let mut carried = self.assigned_in(&[*body]);
        carried.push(begin_key.clone());
        let stop_flags = [VarKey::Returned, VarKey::Break(*s)];
        let result = self.emit_while(
            &carried,
            |this| {
                let stop = this.any_flag(&this.live(&stop_flags), loc)?;
                let running = this.not(stop, loc)?;
                let at = this.env[&begin_key].val.scalar();
                let at = this.ptr_to_int(at, loc)?;
                let more = this.b.cmpi(CmpiPredicate::Ne, at, end, loc)?;
                this.b.insert_value(arith::andi(running, more, loc))
            },
            |this| {
                if j.continues {
                    this.set_flag(VarKey::Continue(*s), false, loc)?;
                }
                // The loop variable lives for one iteration.
                this.block(|this| {
                    this.emit_local_decl(var)?;
                    this.emit_stmt(body)
                })?;
                // After a `break` or `return` the condition ends the loop before `__begin` is read.
                let at = this.env[&begin_key].val.scalar();
                let one = this.b.const_int(i64t, 1, loc)?;
                let next = this.gep(at, &element, &[GepIndex::Dynamic(one)], loc)?;
                this.bind(begin_key.clone(), pointer.clone(), Val::Scalar(next));
                Ok(())
            },
            loc,
        );
        self.targets.pop();
        result
    }

    /// The first and one-past-the-last element pointers of a range-based for's range, and the
    /// element type: a C array, or an object whose `begin()` and `end()` return pointers (a
    /// span class). libclang shows no members of a class template's instances, so their `end()`
    /// cannot be found: those are refused.
    fn range_bounds(
        &mut self,
        range: &Cursor,
        begin_var: &Cursor,
    ) -> Result<(Value<'c>, Value<'c>, Ty)> {
        let loc = self.loc(range);
        let range_ty = range.ty().canonical();
        if range_ty.kind() == CXType_ConstantArray {
            let element = Ty::from_clang(range_ty.element(), &range.location())?;
            let start = self.address_of(range)?.scalar();
            let i64t = Ty::LONG.value_mlir(self.ctx());
            let len = self.b.const_int(i64t, range_ty.array_len(), loc)?;
            let end = self.gep(start, &element, &[GepIndex::Dynamic(len)], loc)?;
            return Ok((start, end, element));
        }
        let unsupported = || {
            FrontendError::unsupported(
                range.location(),
                format!(
                    "range-based for over '{}' (arrays, and classes that are not template \
                     instances whose begin() and end() return pointers, are supported in device \
                     code)",
                    range.ty().spelling()
                ),
            )
        };
        // Clang's hidden `__begin = __range.begin()` names the member it chose (the instance, for
        // a class template); `end` is its sibling with the same constness.
        let begin = begin_var
            .var_initializer()
            .map(|init| init.without_implicit())
            .filter(|call| call.kind() == CXCursor_CallExpr)
            .and_then(|call| call.referenced())
            .filter(|m| m.kind() == CXCursor_CXXMethod && m.arguments().is_empty())
            .ok_or_else(unsupported)?;
        let end = begin
            .semantic_parent()
            .into_iter()
            .chain(Some(range_ty.declaration()))
            .flat_map(|class| class.children())
            .find(|m| {
                m.kind() == CXCursor_CXXMethod
                    && m.spelling() == "end"
                    && m.arguments().is_empty()
                    && m.is_const_method() == begin.is_const_method()
            })
            .ok_or_else(unsupported)?;
        let iterator = begin_var.ty().canonical();
        if iterator.kind() != CXType_Pointer
            || end.result_type().canonical().kind() != CXType_Pointer
        {
            return Err(unsupported());
        }
        let element = Ty::from_clang(iterator.pointee(), &range.location())?;
        let object = self.address_of(range)?.scalar();
        let start = self
            .call_function(&begin, Some(object), &[], range)?
            .scalar();
        let end = self.call_function(&end, Some(object), &[], range)?.scalar();
        Ok((start, end, element))
    }

    /// `while (cond) { body; inc; }` as scf.while; `break`, `continue` and `return` inside set flags.
    fn emit_loop(
        &mut self,
        s: &Cursor,
        cond: Option<&Cursor>,
        inc: Option<&Cursor>,
        body: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(s);
        let j = jumps_of_loop_body(body);
        if j.breaks {
            self.set_flag(VarKey::Break(*s), false, loc)?;
        }
        self.targets.push(*s);
        let mut parts: Vec<Cursor> = vec![*body];
        parts.extend(cond.copied());
        parts.extend(inc.copied());
        let carried = self.assigned_in(&parts);
        let stop_flags = [VarKey::Returned, VarKey::Break(*s)];
        let result = self.emit_while(
            &carried,
            |this| this.loop_condition(cond, &stop_flags, loc),
            |this| {
                if j.continues {
                    this.set_flag(VarKey::Continue(*s), false, loc)?;
                }
                // Each iteration is a scope: what the body builds is destroyed before the next.
                this.block(|this| this.emit_stmt(body))?;
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
    fn emit_switch(&mut self, s: &Cursor) -> Result<()> {
        let loc = self.loc(s);
        let children = s.children();
        let Some((body, [cond])) = children.split_last() else {
            return Err(FrontendError::unsupported(
                s.location(),
                "switch with an initializer or condition variable",
            ));
        };
        let cond_ty = promote(&Ty::of(cond)?);
        let value = self
            .full_expression(|this| this.rvalue_as(cond, &cond_ty))?
            .scalar();
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
        let no_case = self.not(any_case, loc)?;

        let entered = VarKey::SwitchEntered(*s);
        self.set_flag(entered.clone(), false, loc)?;
        if jumps_in_switch(body) {
            self.set_flag(VarKey::Break(*s), false, loc)?;
        }
        self.targets.push(*s);
        // The body is one scope: what a statement under a label builds is destroyed at its
        // end, if that statement ran.
        let result = self.block(|this| {
            for item in &items {
                match item {
                    SwitchItem::Case(c) => {
                        let cv = this.b.const_int(value.r#type(), *c, loc)?;
                        let eq = this.compare_eq(value, cv, loc)?;
                        let now = this.flag(&entered, loc)?;
                        let v = this.or(now, eq, loc)?;
                        this.bind(entered.clone(), Ty::Bool, Val::Scalar(v));
                    }
                    SwitchItem::Default => {
                        let now = this.flag(&entered, loc)?;
                        let v = this.or(now, no_case, loc)?;
                        this.bind(entered.clone(), Ty::Bool, Val::Scalar(v));
                    }
                    SwitchItem::Stmt(stmt) => {
                        let stop = this.any_flag(
                            &[
                                VarKey::Break(*s),
                                VarKey::Returned,
                                match this.targets().continue_to {
                                    Some(l) => VarKey::Continue(l),
                                    None => VarKey::Returned,
                                },
                            ],
                            loc,
                        )?;
                        let running = this.not(stop, loc)?;
                        let now = this.flag(&entered, loc)?;
                        let run = this.b.insert_value(arith::andi(now, running, loc))?;
                        let carried = this.assigned_in(std::slice::from_ref(stmt));
                        this.emit_guarded(run, &carried, |this| this.emit_stmt(stmt), loc)?;
                    }
                }
            }
            Ok(())
        });
        self.targets.pop();
        result
    }

    fn compare_eq(&self, a: Value<'c>, b: Value<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        self.b.cmpi(CmpiPredicate::Eq, a, b, loc)
    }

    /// `do body while (cond);`: the body and the condition both run in scf.while's "before" region.
    fn emit_do(&mut self, s: &Cursor) -> Result<()> {
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
        let carried = self.assigned_in(&[*body, *cond]);
        let stop_flags = [VarKey::Returned, VarKey::Break(*s)];
        let result = self.emit_while(
            &carried,
            |this| {
                if j.continues {
                    this.set_flag(VarKey::Continue(*s), false, loc)?;
                }
                this.block(|this| this.emit_stmt(body))?;
                this.loop_condition(Some(cond), &stop_flags, loc)
            },
            |_| Ok(()),
            loc,
        );
        self.targets.pop();
        result
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

/// The parts of a `for` header.
struct ForHeader {
    init: Option<Cursor>,
    cond: Option<Cursor>,
    inc: Option<Cursor>,
}

fn for_header(s: &Cursor) -> Result<(ForHeader, Cursor)> {
    let Some(parts) = s.for_parts() else {
        return Err(FrontendError::unsupported(
            s.location(),
            "for statement of this form",
        ));
    };
    let ForParts {
        init,
        condition_variable,
        cond,
        inc,
        body,
    } = parts;
    if let Some(var) = condition_variable {
        return Err(FrontendError::unsupported(
            var.location(),
            "for loop with a condition variable",
        ));
    }
    Ok((ForHeader { init, cond, inc }, body))
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
