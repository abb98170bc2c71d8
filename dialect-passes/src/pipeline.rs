//! Pass pipelines in MLIR's textual syntax (`builtin.module(a,b{opt=1},gpu.module(c))`) whose
//! passes are hipmlir's (see `registry`) or MLIR's upstream ones, and the device pipeline of
//! each target.
//!
//! MLIR's C API parses pipelines of registered upstream passes only, so the text is parsed here:
//! hipmlir's passes are added as external passes, every other pass is handed to MLIR's own
//! parser (`mlirOpPassManagerAddPipeline`) one element at a time.

use std::fmt;
use std::sync::{Arc, Mutex};

use melior::ir::operation::{OperationLike, OperationPrintingFlags};
use melior::ir::Module;
use melior::pass::{OperationPassManager, PassIrPrintingOptions, PassManager};
use melior::{Context, StringRef};

use crate::registry::{self, PassOptions, ADD_MISSING_CAPABILITIES, MARK_ENTRY_POINTS};
use crate::{context, pass_times, LowerError, SpirvOptions};

/// The device pipeline for the SPIR-V target: from the (linked) frontend module to a
/// `spirv.module` in the gpu.module, ready to serialize. Stages (`--emit-mlir`) are the IR after
/// some of its passes (`STAGES`).
pub fn spirv_pipeline(options: &SpirvOptions) -> String {
    // SPV_KHR_no_integer_wrap_decoration carries C's `nsw` on signed arithmetic; every
    // OpenCL consumer accepts it (it only allows optimizations).
    let (caps, exts, pointers) = if options.native_float_atomics {
        (
            format!("{},AtomicFloat32AddEXT", options.capabilities),
            "SPV_KHR_no_integer_wrap_decoration,SPV_EXT_shader_atomic_float_add",
            format!(
                "{}{{{}=true}}",
                registry::LOWER_POINTERS_TO_SPIRV,
                registry::NATIVE_FLOAT_ATOMICS
            ),
        )
    } else {
        (
            options.capabilities.clone(),
            "SPV_KHR_no_integer_wrap_decoration",
            registry::LOWER_POINTERS_TO_SPIRV.to_string(),
        )
    };
    let mut elements = common_prefix();
    elements.extend([
        // From here on the pipeline is SPIR-V's: the frontend's address spaces are
        // target-neutral until this pass.
        registry::ADDRESS_SPACES_TO_SPIRV.to_string(),
        registry::LOWER_TRAP_TO_SPIRV.to_string(),
        registry::LOWER_CLOCKS_TO_SPIRV.to_string(),
        registry::LOWER_DYNAMIC_SHARED.to_string(),
        registry::LINEARIZE_WARP_BLOCKS.to_string(),
        "gpu.module(canonicalize,cse,symbol-dce)".to_string(),
        // Stage `lowered`: what the kernel metadata is read from.
        MARK_ENTRY_POINTS.to_string(),
        // A call inlining left is recursion, which SPIR-V (as hipmlir builds it) does not run.
        registry::REJECT_RECURSION.to_string(),
        // The gpu.module becomes a spirv.module.
        pointers,
        registry::LOWER_MATH_TO_OPENCL.to_string(),
        format!(
            "spirv-attach-target{{ver={} caps={caps} exts={exts}}}",
            options.version
        ),
        "convert-gpu-to-spirv{use-64bit-index=true}".to_string(),
        "gpu.module(spirv.module(spirv-lower-abi-attrs,spirv-update-vce,canonicalize))".to_string(),
        // Stage `spirv`.
        ADD_MISSING_CAPABILITIES.to_string(),
    ]);
    format!("builtin.module({})", elements.join(","))
}

/// The target-neutral start of every device pipeline: from the (linked) frontend module to
/// kernels outlined into a gpu.module, host code gone.
fn common_prefix() -> Vec<String> {
    vec![
        // Device functions are inlined into the kernels while these are still func.func (MLIR
        // cannot inline into a gpu.func); calls through function pointers become direct calls
        // first, to be inlined with the rest. What recursion leaves stays a call (NVPTX runs
        // it; the SPIR-V pipeline rejects it).
        registry::DEVIRTUALIZE_FUNCTION_POINTERS.to_string(),
        "inline,canonicalize,cse,symbol-dce".to_string(),
        // Stage `outlined`.
        registry::OUTLINE_KERNELS.to_string(),
        // Launch sites stood for host code: from here on only the device side.
        registry::DROP_HOST_FUNCTIONS.to_string(),
    ]
}

