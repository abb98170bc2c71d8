//! What a statement may change: the local variables it assigns and the jumps it may take.
//!
//! The codegen keeps locals as SSA values and emits structured control flow (scf.if, scf.while),
//! so every region must yield the variables it changes. `return`, `break` and `continue` are
//! turned into flag variables (as Polygeist does) that later statements are guarded by.

use clang_sys::*;

use crate::clang::Cursor;

/// A variable the codegen tracks: a C local, or one of the jump flags.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum VarKey {
    Decl(Cursor),
    /// A member function's object pointer.
    This,
    /// Set once a `return` ran; everything after it is skipped.
    Returned,
    /// The value a `return` produced.
    RetVal,
    /// Set once `break` ran in the given loop.
    Break(Cursor),
    /// Set once `continue` ran in the current iteration of the given loop.
    Continue(Cursor),
    /// Set once control reached a case label of the given switch (and falls through).
    SwitchEntered(Cursor),
    /// Set once a `goto` to the given label ran, until control reaches the label.
    Goto(Cursor),
    /// Set while the loop of the given statement (a `do` loop, a label a `goto` jumps back to)
    /// runs another round (see `FunctionCodegen::emit_repeat`).
    Repeat(Cursor),
}

/// The jumps a statement may take out of itself.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Jumps {
    pub returns: bool,
    pub breaks: bool,
    pub continues: bool,
    /// The labels of `goto`s leaving it (each once).
    pub gotos: Vec<Cursor>,
}

impl Jumps {
    pub fn any(&self) -> bool {
        self.returns || self.breaks || self.continues || !self.gotos.is_empty()
    }

    /// Both sets of jumps.
    pub fn union(mut self, other: &Jumps) -> Jumps {
        self.returns |= other.returns;
        self.breaks |= other.breaks;
        self.continues |= other.continues;
        for label in &other.gotos {
            if !self.gotos.contains(label) {
                self.gotos.push(*label);
            }
        }
        self
    }
}

/// The labels of a statement of a list (`L1: L2: s` has two), as keys.
pub fn label_chain(s: &Cursor) -> Vec<Cursor> {
    let mut out = Vec::new();
    let mut at = *s;
    while at.kind() == CXCursor_LabelStmt {
        out.push(at.statement_key());
        match at.children().first() {
            Some(child) => at = *child,
            None => break,
        }
    }
    out
}

/// The statement under a statement's labels.
pub fn labeled_statement(s: &Cursor) -> Option<Cursor> {
    let mut at = *s;
    while at.kind() == CXCursor_LabelStmt {
        at = *at.children().first()?;
    }
    Some(at)
}

/// The label statement a `goto` jumps to.
pub fn goto_target(goto: &Cursor) -> Option<Cursor> {
    goto.children()
        .iter()
        .find(|c| c.kind() == CXCursor_LabelRef)
        .and_then(|r| r.referenced())
        .map(|l| l.statement_key())
}

