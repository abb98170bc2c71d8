//! hipmlir's own transformations as MLIR passes: each has a name (its pipeline argument), a
//! one-line summary and its options, and runs as an external pass (melior's `create_external`)
//! in the same pass manager as MLIR's upstream passes, so pipelines mix both, IR printing shows
//! both, and `hipmlir-opt` runs either.

use std::collections::BTreeMap;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use melior::ir::operation::OperationLike;
use melior::ir::r#type::TypeId;
use melior::ir::{Module, OperationRef};
use melior::pass::{create_external, ExternalPass, Pass, RunExternalPass};
use melior::{Context, ContextRef};

use crate::LowerError;

/// A pass of hipmlir's: what `--list-passes` prints and how the pipeline runs it.
pub struct PassInfo {
    /// The pass's argument in a pipeline (`hipmlir-outline-kernels`).
    pub name: &'static str,
    pub summary: &'static str,
    /// The options it takes (`name`, what it means); all are booleans.
    pub options: &'static [(&'static str, &'static str)],
    run: fn(&Context, &mut Module, &PassOptions) -> Result<(), LowerError>,
}

pub const DEVIRTUALIZE_FUNCTION_POINTERS: &str = "hipmlir-devirtualize-function-pointers";
pub const REJECT_RECURSION: &str = "hipmlir-reject-recursion";
pub const OUTLINE_KERNELS: &str = hipmlir_outliner::PASS_NAME;
pub const DROP_HOST_FUNCTIONS: &str = "hipmlir-drop-host-functions";
pub const ADDRESS_SPACES_TO_SPIRV: &str = "hipmlir-address-spaces-to-spirv";
pub const ADDRESS_SPACES_TO_NVPTX: &str = "hipmlir-address-spaces-to-nvptx";
pub const LOWER_HIP_TO_NVPTX: &str = "hipmlir-lower-hip-to-nvptx";
pub const NVPTX_PARAMETER_ATTRIBUTES: &str = "hipmlir-nvptx-parameter-attributes";
pub const LOWER_DYNAMIC_SHARED: &str = "hipmlir-lower-dynamic-shared";
pub const LINEARIZE_WARP_BLOCKS: &str = "hipmlir-linearize-warp-blocks";
pub const MARK_ENTRY_POINTS: &str = "hipmlir-mark-entry-points";
pub const LOWER_POINTERS_TO_SPIRV: &str = "hipmlir-lower-pointers-to-spirv";
pub const LOWER_MATH_TO_OPENCL: &str = "hipmlir-lower-math-to-opencl";
pub const LOWER_TRAP_TO_SPIRV: &str = "hipmlir-lower-trap-to-spirv";
pub const LOWER_CLOCKS_TO_SPIRV: &str = "hipmlir-lower-clocks-to-spirv";
pub const ADD_MISSING_CAPABILITIES: &str = "hipmlir-add-missing-capabilities";

/// The option of `hipmlir-lower-pointers-to-spirv` that the float-atomics variant sets.
pub const NATIVE_FLOAT_ATOMICS: &str = "native-float-atomics";

const PASS_COUNT: usize = 16;

