//! Whether copying (or moving) an object runs code of its own rather than copying its bytes:
//! its class, or a base or member at any depth, has a copy or move constructor the user wrote,
//! or a constructor template (which overload resolution may prefer to the copy constructor).
//!
//! Such copies run the constructors clang chose, never ones picked here: a compiler-written copy
//! or move constructor is compiled from clang's definition (objects.rs), whose initializers name
//! the constructor each base and member is built by (an array's elements built by an array-init
//! loop, initializers.rs); a lambda's by-copy captures are built by clang's capture
//! initializers, and a closure's copy by the closure's own copy constructor (lambdas.rs).
//! Every other copy is a copy of the bytes, as a trivial constructor's is.

use super::assignment::innermost_class;
use crate::clang::CType;

/// Whether class `class` itself declares a constructor that copying or moving one of its
/// objects may call: a written (not deleted) copy or move constructor, or a template.
fn declares_written_copy(class: CType) -> bool {
    let class = class.canonical();
    class
        .methods()
        .into_iter()
        .any(|m| m.is_copy_or_move_constructor() && m.is_user_provided() && !m.is_deleted_method())
        || class
            .declaration()
            .children()
            .iter()
            .any(|c| c.is_constructor_template())
}

/// Whether copying or moving an object of class `class` runs a written constructor, of its own
/// or of a base or member at any depth (then its compiler-written copy or move constructor is
/// no copy of the object's bytes).
pub fn copy_constructs_parts(class: CType) -> bool {
    let class = class.canonical();
    let bases = class.bases().into_iter().map(|b| b.ty().canonical());
    let members = class
        .fields()
        .into_iter()
        .filter_map(|f| innermost_class(f.ty()));
    bases
        .chain(members)
        .any(|part| declares_written_copy(part) || copy_constructs_parts(part))
}

/// Whether copying an object of type `ty` (a class, or an array of them) runs constructors:
/// a written one of its class, or of a part at any depth.
pub fn copies_by_constructor(ty: CType) -> bool {
    innermost_class(ty)
        .is_some_and(|class| declares_written_copy(class) || copy_constructs_parts(class))
}