/// Checks that every `goto` in a function body jumps to a label that structured control flow
/// reaches with flags: a label of a statement list that encloses the `goto` (out of blocks and
/// loops, ahead in its own list, or back to a label of that list, which makes a loop), or a
/// label inside blocks, `if` statements, loops and `switch`es of such a list (the jump enters
/// them; see [`entered_by`]), the statement holding the `goto` among them. A `goto` into a
/// statement whose condition declares a variable (which clang refuses too: such a variable
/// always has an initializer) or into any other statement is refused, naming the label.
pub fn check_gotos(body: &Cursor) -> Result<(), (Cursor, String)> {
    // Each label with the statements around it (innermost last); each goto with the lists
    // and the statements around it.
    struct Walk {
        path: Vec<Cursor>,
        lists: Vec<Cursor>,
        labels: Vec<(Cursor, Vec<Cursor>)>,
        gotos: Vec<(Cursor, Vec<Cursor>, Vec<Cursor>)>,
    }
    fn walk(c: &Cursor, w: &mut Walk) {
        match c.kind() {
            CXCursor_LabelStmt => w.labels.push((c.statement_key(), w.path.clone())),
            CXCursor_GotoStmt => w.gotos.push((*c, w.lists.clone(), w.path.clone())),
            _ => {}
        }
        let is_list = c.kind() == CXCursor_CompoundStmt;
        if is_list {
            w.lists.push(c.statement_key());
        }
        w.path.push(c.statement_key());
        for child in c.children() {
            walk(&child, w);
        }
        w.path.pop();
        if is_list {
            w.lists.pop();
        }
    }
    let mut w = Walk {
        path: Vec::new(),
        lists: Vec::new(),
        labels: Vec::new(),
        gotos: Vec::new(),
    };
    walk(body, &mut w);
    for (goto, lists, goto_path) in &w.gotos {
        let Some(label) = goto_target(goto) else {
            return Err((*goto, "goto without a label".into()));
        };
        let name = label.spelling();
        let Some((_, path)) = w.labels.iter().find(|(l, _)| *l == label) else {
            return Err((
                *goto,
                format!("goto to label '{name}' outside the function"),
            ));
        };
        // The innermost list around the goto that also holds the label, and what lies between
        // that list and the label.
        let Some(common) = lists.iter().rev().find(|l| path.contains(l)) else {
            return Err((
                *goto,
                format!("goto to label '{name}' outside its statements"),
            ));
        };
        let below = &path[path.iter().position(|p| p == common).unwrap_or(0) + 1..];
        // Directly in the list (possibly under other labels, case labels among them): a jump
        // out, ahead or back.
        let in_list = below.iter().all(is_label);
        if in_list {
            continue;
        }
        // Across a statement, what its head declares is in scope at both ends and keeps its
        // value; running the statement again would declare it afresh.
        let goto_statement = goto_path
            .iter()
            .position(|p| p == common)
            .and_then(|i| goto_path.get(i + 1));
        // Unless the statement holding both ends (an `if`, with its labels) is the body of a
        // loop or a branch of an `if`: that body is a list of its own (stmt.rs,
        // `emit_substatement`), which runs only that statement again, below the heads.
        let mut crossed = below
            .iter()
            .rposition(|p| goto_path.contains(p))
            .unwrap_or(0);
        while crossed > 0 && is_label(&below[crossed - 1]) {
            crossed -= 1;
        }
        let own_list = crossed > 0 && holds_substatement(&below[crossed - 1]);
        let rerun = if own_list { &below[crossed..] } else { below };
        // Into a statement of the list (a block, `if`, loop or switch holding the label): ahead,
        // the jump enters it; back, a loop from that statement to the goto's enters it; from
        // inside that statement itself (an `if`'s other branch), a loop of that statement
        // alone (see [`crossing_gotos`]; stmt.rs).
        if let Some(what) = rerun.iter().find_map(not_enterable) {
            return Err((
                *goto,
                format!("goto jumping into {what} holding label '{name}'"),
            ));
        }
        if goto_statement == below.first() && rerun.iter().any(head_declares) {
            return Err((
                *goto,
                format!("goto to label '{name}' across a statement whose head declares a variable"),
            ));
        }
    }
    Ok(())
}

