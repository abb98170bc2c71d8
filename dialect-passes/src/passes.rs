//! The smaller passes (see `registry` for their names) and helpers of the pipeline.

use hipmlir_device_image::HOST_ATTRIBUTE;
use melior::ir::block::BlockLike;
use melior::ir::operation::{
    OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult,
};
use melior::ir::{Attribute, AttributeLike, Module, RegionLike, ValueLike};
use melior::Context;

use crate::atomics::BinOp;
use crate::spirv_ir;
use crate::LowerError;

/// The SPIR-V capabilities hipmlir asks for by default (Int8/Int16 for char and short, Float64
/// for double, GenericPointer for C pointers whose address space is not known statically,
/// Linkage for the math placeholders that the post-serialization patch removes again).
pub const DEFAULT_SPIRV_CAPABILITIES: &str = "Addresses,Int64,Int8,Int16,Float16,Float64,Kernel,\
GenericPointer,Int64Atomics,Linkage,GroupNonUniform,GroupNonUniformShuffle,\
GroupNonUniformArithmetic,GroupNonUniformBallot,SubgroupDispatch,Groups";

/// Options of the SPIR-V conversion.
#[derive(Debug, Clone)]
pub struct SpirvOptions {
    /// SPIR-V version (`v1.0` .. `v1.4`).
    pub version: String,
    pub capabilities: String,
    /// `atomicAdd`/`atomicSub` on float become SPV_EXT_shader_atomic_float_add instructions
    /// instead of compare-and-swap loops (for devices with cl_ext_float_atomics).
    pub native_float_atomics: bool,
}

impl Default for SpirvOptions {
    fn default() -> Self {
        SpirvOptions {
            // The highest version hipmlir may use; spirv-update-vce lowers each module's version
            // to what it really needs (1.0 unless it uses subgroup operations).
            version: "v1.3".into(),
            capabilities: DEFAULT_SPIRV_CAPABILITIES.into(),
            native_float_atomics: false,
        }
    }
}

/// Operations whose results depend on the subgroup size.
pub(crate) const SUBGROUP_OPS: &[&str] = &[
    "gpu.shuffle",
    "gpu.subgroup_reduce",
    "gpu.lane_id",
    "gpu.subgroup_size",
];

/// Kernels become SPIR-V entry points (`spirv.entry_point_abi`), which upstream lowering requires.
/// A kernel that uses warp operations also requires 32-wide subgroups, the warpSize hipmlir
/// reports (it needs SubgroupDispatch, so only such kernels ask for it).
pub fn mark_entry_points(ctx: &Context, module: &Module) {
    let plain = spirv_ir::entry_point_abi(ctx, None);
    let warp = spirv_ir::entry_point_abi(ctx, Some(32));
    let mut kernels = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("gpu.func") && op.has_attribute("gpu.kernel") {
            let mut uses_warps = false;
            op.walk(WalkOrder::PreOrder, |inner| {
                let name = inner.name();
                if SUBGROUP_OPS.contains(&name.as_string_ref().as_str().unwrap_or("")) {
                    uses_warps = true;
                }
                WalkResult::Advance
            });
            kernels.push((op.to_raw(), uses_warps));
        }
        WalkResult::Advance
    });
    for (raw, uses_warps) in kernels {
        // SAFETY: the walk found these live operations; setting an attribute keeps them alive.
        let mut op = unsafe { OperationRefMut::from_raw(raw) };
        op.set_attribute(
            "spirv.entry_point_abi",
            if uses_warps { warp } else { plain },
        );
    }
}