/// Options of the NVPTX conversion.
#[derive(Debug, Clone)]
pub struct NvptxOptions {
    /// The GPU architecture the PTX is for (`sm_70`); the driver JITs it for newer GPUs.
    pub chip: String,
    /// libdevice (`libdevice.10.bc`), linked for the `__nv_*` math functions; without it a
    /// kernel calling one is refused after serialization.
    pub libdevice: Option<std::path::PathBuf>,
}

/// At least PTX ISA 6.3 (CUDA 10: activemask and the sync shuffles, which every current driver
/// JITs): LLVM's default for architectures before sm_75 is older. Newer architectures need
/// their own newer default (sm_90 needs 7.8), so they are left to it.
fn ptx_features(chip: &str) -> &'static str {
    let number: u32 = chip
        .trim_start_matches("sm_")
        .trim_end_matches(['a', 'f'])
        .parse()
        .unwrap_or(0);
    if number < 75 {
        " features=+ptx63"
    } else {
        ""
    }
}

/// The device pipeline for NVPTX: from the (linked) frontend module to a gpu.module of the LLVM
/// and NVVM dialects with an `#nvvm.target`, ready for `serialize_ptx`.
pub fn nvptx_pipeline(options: &NvptxOptions) -> String {
    let mut elements = common_prefix();
    let link = options
        .libdevice
        .as_ref()
        .map(|p| format!(" l={}", p.display()))
        .unwrap_or_default();
    elements.extend([
        registry::ADDRESS_SPACES_TO_NVPTX.to_string(),
        registry::LOWER_HIP_TO_NVPTX.to_string(),
        "gpu.module(canonicalize,cse,symbol-dce)".to_string(),
        format!(
            "nvvm-attach-target{{chip={}{} O=3{link}}}",
            options.chip,
            ptx_features(&options.chip)
        ),
        "convert-scf-to-cf".to_string(),
        // Math ops without a libdevice function (ctpop) become LLVM intrinsics.
        "gpu.module(convert-gpu-to-nvvm,convert-math-to-llvm,reconcile-unrealized-casts)"
            .to_string(),
        registry::NVPTX_PARAMETER_ATTRIBUTES.to_string(),
    ]);
    format!("builtin.module({})", elements.join(","))
}

/// The named stages of the device pipeline (`--emit-mlir=<stage>`, `--save-temps`): the IR
/// after these passes. `frontend`, the pipeline's input, comes before them.
pub const STAGES: [(&str, &str); 3] = [
    ("outlined", registry::OUTLINE_KERNELS),
    ("lowered", MARK_ENTRY_POINTS),
    ("spirv", ADD_MISSING_CAPABILITIES),
];

/// The pass after which a named stage is taken.
pub fn stage_pass(stage: &str) -> Option<&'static str> {
    STAGES.iter().find(|(s, _)| *s == stage).map(|(_, p)| *p)
}

/// What `--list-passes` prints: hipmlir's passes with their summaries and options, and the
/// SPIR-V device pipeline with its stages.
pub fn describe_passes() -> String {
    let mut out = String::from(
        "hipmlir's passes (in pass pipelines, hipmlir-opt, and hipmlir --emit-mlir=<pass>):\n",
    );
    for pass in &registry::PASSES {
        out.push_str(&format!("  {}\n      {}\n", pass.name, pass.summary));
        for (option, meaning) in pass.options {
            out.push_str(&format!("      {{{option}=true|false}}: {meaning}\n"));
        }
    }
    out.push_str("\nThe device pipeline for SPIR-V; the stages of --emit-mlir are the IR after ");
    let stages: Vec<String> = STAGES
        .iter()
        .map(|(stage, pass)| format!("{pass} ({stage})"))
        .collect();
    out.push_str(&stages.join(", "));
    out.push_str(":\n  builtin.module(\n");
    let pipeline = Pipeline::parse(&spirv_pipeline(&SpirvOptions::default()))
        .expect("the SPIR-V pipeline parses");
    for (i, e) in pipeline.elements.iter().enumerate() {
        let comma = if i + 1 < pipeline.elements.len() {
            ","
        } else {
            ""
        };
        out.push_str(&format!("    {e}{comma}\n"));
    }
    out.push_str("  )\n");
    out.push_str(
        "\nThe device pipeline for NVPTX (--offload-arch=sm_XX), then gpu-module-to-binary to PTX:\n  builtin.module(\n",
    );
    let pipeline = Pipeline::parse(&nvptx_pipeline(&NvptxOptions {
        chip: "sm_70".into(),
        libdevice: None,
    }))
    .expect("the NVPTX pipeline parses");
    for (i, e) in pipeline.elements.iter().enumerate() {
        let comma = if i + 1 < pipeline.elements.len() {
            ","
        } else {
            ""
        };
        out.push_str(&format!("    {e}{comma}\n"));
    }
    out.push_str("  )\n");
    out
}