/// The labels inside statement `s` that `goto`s inside `s` jump to across it: no block inside
/// `s` (`s` included) holds both the goto and its label, as when one branch of an `if` jumps
/// into the other, so no statement list inside `s` resolves the jump and the list holding `s`
/// must (by running `s` again, entered at the label). Each label once; `s`'s own labels are
/// not among them (a jump to one is a loop of the list).
pub fn crossing_gotos(s: &Cursor) -> Vec<Cursor> {
    /// Labels and gotos' targets with the blocks around each (inside `s`).
    #[derive(Default)]
    struct Walk {
        blocks: Vec<Cursor>,
        labels: Vec<(Cursor, Vec<Cursor>)>,
        gotos: Vec<(Cursor, Vec<Cursor>)>,
    }
    /// `substatement`: `c` is (the labeled statement under the labels of) a loop's body or an
    /// `if`'s branch, which resolves the jumps crossing it as a list (stmt.rs,
    /// `emit_substatement`).
    fn walk(c: &Cursor, substatement: bool, w: &mut Walk) {
        match c.kind() {
            CXCursor_LabelStmt => w.labels.push((c.statement_key(), w.blocks.clone())),
            CXCursor_GotoStmt => {
                if let Some(label) = goto_target(c) {
                    w.gotos.push((label, w.blocks.clone()));
                }
            }
            _ => {}
        }
        let is_block = c.kind() == CXCursor_CompoundStmt || (substatement && !is_label(c));
        if is_block {
            w.blocks.push(c.statement_key());
        }
        let subs = substatements(c);
        for child in c.children() {
            let sub = subs.contains(&child) || (substatement && is_label(c));
            walk(&child, sub, w);
        }
        if is_block {
            w.blocks.pop();
        }
    }
    let mut w = Walk::default();
    walk(s, false, &mut w);
    let own = label_chain(s);
    let mut out = Vec::new();
    for (label, around_goto) in w.gotos.iter().filter(|(l, _)| !own.contains(l)) {
        let Some((_, around_label)) = w.labels.iter().find(|(l, _)| l == label) else {
            continue;
        };
        if !around_goto.iter().any(|b| around_label.contains(b)) && !out.contains(label) {
            out.push(*label);
        }
    }
    out
}

/// Whether `p`'s sub-statements are emitted as lists of their own when gotos cross them
/// (stmt.rs, `emit_substatement`): loops' bodies and `if`s' branches.
fn holds_substatement(p: &Cursor) -> bool {
    matches!(
        p.kind(),
        CXCursor_IfStmt
            | CXCursor_ForStmt
            | CXCursor_WhileStmt
            | CXCursor_DoStmt
            | CXCursor_CXXForRangeStmt
    )
}

/// The sub-statements of `p` that [`holds_substatement`] means: a loop's body, an `if`'s
/// branches.
fn substatements(p: &Cursor) -> Vec<Cursor> {
    let children = p.children();
    match p.kind() {
        CXCursor_IfStmt => p
            .if_parts()
            .map(|parts| std::iter::once(parts.then).chain(parts.otherwise).collect())
            .unwrap_or_default(),
        CXCursor_DoStmt => children.first().copied().into_iter().collect(),
        CXCursor_ForStmt | CXCursor_WhileStmt | CXCursor_CXXForRangeStmt => {
            children.last().copied().into_iter().collect()
        }
        _ => Vec::new(),
    }
}

/// Whether `p` is a label of the statement under it: a named one or a `case`/`default`.
fn is_label(p: &Cursor) -> bool {
    matches!(
        p.kind(),
        CXCursor_LabelStmt | CXCursor_CaseStmt | CXCursor_DefaultStmt
    )
}

/// What a `goto` cannot enter, named for the error: None for blocks, `if`s, loops and
/// `switch`es (whose init-statement and first test, or condition and case dispatch, the jump
/// skips; clang refuses a jump past a declaration's initialization, a range-based for's among
/// them).
fn not_enterable(p: &Cursor) -> Option<&'static str> {
    match p.kind() {
        _ if is_label(p) => None,
        CXCursor_CompoundStmt | CXCursor_DoStmt => None,
        // A condition variable always has an initializer, which clang refuses to jump past;
        // an init-statement may declare variables without one (declared, not set, by a jump).
        CXCursor_IfStmt if has_if_condition_variable(p) => {
            Some("an if statement with a condition variable")
        }
        CXCursor_WhileStmt if p.children().len() != 2 => {
            Some("a while loop whose condition declares a variable")
        }
        CXCursor_ForStmt if has_for_condition_variable(p) => {
            Some("a for loop whose condition declares a variable")
        }
        CXCursor_IfStmt | CXCursor_WhileStmt | CXCursor_ForStmt => None,
        CXCursor_SwitchStmt if p.children().len() != 2 => {
            Some("a switch whose condition declares a variable")
        }
        CXCursor_SwitchStmt => None,
        _ => Some("this statement"),
    }
}