/// Every pass of hipmlir's, in the order the SPIR-V pipeline runs them.
pub static PASSES: [PassInfo; PASS_COUNT] = [
    PassInfo {
        name: DEVIRTUALIZE_FUNCTION_POINTERS,
        summary: "calls through function pointers (func.call_indirect of an id) become a choice \
                  among the module's address-taken functions of the call's type",
        options: &[],
        run: |ctx, module, _| crate::function_pointers::devirtualize_function_pointers(ctx, module),
    },
    PassInfo {
        name: OUTLINE_KERNELS,
        summary: hipmlir_outliner::PASS_SUMMARY,
        options: &[],
        run: |ctx, module, _| {
            hipmlir_outliner::outline_kernels(ctx, module)
                .map(|_| ())
                .map_err(|e| match e {
                    hipmlir_outliner::OutlineError::Internal { location, message } => {
                        LowerError::Internal {
                            location: location.map(|l| l.to_string()),
                            message: format!("internal compiler error in the outliner: {message}"),
                        }
                    }
                })
        },
    },
    PassInfo {
        name: DROP_HOST_FUNCTIONS,
        summary: "removes the functions standing for host code (launch sites, hipmlir.host): \
                  only the gpu.module is device code",
        options: &[],
        run: |_, module, _| {
            crate::passes::drop_host_functions(module);
            Ok(())
        },
    },
    PassInfo {
        name: ADDRESS_SPACES_TO_SPIRV,
        summary: "hipmlir's target-neutral address spaces (generic 0, global 1, shared 3, \
                  constant 4, private 5) become SPIR-V's (Generic 4, CrossWorkgroup 1, \
                  Workgroup 3, UniformConstant 2, Function 0)",
        options: &[],
        run: |ctx, module, _| {
            crate::address_space_map::map_address_spaces(
                ctx,
                module,
                crate::address_space_map::SPIRV,
            )
        },
    },
    PassInfo {
        name: ADDRESS_SPACES_TO_NVPTX,
        summary: "hipmlir's target-neutral address spaces become NVPTX's (generic 0, global 1, \
                  shared 3, constant 4; private memory stays generic for the backend's allocas)",
        options: &[],
        run: |ctx, module, _| {
            crate::address_space_map::map_address_spaces(
                ctx,
                module,
                crate::address_space_map::NVPTX,
            )
        },
    },
    PassInfo {
        name: LOWER_HIP_TO_NVPTX,
        summary: "HIP semantics convert-gpu-to-nvvm does not know: byval parameters, memory \
                  scopes, libdevice calls, printf as vprintf, dynamic shared memory as an extern \
                  shared array, shuffles and votes under the active mask; what has no NVPTX \
                  lowering is reported unsupported",
        options: &[],
        run: |ctx, module, _| crate::nvptx::lower_hip_to_nvptx(ctx, module),
    },
    PassInfo {
        name: NVPTX_PARAMETER_ATTRIBUTES,
        summary: "after convert-gpu-to-nvvm (which drops parameter attributes): kernel \
                  parameters of structs passed by value become llvm.byval, NVPTX's .param \
                  copies, and __restrict__ pointers llvm.noalias",
        options: &[],
        run: |ctx, module, _| crate::nvptx::nvptx_parameter_attributes(ctx, module),
    },
    PassInfo {
        name: LOWER_TRAP_TO_SPIRV,
        summary: "removes traps (__builtin_trap) from device code bound for SPIR-V: OpenCL \
                  cannot stop a kernel, the runtime ends the program on a raised abort flag",
        options: &[],
        run: |_, module, _| crate::traps::lower_trap_to_spirv(module),
    },
    PassInfo {
        name: LOWER_CLOCKS_TO_SPIRV,
        summary: "reads of the device's clocks (clock64, wall_clock64) become calls of a \
                  placeholder that serialization turns into OpReadClockKHR (Device scope)",
        options: &[],
        run: |ctx, module, _| crate::clocks::lower_clocks_to_spirv(ctx, module),
    },
    PassInfo {
        name: LOWER_DYNAMIC_SHARED,
        summary: "dynamic shared memory (extern __shared__) becomes a trailing workgroup-pointer \
                  argument of each kernel using it, sized at launch",
        options: &[],
        run: |ctx, module, _| crate::dynamic_shared::lower_dynamic_shared(ctx, module),
    },
    PassInfo {
        name: LINEARIZE_WARP_BLOCKS,
        summary: "kernels using warp operations run 1-D work-groups and recompute threadIdx \
                  from the linear local id (HIP's lane numbering)",
        options: &[],
        run: |ctx, module, _| crate::linear_blocks::linearize_warp_blocks(ctx, module),
    },
    PassInfo {
        name: MARK_ENTRY_POINTS,
        summary: "kernels become SPIR-V entry points (spirv.entry_point_abi), with 32-wide \
                  subgroups where they use warp operations",
        options: &[],
        run: |ctx, module, _| {
            crate::passes::mark_entry_points(ctx, module);
            Ok(())
        },
    },
    PassInfo {
        name: REJECT_RECURSION,
        summary: "SPIR-V: after inlining, a call left in device code is recursion, which \
                  hipmlir's SPIR-V does not run: reported at the call closing the cycle, naming \
                  its functions (NVPTX runs recursion)",
        options: &[],
        run: |_, module, _| crate::passes::reject_recursion(module),
    },
    PassInfo {
        name: LOWER_POINTERS_TO_SPIRV,
        summary: "LLVM pointers, globals, loads, stores and atomics become SPIR-V pointers in \
                  their storage classes (after an address-space inference)",
        options: &[(
            NATIVE_FLOAT_ATOMICS,
            "float atomicAdd/atomicSub as SPV_EXT_shader_atomic_float_add instructions instead \
             of compare-and-swap loops",
        )],
        run: |ctx, module, options| {
            let native = options.flag(NATIVE_FLOAT_ATOMICS);
            crate::pointers::lower_pointers_to_spirv(ctx, module, native)
        },
    },
    PassInfo {
        name: LOWER_MATH_TO_OPENCL,
        summary: "math operations and device library calls become OpenCL.std extended \
                  instructions",
        options: &[],
        run: |ctx, module, _| crate::math::lower_math_to_opencl(ctx, module),
    },
    PassInfo {
        name: ADD_MISSING_CAPABILITIES,
        summary: "adds what spirv-update-vce does not derive: Int64Atomics for 64-bit atomics, \
                  the no-wrap decorations' extension, ShaderClockKHR where a clock is read",
        options: &[],
        run: |ctx, module, _| crate::passes::add_missing_capabilities(ctx, module),
    },
];

