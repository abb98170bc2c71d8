//! Pass pipelines as typed values: a pipeline is a list of elements, each a pass (one of
//! hipmlir's, with its options, or one of MLIR's upstream passes) or passes nested under an
//! operation (`gpu.module(...)`). Each target's pipeline is built in Rust (`spirv::pipeline`,
//! `nvptx::pipeline`); the textual syntax (`builtin.module(a,b{opt=1},gpu.module(c))`, see
//! `parse`) serves `hipmlir-opt` only.
//!
//! MLIR's C API builds pipelines of registered upstream passes only, so hipmlir's passes are
//! added as external passes and every other pass is handed to MLIR's own parser
//! (`mlirOpPassManagerAddPipeline`) one element at a time.

mod parse;

use std::fmt;
use std::sync::{Arc, Mutex};

use melior::ir::operation::{OperationLike, OperationPrintingFlags};
use melior::ir::Module;
use melior::pass::{OperationPassManager, PassIrPrintingOptions, PassManager};
use melior::{Context, StringRef};

use crate::registry::{self, upstream, PassInfo, PassOptions};
use crate::{context, pass_times, Diagnostic, LowerError};

/// A pass of a pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pass {
    /// One of hipmlir's (see `registry`), with its options.
    Hipmlir {
        pass: &'static PassInfo,
        options: PassOptions,
    },
    /// One of MLIR's, with its options as MLIR's pipeline syntax writes them.
    Upstream { name: String, options: String },
}

impl Pass {
    /// The pass's argument in a pipeline (`cse`, `hipmlir-outline-kernels`).
    pub fn name(&self) -> &str {
        match self {
            Pass::Hipmlir { pass, .. } => pass.name,
            Pass::Upstream { name, .. } => name,
        }
    }
}

/// One element of a pipeline: a pass, or passes nested under an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Element {
    Pass(Pass),
    Nest {
        anchor: String,
        elements: Vec<Element>,
    },
}

impl Element {
    /// One of hipmlir's passes without options.
    pub fn pass(pass: &'static PassInfo) -> Element {
        Element::pass_with(pass, PassOptions::default())
    }

    /// One of hipmlir's passes with options.
    pub fn pass_with(pass: &'static PassInfo, options: PassOptions) -> Element {
        Element::Pass(Pass::Hipmlir { pass, options })
    }

    /// One of MLIR's passes (a `registry::upstream` name) without options.
    pub fn upstream(name: &str) -> Element {
        Element::upstream_with(name, "")
    }

    /// One of MLIR's passes with options (`use-64bit-index=true`).
    pub fn upstream_with(name: &str, options: impl Into<String>) -> Element {
        Element::Pass(Pass::Upstream {
            name: name.to_string(),
            options: options.into(),
        })
    }

    /// `elements` nested under the operations named `anchor` (`gpu.module`).
    pub fn nest(anchor: &str, elements: Vec<Element>) -> Element {
        Element::Nest {
            anchor: anchor.to_string(),
            elements,
        }
    }
}

/// A pass pipeline on a `builtin.module`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pipeline {
    elements: Vec<Element>,
}

impl Pipeline {
    /// Parses `builtin.module(...)`, or a bare list of elements run on the module (MLIR's
    /// textual pipeline syntax; hipmlir's passes are checked against their options).
    pub fn parse(text: &str) -> Result<Pipeline, LowerError> {
        parse::pipeline(text).map(Pipeline::from_elements)
    }

    /// A pipeline of these elements, run in order.
    pub fn from_elements(elements: Vec<Element>) -> Pipeline {
        Pipeline { elements }
    }