/// Whether statement `s` declares a variable in its head (an init-statement or condition of an
/// `if`, `switch` or loop), which lives until the statement ends.
fn head_declares(s: &Cursor) -> bool {
    let declares = |c: Option<Cursor>| c.is_some_and(|c| c.kind() == CXCursor_DeclStmt);
    match s.kind() {
        CXCursor_IfStmt => s
            .if_parts()
            .is_none_or(|p| declares(p.init) || p.condition_variable.is_some()),
        CXCursor_ForStmt => s
            .for_parts()
            .is_none_or(|p| declares(p.init) || p.condition_variable.is_some()),
        CXCursor_WhileStmt => s.children().len() != 2,
        CXCursor_SwitchStmt => s.children().len() != 2 || declares(s.switch_init()),
        _ => false,
    }
}

/// Whether a `for` statement declares a variable in its condition (which a jump into it would
/// bypass).
fn has_for_condition_variable(s: &Cursor) -> bool {
    s.for_parts().is_none_or(|p| p.condition_variable.is_some())
}

/// Whether an `if` statement declares a variable in its condition (which a jump into it would
/// bypass).
fn has_if_condition_variable(s: &Cursor) -> bool {
    s.if_parts().is_none_or(|p| p.condition_variable.is_some())
}

/// The labels the `goto`s in statement `s` jump to (each once).
pub fn goto_targets(s: &Cursor) -> Vec<Cursor> {
    fn walk(c: &Cursor, out: &mut Vec<Cursor>) {
        if let Some(label) = (c.kind() == CXCursor_GotoStmt)
            .then(|| goto_target(c))
            .flatten()
            .filter(|l| !out.contains(l))
        {
            out.push(label);
        }
        for child in c.children() {
            walk(&child, out);
        }
    }
    let mut out = Vec::new();
    walk(s, &mut out);
    out
}

/// Every label in statement `s`, its own included, at any depth.
pub fn labels_in(s: &Cursor) -> Vec<Cursor> {
    let mut out = Vec::new();
    fn walk(c: &Cursor, out: &mut Vec<Cursor>) {
        if c.kind() == CXCursor_LabelStmt {
            out.push(c.statement_key());
        }
        for child in c.children() {
            walk(&child, out);
        }
    }
    walk(s, &mut out);
    out
}

/// The labels inside statement `s` (at any depth) that a `goto` entering `s` may jump to, of
/// those in `labels`: the jump enters `s` (a block or `if` statement holding the label).
pub fn entered_by(s: &Cursor, labels: &[Cursor]) -> Vec<Cursor> {
    fn walk(c: &Cursor, labels: &[Cursor], out: &mut Vec<Cursor>) {
        if c.kind() == CXCursor_LabelStmt {
            let key = c.statement_key();
            if labels.contains(&key) && !out.contains(&key) {
                out.push(key);
            }
        }
        for child in c.children() {
            walk(&child, labels, out);
        }
    }
    let mut out = Vec::new();
    walk(s, labels, &mut out);
    out
}

/// Whether statement `c` is or holds a loop (at any depth).
pub fn holds_loop(c: &Cursor) -> bool {
    is_loop(c) || c.children().iter().any(holds_loop)
}

pub fn is_loop(c: &Cursor) -> bool {
    matches!(
        c.kind(),
        CXCursor_ForStmt | CXCursor_CXXForRangeStmt | CXCursor_WhileStmt | CXCursor_DoStmt
    )
}

/// What `break` and `continue` refer to at some point: the innermost loop or switch, and the
/// innermost loop.
#[derive(Debug, Clone, Copy, Default)]
pub struct Targets {
    pub break_to: Option<Cursor>,
    pub continue_to: Option<Cursor>,
}

impl Targets {
    /// The targets inside statement `c`.
    pub fn inside(self, c: &Cursor) -> Targets {
        if is_loop(c) {
            Targets {
                break_to: Some(*c),
                continue_to: Some(*c),
            }
        } else if c.kind() == CXCursor_SwitchStmt {
            Targets {
                break_to: Some(*c),
                ..self
            }
        } else {
            self
        }
    }
}

