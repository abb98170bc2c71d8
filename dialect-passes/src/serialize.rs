//! After a target's pipeline: the gpu.module serialized by MLIR's `gpu-module-to-binary`, then
//! finished for its consumer (SPIR-V patched where MLIR's serializer falls short, PTX checked
//! for functions nothing defines and its half-precision negations made sign-bit flips).

use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{AttributeLike, Module};
use melior::Context;

use crate::registry::upstream::GPU_MODULE_TO_BINARY;
use crate::spirv::patch;
use crate::symbols::{module_body, symbol};
use crate::{Element, LowerError, Pipeline};

/// The serialization of a gpu.module of spirv.modules to SPIR-V words.
pub(crate) fn spirv_binary() -> Pipeline {
    Pipeline::from_elements(vec![Element::upstream(GPU_MODULE_TO_BINARY)])
}

/// The serialization of a gpu.module of the LLVM and NVVM dialects to PTX text.
pub(crate) fn ptx_binary() -> Pipeline {
    Pipeline::from_elements(vec![Element::upstream_with(
        GPU_MODULE_TO_BINARY,
        "format=isa",
    )])
}

/// After the pipeline: serializes the spirv.module and returns the SPIR-V words as bytes.
pub fn serialize_spirv(ctx: &Context, module: &mut Module) -> Result<Vec<u8>, LowerError> {
    let zero_initialized = patch::collect_zero_initialized(ctx, module)?;
    let parameters = patch::collect_parameter_decorations(module);
    let recursive_calls = patch::collect_recursive_calls(ctx, module)?;
    spirv_binary().run(ctx, module, false)?;
    let binary = binary_object(module)?;
    let binary = patch::resolve_imports(&binary)?;
    let binary = patch::pack_structs(&binary)?;
    let binary = patch::write_zero_initializers(&binary, &zero_initialized)?;
    let binary = patch::resolve_addresses(&binary)?;
    let binary = patch::call_through_pointers(&binary, &recursive_calls)?;
    patch::decorate_parameters(&binary, &parameters)
}

/// After the NVPTX pipeline: translates the gpu.module through LLVM's NVPTX backend (libdevice
/// linked where the target names it) and returns the PTX text, NUL-terminated as
/// `cuModuleLoadData` takes it. A function the PTX still declares but does not define (a
/// libdevice function when libdevice was not found) is an error here, not at the JIT link.
pub fn serialize_ptx(ctx: &Context, module: &mut Module) -> Result<Vec<u8>, LowerError> {
    check_ptx_symbol_names(module)?;
    ptx_binary().run(ctx, module, false)?;
    let ptx = binary_object(module)?;
    let text = String::from_utf8_lossy(&ptx);
    // Functions the CUDA driver provides at the JIT link.
    const DRIVER_FUNCTIONS: &[&str] = &["vprintf"];
    let missing: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix(".extern .func"))
        .filter_map(|rest| {
            // `.extern .func (.param .b32 func_retval0) __nv_sinf(` or `.extern .func name(`.
            let rest = rest.trim_start();
            let rest = if rest.starts_with('(') {
                rest.split_once(')').map(|(_, r)| r.trim_start())?
            } else {
                rest
            };
            rest.split(|c: char| c == '(' || c.is_whitespace() || c == ';')
                .next()
        })
        .filter(|name| !name.is_empty() && !DRIVER_FUNCTIONS.contains(name))
        .collect();
    if !missing.is_empty() {
        let libdevice = missing.iter().any(|n| n.starts_with("__nv_"));
        return Err(LowerError::Link(format!(
            "hipmlir: error: the PTX kernels call {} but nothing defines {}{}",
            missing.join(", "),
            if missing.len() == 1 { "it" } else { "them" },
            if libdevice {
                " (libdevice's math functions: install libdevice with scripts/setup.sh or \
                     name it with HIPMLIR_LIBDEVICE)"
            } else {
                ""
            }
        )));
    }
    let bytes = crate::nvptx::sign_flips::half_negations_as_sign_flips(&ptx);
    let mut bytes = crate::nvptx::narrow_stores::narrow_float_stores_through_moves(&bytes);
    if bytes.last() != Some(&0) {
        bytes.push(0);
    }
    Ok(bytes)
}

/// The characters LLVM's NVPTX printer writes in a symbol (it renames `.` and `@` itself).
fn is_ptx_symbol_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_$.@".contains(&b)
}

/// A symbol with other characters (a kernel, function or variable named in non-ASCII letters,
/// as C++ allows) would end the process in LLVM's NVPTX printer ("Symbol name with unsupported
/// characters"): it is an unsupported construct for PTX instead, named at its declaration, so
/// that a default build keeps its SPIR-V with a warning and an explicit `sm_XX` one fails
/// cleanly.
fn check_ptx_symbol_names(module: &Module) -> Result<(), LowerError> {
    let body = module.body();
    let mut op = body.first_operation();
    while let Some(o) = op {
        if o.name().as_string_ref().as_str() == Ok("gpu.module") {
            let mut inner = module_body(o.to_raw())?.first_operation();
            while let Some(i) = inner {
                if let Some(name) = symbol(&i, "sym_name") {
                    if !name.bytes().all(is_ptx_symbol_byte) {
                        return Err(LowerError::Unsupported {
                            location: hipmlir_ir::source_location(i.location()),
                            message: format!(
                                "the symbol '{name}' in PTX, whose names hold only ASCII letters, \
                                 digits, '_', '$', '.' and '@' (SPIR-V takes it)"
                            ),
                        });
                    }
                }
                inner = i.next_in_block();
            }
        }
        op = o.next_in_block();
    }
    Ok(())
}

/// The SPIR-V bytes of the (single) `gpu.binary` object in `module`.
fn binary_object(module: &Module) -> Result<Vec<u8>, LowerError> {
    let body = module.body();
    let mut op = body.first_operation();
    while let Some(o) = op {
        if o.name().as_string_ref().as_str() == Ok("gpu.binary") {
            let objects = o
                .attribute("objects")
                .map_err(|e| LowerError::bug(e.to_string()))?;
            let object = match crate::symbols::array_elements(objects).as_deref() {
                Some(&[object]) => object,
                _ => return Err(LowerError::bug("gpu.binary must hold exactly one object")),
            };
            // SAFETY: `object` is a live attribute; the C API checks its kind first.
            unsafe {
                if !mlir_sys::mlirAttributeIsAGPUObjectAttr(object.to_raw()) {
                    return Err(LowerError::bug("gpu.binary holds no object"));
                }
                let bytes = mlir_sys::mlirGPUObjectAttrGetObject(object.to_raw());
                return Ok(
                    std::slice::from_raw_parts(bytes.data as *const u8, bytes.length).to_vec(),
                );
            }
        }
        op = o.next_in_block();
    }
    Err(LowerError::bug("no gpu.binary after serialization"))
}