    /// The top-level elements, run on the module in order.
    pub fn elements(&self) -> &[Element] {
        &self.elements
    }

    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }

    /// Every pass the pipeline runs, nested ones included, in order.
    pub fn pass_names(&self) -> Vec<&str> {
        fn walk<'a>(elements: &'a [Element], out: &mut Vec<&'a str>) {
            for e in elements {
                match e {
                    Element::Pass(pass) => out.push(pass.name()),
                    Element::Nest { elements, .. } => walk(elements, out),
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.elements, &mut out);
        out
    }

    /// The pipeline up to and including the first run of `pass`, and the rest; None if the
    /// pipeline does not run `pass`.
    pub fn split_after(&self, pass: &str) -> Option<(Pipeline, Pipeline)> {
        fn split(elements: &[Element], pass: &str) -> Option<(Vec<Element>, Vec<Element>)> {
            for (i, e) in elements.iter().enumerate() {
                match e {
                    Element::Pass(p) if p.name() == pass => {
                        return Some((elements[..=i].to_vec(), elements[i + 1..].to_vec()));
                    }
                    Element::Pass(_) => {}
                    Element::Nest {
                        anchor,
                        elements: inner,
                    } => {
                        if let Some((head, tail)) = split(inner, pass) {
                            let mut before = elements[..i].to_vec();
                            before.push(Element::nest(anchor, head));
                            let mut after = Vec::new();
                            if !tail.is_empty() {
                                after.push(Element::nest(anchor, tail));
                            }
                            after.extend_from_slice(&elements[i + 1..]);
                            return Some((before, after));
                        }
                    }
                }
            }
            None
        }
        split(&self.elements, pass)
            .map(|(head, tail)| (Pipeline { elements: head }, Pipeline { elements: tail }))
    }

    /// Runs the pipeline on `module`, each top-level element in its own pass manager so that a
    /// failure names the element that failed. With `print_ir_after_all`, MLIR prints the module
    /// after every pass (hipmlir's included) to stderr.
    pub fn run(
        &self,
        ctx: &Context,
        module: &mut Module,
        print_ir_after_all: bool,
    ) -> Result<(), LowerError> {
        if print_ir_after_all {
            // MLIR refuses to print IR between passes of a multi-threaded context (LLVM ERROR).
            ctx.enable_multi_threading(false);
        }
        for element in &self.elements {
            run_element(ctx, module, element, print_ir_after_all)?;
        }
        if module.as_operation().verify() {
            Ok(())
        } else {
            Err(LowerError::bug(
                "the module does not verify after the pass pipeline",
            ))
        }
    }

    /// Whether every pass of the pipeline is known (to hipmlir or MLIR) with valid options,
    /// without running anything.
    pub fn validate(&self, ctx: &Context) -> Result<(), LowerError> {
        let errors: registry::ErrorSink = Arc::new(Mutex::new(None));
        let pm = new_pass_manager(ctx);
        for element in &self.elements {
            add_element(&pm.as_operation_pass_manager(), element, &errors)?;
        }
        Ok(())
    }
}

fn run_element(
    ctx: &Context,
    module: &mut Module,
    element: &Element,
    print_ir_after_all: bool,
) -> Result<(), LowerError> {
    let errors: registry::ErrorSink = Arc::new(Mutex::new(None));
    let pm = new_pass_manager(ctx);
    add_element(&pm.as_operation_pass_manager(), element, &errors)?;
    if print_ir_after_all {
        pm.enable_ir_printing(&PassIrPrintingOptions {
            before_all: false,
            after_all: true,
            module_scope: true,
            on_change: false,
            // "Only on failure": true would print nothing after passes that succeed.
            on_failure: false,
            flags: OperationPrintingFlags::new(),
            tree_printing_path: std::path::PathBuf::new(),
        });
    }
    let started = pass_times::recording().then(std::time::Instant::now);
    let (result, messages) = context::capture_diagnostics(ctx, || pm.run(module));
    if let Some(started) = started {
        pass_times::record(element.to_string(), started.elapsed());
    }
    if let Some(e) = errors.lock().ok().and_then(|mut e| e.take()) {
        return Err(e);
    }
    match result {
        Ok(()) => Ok(()),
        Err(_) => Err(LowerError::Pass {
            stage: format!("running {element}"),
            diagnostics: if messages.is_empty() {
                vec![Diagnostic {
                    location: None,
                    message: "the pass failed".to_string(),
                }]
            } else {
                messages
            },
        }),
    }
}

/// A pass manager on builtin.module, where hipmlir's passes are anchored.
fn new_pass_manager(ctx: &Context) -> PassManager<'_> {
    // SAFETY: a new pass manager on the context, owned (and destroyed) by the wrapper.
    unsafe {
        PassManager::from_raw(mlir_sys::mlirPassManagerCreateOnOperation(
            ctx.to_raw(),
            StringRef::new("builtin.module").to_raw(),
        ))
    }
}

fn add_element(
    pm: &OperationPassManager,
    element: &Element,
    errors: &registry::ErrorSink,
) -> Result<(), LowerError> {
    match element {
        Element::Nest { anchor, elements } => {
            let nested = pm.nested_under(anchor);
            for e in elements {
                add_element(&nested, e, errors)?;
            }
            Ok(())
        }
        Element::Pass(Pass::Hipmlir { pass, options }) => {
            pm.add_pass(registry::create(pass, options.clone(), errors.clone()));
            Ok(())
        }
        Element::Pass(Pass::Upstream { .. }) => add_upstream(pm, &element.to_string()),
    }
}

