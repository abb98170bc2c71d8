//! The host side of the device variables the user's code defines: their *shadows*, the host
//! globals whose addresses the symbol API takes (`hipMemcpyToSymbol(table, ...)`), and
//! `__managed__` variables.
//!
//! Without `-fgpu-rdc` a source's device variables are its own, as with hipcc (clang gives their
//! host shadows internal linkage): two sources may each define `__device__ int table[4];`. The
//! host edits make such a shadow `static` (where `static` cannot be written, in a definition a
//! macro writes, the host object's symbol is made local after the compile: the same linkage,
//! `ShadowPlan::local_symbols`), and the source registers its internal shadows itself,
//! from a constructor appended to its host code (`__hipmlirRegisterUnitVar`), with the key of its
//! translation unit, which its device image records beside each of them (`GlobalVar::unit`): the
//! runtime tells variables of one name apart by that key, whatever order the sources register
//! in. External shadows (with `-fgpu-rdc`, or for a variable declared before its definition,
//! which is how other sources reach one) are registered by the image's stub by symbol.
//!
//! A `__managed__` variable is one object that the host and every device share at one address.
//! As with clang, the device's variable is a pointer to managed memory, filled by the runtime
//! (the codegen's `device_variable_address`); on the host the variable's name becomes a reference
//! to that memory, which the runtime allocates and initializes when the reference is initialized:
//!
//! ```text
//! __managed__ int hits = 5;
//! // reads, in the host compile:
//! static __managed__ int __hipmlir_managed_hits = 5;   // the initial value
//! static decltype(__hipmlir_managed_hits)& hits = ::hipmlir::detail::managed_variable(
//!     __hipmlir_managed_hits, "hits", "<unit>");
//! ```
//!
//! (`static` as for other device variables), and an `extern` declaration of one reads
//! `extern __managed__ int (&hits);`. Every host use of the name then reaches the shared memory.

use std::path::Path;

use clang_sys::*;

use crate::clang::{Cursor, Linkage};
use crate::codegen::{is_device_variable, is_managed};
use crate::error::{FrontendError, Result};
use crate::host_edits::{c_string, is_user_code, FileTexts, SourceEdit};

/// The prefix of the host's name for a managed variable's initial value.
const MANAGED_INITIAL_PREFIX: &str = "__hipmlir_managed_";

/// A device variable whose host shadow its translation unit registers itself.
#[derive(Debug, Clone)]
pub struct OwnShadow {
    pub decl: Cursor,
    /// The device variable's symbol (its name in the image's metadata).
    pub symbol: String,
    /// The shadow as the end of the host source names it (`::ns::table`).
    host_name: String,
    /// A managed variable (registered by its reference's initializer, not the constructor).
    managed: bool,
}

/// The host edits for the device variables of a translation unit, and the shadows it owns.
#[derive(Debug, Default)]
pub struct ShadowPlan {
    pub own: Vec<OwnShadow>,
    pub edits: Vec<SourceEdit>,
    /// The host symbols of own shadows that no edit can make `static` (a macro writes their
    /// definition): the host object makes them local.
    pub local_symbols: Vec<String>,
}

/// How the shadows of a translation unit are made.
pub struct ShadowOptions<'a> {
    /// hipmlir's headers (their variables are not the user's).
    pub hip_headers: &'a Path,
    /// `-fgpu-rdc`: shadows keep external linkage (one variable for the program).
    pub gpu_rdc: bool,
    /// The translation unit's key (see `GlobalVar::unit`).
    pub unit_key: &'a str,
}

/// The shadow plan of the user's device variables at namespace scope (main file and headers).
pub fn plan(root: &Cursor, options: &ShadowOptions, texts: &mut FileTexts) -> Result<ShadowPlan> {
    let mut planner = Planner {
        options,
        texts,
        plan: ShadowPlan::default(),
    };
    planner.walk(root)?;
    Ok(planner.plan)
}

