//! For the builtin tables' unit tests: the device functions that hipmlir's own headers declare
//! without defining them (those the codegen must lower), read with libclang as a device parse
//! sees them, macros expanded.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clang_sys::*;

use crate::clang::{Cursor, TranslationUnit};
use crate::FrontendOptions;

/// The names of the functions declared (not defined) in `headers/hip/<header>`.
pub fn declared_device_functions(header: &str) -> BTreeSet<String> {
    let headers = Path::new(env!("CARGO_MANIFEST_DIR")).join("../headers");
    let options = FrontendOptions {
        hip_headers: headers,
        ..FrontendOptions::default()
    };
    // One file per call: the tests of one process run in parallel, so a name made from the
    // process id was shared, and one test removed the file another was parsing.
    let source = tempfile::Builder::new()
        .prefix("hipmlir-header-check-")
        .suffix(".hip")
        .tempfile()
        .expect("the temporary folder is writable");
    let (tu, _) = TranslationUnit::parse(source.path(), &options.clang_args(), None)
        .expect("hipmlir's headers parse");
    let mut names = BTreeSet::new();
    collect(&tu.cursor(), &PathBuf::from("hip").join(header), &mut names);
    names
}

fn collect(c: &Cursor, header: &Path, names: &mut BTreeSet<String>) {
    for child in c.children() {
        match child.kind() {
            CXCursor_LinkageSpec | CXCursor_Namespace | CXCursor_UnexposedDecl => {
                collect(&child, header, names)
            }
            CXCursor_FunctionDecl | CXCursor_FunctionTemplate
                if Path::new(&child.location().file).ends_with(header)
                    && child.has_attr(CXCursor_CUDADeviceAttr)
                    && child.definition().is_none() =>
            {
                names.insert(child.spelling());
            }
            _ => {}
        }
    }
}
