//! A thin safe layer over libclang (clang-sys): parsing, cursors, types, diagnostics.
//!
//! Everything unsafe about libclang lives here; the rest of the frontend sees plain Rust values.
//! Cursors and types borrow nothing in Rust's eyes but are only valid while their
//! [`TranslationUnit`] lives, which the frontend guarantees by keeping it alive for the whole walk.

use std::ffi::{CStr, CString};
use std::os::raw::{c_uint, c_void};
use std::path::Path;

use clang_sys::*;

use crate::error::{Diagnostic, FrontendError, SourceLoc};

mod parts;
pub use parts::{Binding, ClosureCapture, ForParts, IfParts, RangeForParts};

/// Owns a libclang index and one parsed translation unit.
pub struct TranslationUnit {
    index: CXIndex,
    tu: CXTranslationUnit,
}

impl TranslationUnit {
    /// Parses `path` with the given command-line arguments (no compiler name). Diagnostics of
    /// severity error or worse become a [`FrontendError`]; warnings are returned for printing.
    /// With `text`, that text is parsed in place of the file's contents.
    pub fn parse(
        path: &Path,
        args: &[String],
        text: Option<&[u8]>,
    ) -> Result<(Self, Vec<Diagnostic>), FrontendError> {
        Self::parse_as(
            path,
            args,
            text,
            CXTranslationUnit_DetailedPreprocessingRecord,
        )
    }

    /// Parses a header to be saved as a precompiled header ([`Self::save`]).
    pub fn parse_prefix_header(
        path: &Path,
        args: &[String],
    ) -> Result<(Self, Vec<Diagnostic>), FrontendError> {
        Self::parse_as(
            path,
            args,
            None,
            CXTranslationUnit_DetailedPreprocessingRecord
                | CXTranslationUnit_ForSerialization
                | CXTranslationUnit_Incomplete,
        )
    }

    /// Writes the translation unit as an AST file (a precompiled header, when it was parsed by
    /// [`Self::parse_prefix_header`]).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        // SAFETY: the TU is alive (see cxx/precompiled_header.cpp for what is left out).
        unsafe { hipmlir_forget_deferred_diagnostic_roots(self.tu.cast()) };
        let c_path = cstring(&path.to_string_lossy());
        // SAFETY: the TU is alive; the path outlives the call.
        let code = unsafe { clang_saveTranslationUnit(self.tu, c_path.as_ptr(), 0) };
        if code == CXSaveError_None {
            Ok(())
        } else {
            Err(std::io::Error::other(format!(
                "libclang could not save '{}' (error {code})",
                path.display()
            )))
        }
    }

    fn parse_as(
        path: &Path,
        args: &[String],
        text: Option<&[u8]>,
        flags: CXTranslationUnit_Flags,
    ) -> Result<(Self, Vec<Diagnostic>), FrontendError> {
        if !path.exists() {
            return Err(FrontendError::unreadable(
                SourceLoc::file_only(path),
                format!("no such file or directory: '{}'", path.display()),
            ));
        }
        let c_path = cstring(&path.to_string_lossy());
        let c_args: Vec<CString> = args.iter().map(|a| cstring(a)).collect();
        let arg_ptrs: Vec<*const i8> = c_args.iter().map(|a| a.as_ptr()).collect();
        let mut unsaved: Vec<CXUnsavedFile> = text
            .map(|t| CXUnsavedFile {
                Filename: c_path.as_ptr(),
                Contents: t.as_ptr() as *const i8,
                Length: t.len() as _,
            })
            .into_iter()
            .collect();
        // SAFETY: plain libclang calls; all pointers outlive the call.
        unsafe {
            // Declarations from a precompiled header (hipmlir's headers and the system's) are
            // left out of the translation unit's children: the frontend walks the user's code,
            // and listing the header's thousands of declarations would deserialize them all.
            let index = clang_createIndex(1, 0);
            let mut tu: CXTranslationUnit = std::ptr::null_mut();
            let code = clang_parseTranslationUnit2(
                index,
                c_path.as_ptr(),
                arg_ptrs.as_ptr(),
                arg_ptrs.len() as i32,
                unsaved.as_mut_ptr(),
                unsaved.len() as u32,
                flags,
                &mut tu,
            );
            if code != CXError_Success || tu.is_null() {
                clang_disposeIndex(index);
                return Err(FrontendError::unreadable(
                    SourceLoc::file_only(path),
                    format!("libclang could not parse the file (error code {code})"),
                ));
            }
            let unit = TranslationUnit { index, tu };
            let diagnostics = unit.diagnostics();
            // Errors of the command line ("unknown argument"; clang reports them first, with no
            // place in the source) are told alone: clang parsed on with the arguments it could
            // read, and the errors that follow from those are noise.
            let command_line: Vec<Diagnostic> = diagnostics
                .iter()
                .take_while(|d| d.is_error() && d.location.file.is_empty())
                .cloned()
                .collect();
            if !command_line.is_empty() {
                return Err(FrontendError::Clang(command_line));
            }
            if diagnostics.iter().any(|d| d.is_error()) {
                return Err(FrontendError::Clang(diagnostics));
            }
            Ok((unit, diagnostics))
        }
    }

    fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        // SAFETY: the TU is alive; each diagnostic is disposed after use.
        unsafe {
            for i in 0..clang_getNumDiagnostics(self.tu) {
                let diag = clang_getDiagnostic(self.tu, i);
                let severity = clang_getDiagnosticSeverity(diag);
                if severity >= CXDiagnostic_Warning {
                    let location = presumed_loc(clang_getDiagnosticLocation(diag));
                    let message = take_string(clang_getDiagnosticSpelling(diag));
                    out.push(Diagnostic {
                        location,
                        message,
                        is_error: severity >= CXDiagnostic_Error,
                    });
                }
                clang_disposeDiagnostic(diag);
            }
        }
        out
    }

    /// Every file the translation unit includes (directly or not, from a precompiled header
    /// too), each once, the main file left out.
    pub fn included_files(&self) -> Vec<std::path::PathBuf> {
        extern "C" fn visit(
            file: CXFile,
            _stack: *mut CXSourceLocation,
            depth: c_uint,
            data: CXClientData,
        ) {
            // SAFETY: `data` is the Vec below, alive for the call; `file` is libclang's.
            let files = unsafe { &mut *(data as *mut Vec<std::path::PathBuf>) };
            if depth > 0 {
                let name = take_string(unsafe { clang_getFileName(file) });
                files.push(std::path::PathBuf::from(name));
            }
        }
        let mut files: Vec<std::path::PathBuf> = Vec::new();
        // SAFETY: the TU is alive; the visitor only pushes to `files`, which outlives the call.
        unsafe {
            clang_getInclusions(self.tu, visit, &mut files as *mut _ as CXClientData);
        }
        files.sort();
        files.dedup();
        files
    }

    pub fn cursor(&self) -> Cursor {
        // SAFETY: the TU is alive.
        Cursor(unsafe { clang_getTranslationUnitCursor(self.tu) })
    }
}

impl Drop for TranslationUnit {
    fn drop(&mut self) {
        // SAFETY: created in `parse`, disposed once.
        unsafe {
            clang_disposeTranslationUnit(self.tu);
            clang_disposeIndex(self.index);
        }
    }
}

/// What libclang does once per process, at its first index: registering LLVM's targets. A
/// compile server does it before forking its children.
pub fn prepare_process() {
    // SAFETY: an index made and disposed of at once.
    unsafe { clang_disposeIndex(clang_createIndex(1, 0)) };
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', "")).expect("NULs removed")
}

// Virtual bases' offsets read from clang's record layouts (cxx/record_layout.cpp).
extern "C" {
    fn hipmlir_virtual_base_offset(
        translation_unit: *mut c_void,
        decl: *const c_void,
        vbase: *const c_void,
    ) -> i64;
}

