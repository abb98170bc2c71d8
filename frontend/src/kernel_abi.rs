//! A kernel's argument layout for the device ABI, computed from the AST: what the host packs and
//! the runtime unpacks (`hipmlir.kernel_args`).

use clang_sys::*;
use hipmlir_device_image::{AddressSpace, KernelArg, KernelInfo};
use melior::ir::attribute::{
    ArrayAttribute, BoolAttribute, DictionaryAttribute, IntegerAttribute, StringAttribute,
};
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, Identifier};
use melior::Context;

use crate::clang::Cursor;
use crate::error::{FrontendError, Result};

/// The kernel's metadata: names and argument layout.
pub fn kernel_info(kernel: &Cursor) -> Result<KernelInfo> {
    let mut args = Vec::new();
    for param in kernel.arguments() {
        let ty = param.parameter_type();
        let loc = param.location();
        let (Some(size), Some(align)) = (ty.size_of(), ty.align_of()) else {
            return Err(FrontendError::unsupported(
                loc,
                format!("kernel parameter of incomplete type '{}'", ty.spelling()),
            ));
        };
        // A function pointer is an integer id on the device, not a buffer.
        let is_pointer = ty.canonical().kind() == CXType_Pointer
            && !crate::types::is_function_type(ty.canonical().pointee());
        args.push(KernelArg {
            name: param.spelling(),
            r#type: ty.spelling(),
            offset: 0,
            size,
            align,
            is_pointer,
            address_space: if is_pointer {
                AddressSpace::Global
            } else {
                AddressSpace::Private
            },
        });
    }
    let args_size = KernelArg::layout(&mut args);
    Ok(KernelInfo {
        name: kernel.mangled_name(),
        source_name: source_name(kernel),
        args,
        args_size,
        max_threads_per_block: kernel.launch_bounds_max_threads(),
        unit: None,
        memcheck_extents: Vec::new(),
    })
}

/// `hipmlir.kernel_args`: one dictionary per argument.
pub fn kernel_args_attr<'c>(ctx: &'c Context, info: &KernelInfo) -> Attribute<'c> {
    let i64t = IntegerType::new(ctx, 64).into();
    let int = |v: u64| IntegerAttribute::new(i64t, v as i64).into();
    let args: Vec<Attribute> = info
        .args
        .iter()
        .map(|a| {
            let space = serde_name(a.address_space);
            DictionaryAttribute::new(
                ctx,
                &[
                    (
                        Identifier::new(ctx, "name"),
                        StringAttribute::new(ctx, &a.name).into(),
                    ),
                    (
                        Identifier::new(ctx, "type"),
                        StringAttribute::new(ctx, &a.r#type).into(),
                    ),
                    (Identifier::new(ctx, "offset"), int(a.offset)),
                    (Identifier::new(ctx, "size"), int(a.size)),
                    (Identifier::new(ctx, "align"), int(a.align)),
                    (
                        Identifier::new(ctx, "is_pointer"),
                        BoolAttribute::new(ctx, a.is_pointer).into(),
                    ),
                    (
                        Identifier::new(ctx, "addr_space"),
                        StringAttribute::new(ctx, space).into(),
                    ),
                ],
            )
            .into()
        })
        .collect();
    ArrayAttribute::new(ctx, &args).into()
}

pub fn kernel_args_size_attr<'c>(ctx: &'c Context, info: &KernelInfo) -> Attribute<'c> {
    IntegerAttribute::new(IntegerType::new(ctx, 64).into(), info.args_size as i64).into()
}

fn serde_name(space: AddressSpace) -> &'static str {
    match space {
        AddressSpace::Private => "private",
        AddressSpace::Global => "global",
        AddressSpace::Constant => "constant",
        AddressSpace::Workgroup => "workgroup",
    }
}

/// The kernel as a launch names it: qualified by its namespaces, with template arguments
/// (`ns::scale<float, 4>`).
fn source_name(kernel: &Cursor) -> String {
    let mut name = kernel.spelling();
    if let Some(args) = kernel.template_arguments() {
        name = format!("{name}<{}>", args.join(", "));
    }
    qualify(kernel, name)
}

/// A declaration's name qualified by its namespaces, without template arguments (`ns::scale`).
pub fn qualified_name(decl: &Cursor) -> String {
    qualify(decl, decl.spelling())
}

fn qualify(decl: &Cursor, mut name: String) -> String {
    let mut parent = decl.semantic_parent();
    while let Some(p) = parent {
        if p.kind() != CXCursor_Namespace {
            break;
        }
        name = format!("{}::{name}", p.spelling());
        parent = p.semantic_parent();
    }
    name
}
