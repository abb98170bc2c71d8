//! Cutting a PTX module into per-kernel modules, for the lazy per-kernel JIT of the CUDA backend
//! (`cuda::module`; plain text work, beside `spirv_split`): the driver JIT-compiles a whole PTX
//! module at `cuModuleLoadDataEx`, so a module of thousands of kernels costs seconds before its
//! first kernel runs. A kernel's module holds its
//! `.entry`, the `.func`s it calls (transitively), the declarations they need and the read-only
//! or per-block variables they use, in the original order (so every name is declared before its
//! use, as it was).
//!
//! Variables in the `.global` state space are one instance per module: kernels share them, the
//! host writes them by symbol. They live in the *globals module* (the module's `.global`
//! variables alone, made `.visible` so the driver keeps them and `cuModuleGetGlobal` finds
//! them), and a kernel's module reaches them through a table of their addresses
//! ([`TABLE`], a `.const` array the runtime fills from the globals module before the kernel's
//! first launch): every function using such a variable loads the addresses it needs from the
//! table on entry into registers of its own, and each use of the variable's name becomes that
//! register (`mov.b64 %rd, v;` and `[v+8]` alike: the name denotes the variable's address in
//! the `.global` window, which is what the table holds). Read-only `.const` variables and
//! `.shared`/`.local` ones are copied into each module that uses them.
//!
//! A module the cut cannot take stays whole, with the reason ([`index`] is `Err`): a function's
//! address taken other than by a `call` (it would differ between modules), a variable initialized
//! with an address the cut would change, a variable's name used where a register cannot stand,
//! `.extern .global` variables, or module-level directives other than functions, variables and
//! the header (`.section` debug information, `.alias`, texture references), or a `.const`
//! variable with linkage (the host may write it by name, and each module would have a copy).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Range;

/// The `.const` table of the shared variables' addresses in a kernel's module (`.visible`, so
/// that `cuModuleGetGlobal` finds it).
pub const TABLE: &str = "__hipmlir_split_table";

/// The registers a function loads the shared variables' addresses into.
const REGISTER: &str = "%hipmlir_sv";

/// What a module-level statement is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `.version`, `.target`, `.address_size`, `.file`, `.pragma`: in every module.
    Header,
    /// A kernel.
    Entry,
    /// A device function: definition or prototype (`.extern` ones included).
    Func,
    /// A `.global` variable: one instance, in the globals module.
    Shared,
    /// A `.const`, `.shared` or `.local` variable: a copy in each module using it.
    Copied,
}

/// A use of a module-level name inside a statement.
#[derive(Debug, Clone)]
struct Ref {
    /// Where the name stands in the text.
    at: Range<usize>,
    /// The name's id.
    name: usize,
}

#[derive(Debug, Clone)]
struct Item {
    kind: Kind,
    text: Range<usize>,
    /// Where the body of a function starts (just past its `{`); `None` for everything else.
    body: Option<usize>,
    refs: Vec<Ref>,
}

/// A PTX module read at the level of its module-level statements, ready to be cut.
#[derive(Debug)]
pub struct PtxIndex {
    text: String,
    items: Vec<Item>,
    /// Name → name id.
    names: HashMap<String, usize>,
    /// Name id → the items of that name (a function's prototype and definition).
    named: Vec<Vec<usize>>,
    /// The `.global` variables in table order, and each one's name.
    shared: Vec<(usize, String)>,
    /// Shared variable item → its slot in the table.
    slot: HashMap<usize, usize>,
}

/// A kernel's module cut out of the PTX.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelModule {
    pub text: String,
    /// Whether it declares [`TABLE`] (it uses shared variables): the runtime must fill it.
    pub uses_table: bool,
}

/// Reads `text`'s module-level statements; `Err` says why the module cannot be cut.
pub fn index(text: String) -> Result<PtxIndex, String> {
    let statements = statements(&text)?;
    let mut items = Vec::with_capacity(statements.len());
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut named: Vec<Vec<usize>> = Vec::new();
    let mut item_names = Vec::with_capacity(statements.len());
    for range in statements {
        let (kind, name, body) = classify(&text, range.clone())?;
        if let Some(name) = &name {
            let next = names.len();
            let id = *names.entry(name.clone()).or_insert(next);
            if id == named.len() {
                named.push(Vec::new());
            }
            named[id].push(items.len());
        }
        item_names.push(name);
        items.push(Item {
            kind,
            text: range,
            body,
            refs: Vec::new(),
        });
    }
    let mut shared = Vec::new();
    let mut slot = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        if item.kind == Kind::Shared {
            slot.insert(i, shared.len());
            shared.push((i, item_names[i].clone().unwrap_or_default()));
        }
    }
    let kind_of = |name: usize| items[named[name][0]].kind;
    let mut all_refs = Vec::with_capacity(items.len());
    for item in &items {
        let refs = match (item.kind, item.body) {
            (Kind::Entry | Kind::Func, Some(body)) => {
                body_refs(&text, body..item.text.end, &names, &kind_of)?
            }
            (Kind::Shared | Kind::Copied, _) => {
                initializer_refs(&text, item.text.clone(), item.kind, &names, &kind_of)?
            }
            _ => Vec::new(),
        };
        all_refs.push(refs);
    }
    for (item, refs) in items.iter_mut().zip(all_refs) {
        item.refs = refs;
    }
    Ok(PtxIndex {
        text,
        items,
        names,
        named,
        shared,
        slot,
    })
}