/// An upstream pass, added by MLIR's pipeline parser (which knows its options).
fn add_upstream(pm: &OperationPassManager, text: &str) -> Result<(), LowerError> {
    unsafe extern "C" fn collect(s: mlir_sys::MlirStringRef, data: *mut std::ffi::c_void) {
        // SAFETY: `data` is the String passed below; `s` is valid for this call.
        let out = unsafe { &mut *(data as *mut String) };
        let bytes = unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) };
        out.push_str(&String::from_utf8_lossy(bytes));
    }
    let mut message = String::new();
    // SAFETY: `pm` is a live pass manager; the callback only appends to `message`.
    let result = unsafe {
        mlir_sys::mlirOpPassManagerAddPipeline(
            pm.to_raw(),
            StringRef::new(text).to_raw(),
            Some(collect),
            &mut message as *mut String as *mut std::ffi::c_void,
        )
    };
    if result.value != 0 {
        Ok(())
    } else {
        let message = message.trim();
        Err(LowerError::Pipeline(if message.is_empty() {
            format!("'{text}' is not a pass hipmlir or MLIR knows")
        } else {
            message.to_string()
        }))
    }
}

impl fmt::Display for Pass {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let options = match self {
            Pass::Hipmlir { options, .. } => options.to_string(),
            Pass::Upstream { options, .. } => options.clone(),
        };
        if options.is_empty() {
            write!(f, "{}", self.name())
        } else {
            write!(f, "{}{{{options}}}", self.name())
        }
    }
}

impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Element::Pass(pass) => write!(f, "{pass}"),
            Element::Nest { anchor, elements } => {
                write!(f, "{anchor}(")?;
                for (i, e) in elements.iter().enumerate() {
                    if i > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, "{e}")?;
                }
                write!(f, ")")
            }
        }
    }
}

impl fmt::Display for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let all = Element::nest("builtin.module", self.elements.clone());
        write!(f, "{all}")
    }
}

/// The target-neutral start of every device pipeline: from the (linked) frontend module to
/// kernels outlined into a gpu.module, host code gone.
/// `memcheck`: the memory checker's pass, with its options for the target (None: none).
pub(crate) fn outlining(memcheck: Option<PassOptions>) -> Vec<Element> {
    let mut elements = vec![
        // Device functions are inlined into the kernels while these are still func.func (MLIR
        // cannot inline into a gpu.func); calls through function pointers become direct calls
        // first, to be inlined with the rest. What recursion leaves stays a call (NVPTX runs
        // it; the SPIR-V pipeline calls it through function pointers).
        Element::pass(&registry::DEVIRTUALIZE_FUNCTION_POINTERS),
        Element::upstream(upstream::INLINE),
        Element::upstream(upstream::CANONICALIZE),
        Element::upstream(upstream::CSE),
        Element::upstream(upstream::SYMBOL_DCE),
        // Stage `outlined`.
        Element::pass(&registry::OUTLINE_KERNELS),
        // Launch sites stood for host code: from here on only the device side.
        Element::pass(&registry::DROP_HOST_FUNCTIONS),
    ];
    if let Some(options) = memcheck {
        // On the inlined kernels, before a target renumbers the address spaces.
        elements.push(Element::pass_with(
            &registry::CHECK_MEMORY_ACCESSES,
            options,
        ));
    }
    elements
}

/// What the lowering left in the gpu.module, simplified and unused symbols removed.
pub(crate) fn clean_up_gpu_module() -> Element {
    Element::nest(
        "gpu.module",
        vec![
            Element::upstream(upstream::CANONICALIZE),
            Element::upstream(upstream::CSE),
            Element::upstream(upstream::SYMBOL_DCE),
        ],
    )
}

/// The named stages of the device pipeline (`--emit-mlir=<stage>`, `--save-temps`): the IR
/// after these passes. `frontend`, the pipeline's input, comes before them.
pub const STAGES: [(&str, &str); 3] = [
    ("outlined", registry::OUTLINE_KERNELS.name),
    ("lowered", registry::MARK_ENTRY_POINTS.name),
    ("spirv", registry::ADD_MISSING_CAPABILITIES.name),
];

/// The pass after which a named stage is taken.
pub fn stage_pass(stage: &str) -> Option<&'static str> {
    STAGES.iter().find(|(s, _)| *s == stage).map(|(_, p)| *p)
}