// Statement parts read from clang's nodes (cxx/statement_parts.cpp).
extern "C" {
    fn hipmlir_forget_deferred_diagnostic_roots(translation_unit: *mut c_void);
    fn hipmlir_for_parts(stmt: *const c_void, parts: *mut [*const c_void; 5]);
    fn hipmlir_if_parts(stmt: *const c_void, parts: *mut [*const c_void; 5]);
    fn hipmlir_switch_init(stmt: *const c_void, kind: *mut i32) -> *const c_void;
    fn hipmlir_loop_unroll(stmt: *const c_void, count: *mut u32) -> i32;
    fn hipmlir_is_dynamic_class(decl: *const c_void) -> i32;
    fn hipmlir_record_methods(decl: *const c_void, out: *mut *const c_void, max: i32) -> i32;
    fn hipmlir_is_qualified_member_call(expr: *const c_void) -> i32;
    fn hipmlir_range_for_parts(
        stmt: *const c_void,
        parts: *mut [*const c_void; 5],
        kinds: *mut [i32; 5],
    ) -> i32;
    fn hipmlir_is_lambda_class(decl: *const c_void) -> i32;
    fn hipmlir_unexposed_declaration(decl: *const c_void) -> i32;
    fn hipmlir_decomposition_bindings(
        decl: *const c_void,
        max: i32,
        bindings: *mut *const c_void,
    ) -> i32;
    fn hipmlir_binding_expression(
        decl: *const c_void,
        kind: *mut i32,
        holding: *mut *const c_void,
    ) -> *const c_void;
    fn hipmlir_lambda_captures(
        decl: *const c_void,
        max: i32,
        captured: *mut *const c_void,
        kinds: *mut i32,
    ) -> i32;
    fn hipmlir_is_glvalue(expr: *const c_void) -> i32;
    fn hipmlir_lambda_capture_inits(
        expr: *const c_void,
        max: i32,
        inits: *mut *const c_void,
        kinds: *mut i32,
    ) -> i32;
    fn hipmlir_kernel_call(
        expr: *const c_void,
        callee: *mut *const c_void,
        config: *mut *const c_void,
        rparen: *mut c_uint,
    ) -> i32;
    fn hipmlir_fp_contract_allowed(expr: *const c_void) -> i32;
    fn hipmlir_launch_bounds(attr: *const c_void) -> *const c_void;
    fn hipmlir_is_pack(decl: *const c_void) -> i32;
    fn hipmlir_atomic_parts(
        expr: *const c_void,
        name: *mut *const u8,
        name_len: *mut usize,
        parts: *mut [*const c_void; 8],
    ) -> i32;
    fn hipmlir_new_parts(
        expr: *const c_void,
        is_array: *mut i32,
        pass_alignment: *mut i32,
        zeroes: *mut i32,
        array_size: *mut *const c_void,
        initializer: *mut *const c_void,
        operator_new: *mut *const c_void,
        placement: *mut [*const c_void; 4],
    ) -> i32;
    fn hipmlir_delete_parts(
        expr: *const c_void,
        is_array: *mut i32,
        operator_delete: *mut *const c_void,
    ) -> i32;
    fn hipmlir_has_trivial_destructor(decl: *const c_void) -> i32;
    fn hipmlir_lifetime_kind(expr: *const c_void) -> i32;
    fn hipmlir_is_array_init_index(expr: *const c_void) -> i32;
    fn hipmlir_array_init_loop(
        expr: *const c_void,
        source: *mut *const c_void,
        element: *mut *const c_void,
    ) -> i32;
    fn hipmlir_construct_zeroes(expr: *const c_void) -> i32;
    fn hipmlir_destructor(decl: *const c_void, virtual_bases: *mut i32) -> *const c_void;
    fn hipmlir_passed_indirectly(decl: *const c_void) -> i32;
    fn hipmlir_nrvo_variable(stmt: *const c_void) -> *const c_void;
    fn hipmlir_is_nrvo_variable(decl: *const c_void) -> i32;
    fn hipmlir_init_list_items(
        expr: *const c_void,
        nodes: *mut *const c_void,
        kinds: *mut i32,
        max: i32,
        filler: *mut *const c_void,
        filler_kind: *mut i32,
    ) -> i32;
    fn hipmlir_is_elidable_construction(expr: *const c_void) -> i32;
    fn hipmlir_has_in_class_initializer(decl: *const c_void) -> i32;
    fn hipmlir_ctor_initializers(
        decl: *const c_void,
        max: i32,
        what: *mut i32,
        fields: *mut *const c_void,
        inits: *mut *const c_void,
        kinds: *mut i32,
    ) -> i32;
}

/// One initialization a constructor runs before its body (see `Cursor::constructor_initializers`).
#[derive(Debug, Clone, Copy)]
pub enum CtorInit {
    /// A base class subobject, built by the expression (the base is its type).
    Base(Cursor),
    /// A member (its field declaration) and its initializer.
    Member(Cursor, Cursor),
    /// A delegating constructor: another constructor of the class builds the object.
    Delegating(Cursor),
    /// A member of an anonymous struct or union (the member, its initializer).
    Indirect(Cursor, Cursor),
}

/// What an unexposed expression is among the nodes of object lifetime (clang's classes; libclang
/// shows them all as unexposed expressions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LifetimeNode {
    /// `ExprWithCleanups`: a full-expression whose temporaries are destroyed at its end.
    FullExpression,
    /// `CXXBindTemporaryExpr`: a temporary object to destroy at the end of its full-expression.
    BindTemporary,
    /// `MaterializeTemporaryExpr`: a temporary object, alive to the end of its full-expression,
    /// or (`extended`) to the end of the scope of the reference bound to it.
    Materialize { extended: bool },
    /// A temporary bound to a reference of static storage duration.
    StaticTemporary,
    /// `CXXDefaultInitExpr`: a field's default member initializer, used by a list or constructor.
    DefaultMemberInit,
    /// `ImplicitValueInitExpr`: value-initialization (zero) of a member or element.
    ValueInit,
    /// `CXXDefaultArgExpr`: a parameter's default argument.
    DefaultArgument,
}

/// An array initialized element by element from another (clang's `ArrayInitLoopExpr`, in the
/// implicit copy of an array member, a lambda's capture of an array by copy, a structured
/// binding of an array).
#[derive(Debug, Clone, Copy)]
pub struct ArrayInitLoop {
    /// The array copied from, evaluated once: the element's initializer names it again (clang's
    /// opaque value, which libclang shows as this expression).
    pub source: Cursor,
    /// The initializer of one element, which reads the element's index (an expression for
    /// which `is_array_init_index` holds).
    pub element: Cursor,
}

/// An expression as clang's node: the same whichever cursor shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExprNode(*const c_void);

/// A class's destructor as clang resolved it.
#[derive(Debug, Clone, Copy)]
pub struct DestructorInfo {
    /// The destructor's declaration, or `None` when destroying an object does nothing.
    pub destructor: Option<Cursor>,
    pub is_virtual: bool,
    /// The class has virtual base classes.
    pub virtual_bases: bool,
}

/// A declaration as clang's node, to be found among the cursors (libclang gives no cursor for
/// the functions a new- or delete-expression calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeclNode(*const c_void);

/// The parts of a new-expression (`new (placement...) T[array_size] initializer`).
#[derive(Debug, Clone)]
pub struct NewParts {
    pub is_array: bool,
    /// The allocation function takes the type's alignment (an over-aligned type).
    pub pass_alignment: bool,
    pub placement: Vec<Cursor>,
    pub array_size: Option<Cursor>,
    pub initializer: Option<Cursor>,
    /// Value-initialization zeroes the object first (`new int()`, `new Plain()`).
    pub zeroes: bool,
    /// The allocation function clang chose.
    pub operator_new: Option<DeclNode>,
}

/// The parts of a delete-expression.
#[derive(Debug, Clone, Copy)]
pub struct DeleteParts {
    pub is_array: bool,
    /// The deallocation function clang chose.
    pub operator_delete: Option<DeclNode>,
}

/// libclang's version line ("Debian clang version 22.1.0 ..."): the LLVM hipmlir is built on.
pub fn clang_version() -> String {
    // SAFETY: a plain libclang query.
    take_string(unsafe { clang_getClangVersion() })
}

/// Converts and frees a CXString.
fn take_string(s: CXString) -> String {
    // SAFETY: `s` came from libclang and is disposed exactly once.
    unsafe {
        let ptr = clang_getCString(s);
        let out = if ptr.is_null() {
            String::new()
        } else {
            CStr::from_ptr(ptr).to_string_lossy().into_owned()
        };
        clang_disposeString(s);
        out
    }
}

/// An AST node.
#[derive(Clone, Copy)]
pub struct Cursor(CXCursor);

/// Declarations a function body may hold that libclang shows only as unexposed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnexposedDeclaration {
    /// `using enum E;`
    UsingEnum,
    /// A GNU local label, `__label__ l;`
    LocalLabel,
    /// `auto [a, b] = s;`
    StructuredBinding,
    /// An OpenMP or OpenACC directive's declaration.
    Directive,
    Other,
}

impl PartialEq for Cursor {
    fn eq(&self, other: &Self) -> bool {
        // SAFETY: comparing two cursors of a live TU.
        unsafe { clang_equalCursors(self.0, other.0) != 0 }
    }
}
impl Eq for Cursor {}

impl std::hash::Hash for Cursor {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // SAFETY: hashing a cursor of a live TU.
        unsafe { clang_hashCursor(self.0) }.hash(state)
    }
}

impl std::fmt::Debug for Cursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}({})", self.kind_name(), self.spelling())
    }
}

impl Cursor {
    pub fn kind(&self) -> CXCursorKind {
        // SAFETY: reading a cursor of a live TU (same for every method below).
        unsafe { clang_getCursorKind(self.0) }
    }

    pub fn kind_name(&self) -> String {
        take_string(unsafe { clang_getCursorKindSpelling(self.kind()) })
    }

    pub fn spelling(&self) -> String {
        take_string(unsafe { clang_getCursorSpelling(self.0) })
    }

    /// What a declaration libclang shows as unexposed is, among those a function body may
    /// hold; None for other cursors.
    pub fn unexposed_declaration(&self) -> Option<UnexposedDeclaration> {
        if self.kind() != CXCursor_UnexposedDecl || self.0.data[0].is_null() {
            return None;
        }
        // SAFETY: a declaration cursor holds its `clang::Decl *` in data[0].
        Some(
            match unsafe { hipmlir_unexposed_declaration(self.0.data[0]) } {
                1 => UnexposedDeclaration::UsingEnum,
                2 => UnexposedDeclaration::LocalLabel,
                3 => UnexposedDeclaration::StructuredBinding,
                4 => UnexposedDeclaration::Directive,
                _ => UnexposedDeclaration::Other,
            },
        )
    }

    pub fn display_name(&self) -> String {
        take_string(unsafe { clang_getCursorDisplayName(self.0) })
    }

    pub fn mangled_name(&self) -> String {
        take_string(unsafe { clang_Cursor_getMangling(self.0) })
    }

    pub fn is_null(&self) -> bool {
        unsafe { clang_Cursor_isNull(self.0) != 0 }
    }

    pub fn ty(&self) -> CType {
        CType(unsafe { clang_getCursorType(self.0) })
    }

    pub fn result_type(&self) -> CType {
        CType(unsafe { clang_getCursorResultType(self.0) })
    }

    pub fn location(&self) -> SourceLoc {
        source_loc(unsafe { clang_getCursorLocation(self.0) })
    }

    /// Where the cursor's source range begins (clang's `getBeginLoc()`).
    pub fn extent_start(&self) -> SourceLoc {
        // SAFETY: plain libclang queries on a live cursor.
        source_loc(unsafe { clang_getRangeStart(clang_getCursorExtent(self.0)) })
    }