impl PtxIndex {
    /// The PTX text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// How many kernels the module has.
    pub fn entries(&self) -> usize {
        self.items.iter().filter(|i| i.kind == Kind::Entry).count()
    }

    /// The kernels' names, in the module's order.
    pub fn kernels(&self) -> Vec<&str> {
        let mut names: Vec<(usize, &str)> = self
            .names
            .iter()
            .filter_map(|(name, &id)| {
                let first = *self.named[id].first()?;
                (self.items[first].kind == Kind::Entry).then_some((first, name.as_str()))
            })
            .collect();
        names.sort_unstable();
        names.into_iter().map(|(_, name)| name).collect()
    }

    /// The names of the shared (`.global`) variables, in table order.
    pub fn shared_variables(&self) -> impl Iterator<Item = &str> {
        self.shared.iter().map(|(_, name)| name.as_str())
    }

    /// The items a set of roots reaches, in the module's order.
    fn closure(&self, roots: impl IntoIterator<Item = usize>) -> Vec<usize> {
        let mut seen = vec![false; self.items.len()];
        let mut stack: Vec<usize> = roots.into_iter().collect();
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            for r in &self.items[i].refs {
                stack.extend(self.named[r.name].iter().copied().filter(|&j| !seen[j]));
            }
        }
        (0..self.items.len()).filter(|&i| seen[i]).collect()
    }

    fn header(&self, out: &mut String) {
        for item in self.items.iter().filter(|i| i.kind == Kind::Header) {
            out.push_str(self.text[item.text.clone()].trim_end());
            out.push('\n');
        }
        out.push('\n');
    }

    /// The module of kernel `name`: its `.entry`, what it reaches, the table when it uses
    /// shared variables. `None` when the module has no such kernel.
    pub fn kernel_module(&self, name: &str) -> Option<KernelModule> {
        let id = *self.names.get(name)?;
        let entry = *self.named[id]
            .iter()
            .find(|&&i| self.items[i].kind == Kind::Entry)?;
        let chosen: Vec<usize> = self
            .closure([entry])
            .into_iter()
            .filter(|&i| self.items[i].kind != Kind::Shared)
            .collect();
        let uses_table = chosen.iter().any(|&i| {
            self.items[i]
                .refs
                .iter()
                .any(|r| self.kind_of_name(r.name) == Kind::Shared)
        });
        let mut out = String::new();
        self.header(&mut out);
        if uses_table {
            let _ = writeln!(
                out,
                ".visible .const .align 8 .b64 {TABLE}[{}];\n",
                self.shared.len()
            );
        }
        for i in chosen {
            if self.items[i].kind == Kind::Header {
                continue;
            }
            self.write_rewritten(i, &mut out);
            out.push('\n');
        }
        Some(KernelModule {
            text: out,
            uses_table,
        })
    }

    /// The globals module: every `.global` variable (with the read-only variables their
    /// initializers name), each `.visible`. `None` when the module has none.
    pub fn globals_module(&self) -> Option<String> {
        if self.shared.is_empty() {
            return None;
        }
        let mut out = String::new();
        self.header(&mut out);
        for i in self.closure(self.shared.iter().map(|&(i, _)| i)) {
            let item = &self.items[i];
            let text = &self.text[item.text.clone()];
            match item.kind {
                Kind::Header => continue,
                Kind::Shared => {
                    out.push_str(".visible ");
                    out.push_str(strip_linkage(text));
                }
                _ => out.push_str(text),
            }
            out.push('\n');
        }
        Some(out)
    }

    fn kind_of_name(&self, name: usize) -> Kind {
        self.items[self.named[name][0]].kind
    }

    /// Item `i`'s text, with its uses of shared variables replaced by registers loaded from the
    /// table at the function's entry.
    fn write_rewritten(&self, i: usize, out: &mut String) {
        let item = &self.items[i];
        let shared_refs: Vec<&Ref> = item
            .refs
            .iter()
            .filter(|r| self.kind_of_name(r.name) == Kind::Shared)
            .collect();
        let Some(body) = item.body.filter(|_| !shared_refs.is_empty()) else {
            out.push_str(&self.text[item.text.clone()]);
            return;
        };
        // Table slot → this function's register number, in order of first use.
        let mut registers: Vec<usize> = Vec::new();
        let mut register_of = HashMap::new();
        for r in &shared_refs {
            let slot = self.slot[&self.named[r.name][0]];
            register_of.entry(slot).or_insert_with(|| {
                registers.push(slot);
                registers.len() - 1
            });
        }
        let entry = first_instruction(&self.text, body..item.text.end);
        let mut loads = format!("\t.reg .b64 \t{REGISTER}<{}>;\n", registers.len());
        // The table holds generic addresses (`cuModuleGetGlobal`'s); a variable's name denotes
        // its address in the `.global` window.
        for (n, slot) in registers.iter().enumerate() {
            let _ = writeln!(
                loads,
                "\tld.const.b64 \t{REGISTER}{n}, [{TABLE}+{}];\n\
                 \tcvta.to.global.u64 \t{REGISTER}{n}, {REGISTER}{n};",
                slot * 8
            );
        }
        let mut at = item.text.start;
        let mut inserted = false;
        for r in shared_refs {
            if !inserted && r.at.start >= entry {
                out.push_str(&self.text[at..entry]);
                out.push_str(&loads);
                at = entry;
                inserted = true;
            }
            out.push_str(&self.text[at..r.at.start]);
            let slot = self.slot[&self.named[r.name][0]];
            let _ = write!(out, "{REGISTER}{}", register_of[&slot]);
            at = r.at.end;
        }
        out.push_str(&self.text[at..item.text.end]);
    }
}