/// The SPIR-V bytes of the (single) `gpu.binary` object in `module`.
pub fn binary_object(module: &Module) -> Result<Vec<u8>, LowerError> {
    let body = module.body();
    let mut op = body.first_operation();
    while let Some(o) = op {
        if o.name().as_string_ref().as_str() == Ok("gpu.binary") {
            let objects = o
                .attribute("objects")
                .map_err(|e| LowerError::bug(e.to_string()))?;
            // SAFETY: `objects` is a live attribute; its kind is checked before it is read.
            let object = unsafe {
                if !mlir_sys::mlirAttributeIsAArray(objects.to_raw())
                    || mlir_sys::mlirArrayAttrGetNumElements(objects.to_raw()) != 1
                {
                    return Err(LowerError::bug("gpu.binary must hold exactly one object"));
                }
                Attribute::from_raw(mlir_sys::mlirArrayAttrGetElement(objects.to_raw(), 0))
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

/// What spirv-update-vce does not derive, added when the module needs it: 64-bit atomics need the
/// `Int64Atomics` capability, exported variables (see `device_link::host_visible`) the `Linkage`
/// capability, `NoSignedWrap` decorations their extension, device clock reads `ShaderClockKHR`.
pub fn add_missing_capabilities(ctx: &Context, module: &Module) -> Result<(), LowerError> {
    let mut spirv_modules = Vec::new();
    let mut needs_int64_atomics = false;
    let mut needs_linkage = false;
    let mut needs_no_wrap = false;
    let mut reads_clock = false;
    let i64_type: melior::ir::Type = melior::ir::r#type::IntegerType::new(ctx, 64).into();
    let clock_callee = format!("@{}", crate::clocks::READ_CLOCK_IMPORT);
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or("");
        if name == "spirv.module" {
            spirv_modules.push(op.to_raw());
        } else if name.starts_with("spirv.Atomic") && op.results().any(|r| r.r#type() == i64_type) {
            needs_int64_atomics = true;
        } else if name == "spirv.FunctionCall"
            && op
                .attribute("callee")
                .is_ok_and(|c| c.to_string() == clock_callee)
        {
            reads_clock = true;
        }
        if op.has_attribute("no_signed_wrap") || op.has_attribute("no_unsigned_wrap") {
            needs_no_wrap = true;
        }
        // Imports are placeholders that patches after serialization replace.
        needs_linkage |= name == "spirv.GlobalVariable" && op.has_attribute("linkage_attributes");
        WalkResult::Advance
    });
    // (capability, extension) pairs the module needs beyond what spirv-update-vce derived.
    let additions = [
        (
            needs_int64_atomics,
            Some(spirv_ir::CAPABILITY_INT64_ATOMICS),
            None,
        ),
        (needs_linkage, Some(spirv_ir::CAPABILITY_LINKAGE), None),
        (needs_no_wrap, None, Some(NO_WRAP_EXTENSION)),
        (
            reads_clock,
            Some(crate::clocks::CAPABILITY_SHADER_CLOCK),
            Some(crate::clocks::SHADER_CLOCK_EXTENSION),
        ),
    ];
    for raw in spirv_modules {
        // SAFETY: a live spirv.module found by the walk.
        let mut op = unsafe { OperationRefMut::from_raw(raw) };
        for (needed, capability, extension) in additions {
            if !needed {
                continue;
            }
            let vce = op
                .attribute("vce_triple")
                .map_err(|e| LowerError::internal(op.location(), e))?;
            let attr = spirv_ir::vce_with(vce, capability, extension).ok_or_else(|| {
                LowerError::internal(op.location(), format!("bad vce triple {vce}"))
            })?;
            op.set_attribute("vce_triple", attr);
        }
    }
    Ok(())
}

const NO_WRAP_EXTENSION: &str = "SPV_KHR_no_integer_wrap_decoration";

/// Removes the functions standing for host code (launch sites, `hipmlir.host`): only the
/// gpu.module becomes SPIR-V.
pub fn drop_host_functions(module: &Module) {
    let body = module.body();
    let mut host = Vec::new();
    let mut op = body.first_operation();
    while let Some(o) = op {
        if o.has_attribute(HOST_ATTRIBUTE) {
            host.push(o.to_raw());
        }
        op = o.next_in_block();
    }
    for raw in host {
        // SAFETY: a top-level host function nothing else refers to.
        unsafe {
            mlir_sys::mlirOperationRemoveFromParent(raw);
            mlir_sys::mlirOperationDestroy(raw);
        }
    }
}

/// After inlining, a call left in device code can only be recursion, which hipmlir's SPIR-V
/// does not run (every call is inlined; OpenCL C has no recursion either): reported where the
/// call is, naming the functions of the cycle. NVIDIA targets run it (the PTX pipeline does not
/// have this pass).
pub fn reject_recursion(module: &Module) -> Result<(), LowerError> {
    // The functions (at any depth: before or after outlining) with a body.
    let mut functions: Vec<mlir_sys::MlirOperation> = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let name = op.name();
        let is_function = matches!(name.as_string_ref().as_str(), Ok("func.func" | "gpu.func"));
        if is_function
            && !op.has_attribute(HOST_ATTRIBUTE)
            && op.region(0).is_ok_and(|r| r.first_block().is_some())
        {
            functions.push(op.to_raw());
        }
        WalkResult::Advance
    });
    // The calls each function makes of functions defined here (declarations are device library
    // functions, lowered later), with their locations.
    let symbol = |op: &melior::ir::OperationRef| {
        op.attribute("sym_name")
            .map(|n| format!("@{}", n.to_string().trim_matches('"')))
            .unwrap_or_default()
    };
    // SAFETY: live operations found by the walk above; nothing is changed in between.
    let functions: Vec<melior::ir::OperationRef> = functions
        .into_iter()
        .map(|raw| unsafe { melior::ir::OperationRef::from_raw(raw) })
        .collect();
    let defined: std::collections::HashSet<String> = functions.iter().map(symbol).collect();
    let mut calls: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for f in &functions {
        let mut callees = Vec::new();
        f.walk(WalkOrder::PreOrder, |inner| {
            if inner.name().as_string_ref().as_str() == Ok("func.call") {
                let callee = inner
                    .attribute("callee")
                    .map(|a| a.to_string())
                    .unwrap_or_default();
                if defined.contains(&callee) {
                    let at = crate::source_location_or_unknown(inner.location());
                    callees.push((callee, at));
                }
            }
            WalkResult::Advance
        });
        calls.push((symbol(f), callees));
    }
    // The first call that closes a cycle.
    let Some((caller, location, cycle)) = calls.iter().find_map(|(caller, callees)| {
        callees.iter().find_map(|(callee, at)| {
            call_cycle(&calls, callee, caller).map(|cycle| (caller, at, cycle))
        })
    }) else {
        return Ok(());
    };
    Err(LowerError::Unsupported {
        location: location.clone(),
        message: format!(
            "recursion ({}; hipmlir compiles SPIR-V with every call inlined: NVIDIA targets, \
             --offload-arch=sm_XX alone, run it)",
            describe_cycle(caller, &cycle)
        ),
    })
}