    /// Whether the cursor's expansion location lies in the main file (not in a header): a
    /// declaration a macro writes counts where the macro is used (libclang's own test says no
    /// for every location inside a macro's expansion, a token-pasted kernel name included).
    pub fn is_in_main_file(&self) -> bool {
        // SAFETY: plain libclang queries on a live cursor and its translation unit.
        unsafe {
            let loc = clang_getCursorLocation(self.0);
            if clang_Location_isFromMainFile(loc) != 0 {
                return true;
            }
            let mut file: CXFile = std::ptr::null_mut();
            let mut offset: c_uint = 0;
            clang_getExpansionLocation(
                loc,
                &mut file,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut offset,
            );
            if file.is_null() {
                return false;
            }
            let tu = clang_Cursor_getTranslationUnit(self.0);
            clang_Location_isFromMainFile(clang_getLocationForOffset(tu, file, offset)) != 0
        }
    }

    /// The template a specialization or instance comes from.
    pub fn template_of(&self) -> Option<Cursor> {
        // SAFETY: plain libclang query on a live cursor.
        let t = Cursor(unsafe { clang_getSpecializedCursorTemplate(self.0) });
        (!t.is_null()).then_some(t)
    }

    /// How the declaration links across translation units, as clang decides it: internal
    /// (`static`, anonymous namespaces, no linkage), once per program however many units define
    /// it (inline functions, template instances), or external (one definition in the program).
    pub fn linkage(&self) -> Linkage {
        // SAFETY: plain libclang queries on a live cursor.
        if unsafe { clang_getCursorLinkage(self.0) } != CXLinkage_External {
            return Linkage::Internal;
        }
        let is_function = matches!(
            self.kind(),
            CXCursor_FunctionDecl
                | CXCursor_CXXMethod
                | CXCursor_Constructor
                | CXCursor_Destructor
                | CXCursor_ConversionFunction
        );
        if (is_function && unsafe { clang_Cursor_isFunctionInlined(self.0) } != 0)
            || self.template_of().is_some()
        {
            Linkage::LinkOnceOdr
        } else {
            Linkage::External
        }
    }

    pub fn is_in_system_header(&self) -> bool {
        unsafe { clang_Location_isInSystemHeader(clang_getCursorLocation(self.0)) != 0 }
    }

    /// Whether the declaration is written `extern`.
    pub fn is_extern_storage(&self) -> bool {
        // SAFETY: plain libclang query on a live cursor.
        unsafe { clang_Cursor_getStorageClass(self.0) == CX_SC_Extern }
    }

    pub fn is_definition(&self) -> bool {
        unsafe { clang_isCursorDefinition(self.0) != 0 }
    }

    pub fn definition(&self) -> Option<Cursor> {
        let c = Cursor(unsafe { clang_getCursorDefinition(self.0) });
        (!c.is_null()).then_some(c)
    }

    pub fn referenced(&self) -> Option<Cursor> {
        let c = Cursor(unsafe { clang_getCursorReferenced(self.0) });
        (!c.is_null()).then_some(c)
    }

    /// The declarations an overloaded name may refer to (an `OverloadedDeclRef`, e.g. a template
    /// named in dependent code).
    pub fn overloaded_decls(&self) -> Vec<Cursor> {
        unsafe {
            (0..clang_getNumOverloadedDecls(self.0))
                .map(|i| Cursor(clang_getOverloadedDecl(self.0, i)))
                .collect()
        }
    }

    pub fn canonical(&self) -> Cursor {
        Cursor(unsafe { clang_getCanonicalCursor(self.0) })
    }

    /// A statement cursor as a key that compares equal however the statement was reached (a
    /// child, or what a reference names): libclang's cursors also hold the declaration they
    /// were reached from, which differs between the two.
    pub fn statement_key(&self) -> Cursor {
        Cursor(CXCursor {
            kind: self.0.kind,
            xdata: 0,
            data: [std::ptr::null(), self.0.data[1], self.0.data[2]],
        })
    }

    /// Whether this is the declaration of an anonymous struct or union (`union { ... };` in a
    /// class, whose members are named as the class's own).
    pub fn is_anonymous_record(&self) -> bool {
        unsafe { clang_Cursor_isAnonymousRecordDecl(self.0) != 0 }
    }

    pub fn semantic_parent(&self) -> Option<Cursor> {
        let c = Cursor(unsafe { clang_getCursorSemanticParent(self.0) });
        (!c.is_null()).then_some(c)
    }

    /// Whether this declaration is a member of namespace `std` (directly, or through the
    /// standard library's inline namespaces: libstdc++'s `std::__cxx11`, libc++'s `std::__1`;
    /// libstdc++ also wraps its namespaces in `extern "C++"`).
    pub fn is_in_std_namespace(&self) -> bool {
        let mut outermost = None;
        let mut parent = self.semantic_parent();
        while let Some(p) = parent {
            match p.kind() {
                CXCursor_Namespace => outermost = Some(p),
                CXCursor_LinkageSpec | CXCursor_UnexposedDecl => {}
                CXCursor_TranslationUnit => break,
                _ => return false,
            }
            parent = p.semantic_parent();
        }
        outermost.is_some_and(|ns| ns.spelling() == "std")
    }

    /// The most threads a block of this kernel may have, from its `__launch_bounds__`.
    pub fn launch_bounds_max_threads(&self) -> Option<u64> {
        self.children().into_iter().find_map(|child| {
            // SAFETY: a plain query.
            if unsafe { clang_isAttribute(child.kind()) } == 0 {
                return None;
            }
            // SAFETY: an attribute cursor holds its `clang::Attr *` in data[1]; the shim checks
            // its kind.
            let expr = unsafe { hipmlir_launch_bounds(child.0.data[1]) };
            if expr.is_null() {
                return None;
            }
            // libclang's encoding of an expression cursor: the enclosing declaration, the
            // node, the translation unit (an attribute cursor's data[0] and data[2]).
            let argument = Cursor(CXCursor {
                kind: CXCursor_UnexposedExpr,
                xdata: 0,
                data: [child.0.data[0], expr, child.0.data[2]],
            });
            match argument.evaluate()? {
                ConstValue::Int(n) => u64::try_from(n).ok(),
                ConstValue::Float(_) => None,
            }
        })
    }

    pub fn children(&self) -> Vec<Cursor> {
        extern "C" fn visit(c: CXCursor, _: CXCursor, data: CXClientData) -> CXChildVisitResult {
            // SAFETY: `data` is the Vec passed below, alive for the whole visit.
            let out = unsafe { &mut *(data as *mut Vec<Cursor>) };
            out.push(Cursor(c));
            CXChildVisit_Continue
        }
        let mut out: Vec<Cursor> = Vec::new();
        unsafe {
            clang_visitChildren(self.0, visit, &mut out as *mut Vec<Cursor> as *mut c_void);
        }
        out
    }

    /// A parameter's type as the function receives it: an array parameter (`T p[32]`,
    /// `int cw[][N]`) is a pointer to its element, a function parameter a function pointer.
    /// libclang's type of a parameter is the type as written.
    pub fn parameter_type(&self) -> CType {
        let written = self.ty();
        if !matches!(
            written.canonical().kind(),
            CXType_ConstantArray
                | CXType_IncompleteArray
                | CXType_VariableArray
                | CXType_DependentSizedArray
                | CXType_FunctionProto
                | CXType_FunctionNoProto
        ) {
            return written;
        }
        self.semantic_parent()
            .and_then(|function| {
                let index = function.arguments().iter().position(|p| p == self)?;
                function
                    .ty()
                    .canonical()
                    .function_args()
                    .get(index)
                    .copied()
            })
            .unwrap_or(written)
    }

    pub fn arguments(&self) -> Vec<Cursor> {
        let n = unsafe { clang_Cursor_getNumArguments(self.0) };
        (0..n.max(0) as c_uint)
            .map(|i| Cursor(unsafe { clang_Cursor_getArgument(self.0, i) }))
            .collect()
    }

    /// A constructor or assignment operator the compiler writes (implicit or `= default`):
    /// its effect is a plain copy of the object's bytes, or nothing.
    pub fn trivial_special_member(&self) -> Option<SpecialMember> {
        if self.is_user_provided() {
            return None;
        }
        // A constructor of a class with virtual functions also stores the class's id (see
        // codegen/virtuals.rs): it is emitted as a function.
        if self.kind() == CXCursor_Constructor
            && self
                .semantic_parent()
                .is_some_and(|class| class.ty().is_dynamic_class())
        {
            return None;
        }
        unsafe {
            match self.kind() {
                CXCursor_Constructor if clang_CXXConstructor_isDefaultConstructor(self.0) != 0 => {
                    Some(SpecialMember::DefaultConstructor)
                }
                CXCursor_Constructor
                    if clang_CXXConstructor_isCopyConstructor(self.0) != 0
                        || clang_CXXConstructor_isMoveConstructor(self.0) != 0 =>
                {
                    Some(SpecialMember::CopyConstructor)
                }
                CXCursor_CXXMethod
                    if clang_CXXMethod_isCopyAssignmentOperator(self.0) != 0
                        || clang_CXXMethod_isMoveAssignmentOperator(self.0) != 0 =>
                {
                    Some(SpecialMember::CopyAssignment)
                }
                _ => None,
            }
        }
    }

    /// A function with a body the user wrote (not implicit, not `= default`).
    pub fn is_user_provided(&self) -> bool {
        let user_written = self.definition().is_some_and(|d| {
            d.children()
                .iter()
                .any(|c| c.kind() == CXCursor_CompoundStmt)
        });
        // SAFETY: a plain query of a live cursor.
        let defaulted = unsafe { clang_CXXMethod_isDefaulted(self.0) != 0 };
        user_written && !defaulted
    }