/// A variable declaration without its linkage words (`.visible`, `.weak`, `.common`).
fn strip_linkage(text: &str) -> &str {
    let mut rest = text.trim_start();
    loop {
        let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        if matches!(&rest[..word_end], ".visible" | ".weak" | ".common") {
            rest = rest[word_end..].trim_start();
        } else {
            return rest;
        }
    }
}

/// Directives that end at the end of their line (no `;`).
const LINE_DIRECTIVES: [&str; 4] = [".version", ".target", ".address_size", ".file"];

/// Directives inside function bodies that end at the end of their line.
const LINE_DIRECTIVES_IN_BODIES: [&str; 2] = [".loc", ".file"];

/// Module-level handles the host binds per module: a module using them stays whole.
const HANDLES: [&str; 3] = [".texref", ".samplerref", ".surfref"];

/// Skips a comment or string literal at `i`, returning the index past it (`None`: neither).
fn skip_comment_or_string(b: &[u8], i: usize) -> Result<Option<usize>, String> {
    Ok(match (b[i], b.get(i + 1)) {
        (b'/', Some(b'/')) => Some(
            b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |n| i + n + 1),
        ),
        (b'/', Some(b'*')) => Some(
            find(&b[i + 2..], b"*/")
                .map(|n| i + 2 + n + 2)
                .ok_or("an unterminated /* comment")?,
        ),
        (b'"', _) => Some(
            b[i + 1..]
                .iter()
                .position(|&c| c == b'"')
                .map(|n| i + 1 + n + 1)
                .ok_or("an unterminated string")?,
        ),
        _ => None,
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The module-level statements of `text`: header directives (to the end of their line),
/// declarations (to their `;`) and functions (to their body's `}`).
fn statements(text: &str) -> Result<Vec<Range<usize>>, String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if let Some(next) = skip_comment_or_string(b, i)? {
            i = next;
            continue;
        }
        let start = i;
        if LINE_DIRECTIVES
            .iter()
            .any(|d| starts_with_word(&text[i..], d))
        {
            let end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |n| i + n);
            out.push(start..end);
            i = end;
            continue;
        }
        // A `{` at depth 0 after an `=` opens an initializer (the statement ends at its `;`);
        // any other opens a body (the statement ends at its `}`).
        let (mut depth, mut initializer, mut end) = (0usize, false, None);
        while i < b.len() {
            if let Some(next) = skip_comment_or_string(b, i)? {
                i = next;
                continue;
            }
            match b[i] {
                b'=' if depth == 0 => initializer = true,
                b'{' => depth += 1,
                b'}' => {
                    depth = depth
                        .checked_sub(1)
                        .ok_or("a '}' closing nothing at module level")?;
                    if depth == 0 && !initializer {
                        end = Some(i + 1);
                    }
                }
                b';' if depth == 0 => end = Some(i + 1),
                _ => {}
            }
            i += 1;
            if end.is_some() {
                break;
            }
        }
        let end = end.ok_or_else(|| format!("an unterminated statement at byte {start}"))?;
        out.push(start..end);
    }
    Ok(out)
}