/// The pass of hipmlir's with this name.
pub fn find(name: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|p| p.name == name)
}

/// A pass's options, from its pipeline text (`{native-float-atomics=true}`).
#[derive(Clone, Debug, Default)]
pub struct PassOptions(BTreeMap<String, String>);

impl PassOptions {
    /// Parses MLIR's option syntax (`key=value` separated by spaces), checked against the
    /// options `pass` takes.
    pub fn parse(pass: &PassInfo, text: &str) -> Result<Self, String> {
        let mut options = BTreeMap::new();
        for item in text.split_whitespace() {
            let (key, value) = item.split_once('=').unwrap_or((item, "true"));
            if !pass.options.iter().any(|(name, _)| *name == key) {
                return Err(format!(
                    "'{key}' is not an option of {} ({})",
                    pass.name,
                    if pass.options.is_empty() {
                        "it takes none".to_string()
                    } else {
                        let names: Vec<&str> = pass.options.iter().map(|(n, _)| *n).collect();
                        format!("it takes {}", names.join(", "))
                    }
                ));
            }
            if !matches!(value, "true" | "false" | "1" | "0") {
                return Err(format!(
                    "option '{key}' of {} takes true or false, not '{value}'",
                    pass.name
                ));
            }
            options.insert(key.to_string(), value.to_string());
        }
        Ok(PassOptions(options))
    }

    fn flag(&self, name: &str) -> bool {
        matches!(self.0.get(name).map(String::as_str), Some("true" | "1"))
    }
}

/// Where a failing pass leaves its error: MLIR only learns that the pass failed, the driver
/// needs the error itself (an unsupported construct is the user's diagnostic, not a crash).
pub(crate) type ErrorSink = Arc<Mutex<Option<LowerError>>>;

/// A distinct, 8-byte aligned address per pass: MLIR identifies a pass by its TypeID.
#[repr(align(8))]
pub struct PassId(#[allow(dead_code)] u8);

static PASS_IDS: [PassId; PASS_COUNT] = [const { PassId(0) }; PASS_COUNT];

#[derive(Clone)]
struct Runner {
    pass: &'static PassInfo,
    options: PassOptions,
    errors: ErrorSink,
}

impl<'c> RunExternalPass<'c> for Runner {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let result = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: the pass is anchored on builtin.module, so `operation` is a module op
            // that MLIR owns; the view is never dropped, so it never destroys it.
            let mut module = ManuallyDrop::new(unsafe {
                Module::from_raw(mlir_sys::mlirModuleFromOperation(operation.to_raw()))
            });
            let context = operation.context();
            // SAFETY: `context` lives to the end of this closure, and the context it names
            // outlives the pass run that handed out `operation`.
            let ctx = unsafe { context.to_ref() };
            (self.pass.run)(ctx, &mut module, &self.options)
        }))
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(LowerError::bug(format!(
                "{} panicked: {what}",
                self.pass.name
            )))
        });
        if let Err(e) = result {
            // An internal error names the pass that failed.
            let e = match e {
                LowerError::Internal { location, message } => LowerError::Pass {
                    stage: format!("running {}", self.pass.name),
                    // In the form of MLIR's diagnostics, which `message` holds.
                    message: match location.as_deref().and_then(|l| l.rsplit_once(':')) {
                        Some((rest, column)) => match rest.rsplit_once(':') {
                            Some((file, line)) => {
                                format!("loc(\"{file}\":{line}:{column}): {message}")
                            }
                            None => message,
                        },
                        None => message,
                    },
                },
                e => e,
            };
            if let Ok(mut slot) = self.errors.lock() {
                slot.get_or_insert(e);
            }
            pass.signal_failure();
        }
    }
}

/// The MLIR pass running `pass` with `options`; its error goes to `errors`.
pub(crate) fn create(pass: &'static PassInfo, options: PassOptions, errors: ErrorSink) -> Pass {
    let index = PASSES
        .iter()
        .position(|p| std::ptr::eq(p, pass))
        .expect("a registered pass");
    // MLIR's IR printer shows "IR Dump After <Name> (<argument>)".
    let title: String = pass
        .name
        .split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect();
    create_external(
        Runner {
            pass,
            options,
            errors,
        },
        TypeId::create(&PASS_IDS[index]),
        &title,
        pass.name,
        pass.summary,
        "builtin.module",
        &[],
    )
}