    /// A copy or move constructor (implicit, defaulted or written).
    /// Whether this is a constructor template (`template <class T> S(const T&)`).
    pub fn is_constructor_template(&self) -> bool {
        // SAFETY: a plain query of a live cursor.
        self.kind() == CXCursor_FunctionTemplate
            && unsafe { clang_getTemplateCursorKind(self.0) } == CXCursor_Constructor
    }

    pub fn is_copy_or_move_constructor(&self) -> bool {
        // SAFETY: plain queries of a live cursor.
        unsafe {
            self.kind() == CXCursor_Constructor
                && (clang_CXXConstructor_isCopyConstructor(self.0) != 0
                    || clang_CXXConstructor_isMoveConstructor(self.0) != 0)
        }
    }

    /// A move constructor (implicit, defaulted or written).
    pub fn is_move_constructor(&self) -> bool {
        // SAFETY: a plain query of a live cursor.
        unsafe {
            self.kind() == CXCursor_Constructor
                && clang_CXXConstructor_isMoveConstructor(self.0) != 0
        }
    }

    /// A copy or move assignment operator (implicit, defaulted or written).
    pub fn is_copy_or_move_assignment(&self) -> bool {
        // SAFETY: plain queries of a live cursor.
        unsafe {
            self.kind() == CXCursor_CXXMethod
                && (clang_CXXMethod_isCopyAssignmentOperator(self.0) != 0
                    || clang_CXXMethod_isMoveAssignmentOperator(self.0) != 0)
        }
    }

    /// A move assignment operator (implicit, defaulted or written).
    pub fn is_move_assignment(&self) -> bool {
        // SAFETY: a plain query of a live cursor.
        unsafe {
            self.kind() == CXCursor_CXXMethod
                && clang_CXXMethod_isMoveAssignmentOperator(self.0) != 0
        }
    }

    /// A default constructor (implicit, defaulted or written).
    pub fn is_default_constructor(&self) -> bool {
        // SAFETY: a plain query of a live cursor.
        unsafe {
            self.kind() == CXCursor_Constructor
                && clang_CXXConstructor_isDefaultConstructor(self.0) != 0
        }
    }

    /// A member function declared `= delete` (or deleted implicitly).
    pub fn is_deleted_method(&self) -> bool {
        // SAFETY: a plain query of a live cursor.
        unsafe {
            matches!(self.kind(), CXCursor_CXXMethod | CXCursor_Constructor)
                && clang_CXXMethod_isDeleted(self.0) != 0
        }
    }

    /// Internal linkage: `static` functions and those in anonymous namespaces.
    pub fn has_internal_linkage(&self) -> bool {
        unsafe { clang_getCursorLinkage(self.0) == CXLinkage_Internal }
    }

    /// A base-class specifier naming a virtual base (`struct B : virtual A`).
    pub fn is_virtual_base(&self) -> bool {
        unsafe { clang_isVirtualBase(self.0) != 0 }
    }

    pub fn is_virtual_method(&self) -> bool {
        unsafe { clang_CXXMethod_isVirtual(self.0) != 0 }
    }

    /// The functions this member function overrides (directly).
    pub fn overridden(&self) -> Vec<Cursor> {
        let mut list: *mut CXCursor = std::ptr::null_mut();
        let mut count = 0u32;
        // SAFETY: libclang allocates the list, which is copied and disposed of here.
        unsafe {
            clang_getOverriddenCursors(self.0, &mut list, &mut count);
            if list.is_null() {
                return Vec::new();
            }
            let out = std::slice::from_raw_parts(list, count as usize)
                .iter()
                .map(|c| Cursor(*c))
                .collect();
            clang_disposeOverriddenCursors(list);
            out
        }
    }

    /// Whether this member call names its function with a qualifier (`p->Base::f()`).
    pub fn is_qualified_member_call(&self) -> bool {
        // SAFETY: a statement cursor holds its `clang::Stmt *` in data[1]; the shim checks it.
        self.kind() == CXCursor_CallExpr
            && unsafe { hipmlir_is_qualified_member_call(self.0.data[1]) } == 1
    }

    pub fn is_const_method(&self) -> bool {
        unsafe { clang_CXXMethod_isConst(self.0) != 0 }
    }

    pub fn is_static_method(&self) -> bool {
        unsafe { clang_CXXMethod_isStatic(self.0) != 0 }
    }

    pub fn enum_integer_type(&self) -> CType {
        CType(unsafe { clang_getEnumDeclIntegerType(self.0) })
    }

    /// The template arguments of a function template instantiation as C++ spells them (types
    /// and integral values); None for a function that is not an instantiation.
    pub fn template_arguments(&self) -> Option<Vec<String>> {
        let n = unsafe { clang_Cursor_getNumTemplateArguments(self.0) };
        if n < 0 {
            return None;
        }
        (0..n as c_uint)
            .map(|i| unsafe {
                match clang_Cursor_getTemplateArgumentKind(self.0, i) {
                    CXTemplateArgumentKind_Type => {
                        Some(CType(clang_Cursor_getTemplateArgumentType(self.0, i)).spelling())
                    }
                    CXTemplateArgumentKind_Integral => {
                        Some(clang_Cursor_getTemplateArgumentValue(self.0, i).to_string())
                    }
                    _ => None,
                }
            })
            .collect()
    }

    /// A variable's initializer expression, if it has one.
    pub fn var_initializer(&self) -> Option<Cursor> {
        let c = Cursor(unsafe { clang_Cursor_getVarDeclInitializer(self.0) });
        (!c.is_null()).then_some(c)
    }

    /// A bit-field's width in bits; None for other fields.
    pub fn bit_field_width(&self) -> Option<u32> {
        // SAFETY: reading a cursor of a live TU.
        unsafe {
            (clang_Cursor_isBitField(self.0) != 0)
                .then(|| u32::try_from(clang_getFieldDeclBitWidth(self.0)).ok())
                .flatten()
        }
    }

    pub fn has_global_storage(&self) -> bool {
        unsafe { clang_Cursor_hasVarDeclGlobalStorage(self.0) == 1 }
    }

    /// A field's offset in its record, in bits.
    pub fn field_offset_bits(&self) -> Option<u64> {
        let o = unsafe { clang_Cursor_getOffsetOfField(self.0) };
        (o >= 0).then_some(o as u64)
    }

    pub fn binary_operator(&self) -> CXBinaryOperatorKind {
        unsafe { clang_getCursorBinaryOperatorKind(self.0) }
    }

    pub fn binary_operator_spelling(&self) -> String {
        take_string(unsafe { clang_getBinaryOperatorKindSpelling(self.binary_operator()) })
    }

    pub fn unary_operator(&self) -> CXUnaryOperatorKind {
        unsafe { clang_getCursorUnaryOperatorKind(self.0) }
    }

    pub fn unary_operator_spelling(&self) -> String {
        take_string(unsafe { clang_getUnaryOperatorKindSpelling(self.unary_operator()) })
    }

    /// Evaluates a constant expression (literals, constexpr values).
    pub fn evaluate(&self) -> Option<ConstValue> {
        unsafe {
            let result = clang_Cursor_Evaluate(self.0);
            if result.is_null() {
                return None;
            }
            let value = match clang_EvalResult_getKind(result) {
                CXEval_Int => Some(if clang_EvalResult_isUnsignedInt(result) != 0 {
                    ConstValue::Int(clang_EvalResult_getAsUnsigned(result) as i128)
                } else {
                    ConstValue::Int(clang_EvalResult_getAsLongLong(result) as i128)
                }),
                CXEval_Float => Some(ConstValue::Float(clang_EvalResult_getAsDouble(result))),
                _ => None,
            };
            clang_EvalResult_dispose(result);
            value
        }
    }

    /// Attribute cursors among the children (`__global__`, `__device__`, ...).
    pub fn has_attr(&self, kind: CXCursorKind) -> bool {
        self.children().iter().any(|c| c.kind() == kind)
    }

    /// The source text of the cursor's extent, token by token (for literal suffixes and the like).
    pub fn tokens(&self) -> Vec<String> {
        self.tokens_with_offsets()
            .into_iter()
            .map(|(t, _)| t)
            .collect()
    }

    /// The expression under implicit casts and parentheses.
    pub fn without_implicit(&self) -> Cursor {
        let mut cur = *self;
        while matches!(cur.kind(), CXCursor_UnexposedExpr | CXCursor_ParenExpr) {
            match cur.children().as_slice() {
                [only] => cur = *only,
                _ => break,
            }
        }
        cur
    }

    pub fn is_expression(&self) -> bool {
        unsafe { clang_isExpression(self.kind()) != 0 }
    }

    /// The parts of a `for` statement (init, condition variable, condition, increment, body) or
    /// of an `if` statement (init, condition variable, condition, then, else), each the child
    /// that holds it or `None` where the statement has none. libclang lists only the parts
    /// present; clang's node says which they are (cxx/statement_parts.cpp). `None` for other
    /// statements, or if the node's parts are not exactly the children libclang shows.
    fn statement_parts(&self) -> Option<[Option<Cursor>; 5]> {
        let read = match self.kind() {
            CXCursor_ForStmt => hipmlir_for_parts,
            CXCursor_IfStmt => hipmlir_if_parts,
            _ => return None,
        };
        let mut nodes = [std::ptr::null::<c_void>(); 5];
        // SAFETY: a statement cursor holds its `clang::Stmt *` in data[1], of the kind checked.
        unsafe { read(self.0.data[1], &mut nodes) };
        let children = self.children();
        // A statement child holds its node in data[1], a declaration (the condition variable) in
        // data[0].
        let node_of = |c: &Cursor| {
            if c.kind() == CXCursor_VarDecl {
                c.0.data[0]
            } else {
                c.0.data[1]
            }
        };
        let mut used = vec![false; children.len()];
        let mut parts = [None; 5];
        for (part, node) in parts.iter_mut().zip(nodes) {
            if node.is_null() {
                continue;
            }
            let at = children
                .iter()
                .enumerate()
                .position(|(i, c)| !used[i] && node_of(c) == node)?;
            used[at] = true;
            *part = Some(children[at]);
        }
        used.iter().all(|u| *u).then_some(parts)
    }