fn starts_with_word(text: &str, word: &str) -> bool {
    text.strip_prefix(word)
        .is_some_and(|rest| rest.chars().next().is_none_or(|c| !is_ident_char(c)))
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// A token of PTX text: a name (identifier), a directive or type word (`.global`), a register
/// (`%r1`), a number, or one punctuation byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Name,
    Directive,
    Register,
    Number,
    Punct(u8),
}

/// The tokens of `text[range]`, comments and strings skipped, with their ranges.
fn tokens(text: &str, range: Range<usize>) -> Result<Vec<(Token, Range<usize>)>, String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = range.start;
    let word_end = |mut j: usize| {
        while j < range.end && is_ident_char(b[j] as char) {
            j += 1;
        }
        j
    };
    while i < range.end {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if let Some(next) = skip_comment_or_string(b, i)? {
            i = next;
            continue;
        }
        if !c.is_ascii() {
            return Err(format!(
                "a byte that is not ASCII (at {i}) outside comments"
            ));
        }
        let (token, end) = if is_ident_start(c) {
            (Token::Name, word_end(i + 1))
        } else if c == b'.' && b.get(i + 1).is_some_and(|&n| is_ident_start(n)) {
            (Token::Directive, word_end(i + 1))
        } else if c == b'%' {
            (Token::Register, word_end(i + 1))
        } else if c.is_ascii_digit() {
            (Token::Number, word_end(i + 1))
        } else {
            (Token::Punct(c), i + 1)
        };
        out.push((token, i..end));
        i = end;
    }
    Ok(out)
}

/// What a module-level statement is, its name, and where its body starts.
fn classify(
    text: &str,
    range: Range<usize>,
) -> Result<(Kind, Option<String>, Option<usize>), String> {
    let toks = tokens(text, range.clone())?;
    let word = |r: &Range<usize>| &text[r.clone()];
    let first = toks
        .first()
        .map(|(_, r)| word(r))
        .ok_or("an empty statement")?;
    if LINE_DIRECTIVES.contains(&first) || first == ".pragma" {
        return Ok((Kind::Header, None, None));
    }
    let directives: Vec<&str> = toks
        .iter()
        .take_while(|(t, _)| *t == Token::Directive)
        .map(|(_, r)| word(r))
        .collect();
    let has = |d: &str| directives.contains(&d);
    let name_after = |at: usize| {
        toks[at..]
            .iter()
            .find(|(t, _)| *t == Token::Name)
            .map(|(_, r)| word(r).to_string())
    };
    if has(".entry") || has(".func") {
        let kind = if has(".entry") {
            Kind::Entry
        } else {
            Kind::Func
        };
        let mut at = directives.len();
        // A `.func`'s return parameters come before its name.
        if toks.get(at).is_some_and(|(t, _)| *t == Token::Punct(b'(')) {
            at += toks[at..]
                .iter()
                .position(|(t, _)| *t == Token::Punct(b')'))
                .ok_or("a function's return list is not closed")?;
        }
        let name = name_after(at).ok_or("a function without a name")?;
        let body = toks
            .iter()
            .find(|(t, _)| *t == Token::Punct(b'{'))
            .map(|(_, r)| r.end);
        return Ok((kind, Some(name), body));
    }
    if let Some(handle) = HANDLES.iter().find(|h| has(h)) {
        return Err(format!("it declares a {handle} variable"));
    }
    if ![".global", ".const", ".shared", ".local"]
        .iter()
        .any(|d| has(d))
    {
        return Err(format!("it has a module-level `{first}` statement"));
    }
    // The name: the last name before the initializer, the array bounds or the `;`.
    let name = toks
        .iter()
        .take_while(|(t, _)| !matches!(t, Token::Punct(b'=' | b'[' | b';' | b'<')))
        .filter(|(t, _)| *t == Token::Name)
        .last()
        .map(|(_, r)| word(r).to_string())
        .ok_or("a variable without a name")?;
    let linked = [".visible", ".weak", ".common"].iter().any(|l| has(l));
    let kind = if has(".global") {
        if has(".extern") {
            return Err("it declares an .extern .global variable".into());
        }
        Kind::Shared
    } else if has(".const") && linked && name != TABLE {
        // The host may write it by name, and each module would have its own copy (a cut
        // module's own table is filled per module).
        return Err(format!("it declares a .visible .const variable, '{name}'"));
    } else {
        Kind::Copied
    };
    Ok((kind, Some(name), None))
}