/// The variables `stmt` may assign, in source order, without duplicates; `targets` are those of
/// a `break`/`continue` directly inside `stmt`.
pub fn assigned_vars(stmt: &Cursor, targets: Targets) -> Vec<VarKey> {
    let mut out = Assigned::default();
    collect_assigned(stmt, targets, &mut out);
    out.keys
}

/// Keys in first-seen order, each once (a set beside the list: a body assigning thousands of
/// variables made the duplicate search quadratic).
#[derive(Default)]
struct Assigned {
    keys: Vec<VarKey>,
    seen: std::collections::HashSet<VarKey>,
}

fn push(out: &mut Assigned, key: VarKey) {
    if out.seen.insert(key.clone()) {
        out.keys.push(key);
    }
}

fn collect_assigned(c: &Cursor, targets: Targets, out: &mut Assigned) {
    match c.kind() {
        CXCursor_BinaryOperator if c.binary_operator() == CXBinaryOperator_Assign => {
            assigned_target(c, out)
        }
        CXCursor_CompoundAssignOperator => assigned_target(c, out),
        CXCursor_UnaryOperator
            if matches!(
                c.unary_operator(),
                CXUnaryOperator_PostInc
                    | CXUnaryOperator_PostDec
                    | CXUnaryOperator_PreInc
                    | CXUnaryOperator_PreDec
            ) =>
        {
            assigned_target(c, out)
        }
        CXCursor_ReturnStmt => {
            push(out, VarKey::Returned);
            push(out, VarKey::RetVal);
        }
        CXCursor_BreakStmt => {
            if let Some(l) = targets.break_to {
                push(out, VarKey::Break(l));
            }
        }
        CXCursor_ContinueStmt => {
            if let Some(l) = targets.continue_to {
                push(out, VarKey::Continue(l));
            }
        }
        CXCursor_SwitchStmt => push(out, VarKey::SwitchEntered(*c)),
        CXCursor_GotoStmt => {
            if let Some(label) = goto_target(c) {
                push(out, VarKey::Goto(label));
            }
        }
        _ => {}
    }
    let inner = targets.inside(c);
    for child in c.children() {
        collect_assigned(&child, inner, out);
    }
}

/// Records the local variable written by an assignment-like operator, if its target is one.
fn assigned_target(op: &Cursor, out: &mut Assigned) {
    if let Some(target) = op.children().first() {
        if let Some(decl) = referenced_local(target) {
            push(out, VarKey::Decl(decl));
        }
    }
}