/// The functions from `from` to `to` along the calls, both included; None when `to` cannot be
/// reached.
fn call_cycle(
    calls: &[(String, Vec<(String, String)>)],
    from: &str,
    to: &str,
) -> Option<Vec<String>> {
    let mut previous: std::collections::HashMap<&str, &str> = Default::default();
    let mut queue = std::collections::VecDeque::from([from]);
    while let Some(at) = queue.pop_front() {
        if at == to {
            let mut path = vec![at.to_string()];
            let mut step = at;
            while let Some(p) = previous.get(step) {
                path.push(p.to_string());
                step = p;
            }
            path.reverse();
            return Some(path);
        }
        let next = calls
            .iter()
            .filter(|(c, _)| c == at)
            .flat_map(|(_, callees)| callees.iter().map(|(callee, _)| callee.as_str()));
        for n in next {
            if n != from && !previous.contains_key(n) {
                previous.insert(n, at);
                queue.push_back(n);
            }
        }
    }
    None
}

/// "f calls itself" or "f calls g, which calls f", with the source's names.
fn describe_cycle(caller: &str, path: &[String]) -> String {
    let name = |symbol: &str| {
        let mangled = symbol.trim_start_matches('@');
        cpp_demangle::Symbol::new(mangled)
            .ok()
            .and_then(|s| s.demangle().ok())
            .unwrap_or_else(|| mangled.to_string())
    };
    match path {
        [only] if only == caller => format!("'{}' calls itself", name(caller)),
        _ => {
            let mut text = format!("'{}' calls", name(caller));
            for (i, f) in path.iter().enumerate() {
                if i > 0 {
                    text.push_str(", which calls");
                }
                text.push_str(&format!(" '{}'", name(f)));
            }
            text
        }
    }
}

/// Whether the module adds or subtracts floats atomically (so that a native variant pays off).
pub fn uses_float_atomic_add(module: &Module) -> bool {
    let mut found = false;
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("llvm.atomicrmw") {
            let bin_op = crate::atomics::bin_op_of(&op);
            let f32_result = op
                .result(0)
                .is_ok_and(|r| melior::ir::TypeLike::is_f32(&r.r#type()));
            if matches!(bin_op, Some(BinOp::FAdd | BinOp::FSub)) && f32_result {
                found = true;
            }
        }
        WalkResult::Advance
    });
    found
}