    /// Whether a template parameter or function parameter declaration is a pack.
    pub fn is_pack(&self) -> bool {
        let declaration = matches!(
            self.kind(),
            CXCursor_TemplateTypeParameter
                | CXCursor_NonTypeTemplateParameter
                | CXCursor_TemplateTemplateParameter
                | CXCursor_ParmDecl
        );
        // SAFETY: a declaration cursor holds its `clang::Decl *` in data[0]; the shim checks it.
        declaration && unsafe { hipmlir_is_pack(self.0.data[0]) != 0 }
    }

    /// Whether an expression is a glvalue, an lvalue or an xvalue (`std::move(t)`): it names an
    /// object (libclang's types leave out the value category).
    pub fn is_glvalue(&self) -> bool {
        // SAFETY: an expression cursor holds its `clang::Expr *` in data[1]; the shim checks it.
        self.is_expression() && unsafe { hipmlir_is_glvalue(self.0.data[1]) != 0 }
    }

    /// Whether a binary or compound-assignment operator on floats may be fused with another
    /// (`a * b + c` into an FMA): true unless a pragma turns contraction off there (hipcc's
    /// default, `-ffp-contract=fast-honor-pragmas`).
    pub fn allows_fp_contraction(&self) -> bool {
        // SAFETY: an expression cursor holds its `clang::Expr *` in data[1]; the shim checks it.
        self.is_expression() && unsafe { hipmlir_fp_contract_allowed(self.0.data[1]) == 1 }
    }

    /// A `<<<>>>` launch (libclang shows it as a plain call): its callee, its configuration call,
    /// whose extent runs from the `<<<` to the `>>>`, and where the `)` closing its arguments is.
    /// `None` for any other cursor.
    pub fn kernel_call_parts(&self) -> Option<KernelCallParts> {
        if self.kind() != CXCursor_CallExpr {
            return None;
        }
        let (mut callee, mut config, mut rparen) = (std::ptr::null(), std::ptr::null(), 0);
        // SAFETY: an expression cursor holds its `clang::Expr *` in data[1]; the shim checks the
        // node's class before reading it.
        if unsafe { hipmlir_kernel_call(self.0.data[1], &mut callee, &mut config, &mut rparen) }
            != 0
        {
            return None;
        }
        let children = self.children();
        let child = |node: *const c_void| children.iter().find(|c| c.0.data[1] == node).copied();
        // A libclang location is the translation unit's source manager and language options
        // (as every location of this unit holds them) with clang's raw location.
        // SAFETY: plain libclang query on a live cursor.
        let mut loc = unsafe { clang_getCursorLocation(self.0) };
        loc.int_data = rparen;
        Some(KernelCallParts {
            callee: child(callee)?,
            config: child(config)?,
            rparen: Position::of(loc),
        })
    }

    /// An atomic builtin call (libclang shows it as an unexposed expression): the builtin's
    /// name (`__atomic_fetch_add`) and its operands in clang's order (pointer, memory order,
    /// value, failure order, second value, weak, HIP scope; as many as the builtin has).
    pub fn atomic_parts(&self) -> Option<(String, Vec<Cursor>)> {
        if self.kind() != CXCursor_UnexposedExpr {
            return None;
        }
        let mut name: *const u8 = std::ptr::null();
        let mut len = 0usize;
        let mut nodes = [std::ptr::null::<c_void>(); 8];
        // SAFETY: an expression cursor holds its `clang::Expr *` in data[1]; the shim checks the
        // node's class before reading it.
        let count =
            unsafe { hipmlir_atomic_parts(self.0.data[1], &mut name, &mut len, &mut nodes) };
        let count = usize::try_from(count).ok()?;
        // SAFETY: the name is the builtin's static spelling, `len` bytes long.
        let name = unsafe { std::slice::from_raw_parts(name, len) };
        let name = String::from_utf8_lossy(name).into_owned();
        let children = self.children();
        let parts = nodes[..count]
            .iter()
            .map(|node| children.iter().find(|c| c.0.data[1] == *node).copied())
            .collect::<Option<Vec<Cursor>>>()?;
        Some((name, parts))
    }

    /// The parts of a new-expression, read from clang's node; `None` for other cursors, or if the
    /// node's parts are not exactly the children libclang shows.
    pub fn new_parts(&self) -> Option<NewParts> {
        if self.kind() != CXCursor_CXXNewExpr {
            return None;
        }
        let (mut is_array, mut pass_alignment, mut zeroes) = (0, 0, 0);
        let (mut array_size, mut initializer, mut operator_new) =
            (std::ptr::null(), std::ptr::null(), std::ptr::null());
        let mut placement = [std::ptr::null::<c_void>(); 4];
        // SAFETY: an expression cursor holds its `clang::Expr *` in data[1]; the shim checks the
        // node's class before reading it.
        let count = unsafe {
            hipmlir_new_parts(
                self.0.data[1],
                &mut is_array,
                &mut pass_alignment,
                &mut zeroes,
                &mut array_size,
                &mut initializer,
                &mut operator_new,
                &mut placement,
            )
        };
        let count = usize::try_from(count).ok()?;
        let children = self.children();
        let child = |node: *const c_void| -> Option<Option<Cursor>> {
            if node.is_null() {
                return Some(None);
            }
            children
                .iter()
                .find(|c| c.0.data[1] == node)
                .map(|c| Some(*c))
        };
        Some(NewParts {
            is_array: is_array != 0,
            pass_alignment: pass_alignment != 0,
            placement: placement[..count]
                .iter()
                .map(|node| child(*node).flatten())
                .collect::<Option<Vec<Cursor>>>()?,
            array_size: child(array_size)?,
            // An initializer that only zeroes may have no cursor of its own.
            initializer: if zeroes == 2 {
                None
            } else {
                child(initializer)?
            },
            zeroes: zeroes != 0,
            operator_new: (!operator_new.is_null()).then_some(DeclNode(operator_new)),
        })
    }

    /// The parts of a delete-expression; `None` for other cursors.
    pub fn delete_parts(&self) -> Option<DeleteParts> {
        if self.kind() != CXCursor_CXXDeleteExpr {
            return None;
        }
        let mut is_array = 0;
        let mut operator_delete = std::ptr::null();
        // SAFETY: as in `new_parts`.
        let found =
            unsafe { hipmlir_delete_parts(self.0.data[1], &mut is_array, &mut operator_delete) };
        (found == 0).then_some(DeleteParts {
            is_array: is_array != 0,
            operator_delete: (!operator_delete.is_null()).then_some(DeclNode(operator_delete)),
        })
    }

    /// The initializations a constructor runs before its body, in clang's order (bases, then
    /// members in declaration order), the implicit ones included: those libclang shows (as
    /// written) and those clang added (default constructors of bases and members, default
    /// member initializers). `None` for other cursors, or when one cannot be shown as a cursor.
    pub fn constructor_initializers(&self) -> Option<Vec<CtorInit>> {
        if self.kind() != CXCursor_Constructor {
            return None;
        }
        const MAX: usize = 4096;
        let mut what = vec![0i32; MAX];
        let mut fields = vec![std::ptr::null::<c_void>(); MAX];
        let mut inits = vec![std::ptr::null::<c_void>(); MAX];
        let mut kinds = vec![0i32; MAX];
        // SAFETY: a declaration cursor holds its `clang::Decl *` in data[0]; the shim checks the
        // node's class and writes at most MAX entries.
        let count = unsafe {
            hipmlir_ctor_initializers(
                self.0.data[0],
                MAX as i32,
                what.as_mut_ptr(),
                fields.as_mut_ptr(),
                inits.as_mut_ptr(),
                kinds.as_mut_ptr(),
            )
        };
        let count = usize::try_from(count).ok()?;
        let mut written = Vec::new();
        (0..count)
            .map(|i| {
                let init = self.semantic_child(inits[i], kinds[i], &mut written)?;
                Some(match what[i] {
                    1 => CtorInit::Base(init),
                    2 => CtorInit::Member(
                        self.declaration_cursor(fields[i], CXCursor_FieldDecl),
                        init,
                    ),
                    3 => CtorInit::Delegating(init),
                    _ => CtorInit::Indirect(
                        self.declaration_cursor(fields[i], CXCursor_FieldDecl),
                        init,
                    ),
                })
            })
            .collect()
    }

    /// Whether a field declaration has a default member initializer.
    pub fn has_in_class_initializer(&self) -> bool {
        // SAFETY: a declaration cursor holds its `clang::Decl *` in data[0]; the shim checks it.
        self.kind() == CXCursor_FieldDecl
            && unsafe { hipmlir_has_in_class_initializer(self.0.data[0]) == 1 }
    }

    /// Whether this construct expression zero-initializes its object before the constructor
    /// runs (value-initialization, `T()` or `T{}`, of a class without a user-provided default
    /// constructor).
    pub fn construct_zeroes(&self) -> bool {
        // SAFETY: an expression cursor holds its `clang::Stmt *` in data[1]; the shim checks the
        // node's class before reading it.
        self.kind() == CXCursor_CallExpr && unsafe { hipmlir_construct_zeroes(self.0.data[1]) == 1 }
    }