/// The names a variable's initializer uses; a function's address, or a shared variable's in a
/// copied one, cannot be cut.
fn initializer_refs(
    text: &str,
    range: Range<usize>,
    kind: Kind,
    names: &HashMap<String, usize>,
    kind_of: &impl Fn(usize) -> Kind,
) -> Result<Vec<Ref>, String> {
    let toks = tokens(text, range)?;
    let Some(eq) = toks.iter().position(|(t, _)| *t == Token::Punct(b'=')) else {
        return Ok(Vec::new());
    };
    let mut refs = Vec::new();
    for (t, r) in &toks[eq..] {
        if *t != Token::Name {
            continue;
        }
        let Some(&name) = names.get(&text[r.clone()]) else {
            continue;
        };
        match (kind, kind_of(name)) {
            (_, Kind::Entry | Kind::Func) => {
                return Err(format!(
                    "a variable's initializer holds the address of function '{}'",
                    &text[r.clone()]
                ))
            }
            (Kind::Copied, Kind::Shared) => {
                return Err(format!(
                    "a read-only variable's initializer holds the address of '{}'",
                    &text[r.clone()]
                ))
            }
            _ => refs.push(Ref {
                at: r.clone(),
                name,
            }),
        }
    }
    Ok(refs)
}

/// The names a function body uses, statement by statement (to each `;`): after its labels and
/// predicate, an instruction's opcode is skipped (an opcode is no reference, whatever variables
/// are called); declarations and directives inside the body are skipped.
fn body_refs(
    text: &str,
    body: Range<usize>,
    names: &HashMap<String, usize>,
    kind_of: &impl Fn(usize) -> Kind,
) -> Result<Vec<Ref>, String> {
    let toks = tokens(text, body)?;
    let mut refs = Vec::new();
    let mut s = 0;
    while s < toks.len() {
        // A brace where a statement starts opens or closes a block; inside an instruction it
        // is a vector operand (`{%r1, %r2}`).
        if matches!(toks[s].0, Token::Punct(b'{' | b'}')) {
            s += 1;
            continue;
        }
        let end = toks[s..]
            .iter()
            .position(|(t, _)| *t == Token::Punct(b';'))
            .map_or(toks.len(), |n| s + n);
        let statement = &toks[s..end];
        let start = s;
        s = end + 1;
        let mut k = 0;
        // Labels (`name:`).
        while k + 1 < statement.len()
            && statement[k].0 == Token::Name
            && statement[k + 1].0 == Token::Punct(b':')
        {
            k += 2;
        }
        match statement.get(k) {
            // A block opened or closed after a label: what follows is read again.
            Some((Token::Punct(b'{' | b'}'), _)) => {
                s = start + k + 1;
                continue;
            }
            // `.loc` and its kind end at their line, not at a `;`: what follows is read again.
            Some((Token::Directive, r))
                if LINE_DIRECTIVES_IN_BODIES.contains(&&text[r.clone()]) =>
            {
                let line_end = text[r.end..].find('\n').map_or(text.len(), |n| r.end + n);
                s = toks[start..end]
                    .iter()
                    .position(|(_, t)| t.start > line_end)
                    .map_or(end + 1, |n| start + n);
                continue;
            }
            None | Some((Token::Directive, _)) => continue,
            // A predicate guard: `@%p` or `@!%p`.
            Some((Token::Punct(b'@'), _)) => {
                k += 1;
                while statement
                    .get(k)
                    .is_some_and(|(t, _)| matches!(t, Token::Punct(b'!') | Token::Register))
                {
                    k += 1;
                }
            }
            _ => {}
        }
        let Some((Token::Name, opcode)) = statement.get(k) else {
            continue;
        };
        let is_call = text[opcode.clone()] == *"call";
        for (i, (t, r)) in statement.iter().enumerate().skip(k + 1) {
            if *t != Token::Name {
                continue;
            }
            let word = &text[r.clone()];
            let Some(&name) = names.get(word) else {
                continue;
            };
            match kind_of(name) {
                Kind::Entry | Kind::Func if !is_call => {
                    return Err(format!("a function takes the address of '{word}'"));
                }
                Kind::Shared if !register_fits(statement, i) => {
                    return Err(format!(
                        "'{word}' is used where a register cannot stand: {}",
                        text[statement[0].1.start..statement[statement.len() - 1].1.end].trim()
                    ));
                }
                _ => {}
            }
            refs.push(Ref {
                at: r.clone(),
                name,
            });
        }
    }
    Ok(refs)
}

