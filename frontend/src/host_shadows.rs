//! The host side of the device variables the user's code defines: their *shadows*, the host
//! globals whose addresses the symbol API takes (`hipMemcpyToSymbol(table, ...)`).
//!
//! Without `-fgpu-rdc` a source's device variables are its own, as with hipcc (clang gives their
//! host shadows internal linkage): two sources may each define `__device__ int table[4];`. The
//! host edits make such a shadow `static`, and the source registers its internal shadows itself,
//! from a constructor appended to its host code (`__hipmlirRegisterUnitVar`), with the key of its
//! translation unit, which its device image records beside each of them (`GlobalVar::unit`): the
//! runtime tells variables of one name apart by that key, whatever order the sources register
//! in. External shadows (with `-fgpu-rdc`, or for a variable declared before its definition,
//! which is how other sources reach one) are registered by the image's stub by symbol.

use std::path::Path;

use clang_sys::*;

use crate::clang::{Cursor, Linkage};
use crate::codegen::is_device_variable;
use crate::error::Result;
use crate::host_edits::{c_string, is_user_code, FileTexts, SourceEdit};

/// A device variable whose host shadow its translation unit registers itself.
#[derive(Debug, Clone)]
pub struct OwnShadow {
    pub decl: Cursor,
    /// The device variable's symbol (its name in the image's metadata).
    pub symbol: String,
    /// The shadow as the end of the host source names it (`::ns::table`).
    host_name: String,
}

/// The host edits for the device variables of a translation unit, and the shadows it owns.
#[derive(Debug, Default)]
pub struct ShadowPlan {
    pub own: Vec<OwnShadow>,
    pub edits: Vec<SourceEdit>,
}

/// How the shadows of a translation unit are made.
pub struct ShadowOptions<'a> {
    /// hipmlir's headers (their variables are not the user's).
    pub hip_headers: &'a Path,
    /// `-fgpu-rdc`: shadows keep external linkage (one variable for the program).
    pub gpu_rdc: bool,
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
    /// The constructor that registers the unit's own shadows, inserted at `end` of the main file
    /// `main_file`; None if it has none.
    pub fn registration(&self, main_file: &str, end: usize, unit_key: &str) -> Option<SourceEdit> {
        let calls: String = self
            .own
            .iter()
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
        if !decl.is_definition() {
            return Ok(());
        }
        let Some(host_name) = host_name(decl) else {
            return Ok(());
        };
        let internal = decl.linkage() == Linkage::Internal;
        // Other sources reach a variable through an earlier declaration (a header's `extern`).
        let external = self.options.gpu_rdc || declared_before(decl);
        if !internal {
            match self.static_insertion(decl) {
                Some(edit) if !external => self.plan.edits.push(edit),
                _ => return Ok(()),
            }
        }
        self.plan.own.push(OwnShadow {
            decl: *decl,
            symbol: decl.mangled_name(),
            host_name,
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
