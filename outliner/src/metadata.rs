//! Kernel metadata read back from the IR: `hipmlir.kernel_args` and friends travel on every
//! kernel through the passes (which may add arguments, as dynamic shared memory does), and what
//! the runtime gets is what the final kernels carry.

use hipmlir_device_image::{AddressSpace, KernelArg, KernelInfo};
use hipmlir_device_image::{
    KERNEL_ARGS_ATTRIBUTE, KERNEL_ARGS_SIZE_ATTRIBUTE, KERNEL_NAME_ATTRIBUTE,
    KERNEL_UNIT_ATTRIBUTE, LINEAR_BLOCK_ATTRIBUTE, MAX_THREADS_PER_BLOCK_ATTRIBUTE,
    MEMCHECK_EXTENTS_ATTRIBUTE,
};
use melior::ir::attribute::{DenseI64ArrayAttribute, IntegerAttribute, StringAttribute};
use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::{Attribute, AttributeLike, Module, OperationRef};
use mlir_sys::{
    mlirArrayAttrGetElement, mlirArrayAttrGetNumElements, mlirAttributeIsAArray,
    mlirAttributeIsADictionary, mlirDictionaryAttrGetElementByName, mlirStringAttrGetValue,
    MlirStringRef,
};

use crate::OutlineError;

fn err(e: impl std::fmt::Display) -> OutlineError {
    OutlineError::Metadata(e.to_string())
}

/// The metadata of every kernel in `module`, in IR order.
pub fn kernel_metadata(module: &Module) -> Result<Vec<KernelInfo>, OutlineError> {
    let mut kernels = Vec::new();
    let mut failure = None;
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let is_kernel =
            op.name().as_string_ref().as_str() == Ok("gpu.func") && op.has_attribute("gpu.kernel");
        if is_kernel {
            match kernel_info(&op) {
                Ok(info) => kernels.push(info),
                Err(e) => failure = Some(e),
            }
        }
        WalkResult::Advance
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(kernels),
    }
}

/// The kernels whose blocks run linearized (see dialect-passes' `hipmlir-linearize-warp-blocks`).
pub fn linear_block_kernels(module: &Module) -> Vec<String> {
    let mut out = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("gpu.func")
            && op.has_attribute(LINEAR_BLOCK_ATTRIBUTE)
        {
            if let Ok(name) = string(&op, "sym_name") {
                out.push(name);
            }
        }
        WalkResult::Advance
    });
    out
}

fn string(op: &OperationRef, name: &str) -> Result<String, OutlineError> {
    string_value(op.attribute(name).map_err(err)?)
}

/// A string attribute's text. Read through MLIR's C API: melior's `StringAttribute::value`
/// panics on an empty string (an unnamed kernel parameter's name).
fn string_value(a: Attribute) -> Result<String, OutlineError> {
    let s = StringAttribute::try_from(a).map_err(err)?;
    // SAFETY: a string attribute's value is `length` bytes that live as long as the context.
    let bytes = unsafe {
        let r = mlirStringAttrGetValue(s.to_raw());
        if r.length == 0 {
            return Ok(String::new());
        }
        std::slice::from_raw_parts(r.data as *const u8, r.length)
    };
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

fn kernel_info(op: &OperationRef) -> Result<KernelInfo, OutlineError> {
    let args_attr = op.attribute(KERNEL_ARGS_ATTRIBUTE).map_err(err)?;
    let args_size =
        IntegerAttribute::try_from(op.attribute(KERNEL_ARGS_SIZE_ATTRIBUTE).map_err(err)?)
            .map_err(err)?
            .value() as u64;
    let mut args = Vec::new();
    // SAFETY: attribute queries after kind checks.
    unsafe {
        if !mlirAttributeIsAArray(args_attr.to_raw()) {
            return Err(err(format!("{KERNEL_ARGS_ATTRIBUTE} is not an array")));
        }
        for i in 0..mlirArrayAttrGetNumElements(args_attr.to_raw()) {
            let entry = mlirArrayAttrGetElement(args_attr.to_raw(), i);
            if !mlirAttributeIsADictionary(entry) {
                return Err(err("a kernel argument is not a dictionary"));
            }
            let field = |name: &str| -> Result<Attribute, OutlineError> {
                let key = MlirStringRef {
                    data: name.as_ptr() as *const _,
                    length: name.len(),
                };
                let a = mlirDictionaryAttrGetElementByName(entry, key);
                if a.ptr.is_null() {
                    return Err(err(format!("a kernel argument has no {name}")));
                }
                Ok(Attribute::from_raw(a))
            };
            let text = |name: &str| -> Result<String, OutlineError> { string_value(field(name)?) };
            let int = |name: &str| -> Result<u64, OutlineError> {
                Ok(IntegerAttribute::try_from(field(name)?)
                    .map_err(err)?
                    .value() as u64)
            };
            let address_space = match text("addr_space")?.as_str() {
                "private" => AddressSpace::Private,
                "global" => AddressSpace::Global,
                "constant" => AddressSpace::Constant,
                "workgroup" => AddressSpace::Workgroup,
                other => return Err(err(format!("unknown address space {other}"))),
            };
            args.push(KernelArg {
                name: text("name")?,
                r#type: text("type")?,
                offset: int("offset")?,
                size: int("size")?,
                align: int("align")?,
                is_pointer: {
                    let a = field("is_pointer")?.to_raw();
                    if !mlir_sys::mlirAttributeIsABool(a) {
                        return Err(err("is_pointer is not a bool"));
                    }
                    mlir_sys::mlirBoolAttrGetValue(a)
                },
                address_space,
            });
        }
    }
    let max_threads_per_block = match op.attribute(MAX_THREADS_PER_BLOCK_ATTRIBUTE) {
        Ok(a) => Some(IntegerAttribute::try_from(a).map_err(err)?.value() as u64),
        Err(_) => None,
    };
    let args_count = args.len();
    Ok(KernelInfo {
        name: string(op, "sym_name")?,
        source_name: string(op, KERNEL_NAME_ATTRIBUTE)?,
        args,
        args_size,
        max_threads_per_block,
        unit: string(op, KERNEL_UNIT_ATTRIBUTE).ok(),
        memcheck_extents: memcheck_extents(op, args_count)?,
    })
}

/// The arguments whose extents the kernel takes as hidden parameters (the memory checker's);
/// each must name a listed argument.
fn memcheck_extents(op: &OperationRef, listed: usize) -> Result<Vec<u32>, OutlineError> {
    let Ok(a) = op.attribute(MEMCHECK_EXTENTS_ATTRIBUTE) else {
        return Ok(Vec::new());
    };
    let a = DenseI64ArrayAttribute::try_from(a).map_err(err)?;
    (0..a.len())
        .map(|i| {
            let index = a.element(i).map_err(err)?;
            u32::try_from(index)
                .ok()
                .filter(|&at| (at as usize) < listed)
                .ok_or_else(|| {
                    err(format!(
                        "{MEMCHECK_EXTENTS_ATTRIBUTE} names argument {index}"
                    ))
                })
        })
        .collect()
}