impl ShadowPlan {
    /// The constructor that registers the unit's own shadows (managed ones register through
    /// their references), inserted at `end` of the main file `main_file`; None if it has none.
    pub fn registration(&self, main_file: &str, end: usize, unit_key: &str) -> Option<SourceEdit> {
        let calls: String = self
            .own
            .iter()
            .filter(|s| !s.managed)
            .map(|s| {
                format!(
                    "  __hipmlirRegisterUnitVar(__builtin_addressof({name}), {symbol}, \
                     sizeof({name}), {unit});\n",
                    name = s.host_name,
                    symbol = c_string(&s.symbol),
                    unit = c_string(unit_key),
                )
            })
            .collect();
        (!calls.is_empty()).then(|| {
            SourceEdit::insert(
                main_file,
                end,
                &format!(
                    "\n// hipmlir: this source's own device variables, registered with the runtime.\n\
                     __attribute__((constructor)) static void __hipmlir_register_own_variables() {{\n\
                     {calls}}}\n"
                ),
            )
        })
    }
}

struct Planner<'a, 'o> {
    options: &'a ShadowOptions<'o>,
    texts: &'a mut FileTexts,
    plan: ShadowPlan,
}

impl Planner<'_, '_> {
    fn walk(&mut self, c: &Cursor) -> Result<()> {
        for child in c.children() {
            if !is_user_code(&child, self.options.hip_headers) {
                continue;
            }
            match child.kind() {
                CXCursor_Namespace | CXCursor_LinkageSpec => self.walk(&child)?,
                CXCursor_VarDecl if is_device_variable(&child) => self.variable(&child)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn variable(&mut self, decl: &Cursor) -> Result<()> {
        let managed = is_managed(decl);
        if !decl.is_definition() {
            if managed {
                self.managed_declaration(decl)?;
            }
            return Ok(());
        }
        let Some(host_name) = host_name(decl) else {
            return Ok(());
        };
        let internal = decl.linkage() == Linkage::Internal;
        // Other sources reach a variable through an earlier declaration (a header's `extern`).
        let external = self.options.gpu_rdc || declared_before(decl);
        let make_static = if internal {
            None
        } else {
            self.static_insertion(decl)
        };
        let own = internal || !external;
        if managed {
            if !internal && make_static.is_none() {
                return Err(cannot_rewrite(decl));
            }
            self.plan.edits.extend(make_static);
            self.managed_definition(decl, own)?;
        } else if !own {
            return Ok(());
        } else if let Some(edit) = make_static {
            self.plan.edits.push(edit);
        } else if !internal {
            self.plan.local_symbols.push(decl.mangled_name());
        }
        self.plan.own.push(OwnShadow {
            decl: *decl,
            symbol: decl.mangled_name(),
            host_name,
            managed,
        });
        Ok(())
    }

    /// `static ` inserted where the declaration begins, where that can be done: the name
    /// written in the file (not by a macro), a plain declaration (not `extern`, not in an
    /// `extern "C"` without braces, not after an attribute list).
    fn static_insertion(&mut self, decl: &Cursor) -> Option<SourceEdit> {
        let name = decl.position();
        let (start, _) = decl.extent_positions();
        if !name.written_plainly()
            || decl.is_extern_storage()
            || start.expanded.0 != name.expanded.0
            || start.expanded.1 > name.expanded.1
        {
            return None;
        }
        let (file, at) = start.expanded;
        let text = self.texts.get(&file)?;
        let before = text.get(..at)?.trim_end();
        let after = text.get(at..)?;
        if before.ends_with("\"C\"") || before.ends_with("\"C++\"") || after.starts_with("[[") {
            return None;
        }
        Some(SourceEdit::insert(&file, at, "static "))
    }

    /// A managed variable's definition for the host: renamed to hold its initial value, followed
    /// by the reference its name becomes (`static` where the variable is the source's own).
    fn managed_definition(&mut self, decl: &Cursor, own: bool) -> Result<()> {
        let name = decl.spelling();
        let position = decl.position();
        let (_, end) = decl.extent_positions();
        let (file, at) = position.spelled.clone();
        if !position.written_plainly() || end.expanded.0 != file {
            return Err(cannot_rewrite(decl));
        }
        let text = self.texts.get(&file).ok_or_else(|| cannot_rewrite(decl))?;
        if !text.get(at..).is_some_and(|t| t.starts_with(&name)) {
            return Err(cannot_rewrite(decl));
        }
        // The reference follows the declaration's `;`: one variable per declaration.
        let semicolon = next_token(text, end.expanded.1)
            .filter(|&i| text.as_bytes()[i] == b';')
            .ok_or_else(|| {
                FrontendError::refused(
                    decl.location(),
                    format!(
                        "__managed__ variable '{name}': declare each managed variable in a \
                         declaration of its own"
                    ),
                )
            })?;
        let initial = format!("{MANAGED_INITIAL_PREFIX}{name}");
        self.plan
            .edits
            .push(SourceEdit::span(&file, at, at + name.len(), &initial));
        self.plan.edits.push(SourceEdit::insert(
            &file,
            semicolon + 1,
            &format!(
                " {storage}decltype({initial})& {name} = \
                 ::hipmlir::detail::managed_variable({initial}, {symbol}, {unit});",
                storage = if own { "static " } else { "" },
                symbol = c_string(&decl.mangled_name()),
                unit = c_string(self.options.unit_key),
            ),
        ));
        Ok(())
    }

    /// An `extern` declaration of a managed variable: its name declares the reference
    /// (`extern __managed__ int (&hits);`).
    fn managed_declaration(&mut self, decl: &Cursor) -> Result<()> {
        let name = decl.spelling();
        let position = decl.position();
        let (file, at) = position.spelled.clone();
        let text = self.texts.get(&file).ok_or_else(|| cannot_rewrite(decl))?;
        if !position.written_plainly() || !text.get(at..).is_some_and(|t| t.starts_with(&name)) {
            return Err(cannot_rewrite(decl));
        }
        self.plan.edits.push(SourceEdit::insert(&file, at, "(&"));
        self.plan
            .edits
            .push(SourceEdit::insert(&file, at + name.len(), ")"));
        Ok(())
    }
}

fn cannot_rewrite(decl: &Cursor) -> FrontendError {
    FrontendError::unsupported(
        decl.location(),
        format!(
            "__managed__ variable '{}' declared where hipmlir cannot rewrite it for the host \
             (written by a macro, `extern` with an initializer, or in `extern \"C\"` without \
             braces)",
            decl.spelling()
        ),
    )
}

/// Whether the variable was declared before this definition (`extern __device__ int x;` in a
/// header the source includes).
fn declared_before(decl: &Cursor) -> bool {
    decl.canonical().position() != decl.position()
}

/// The variable as C++ names it at the end of the translation unit (`::ns::table`; members of
/// an anonymous namespace are found through it); None for anything but a namespace's variable.
fn host_name(decl: &Cursor) -> Option<String> {
    let mut parts = vec![decl.spelling()];
    let mut parent = decl.semantic_parent();
    while let Some(p) = parent {
        match p.kind() {
            CXCursor_TranslationUnit => break,
            CXCursor_Namespace => {
                let name = p.spelling();
                if !name.is_empty() && !name.starts_with('(') {
                    parts.push(name);
                }
            }
            CXCursor_LinkageSpec => {}
            _ => return None,
        }
        parent = p.semantic_parent();
    }
    parts.reverse();
    Some(format!("::{}", parts.join("::")))
}

/// The offset of the first token at or after `from`, past white space and comments.
fn next_token(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = text.get(i + 2..)?.find("*/").map(|e| i + 2 + e + 2)?;
            }
            _ => return Some(i),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_token_skips_space_and_comments() {
        let text = "x = 5 /* a */ // b\n  ;";
        assert_eq!(next_token(text, 5), Some(text.len() - 1));
        assert_eq!(next_token("  /* open", 0), None);
        assert_eq!(next_token("   ", 0), None);
    }
}