/// What `--list-passes` prints: hipmlir's passes with their summaries and options, and the
/// device pipelines with the SPIR-V one's stages.
pub fn describe_passes() -> String {
    let mut out = String::from(
        "hipmlir's passes (in pass pipelines, hipmlir-opt, and hipmlir --emit-mlir=<pass>):\n",
    );
    for pass in &registry::PASSES {
        out.push_str(&format!("  {}\n      {}\n", pass.name, pass.summary));
        for (option, meaning, value) in pass.options {
            let values = value.spelling();
            out.push_str(&format!("      {{{option}={values}}}: {meaning}\n"));
        }
    }
    out.push_str("\nThe device pipeline for SPIR-V; the stages of --emit-mlir are the IR after ");
    let stages: Vec<String> = STAGES
        .iter()
        .map(|(stage, pass)| format!("{pass} ({stage})"))
        .collect();
    out.push_str(&stages.join(", "));
    out.push_str(":\n");
    describe_elements(&mut out, &crate::spirv_pipeline(&Default::default()));
    out.push_str(
        "\nThe device pipeline for NVPTX (--offload-arch=sm_XX), then gpu-module-to-binary to PTX:\n",
    );
    describe_elements(
        &mut out,
        &crate::nvptx_pipeline(&crate::NvptxOptions {
            chip: "sm_70".into(),
            libdevice: None,
            memcheck: false,
        }),
    );
    out
}

/// `  builtin.module(`, one element a line, `  )`.
fn describe_elements(out: &mut String, pipeline: &Pipeline) {
    out.push_str("  builtin.module(\n");
    let elements = pipeline.elements();
    for (i, e) in elements.iter().enumerate() {
        let comma = if i + 1 < elements.len() { "," } else { "" };
        out.push_str(&format!("    {e}{comma}\n"));
    }
    out.push_str("  )\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{nvptx_pipeline, spirv_pipeline, NvptxOptions};

    fn nvptx() -> Pipeline {
        nvptx_pipeline(&NvptxOptions {
            chip: "sm_70".into(),
            libdevice: Some("/lib/libdevice.10.bc".into()),
            memcheck: false,
        })
    }

    #[test]
    fn the_spirv_pipeline_names_its_stages() {
        let p = spirv_pipeline(&Default::default());
        let names = p.pass_names();
        for (_, pass) in STAGES {
            assert!(names.contains(&pass), "{pass}");
        }
        let nvptx = nvptx();
        let nvptx_names = nvptx.pass_names();
        assert!(nvptx_names.contains(&registry::ADDRESS_SPACES_TO_NVPTX.name));
        assert!(!names.contains(&registry::ADDRESS_SPACES_TO_NVPTX.name));
        assert!(!nvptx_names.contains(&registry::ADDRESS_SPACES_TO_SPIRV.name));
    }

    /// The registry of device passes (what `--emit-mlir=<pass>` may name) is exactly what the
    /// two pipelines run (with the memory checker or without): every pass of hipmlir's and
    /// every upstream pass it lists runs in one of them, and they run nothing else.
    #[test]
    fn the_registry_names_what_the_pipelines_run() {
        let spirv = spirv_pipeline(&Default::default());
        let checked_spirv = spirv_pipeline(&crate::SpirvOptions {
            memcheck: true,
            ..Default::default()
        });
        let nvptx = nvptx();
        let run: Vec<&str> = spirv
            .pass_names()
            .into_iter()
            .chain(checked_spirv.pass_names())
            .chain(nvptx.pass_names())
            .collect();
        for name in &run {
            assert!(registry::is_device_pass(name), "{name}");
        }
        for pass in &registry::PASSES {
            assert!(run.contains(&pass.name), "{}", pass.name);
        }
        for name in registry::upstream::IN_PIPELINES {
            assert!(run.contains(&name), "{name}");
        }
        assert!(!registry::is_device_pass(
            registry::upstream::GPU_MODULE_TO_BINARY
        ));
    }

    /// hipmlir registers only the upstream passes its pipelines name (cxx/upstream_passes.cpp):
    /// each pipeline, and the serializations' pass, must find every one of them.
    #[test]
    fn every_pipeline_pass_is_registered() {
        let ctx = crate::new_context();
        for pipeline in [
            spirv_pipeline(&Default::default()),
            spirv_pipeline(&crate::SpirvOptions {
                native_float_atomics: true,
                ..Default::default()
            }),
            spirv_pipeline(&crate::SpirvOptions {
                memcheck: true,
                ..Default::default()
            }),
            nvptx(),
            crate::serialize::spirv_binary(),
            crate::serialize::ptx_binary(),
        ] {
            if let Err(e) = pipeline.validate(&ctx) {
                panic!("{pipeline}: {e}");
            }
        }
    }

    /// What a pipeline prints parses back to the same pipeline (hipmlir-opt reads what
    /// --list-passes shows).
    #[test]
    fn printed_pipelines_parse_back() {
        for pipeline in [spirv_pipeline(&Default::default()), nvptx()] {
            assert_eq!(Pipeline::parse(&pipeline.to_string()).unwrap(), pipeline);
        }
    }
}