/// Whether a register can replace the name at `statement[i]`: an address operand (`[v]`,
/// `[v+8]`) or a whole operand (`, v,` / `, v;`).
fn register_fits(statement: &[(Token, Range<usize>)], i: usize) -> bool {
    let before = i.checked_sub(1).map(|p| statement[p].0);
    let after = statement.get(i + 1).map(|n| n.0);
    match before {
        Some(Token::Punct(b'[')) => matches!(after, Some(Token::Punct(b']' | b'+'))),
        Some(Token::Punct(b',')) => matches!(after, None | Some(Token::Punct(b','))),
        _ => false,
    }
}

/// Where the line of the first instruction (or label) of a body starts: past its leading
/// declarations.
fn first_instruction(text: &str, body: Range<usize>) -> usize {
    let b = text.as_bytes();
    let mut i = body.start;
    while i < body.end {
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        match skip_comment_or_string(b, i) {
            Ok(Some(next)) => {
                i = next;
                continue;
            }
            Ok(None) => {}
            Err(_) => return i,
        }
        if b[i] != b'.' {
            let line = text[body.start..i]
                .rfind('\n')
                .map_or(i, |n| body.start + n + 1);
            return if text[line..i].trim().is_empty() {
                line
            } else {
                i
            };
        }
        // A declaration or directive: to its `;` (or its line, for `.loc`-like ones).
        let semicolon = b[i..body.end].iter().position(|&c| c == b';');
        let newline = b[i..body.end].iter().position(|&c| c == b'\n');
        i += match (semicolon, newline) {
            (Some(s), Some(n)) if n < s => n + 1,
            (Some(s), _) => s + 1,
            (None, Some(n)) => n + 1,
            (None, None) => return i,
        };
    }
    body.end.saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PTX hipmlir emits for `tests/fuzz-seeds/shared_state.hip` (see its header); a fuzz seed
    /// too.
    const FIXTURE: &str = include_str!("../tests/fuzz-seeds/shared_state.ptx");

    fn fixture() -> PtxIndex {
        index(FIXTURE.to_string()).expect("the fixture can be cut")
    }

    /// Every name of the original module that `cut` uses is declared in `cut`, and no shared
    /// variable is named in it at all.
    fn assert_self_contained(original: &PtxIndex, cut: &str) {
        let own = index(cut.to_string()).unwrap_or_else(|e| panic!("{e}:\n{cut}"));
        for (t, r) in tokens(cut, 0..cut.len()).unwrap() {
            let word = &cut[r];
            let Some(&id) = original.names.get(word).filter(|_| t == Token::Name) else {
                continue;
            };
            assert_ne!(
                original.kind_of_name(id),
                Kind::Shared,
                "'{word}' left in\n{cut}"
            );
            assert!(
                own.names.contains_key(word),
                "'{word}' undeclared in\n{cut}"
            );
        }
    }

    #[test]
    fn every_kernel_cuts_out_self_contained() {
        let ix = fixture();
        assert_eq!(ix.entries(), 15);
        let kernels = ix.kernels();
        assert_eq!(kernels.len(), 15);
        assert_eq!(kernels[0], "_Z10scale_intoPKfPfi");
        for name in kernels {
            let cut = ix.kernel_module(name).unwrap();
            assert_self_contained(&ix, &cut.text);
            let own = index(cut.text.clone()).unwrap();
            assert_eq!(own.entries(), 1, "{}", cut.text);
            assert!(cut
                .text
                .starts_with(".version 7.8\n.target sm_90\n.address_size 64\n"));
            assert_eq!(cut.uses_table, cut.text.contains(TABLE), "{}", cut.text);
        }
        assert_eq!(ix.kernel_module("_Z5saxpy"), None);
        assert_eq!(ix.kernel_module("missing"), None);
    }

    #[test]
    fn a_kernel_using_no_variable_has_no_table() {
        let cut = fixture().kernel_module("_Z5saxpyfPKfPfi").unwrap();
        assert!(!cut.uses_table);
        assert!(!cut.text.contains(".func"), "{}", cut.text);
        assert!(
            !cut.text
                .lines()
                .any(|l| l.starts_with(".global") || l.starts_with(".visible .global")),
            "{}",
            cut.text
        );
    }

    /// The table slot each `ld.const` of `text` reads, by register.
    fn loads(text: &str) -> Vec<(String, usize)> {
        text.lines()
            .filter_map(|l| {
                let l = l.trim().strip_prefix("ld.const.b64")?.trim();
                let (register, rest) = l.split_once(',')?;
                let slot = rest.trim().strip_prefix(&format!("[{TABLE}+"))?;
                let offset: usize = slot.trim_end_matches("];").parse().ok()?;
                Some((register.trim().to_string(), offset / 8))
            })
            .collect()
    }

    #[test]
    fn shared_variables_become_table_loads_in_each_function() {
        let ix = fixture();
        let shared: Vec<&str> = ix.shared_variables().collect();
        let cut = ix.kernel_module("_Z10accumulatePKfi").unwrap();
        assert!(cut.uses_table);
        let table_decl = format!(".visible .const .align 8 .b64 {TABLE}[{}];", shared.len());
        assert!(cut.text.contains(&table_decl), "{}", cut.text);
        let slots: Vec<&str> = loads(&cut.text).iter().map(|(_, s)| shared[*s]).collect();
        // accumulate reaches `accumulator`, and `scaled` (inlined or not) `hits` and `scale`.
        for v in ["accumulator", "hits", "scale"] {
            assert!(
                slots.contains(&v),
                "{v} not loaded: {slots:?}\n{}",
                cut.text
            );
        }
        // The loads come after the declarations, before the first instruction.
        let body = &cut.text[cut.text.find(".entry _Z10accumulatePKfi").unwrap()..];
        let first_load = body.find("ld.const.b64").unwrap();
        let last_reg = body.rfind("\t.reg ").unwrap();
        let first_param_load = body.find("ld.param").unwrap();
        assert!(
            last_reg < first_load && first_load < first_param_load,
            "{body}"
        );
    }

    #[test]
    fn read_only_and_runtime_variables_go_where_they_are_used() {
        let ix = fixture();
        let hello = ix.kernel_module("_Z9say_helloi").unwrap();
        assert!(hello
            .text
            .contains(".extern .func  (.param .b32 func_retval0) vprintf"));
        assert!(hello.text.contains("__hipmlir_str_0"), "{}", hello.text);
        assert!(!hello.text.contains("__hipmlir_str_1"), "{}", hello.text);
        // The assertion's strings and abort flag are shared variables, read through the table.
        let checked = ix.kernel_module("_Z12checked_sqrtPKiPii").unwrap();
        let shared: Vec<&str> = ix.shared_variables().collect();
        let slots: Vec<&str> = loads(&checked.text)
            .iter()
            .map(|(_, s)| shared[*s])
            .collect();
        assert!(
            slots.contains(&"__hipmlir_device_abort_flag"),
            "{slots:?}\n{}",
            checked.text
        );
        let heap = ix.kernel_module("_Z9heap_copyPKiPii").unwrap();
        let slots: Vec<&str> = loads(&heap.text).iter().map(|(_, s)| shared[*s]).collect();
        assert!(slots.contains(&"__hipmlir_device_heap"), "{slots:?}");
    }

    #[test]
    fn the_globals_module_holds_every_global_visible() {
        let ix = fixture();
        let globals = ix.globals_module().unwrap();
        let own = index(globals.clone()).unwrap();
        assert_eq!(own.entries(), 0);
        assert!(!globals.contains(".func"), "{globals}");
        let names: Vec<&str> = ix.shared_variables().collect();
        assert_eq!(names.len(), 9, "{names:?}");
        assert_eq!(own.shared_variables().collect::<Vec<_>>(), names);
        for line in globals.lines().filter(|l| l.contains(".global")) {
            assert!(line.starts_with(".visible .global "), "{line}");
        }
        // Initial values kept.
        assert!(globals.contains("scale[16] = {0, 0, 128, 63,"), "{globals}");
    }

    const HEAD: &str = ".version 7.8\n.target sm_90\n.address_size 64\n\n";

    fn cut_of(body: &str) -> Result<PtxIndex, String> {
        index(format!("{HEAD}{body}"))
    }

    #[test]
    fn uses_of_variables_in_every_operand_form() {
        let ptx = "// a comment with { braces and a name: v\n\
            .visible .global .align 4 .b8 v[16] = {1, 2};\n\
            .global .align 8 .u64 p = generic(v);\n\
            /* block { comment } */\n\
            .visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\
            \t.reg .b64 %rd<4>;\n\t.loc 1 2 3\n\
            $L__BB0_1:\n\tmov.u64 %rd1, v;\n\tld.global.u32 %r1, [v+4];\n\
            \t@%p1 st.global.u32 [v], %r1;\n\tatom.global.add.u32 %r2, [v], 1;\n\
            \tld.global.u64 %rd2, [p];\n\t.loc 1 3 3\n\tcvta.global.u64 %rd3, v;\n\
            \tld.global.v2.u32 {%r3, %r4}, [v+8];\n$L__BB0_2:\n\t{\n\tst.global.u32 [v+12], %r3;\n\t}\n\tret;\n}\n";
        let ix = cut_of(ptx).unwrap();
        let cut = ix.kernel_module("k").unwrap();
        assert!(cut.uses_table);
        assert_self_contained(&ix, &cut.text);
        for line in [
            "mov.u64 %rd1, %hipmlir_sv0;",
            "ld.global.u32 %r1, [%hipmlir_sv0+4];",
            "@%p1 st.global.u32 [%hipmlir_sv0], %r1;",
            "atom.global.add.u32 %r2, [%hipmlir_sv0], 1;",
            "ld.global.u64 %rd2, [%hipmlir_sv1];",
            "cvta.global.u64 %rd3, %hipmlir_sv0;",
            "ld.global.v2.u32 {%r3, %r4}, [%hipmlir_sv0+8];",
            "st.global.u32 [%hipmlir_sv0+12], %r3;",
            "ld.const.b64 \t%hipmlir_sv1, [__hipmlir_split_table+8];\n\
             \tcvta.to.global.u64 \t%hipmlir_sv1, %hipmlir_sv1;",
        ] {
            assert!(cut.text.contains(line), "{line}:\n{}", cut.text);
        }
        // The loads precede the label: they run once, on entry.
        assert!(cut.text.find("ld.const").unwrap() < cut.text.find("$L__BB0_1:").unwrap());
        let globals = ix.globals_module().unwrap();
        assert!(globals.contains(".visible .global .align 8 .u64 p = generic(v);"));
    }

    #[test]
    fn calls_bring_their_callees_and_prototypes() {
        let ptx = ".extern .func (.param .b32 r) ext(.param .b32 a);\n\
            .func (.param .b32 r) helper(.param .b32 a);\n\
            .visible .entry k()\n{\n\t{\n\t.param .b32 a;\n\tcall.uni (r), helper, (a);\n\t}\n\tret;\n}\n\
            .visible .entry lone()\n{\n\tret;\n}\n\
            .func (.param .b32 r) helper(.param .b32 a)\n{\n\tcall.uni (r), ext, (a);\n\tret;\n}\n\
            .func unused()\n{\n\tret;\n}\n";
        let ix = cut_of(ptx).unwrap();
        let cut = ix.kernel_module("k").unwrap().text;
        assert_self_contained(&ix, &cut);
        // The prototype and the definition, each once.
        assert_eq!(cut.matches(") helper(").count(), 2, "{cut}");
        assert!(cut.contains(" ext(") && !cut.contains("unused") && !cut.contains("lone"));
        // Declarations keep their order: the prototype before the call.
        assert!(
            cut.find(".func (.param .b32 r) helper(.param .b32 a);")
                .unwrap()
                < cut.find("call.uni (r), helper").unwrap()
        );
        let lone = ix.kernel_module("lone").unwrap().text;
        assert!(!lone.contains("helper") && !lone.contains("ext"), "{lone}");
        // An opcode spelled like a variable is no use of it.
        let ix = cut_of(
            ".global .u32 add;\n.visible .entry k()\n{\n\tadd.s32 %r1, %r1, 1;\n\tret;\n}\n",
        )
        .unwrap();
        assert!(!ix.kernel_module("k").unwrap().uses_table);
    }

    #[test]
    fn modules_the_cut_cannot_take_say_why() {
        let cases = [
            (".visible .entry k()\n{\n\tmov.u64 %rd1, f;\n\tret;\n}\n.func f()\n{\n\tret;\n}\n", "address of 'f'"),
            (".global .u64 t = f;\n.func f()\n{\n\tret;\n}\n", "function 'f'"),
            (".global .u32 g;\n.const .u64 c = generic(g);\n", "read-only"),
            (".global .u32 g[4];\n.visible .entry k()\n{\n\tmov.u64 %rd1, g+8;\n\tret;\n}\n", "register cannot stand"),
            (".global .u32 g[4];\n.visible .entry k()\n{\n\tld.global.u32 %r1, [g-4];\n\tret;\n}\n", "register cannot stand"),
            (".extern .global .u32 g;\n", ".extern .global"),
            (".visible .const .align 4 .f32 c[4];\n", ".visible .const"),
            (".global .texref t;\n", ".texref"),
            (".section .debug_info\n{\n\t.b8 0\n}\n", "`.section`"),
            (".visible .entry k()\n{\n\tret;\n", "unterminated"),
            ("}\n", "closing nothing"),
            ("/* open", "unterminated /*"),
            ("// é in a comment is fine\n.global .u32 é;\n", "not ASCII"),
        ];
        for (body, why) in cases {
            let e = cut_of(body).expect_err(body);
            assert!(e.contains(why), "{body}: {e}");
        }
    }
}