    /// What this expression is among the nodes of object lifetime (`None` for the others).
    pub fn lifetime_node(&self) -> Option<LifetimeNode> {
        if self.kind() != CXCursor_UnexposedExpr {
            return None;
        }
        // SAFETY: an expression cursor holds its `clang::Stmt *` in data[1]; the shim checks the
        // node's class before reading it.
        Some(match unsafe { hipmlir_lifetime_kind(self.0.data[1]) } {
            1 => LifetimeNode::FullExpression,
            2 => LifetimeNode::BindTemporary,
            3 => LifetimeNode::Materialize { extended: false },
            4 => LifetimeNode::Materialize { extended: true },
            5 => LifetimeNode::StaticTemporary,
            6 => LifetimeNode::DefaultMemberInit,
            7 => LifetimeNode::ValueInit,
            8 => LifetimeNode::DefaultArgument,
            _ => return None,
        })
    }

    /// The initializers of a lambda expression's captures, in the order of its closure's fields
    /// (a by-copy capture's copy, through the constructor clang chose); `None` for a capture
    /// without one, or for another expression.
    pub fn lambda_capture_inits(&self) -> Option<Vec<Option<Cursor>>> {
        if self.kind() != CXCursor_LambdaExpr {
            return None;
        }
        const MAX: usize = 4096;
        let mut inits = vec![std::ptr::null::<c_void>(); MAX];
        let mut kinds = vec![0i32; MAX];
        // SAFETY: an expression cursor holds its `clang::Stmt *` in data[1]; the shim checks the
        // node's class and writes at most MAX entries.
        let count = unsafe {
            hipmlir_lambda_capture_inits(
                self.0.data[1],
                MAX as i32,
                inits.as_mut_ptr(),
                kinds.as_mut_ptr(),
            )
        };
        let count = usize::try_from(count).ok()?;
        let mut written = Vec::new();
        Some(
            (0..count)
                .map(|i| self.semantic_child(inits[i], kinds[i], &mut written))
                .collect(),
        )
    }

    /// The node of an expression (see [`ExprNode`]).
    pub fn expr_node(&self) -> Option<ExprNode> {
        self.is_expression().then_some(ExprNode(self.0.data[1]))
    }

    /// The parts of an array-init loop (see [`ArrayInitLoop`]); `None` for other expressions.
    pub fn array_init_loop(&self) -> Option<ArrayInitLoop> {
        if self.kind() != CXCursor_UnexposedExpr {
            return None;
        }
        let mut source = std::ptr::null();
        let mut element = std::ptr::null();
        // SAFETY: an expression cursor holds its `clang::Stmt *` in data[1]; the shim checks the
        // node's class before reading it.
        if unsafe { hipmlir_array_init_loop(self.0.data[1], &mut source, &mut element) } == 0 {
            return None;
        }
        // Both are among the loop's children as libclang shows them.
        let mut written = Vec::new();
        Some(ArrayInitLoop {
            source: self.semantic_child(source, 0, &mut written)?,
            element: self.semantic_child(element, 0, &mut written)?,
        })
    }

    /// Whether this is the index of the element an array-init loop initializes.
    pub fn is_array_init_index(&self) -> bool {
        // SAFETY: an expression cursor holds its `clang::Stmt *` in data[1]; the shim checks the
        // node's class before reading it.
        self.kind() == CXCursor_UnexposedExpr
            && unsafe { hipmlir_is_array_init_index(self.0.data[1]) } != 0
    }

    /// For a return statement: the local variable it returns by the named return value
    /// optimization (built where the result goes and not destroyed), if any.
    pub fn nrvo_variable(&self) -> Option<Cursor> {
        if self.kind() != CXCursor_ReturnStmt {
            return None;
        }
        // SAFETY: a statement cursor holds its `clang::Stmt *` in data[1]; the shim checks it.
        let decl = unsafe { hipmlir_nrvo_variable(self.0.data[1]) };
        (!decl.is_null()).then(|| self.declaration_cursor(decl, CXCursor_VarDecl))
    }

    /// Whether a local variable is built in its function's return slot (see `nrvo_variable`).
    pub fn is_nrvo_variable(&self) -> bool {
        // SAFETY: a declaration cursor holds its `clang::Decl *` in data[0]; the shim checks it.
        self.kind() == CXCursor_VarDecl && unsafe { hipmlir_is_nrvo_variable(self.0.data[0]) != 0 }
    }

    /// Whether a constructor call is an elidable copy or move of a temporary (C++14 builds
    /// those; clang builds the object in place of the temporary).
    pub fn is_elidable_construction(&self) -> bool {
        // SAFETY: an expression cursor holds its `clang::Stmt *` in data[1]; the shim checks it.
        self.kind() == CXCursor_CallExpr
            && unsafe { hipmlir_is_elidable_construction(self.0.data[1]) != 0 }
    }

    /// The initializers of a braced list as clang understood it: one per base, member or element
    /// (constructor calls, conversions and elided braces made explicit; libclang shows the list
    /// as written), and how elements beyond them are initialized (the array filler). `None`
    /// for other cursors, or when an initializer cannot be shown as a cursor.
    pub fn init_list_items(&self) -> Option<(Vec<Cursor>, Option<Cursor>)> {
        if self.kind() != CXCursor_InitListExpr {
            return None;
        }
        const MAX: usize = 1 << 16;
        let mut nodes = vec![std::ptr::null::<c_void>(); MAX];
        let mut kinds = vec![0i32; MAX];
        let mut filler = std::ptr::null();
        let mut filler_kind = 0;
        // SAFETY: an expression cursor holds its `clang::Stmt *` in data[1]; the shim checks the
        // node's class and writes at most MAX entries.
        let count = unsafe {
            hipmlir_init_list_items(
                self.0.data[1],
                nodes.as_mut_ptr(),
                kinds.as_mut_ptr(),
                MAX as i32,
                &mut filler,
                &mut filler_kind,
            )
        };
        let count = usize::try_from(count).ok()?;
        let mut written = Vec::new();
        let items = nodes[..count]
            .iter()
            .zip(&kinds)
            .map(|(node, kind)| self.semantic_child(*node, *kind, &mut written))
            .collect::<Option<Vec<_>>>()?;
        let filler = match filler.is_null() {
            true => None,
            false => Some(self.semantic_child(filler, filler_kind, &mut written)?),
        };
        Some((items, filler))
    }

    /// A cursor for an expression node of this list's semantic form: made for the implicit
    /// nodes (`kind` is libclang's kind for them), found among the written descendants for the
    /// others (`written` caches them).
    fn semantic_child(
        &self,
        node: *const c_void,
        kind: i32,
        written: &mut Vec<Cursor>,
    ) -> Option<Cursor> {
        if node.is_null() {
            return None;
        }
        if kind != 0 {
            // libclang's encoding of a statement cursor: the enclosing declaration, the node,
            // the translation unit.
            return Some(Cursor(CXCursor {
                kind: kind as CXCursorKind,
                xdata: 0,
                data: [self.0.data[0], node, self.0.data[2]],
            }));
        }
        if written.is_empty() {
            fn collect(c: &Cursor, out: &mut Vec<Cursor>) {
                for child in c.children() {
                    out.push(child);
                    collect(&child, out);
                }
            }
            collect(self, written);
        }
        written.iter().find(|c| c.0.data[1] == node).copied()
    }

    /// A cursor for declaration `decl` of the translation unit this cursor belongs to, as
    /// libclang encodes one (the declaration, first of its group, the translation unit).
    fn declaration_cursor(&self, decl: *const c_void, kind: CXCursorKind) -> Cursor {
        Cursor(CXCursor {
            kind,
            xdata: 0,
            // data[1] is a flag (first of its group), not an address.
            data: [decl, std::ptr::without_provenance(1), self.0.data[2]],
        })
    }

    /// The function at file scope that `node` declares (the global `operator new` a
    /// new-expression calls), as a cursor of this cursor's translation unit; `None` when `node`
    /// is a member function.
    pub fn file_scope_function(&self, node: DeclNode) -> Option<Cursor> {
        let function = self.declaration_cursor(node.0, CXCursor_FunctionDecl);
        function
            .semantic_parent()
            .is_some_and(|p| p.kind() == CXCursor_TranslationUnit)
            .then_some(function)
    }

    /// Whether this cursor is the declaration `node`.
    pub fn is_declaration_node(&self, node: DeclNode) -> bool {
        // SAFETY: a plain query; a declaration cursor holds its `clang::Decl *` in data[0].
        unsafe { clang_isDeclaration(self.kind()) != 0 && self.0.data[0] == node.0 }
    }

    /// The cursor of the whole translation unit this cursor belongs to.
    pub fn translation_unit(&self) -> Cursor {
        // SAFETY: plain libclang queries on a live cursor.
        Cursor(unsafe { clang_getTranslationUnitCursor(clang_Cursor_getTranslationUnit(self.0)) })
    }

    /// Whether a special member function is `= default`.
    pub fn is_defaulted_method(&self) -> bool {
        unsafe { clang_CXXMethod_isDefaulted(self.0) != 0 }
    }

    /// The tokens of the cursor's extent with their byte offsets in the file.
    pub fn tokens_with_offsets(&self) -> Vec<(String, usize)> {
        unsafe {
            let tu = clang_Cursor_getTranslationUnit(self.0);
            let range = clang_getCursorExtent(self.0);
            let mut tokens: *mut CXToken = std::ptr::null_mut();
            let mut count: c_uint = 0;
            clang_tokenize(tu, range, &mut tokens, &mut count);
            let out = (0..count as usize)
                .map(|i| {
                    let token = *tokens.add(i);
                    let (_, offset) =
                        location_offset(clang_getTokenLocation(tu, token), Place::Spelling);
                    (take_string(clang_getTokenSpelling(tu, token)), offset)
                })
                .collect();
            if !tokens.is_null() {
                clang_disposeTokens(tu, tokens, count);
            }
            out
        }
    }