/// The variable an expression names, looking through parentheses and no-op casts.
pub fn referenced_local(e: &Cursor) -> Option<Cursor> {
    match e.kind() {
        CXCursor_DeclRefExpr => e.referenced().map(|d| d.canonical()),
        CXCursor_ParenExpr | CXCursor_UnexposedExpr => {
            let children = e.children();
            match children.as_slice() {
                [only] => referenced_local(only),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The jumps that may leave `stmt`: a return anywhere, a break or continue whose loop or switch
/// encloses `stmt` (not those of loops and switches nested inside it).
pub fn jumps(stmt: &Cursor) -> Jumps {
    let mut j = Jumps::default();
    let mut inside = Vec::new();
    collect_jumps(stmt, true, true, &mut j, &mut inside);
    // A goto to a label inside `stmt` does not leave it.
    j.gotos.retain(|label| !inside.contains(label));
    j
}

fn collect_jumps(
    c: &Cursor,
    breaks_escape: bool,
    continues_escape: bool,
    j: &mut Jumps,
    labels: &mut Vec<Cursor>,
) {
    match c.kind() {
        CXCursor_ReturnStmt => j.returns = true,
        CXCursor_BreakStmt if breaks_escape => j.breaks = true,
        CXCursor_ContinueStmt if continues_escape => j.continues = true,
        CXCursor_LabelStmt => labels.push(c.statement_key()),
        CXCursor_GotoStmt => {
            if let Some(label) = goto_target(c).filter(|l| !j.gotos.contains(l)) {
                j.gotos.push(label);
            }
        }
        _ => {}
    }
    let breaks_escape = breaks_escape && !is_loop(c) && c.kind() != CXCursor_SwitchStmt;
    let continues_escape = continues_escape && !is_loop(c);
    for child in c.children() {
        collect_jumps(&child, breaks_escape, continues_escape, j, labels);
    }
}

/// Locals whose address is taken (`&x`, `std::addressof(x)`, `std::move(x)`...) or that a
/// reference variable is bound to (`auto& r = x;`): a local holding a lambda is then its
/// closure object in memory (see lambdas.rs).
pub fn addressed_locals(body: &Cursor) -> std::collections::HashSet<Cursor> {
    fn walk(c: &Cursor, out: &mut std::collections::HashSet<Cursor>) {
        let named = match c.kind() {
            CXCursor_UnaryOperator if c.unary_operator() == CXUnaryOperator_AddrOf => {
                c.children().first().and_then(referenced_local)
            }
            CXCursor_CallExpr
                if c.referenced().is_some_and(|f| {
                    super::expr::calls::STD_ADDRESS_BUILTINS.contains(&f.spelling().as_str())
                        && f.is_in_std_namespace()
                }) =>
            {
                match c.arguments().as_slice() {
                    [arg] => referenced_local(&arg.without_implicit()),
                    _ => None,
                }
            }
            CXCursor_VarDecl if c.ty().is_reference() => c
                .var_initializer()
                .and_then(|init| referenced_local(&init.without_implicit())),
            _ => None,
        };
        out.extend(named);
        for child in c.children() {
            walk(&child, out);
        }
    }
    let mut out = std::collections::HashSet::new();
    walk(body, &mut out);
    out
}

/// Locals and parameters that need memory: their address is taken (`&x`), they are bound to a
/// reference (`int& r = x;`, a reference parameter). Aggregates always live in memory.
pub fn memory_locals(body: &Cursor) -> std::collections::HashSet<Cursor> {
    let mut out = std::collections::HashSet::new();
    collect_memory_locals(body, &mut out);
    // A reference is an address already: binding or taking the address of one reaches its
    // referent, so it never needs memory of its own.
    out.retain(|d| !d.ty().is_reference());
    out
}

fn collect_memory_locals(c: &Cursor, out: &mut std::collections::HashSet<Cursor>) {
    match c.kind() {
        CXCursor_UnaryOperator if c.unary_operator() == CXUnaryOperator_AddrOf => {
            if let Some(d) = c.children().first().and_then(referenced_local) {
                out.insert(d);
            }
        }
        CXCursor_CallExpr => {
            if let Some(callee) = c.referenced() {
                let params = callee.arguments();
                let args = c.arguments();
                // A member operator's call (`op(a, b)` of a functor) lists the object first.
                let skip = usize::from(
                    callee.kind() == CXCursor_CXXMethod && args.len() == params.len() + 1,
                );
                for (i, arg) in args.iter().enumerate().skip(skip) {
                    if params.get(i - skip).is_some_and(|p| p.ty().is_reference()) {
                        if let Some(d) = referenced_local(arg) {
                            out.insert(d);
                        }
                    }
                }
            }
        }
        // Variables a lambda captures by reference are reached through their address.
        CXCursor_LambdaExpr => {
            if let Ok(captures) = crate::captures::lambda_captures(c) {
                for capture in captures.iter().filter(|c| c.by_ref) {
                    match capture.captured {
                        crate::captures::Captured::Variable(d) => {
                            out.insert(d);
                        }
                        // `[&r = x]`: x is reached through its address.
                        crate::captures::Captured::Init(d) => {
                            if let Some(x) = d.var_initializer().and_then(|i| referenced_local(&i))
                            {
                                out.insert(x);
                            }
                        }
                        crate::captures::Captured::This => {}
                    }
                }
            }
        }
        CXCursor_VarDecl if c.ty().is_reference() => {
            if let Some(init) = c.var_initializer() {
                if let Some(d) = referenced_local(&init) {
                    out.insert(d);
                }
            }
        }
        _ => {}
    }
    for child in c.children() {
        collect_memory_locals(&child, out);
    }
}