/// One element of a pipeline: a pass with its options, or passes nested under an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Element {
    Pass {
        name: String,
        options: String,
    },
    Nest {
        anchor: String,
        elements: Vec<Element>,
    },
}

/// A pass pipeline on a `builtin.module`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pipeline {
    elements: Vec<Element>,
}

impl Pipeline {
    /// Parses `builtin.module(...)`, or a bare list of elements run on the module.
    pub fn parse(text: &str) -> Result<Pipeline, LowerError> {
        let mut parser = Parser { text, pos: 0 };
        let elements = parser.list(None).map_err(LowerError::Pipeline)?;
        let elements = match <[Element; 1]>::try_from(elements) {
            Ok([Element::Nest { anchor, elements }]) if anchor == "builtin.module" => elements,
            Ok([one]) => vec![one],
            Err(elements) => elements,
        };
        let pipeline = Pipeline { elements };
        pipeline.check_options()?;
        Ok(pipeline)
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
                    Element::Pass { name, .. } => out.push(name),
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
                    Element::Pass { name, .. } if name == pass => {
                        return Some((elements[..=i].to_vec(), elements[i + 1..].to_vec()));
                    }
                    Element::Pass { .. } => {}
                    Element::Nest {
                        anchor,
                        elements: inner,
                    } => {
                        if let Some((head, tail)) = split(inner, pass) {
                            let mut before = elements[..i].to_vec();
                            before.push(Element::Nest {
                                anchor: anchor.clone(),
                                elements: head,
                            });
                            let mut after = Vec::new();
                            if !tail.is_empty() {
                                after.push(Element::Nest {
                                    anchor: anchor.clone(),
                                    elements: tail,
                                });
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

    /// hipmlir's own passes take options only they know: checked before anything runs.
    fn check_options(&self) -> Result<(), LowerError> {
        fn check(elements: &[Element]) -> Result<(), LowerError> {
            for e in elements {
                match e {
                    Element::Pass { name, options } => {
                        if let Some(pass) = registry::find(name) {
                            PassOptions::parse(pass, options).map_err(LowerError::Pipeline)?;
                        }
                    }
                    Element::Nest { elements, .. } => check(elements)?,
                }
            }
            Ok(())
        }
        check(&self.elements)
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
            message: if messages.is_empty() {
                "the pass failed".to_string()
            } else {
                messages.join("\n")
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
        Element::Pass { name, options } => match registry::find(name) {
            Some(pass) => {
                let options = PassOptions::parse(pass, options).map_err(LowerError::Pipeline)?;
                pm.add_pass(registry::create(pass, options, errors.clone()));
                Ok(())
            }
            None => add_upstream(pm, &element.to_string()),
        },
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

impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Element::Pass { name, options } if options.is_empty() => write!(f, "{name}"),
            Element::Pass { name, options } => write!(f, "{name}{{{options}}}"),
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
        let all = Element::Nest {
            anchor: "builtin.module".into(),
            elements: self.elements.clone(),
        };
        write!(f, "{all}")
    }
}

/// MLIR's pipeline grammar: `element (',' element)*`, an element being `name`, `name{options}`
/// or `op-name(elements)`.
struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn error(&self, what: &str) -> String {
        format!(
            "invalid pass pipeline '{}': {what} at offset {}",
            self.text, self.pos
        )
    }

    /// Elements up to `closing` (or the end of the text).
    fn list(&mut self, closing: Option<char>) -> Result<Vec<Element>, String> {
        let mut elements = Vec::new();
        self.skip_spaces();
        if self.peek() == closing {
            self.pos += closing.map_or(0, char::len_utf8);
            return Ok(elements);
        }
        loop {
            self.skip_spaces();
            let start = self.pos;
            while self
                .peek()
                .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '$'))
            {
                self.pos += 1;
            }
            let name = self.text[start..self.pos].to_string();
            if name.is_empty() {
                return Err(self.error("expected a pass or operation name"));
            }
            self.skip_spaces();
            match self.peek() {
                Some('{') => {
                    let open = self.pos + 1;
                    let mut depth = 0usize;
                    loop {
                        match self.peek() {
                            None => return Err(self.error("unterminated '{'")),
                            Some('{') => depth += 1,
                            Some('}') => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            Some(_) => {}
                        }
                        self.pos += self.peek().map_or(1, char::len_utf8);
                    }
                    let options = self.text[open..self.pos].trim().to_string();
                    self.pos += 1;
                    elements.push(Element::Pass { name, options });
                }
                Some('(') => {
                    self.pos += 1;
                    let inner = self.list(Some(')'))?;
                    elements.push(Element::Nest {
                        anchor: name,
                        elements: inner,
                    });
                }
                _ => elements.push(Element::Pass {
                    name,
                    options: String::new(),
                }),
            }
            self.skip_spaces();
            match self.peek() {
                Some(',') => self.pos += 1,
                c if c == closing => {
                    self.pos += closing.map_or(0, char::len_utf8);
                    return Ok(elements);
                }
                None => return Err(self.error("expected ')'")),
                Some(_) => return Err(self.error("expected ',' or the end of the list")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_prints_and_splits_nested_pipelines() {
        let text = "builtin.module(a,b{x=1 y=two},gpu.module(c,spirv.module(d)),e)";
        let p = Pipeline::parse(text).unwrap();
        assert_eq!(p.to_string(), text);
        assert_eq!(p.pass_names(), ["a", "b", "c", "d", "e"]);
        let (head, tail) = p.split_after("c").unwrap();
        assert_eq!(
            head.to_string(),
            "builtin.module(a,b{x=1 y=two},gpu.module(c))"
        );
        assert_eq!(
            tail.to_string(),
            "builtin.module(gpu.module(spirv.module(d)),e)"
        );
        let (head, tail) = p.split_after("e").unwrap();
        assert_eq!(head, p);
        assert!(tail.is_empty());
        assert!(p.split_after("z").is_none());
        // A bare list is the module's.
        assert_eq!(Pipeline::parse(" a , b ").unwrap().pass_names(), ["a", "b"]);
    }

    #[test]
    fn reports_bad_pipelines() {
        for bad in ["a,", "a(b", "a{x", "(a)", "a b"] {
            assert!(
                matches!(Pipeline::parse(bad), Err(LowerError::Pipeline(_))),
                "{bad}"
            );
        }
        let e = Pipeline::parse("hipmlir-outline-kernels{bogus=1}").unwrap_err();
        assert!(e.to_string().contains("'bogus' is not an option"), "{e}");
    }

    #[test]
    fn the_spirv_pipeline_names_its_stages() {
        let p = Pipeline::parse(&spirv_pipeline(&SpirvOptions::default())).unwrap();
        let names = p.pass_names();
        for (_, pass) in STAGES {
            assert!(names.contains(&pass), "{pass}");
        }
        // Every pass of hipmlir's runs in one of the targets' pipelines.
        let nvptx = Pipeline::parse(&nvptx_pipeline(&NvptxOptions {
            chip: "sm_70".into(),
            libdevice: Some("/lib/libdevice.10.bc".into()),
        }))
        .unwrap();
        let nvptx_names = nvptx.pass_names();
        for pass in &registry::PASSES {
            assert!(
                names.contains(&pass.name) || nvptx_names.contains(&pass.name),
                "{}",
                pass.name
            );
        }
        assert!(nvptx_names.contains(&registry::ADDRESS_SPACES_TO_NVPTX));
        assert!(!names.contains(&registry::ADDRESS_SPACES_TO_NVPTX));
        assert!(!nvptx_names.contains(&registry::ADDRESS_SPACES_TO_SPIRV));
    }

    /// hipmlir registers only the upstream passes its pipelines name (cxx/upstream_passes.cpp):
    /// each pipeline, and the serializations' pass, must find every one of them.
    #[test]
    fn every_pipeline_pass_is_registered() {
        let ctx = crate::new_context();
        let nvptx = nvptx_pipeline(&NvptxOptions {
            chip: "sm_70".into(),
            libdevice: None,
        });
        for text in [
            spirv_pipeline(&SpirvOptions::default()),
            nvptx,
            "gpu-module-to-binary".to_string(),
            "gpu-module-to-binary{format=isa}".to_string(),
        ] {
            let pipeline = Pipeline::parse(&text).unwrap();
            if let Err(e) = pipeline.validate(&ctx) {
                panic!("{text}: {e}");
            }
        }
    }

    #[test]
    fn ptx_versions_suit_the_architecture() {
        assert_eq!(ptx_features("sm_70"), " features=+ptx63");
        assert_eq!(ptx_features("sm_90"), "");
        assert_eq!(ptx_features("sm_90a"), "");
        let text = nvptx_pipeline(&NvptxOptions {
            chip: "sm_80".into(),
            libdevice: Some("/x/libdevice.10.bc".into()),
        });
        assert!(
            text.contains("nvvm-attach-target{chip=sm_80 O=3 l=/x/libdevice.10.bc}"),
            "{text}"
        );
    }
}