    /// The tokens of the cursor's extent: their spelling, kind and where each is spelled (a
    /// macro definition's own tokens lie in the definition).
    pub fn tokens_spelled(&self) -> Vec<Token> {
        // SAFETY: plain libclang query on a live cursor.
        unsafe { tokens_of(self.0, clang_getCursorExtent(self.0)) }
    }

    /// The tokens written in bytes `start..end` of `file`, a file of this cursor's translation
    /// unit (raw tokens: those of preprocessor directives and inactive blocks included).
    pub fn tokens_in(&self, file: &str, start: usize, end: usize) -> Vec<Token> {
        // SAFETY: plain libclang queries on a live cursor's translation unit.
        unsafe {
            let tu = clang_Cursor_getTranslationUnit(self.0);
            let name = cstring(file);
            let f = clang_getFile(tu, name.as_ptr());
            if f.is_null() {
                return Vec::new();
            }
            let range = clang_getRange(
                clang_getLocationForOffset(tu, f, start as c_uint),
                clang_getLocationForOffset(tu, f, end as c_uint),
            );
            // libclang lexes on to the token that begins after the range's last whitespace.
            let mut tokens = tokens_of(self.0, range);
            tokens.retain(|t| t.offset >= start && t.offset < end);
            tokens
        }
    }
}

/// The tokens of a range of `cursor`'s translation unit.
unsafe fn tokens_of(cursor: CXCursor, range: CXSourceRange) -> Vec<Token> {
    unsafe {
        let tu = clang_Cursor_getTranslationUnit(cursor);
        let mut tokens: *mut CXToken = std::ptr::null_mut();
        let mut count: c_uint = 0;
        clang_tokenize(tu, range, &mut tokens, &mut count);
        let out = (0..count as usize)
            .map(|i| {
                let token = *tokens.add(i);
                let (_, offset) =
                    location_offset(clang_getTokenLocation(tu, token), Place::Spelling);
                Token {
                    text: take_string(clang_getTokenSpelling(tu, token)),
                    kind: clang_getTokenKind(token),
                    offset,
                }
            })
            .collect();
        if !tokens.is_null() {
            clang_disposeTokens(tu, tokens, count);
        }
        out
    }
}

impl Cursor {
    /// Where the cursor's extent begins and ends (the end one past its last token).
    pub fn extent_positions(&self) -> (Position, Position) {
        // SAFETY: plain libclang queries on a live cursor.
        unsafe {
            let range = clang_getCursorExtent(self.0);
            (
                Position::of(clang_getRangeStart(range)),
                Position::of(clang_getRangeEnd(range)),
            )
        }
    }

    /// Whether a macro definition cursor defines a function-like macro.
    pub fn is_function_like_macro(&self) -> bool {
        // SAFETY: plain libclang query on a live cursor.
        unsafe { clang_Cursor_isMacroFunctionLike(self.0) != 0 }
    }

    /// Byte offsets of the cursor's extent where it was expanded (for a macro invocation: the
    /// invocation in the file that uses it): (file, start, end).
    pub fn expansion_offsets(&self) -> (String, usize, usize) {
        self.range_offsets(Place::Expansion)
    }

    /// Byte offsets of the cursor's extent in its file: (file, start, end).
    pub fn extent_offsets(&self) -> (String, usize, usize) {
        self.range_offsets(Place::Spelling)
    }

    fn range_offsets(&self, place: Place) -> (String, usize, usize) {
        // SAFETY: plain libclang queries on a live cursor.
        unsafe {
            let range = clang_getCursorExtent(self.0);
            let (file, start) = location_offset(clang_getRangeStart(range), place);
            let (_, end) = location_offset(clang_getRangeEnd(range), place);
            (file, start, end)
        }
    }
}

/// Which file position of a location: where it is spelled, where its macro was expanded, or
/// where it is written in a file (a macro argument where the argument is written, a macro
/// definition's token where the macro is used).
#[derive(Clone, Copy)]
enum Place {
    Spelling,
    Expansion,
    File,
}

/// A token of the source (see [`Cursor::tokens_spelled`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub text: String,
    pub kind: CXTokenKind,
    /// Byte offset where it is spelled.
    pub offset: usize,
}

/// The parts of a `<<<>>>` launch (see [`Cursor::kernel_call_parts`]).
pub struct KernelCallParts {
    pub callee: Cursor,
    pub config: Cursor,
    /// The `)` that closes the kernel's arguments.
    pub rparen: Position,
}

/// A place in the source: a file and a byte offset.
pub type FileOffset = (String, usize);

/// Where a source location is: where its characters are spelled, and where it stands in a file
/// that the compiler reads as written. The two differ for a token of a macro's definition (spelled
/// in the definition, standing where the macro is used); a macro argument is spelled where it
/// is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub spelled: FileOffset,
    pub in_file: FileOffset,
    /// Where the macro it comes from, if any, is used (else where it is spelled).
    pub expanded: FileOffset,
}

impl Position {
    fn of(loc: CXSourceLocation) -> Position {
        // SAFETY: plain libclang queries on a location of a live translation unit.
        unsafe {
            Position {
                spelled: location_offset(loc, Place::Spelling),
                in_file: location_offset(loc, Place::File),
                expanded: location_offset(loc, Place::Expansion),
            }
        }
    }

    /// Whether the location is a token of a macro's definition (not a macro argument).
    pub fn in_macro_body(&self) -> bool {
        self.spelled != self.in_file
    }

    /// Whether the location is written in its file outside any macro use.
    pub fn written_plainly(&self) -> bool {
        self.spelled == self.in_file && self.spelled == self.expanded
    }
}

impl Cursor {
    /// Where the cursor's location (a declaration's name) is.
    pub fn position(&self) -> Position {
        // SAFETY: plain libclang query on a live cursor.
        Position::of(unsafe { clang_getCursorLocation(self.0) })
    }
}

unsafe fn location_offset(loc: CXSourceLocation, place: Place) -> (String, usize) {
    let mut file: CXFile = std::ptr::null_mut();
    let mut offset: c_uint = 0;
    let (line, column) = (std::ptr::null_mut(), std::ptr::null_mut());
    match place {
        Place::Spelling => clang_getSpellingLocation(loc, &mut file, line, column, &mut offset),
        Place::Expansion => clang_getExpansionLocation(loc, &mut file, line, column, &mut offset),
        Place::File => clang_getFileLocation(loc, &mut file, line, column, &mut offset),
    }
    let name = if file.is_null() {
        String::new()
    } else {
        take_string(clang_getFileName(file))
    };
    (name, offset as usize)
}

/// Special members whose effect is a byte copy (or nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialMember {
    DefaultConstructor,
    CopyConstructor,
    CopyAssignment,
}

/// A compile-time constant found by libclang.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ConstValue {
    Int(i128),
    Float(f64),
}

/// A clang type.
#[derive(Clone, Copy)]
pub struct CType(CXType);

impl std::fmt::Debug for CType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.spelling())
    }
}

