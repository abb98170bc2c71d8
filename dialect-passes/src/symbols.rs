//! Symbol names read off operations (`sym_name`, `callee`, `global_name`), typed: a string or
//! a flat symbol reference attribute's text, never the attribute's printed form.

use melior::ir::attribute::{FlatSymbolRefAttribute, StringAttribute};
use melior::ir::operation::OperationLike;
use melior::ir::Attribute;

/// The text of a string or flat symbol reference attribute (`""` for another kind).
pub(crate) fn text_of(a: Attribute) -> String {
    if let Ok(s) = StringAttribute::try_from(a) {
        return s.value().to_string();
    }
    FlatSymbolRefAttribute::try_from(a)
        .map(|s| s.value().to_string())
        .unwrap_or_default()
}

/// The symbol `op`'s attribute `name` holds (`callee` of a call, `sym_name` of a function).
pub(crate) fn symbol<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: &str) -> Option<String> {
    op.attribute(name).ok().map(text_of)
}
