//! The MLIR context hipmlir compiles in, and MLIR's diagnostics caught as typed ones.

use std::cell::RefCell;
use std::rc::Rc;

use melior::dialect::DialectRegistry;
use melior::utility::{register_all_dialects, register_all_llvm_translations, register_all_passes};
use melior::Context;

use crate::Diagnostic;

/// The dialects the frontend and hipmlir's own passes build operations of. Only these are
/// loaded up front: loading all ~50 registered dialects costs a build several milliseconds (and
/// every canonicalize pass collects patterns from each loaded one). The others stay registered,
/// so the MLIR parser and upstream passes (through their dependent dialects) load them when
/// they are needed.
const DIALECTS_BUILT_BY_HIPMLIR: &[&str] = &[
    "builtin", "func", "arith", "math", "scf", "cf", "llvm", "gpu", "spirv",
];

extern "C" {
    fn hipmlirRegisterPipelinePasses();
}

/// A context with every upstream dialect and translation registered, the upstream passes of
/// hipmlir's pipelines (cxx/upstream_passes.cpp), and the dialects hipmlir builds loaded.
pub fn new_context() -> Context {
    prepare_process();
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    for dialect in DIALECTS_BUILT_BY_HIPMLIR {
        context.get_or_load_dialect(dialect);
    }
    register_all_llvm_translations(&context);
    context
}

/// What every context needs once per process: hipmlir's passes in MLIR's global registry. A
/// compile server does it before forking its children.
pub fn prepare_process() {
    static REGISTER_PASSES: std::sync::Once = std::sync::Once::new();
    // SAFETY: registers passes in MLIR's global registry, once.
    REGISTER_PASSES.call_once(|| unsafe { hipmlirRegisterPipelinePasses() });
}

/// A [`new_context`] being made on another thread: making one takes a few milliseconds, which
/// work that needs no context (the device parse) can hide.
pub struct PendingContext(std::thread::JoinHandle<(MovedContext, std::time::Duration)>);

struct MovedContext(Context);

// SAFETY: an MLIR context is not tied to the thread that made it. This one is moved once, from
// the thread that made it to the one that waits for it, and never shared.
unsafe impl Send for MovedContext {}

impl PendingContext {
    pub fn start() -> PendingContext {
        PendingContext(std::thread::spawn(|| {
            let started = std::time::Instant::now();
            (MovedContext(new_context()), started.elapsed())
        }))
    }

    /// The context, and how long making it took.
    pub fn wait(self) -> (Context, std::time::Duration) {
        match self.0.join() {
            Ok((MovedContext(context), took)) => (context, took),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// Runs `f`, collecting the error diagnostics MLIR emits meanwhile (with their source
/// locations, read through MLIR's C API).
pub fn capture_diagnostics<T>(ctx: &Context, f: impl FnOnce() -> T) -> (T, Vec<Diagnostic>) {
    let messages = Rc::new(RefCell::new(Vec::new()));
    let sink = messages.clone();
    let id = ctx.attach_diagnostic_handler(move |d| {
        if matches!(d.severity(), melior::diagnostic::DiagnosticSeverity::Error) {
            sink.borrow_mut().push(Diagnostic {
                location: hipmlir_ir::source_location(d.location()),
                message: d.to_string(),
            });
        }
        true
    });
    let out = f();
    ctx.detach_diagnostic_handler(id);
    let messages = messages.borrow().clone();
    (out, messages)
}

/// [`new_context`] for a tool that runs any pipeline (hipmlir-opt): every upstream pass of MLIR
/// registered as well.
pub fn new_context_with_all_passes() -> Context {
    static REGISTER_ALL: std::sync::Once = std::sync::Once::new();
    REGISTER_ALL.call_once(register_all_passes);
    new_context()
}