impl CType {
    pub fn kind(&self) -> CXTypeKind {
        self.0.kind
    }
    pub fn spelling(&self) -> String {
        take_string(unsafe { clang_getTypeSpelling(self.0) })
    }
    pub fn canonical(&self) -> CType {
        CType(unsafe { clang_getCanonicalType(self.0) })
    }
    pub fn pointee(&self) -> CType {
        CType(unsafe { clang_getPointeeType(self.0) })
    }
    /// The class of a pointer to member (`S` of `int (S::*)(int)`).
    pub fn member_pointer_class(&self) -> CType {
        CType(unsafe { clang_Type_getClassType(self.0) })
    }
    pub fn element(&self) -> CType {
        CType(unsafe { clang_getArrayElementType(self.0) })
    }
    pub fn array_len(&self) -> i64 {
        unsafe { clang_getArraySize(self.0) }
    }
    pub fn is_const(&self) -> bool {
        unsafe { clang_isConstQualifiedType(self.0) != 0 }
    }
    /// `T *__restrict__`: a restrict-qualified (pointer) type.
    pub fn is_restrict(&self) -> bool {
        unsafe { clang_isRestrictQualifiedType(self.0) != 0 }
    }
    pub fn is_volatile(&self) -> bool {
        unsafe { clang_isVolatileQualifiedType(self.0) != 0 }
    }
    /// Size in bytes for the device target, or None for incomplete/dependent types.
    pub fn size_of(&self) -> Option<u64> {
        let s = unsafe { clang_Type_getSizeOf(self.0) };
        (s >= 0).then_some(s as u64)
    }
    /// Whether the type depends on template parameters (`T[2]` in a template).
    pub fn is_dependent(&self) -> bool {
        let s = unsafe { clang_Type_getSizeOf(self.0) };
        s == CXTypeLayoutError_Dependent as i64
    }
    /// Whether destroying an object of this class type does nothing; `None` for types that are
    /// not C++ classes with a definition.
    pub fn has_trivial_destructor(&self) -> Option<bool> {
        let decl = self.canonical().declaration();
        // SAFETY: a plain query.
        if unsafe { clang_isDeclaration(decl.kind()) } == 0 {
            return None;
        }
        // SAFETY: a declaration cursor holds its `clang::Decl *` in data[0]; the shim checks the
        // node's class before reading it.
        match unsafe { hipmlir_has_trivial_destructor(decl.0.data[0]) } {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
    pub fn align_of(&self) -> Option<u64> {
        let a = unsafe { clang_Type_getAlignOf(self.0) };
        (a >= 0).then_some(a as u64)
    }
    pub fn declaration(&self) -> Cursor {
        Cursor(unsafe { clang_getTypeDeclaration(self.0) })
    }

    /// The destructor of a class type as clang resolved it (the implicit one too, and that of a
    /// class template's instance, which libclang does not list among the class's children).
    /// `None` for types that are not classes with a definition.
    pub fn destructor(&self) -> Option<DestructorInfo> {
        let decl = self.canonical().declaration();
        // SAFETY: a plain query.
        if unsafe { clang_isDeclaration(decl.kind()) } == 0 {
            return None;
        }
        let mut virtual_bases = 0;
        // SAFETY: a declaration cursor holds its `clang::Decl *` in data[0]; the shim checks the
        // node's class before reading it.
        let find =
            |virtual_bases: &mut i32| unsafe { hipmlir_destructor(decl.0.data[0], virtual_bases) };
        let mut dtor = find(&mut virtual_bases);
        // SAFETY: as above.
        let trivial = unsafe { hipmlir_has_trivial_destructor(decl.0.data[0]) };
        if dtor.is_null() && trivial == 0 {
            // A class from a precompiled header has its members read in as they are asked for,
            // and the shim looks only at those in memory: visiting the class's children reads
            // them all (the implicit destructor among them, which the visit itself does not
            // list). The visit reads nothing of a template's implicit instance: a user header
            // whose classes have device destructors is not precompiled (preamble_headers.rs).
            let _ = decl.children();
            dtor = find(&mut virtual_bases);
        }
        if dtor.is_null() && trivial < 0 {
            return None;
        }
        let destructor =
            (!dtor.is_null()).then(|| decl.declaration_cursor(dtor, CXCursor_Destructor));
        Some(DestructorInfo {
            destructor,
            is_virtual: destructor.is_some_and(|d| d.is_virtual_method()),
            virtual_bases: virtual_bases != 0,
        })
    }

    /// Whether a class is passed to a function as the address of a temporary its caller makes
    /// and destroys (the Itanium C++ ABI: a class with a non-trivial copy or move constructor or
    /// destructor).
    pub fn passed_indirectly(&self) -> bool {
        let decl = self.canonical().declaration();
        // SAFETY: as in `destructor`.
        unsafe {
            clang_isDeclaration(decl.kind()) != 0 && hipmlir_passed_indirectly(decl.0.data[0]) == 1
        }
    }
    /// The byte offset of the `base` class subobject in an object of this record type, through
    /// any chain of non-virtual base classes; `None` when `base` is not such a base.
    pub fn base_offset(&self, base: &CType) -> Option<u64> {
        let decl = self.canonical().declaration();
        let wanted = base.canonical().declaration().canonical();
        if decl.is_null() || wanted.is_null() {
            return None;
        }
        self.bases().into_iter().find_map(|spec| {
            // A virtual base's offset is the most derived class's (see `virtual_base_offset`).
            if spec.is_virtual_base() {
                return None;
            }
            // SAFETY: plain libclang query on live cursors.
            let bits = unsafe { clang_getOffsetOfBase(decl.0, spec.0) };
            if bits < 0 {
                return None;
            }
            let spec_ty = spec.ty();
            let offset = bits as u64 / 8;
            if spec_ty.canonical().declaration().canonical() == wanted {
                Some(offset)
            } else {
                spec_ty.base_offset(base).map(|inner| offset + inner)
            }
        })
    }

    /// The virtual base classes of this class, direct and indirect, each once, in the order a
    /// complete object's constructor builds them (clang's: for each base in turn, its virtual
    /// bases, then the base itself if it is virtual).
    pub fn virtual_bases(&self) -> Vec<CType> {
        let mut out: Vec<CType> = Vec::new();
        let add = |ty: CType, out: &mut Vec<CType>| {
            let key = ty.canonical().declaration().canonical();
            if !out.iter().any(|t| t.declaration().canonical() == key) {
                out.push(ty.canonical());
            }
        };
        for spec in self.canonical().bases() {
            let base = spec.ty();
            for inner in base.virtual_bases() {
                add(inner, &mut out);
            }
            if spec.is_virtual_base() {
                add(base, &mut out);
            }
        }
        out
    }

    /// The byte offset of virtual base `vbase` in a complete object of this class: clang's
    /// record layout (cxx/record_layout.cpp), computed first by asking for the class's size.
    pub fn virtual_base_offset(&self, vbase: &CType) -> Option<u64> {
        let decl = self.canonical().declaration();
        let wanted = vbase.canonical().declaration();
        if decl.is_null() || wanted.is_null() {
            return None;
        }
        self.canonical().size_of()?;
        // SAFETY: declaration cursors hold their `clang::Decl *` in data[0] and their
        // translation unit in data[2]; the shim checks the nodes' classes.
        let bytes = unsafe {
            hipmlir_virtual_base_offset(
                decl.0.data[2] as *mut c_void,
                decl.0.data[0],
                wanted.0.data[0],
            )
        };
        u64::try_from(bytes).ok()
    }

    /// The base-class specifiers of a record type (for template instances too, whose
    /// declarations libclang shows without children).
    pub fn bases(&self) -> Vec<Cursor> {
        self.visit_all(clang_visitCXXBaseClasses)
    }

    /// Whether objects of this class hold a virtual table pointer (virtual functions).
    pub fn is_dynamic_class(&self) -> bool {
        let decl = self.canonical().declaration();
        // SAFETY: a declaration cursor holds its `clang::Decl *` in data[0]; the shim checks it.
        (unsafe { clang_isDeclaration(decl.kind()) } != 0)
            && (unsafe { hipmlir_is_dynamic_class(decl.0.data[0]) } == 1)
    }

    /// The member functions the class declares.
    pub fn methods(&self) -> Vec<Cursor> {
        const MAX: usize = 4096;
        let decl = self.canonical().declaration();
        // SAFETY: a plain query.
        if unsafe { clang_isDeclaration(decl.kind()) } == 0 {
            return Vec::new();
        }
        // A class from a precompiled header has its members read in as a visit asks for them.
        let _ = decl.children();
        let mut out = vec![std::ptr::null::<c_void>(); MAX];
        // SAFETY: as for `is_dynamic_class`; the shim writes at most MAX entries.
        let n = unsafe { hipmlir_record_methods(decl.0.data[0], out.as_mut_ptr(), MAX as i32) };
        let kind = |d: *const c_void| {
            // The cursor kind libclang gives each kind of member function.
            let c = decl.declaration_cursor(d, CXCursor_CXXMethod);
            // SAFETY: a cursor for a live declaration of this translation unit.
            let real = unsafe { clang_getCursorKind(clang_getCanonicalCursor(c.0)) };
            decl.declaration_cursor(d, real)
        };
        out.into_iter()
            .take(usize::try_from(n).unwrap_or(0))
            .map(kind)
            .collect()
    }

    /// The field declarations of a record type, in order.
    pub fn fields(&self) -> Vec<Cursor> {
        self.visit_all(clang_Type_visitFields)
    }

    /// Every cursor one of libclang's type visitors (fields, base classes) hands out, in order.
    fn visit_all(
        &self,
        visitor: unsafe extern "C" fn(CXType, CXFieldVisitor, CXClientData) -> CXVisitorResult,
    ) -> Vec<Cursor> {
        extern "C" fn visit(c: CXCursor, data: CXClientData) -> CXVisitorResult {
            // SAFETY: `data` is the Vec passed below, alive for the whole visit.
            let out = unsafe { &mut *(data as *mut Vec<Cursor>) };
            out.push(Cursor(c));
            CXVisit_Continue
        }
        let mut out: Vec<Cursor> = Vec::new();
        // SAFETY: plain libclang visit of a live type; `out` outlives it.
        unsafe {
            visitor(
                self.canonical().0,
                visit,
                &mut out as *mut Vec<Cursor> as *mut c_void,
            );
        }
        out
    }
    pub fn is_reference(&self) -> bool {
        matches!(
            self.canonical().kind(),
            CXType_LValueReference | CXType_RValueReference
        )
    }
    pub fn unqualified(&self) -> CType {
        CType(unsafe { clang_getUnqualifiedType(self.0) })
    }
    pub fn non_reference(&self) -> CType {
        CType(unsafe { clang_getNonReferenceType(self.0) })
    }
    pub fn function_args(&self) -> Vec<CType> {
        let n = unsafe { clang_getNumArgTypes(self.0) };
        (0..n.max(0) as c_uint)
            .map(|i| CType(unsafe { clang_getArgType(self.0, i) }))
            .collect()
    }
    pub fn is_variadic(&self) -> bool {
        unsafe { clang_isFunctionTypeVariadic(self.0) != 0 }
    }
    pub fn function_result(&self) -> CType {
        CType(unsafe { clang_getResultType(self.0) })
    }
}

/// The expansion position of a clang source location.
pub fn source_loc(loc: CXSourceLocation) -> SourceLoc {
    let mut file: CXFile = std::ptr::null_mut();
    let (mut line, mut column) = (0 as c_uint, 0 as c_uint);
    // SAFETY: reading a location of a live TU.
    unsafe {
        clang_getExpansionLocation(loc, &mut file, &mut line, &mut column, std::ptr::null_mut());
        let file = if file.is_null() {
            String::new()
        } else {
            take_string(clang_getFileName(file))
        };
        SourceLoc { file, line, column }
    }
}

/// Where clang's own diagnostics place `loc`: its presumed location, which `#line` directives
/// move (generated code names the code it was generated from).
fn presumed_loc(loc: CXSourceLocation) -> SourceLoc {
    let mut file = CXString::default();
    let (mut line, mut column) = (0 as c_uint, 0 as c_uint);
    // SAFETY: reading a location of a live TU; the file name is disposed by take_string.
    unsafe {
        clang_getPresumedLocation(loc, &mut file, &mut line, &mut column);
        SourceLoc {
            file: take_string(file),
            line,
            column,
        }
    }
}

/// A definition's linkage (see `Cursor::linkage`), named as LLVM names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linkage {
    Internal,
    LinkOnceOdr,
    External,
}

impl Linkage {
    pub fn llvm_name(self) -> &'static str {
        match self {
            Linkage::Internal => "internal",
            Linkage::LinkOnceOdr => "linkonce_odr",
            Linkage::External => "external",
        }
    }
}
