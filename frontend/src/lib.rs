//! hipmlir's frontend: HIP source → MLIR (func/arith/scf/memref + gpu builtins).
//!
//! libclang parses the file in HIP device mode with hipmlir's headers; the codegen walks the AST
//! and builds MLIR through melior. Each kernel becomes a `func.func` carrying `hipmlir.kernel`,
//! `hipmlir.kernel_name`, `hipmlir.kernel_args` and `hipmlir.kernel_args_size`; the outliner moves
//! them into a `gpu.module`.
#![allow(non_upper_case_globals)] // clang-sys constants keep libclang's C names.

mod captures;
pub mod clang;
mod codegen;
pub mod error;
mod host_edits;
mod host_shadows;
mod kernel_abi;
mod kernel_stubs;
mod launches;
mod pch;
pub mod preamble;
mod preamble_headers;
pub mod types;

use std::path::{Path, PathBuf};

use hipmlir_device_image::KernelInfo;
use melior::ir::operation::OperationLike;
use melior::ir::{Location, Module};
use melior::Context;

pub use codegen::{address_kernel, DeviceVariable, UndefinedSymbol, UnitFiles};
pub use error::{Diagnostic, FrontendError, Result, SourceLoc};
pub use host_edits::{apply_edits, text_at_same_offsets, SourceEdit};

/// How to parse the input.
#[derive(Debug, Clone, Default)]
pub struct FrontendOptions {
    /// hipmlir's own headers (the folder holding `hip/hip_runtime.h`).
    pub hip_headers: PathBuf,
    /// `-I` folders.
    pub include_dirs: Vec<PathBuf>,
    /// `-D` and `-U` flags as written (`-DN=4`, `-UDEBUG`), and the other preprocessor flags
    /// of the parse (`-isystem DIR`, the `-I`/`-iquote` folders `$CXX` adds).
    pub macro_flags: Vec<String>,
    /// The language standard (`c++17`).
    pub std: Option<String>,
    /// Kernel template instances to compile although no launch in the file names them
    /// concretely (`scale<float, 100>`): those a host template launches, found by the driver in
    /// the host object's symbols.
    pub kernel_instances: Vec<String>,
    /// Relocatable device code (`-fgpu-rdc`): every device function the file defines with
    /// external linkage is compiled, for other sources to call.
    pub relocatable: bool,
    /// `-fgpu-rdc` as the user gave it: device variables are the program's, their host shadows
    /// external (else each source's own, as with hipcc; see `host_shadows`).
    pub gpu_rdc: bool,
    /// The key of the translation unit, for a source with host code (see `GlobalVar::unit`):
    /// its own device variables' shadows register with it. None: no host code (hiprtc).
    pub unit_key: Option<String>,
    /// Expressions naming kernels (template instances among them), device functions or device
    /// variables, as hiprtc's name expressions do (`scale<float, 4>`, `&ns::table`): each is
    /// resolved as C++ resolves it, the kernels it names are compiled, and
    /// [`FrontendOutput::lowered_names`] gives each one's symbol.
    pub name_expressions: Vec<String>,
    /// Which files' kernels and device variables are compiled.
    pub unit_files: UnitFiles,
    /// Make the prefix header's PCH the first time these flags are seen rather than the
    /// second: for a process that compiles again soon (hiprtc keeps compiling in one process).
    pub pch_at_first_sight: bool,
    /// A folder of the compile's own files (hiprtc's: the program's source and the headers
    /// given with it by name), searched after the system's folders (`-idirafter`): only the
    /// program's code includes them, so the prefix header's parse and PCH do not depend on it
    /// (a new folder per compile does not make a new PCH).
    pub program_dir: Option<PathBuf>,
    /// The memory checker (`-fsanitize=address`): modules with kernels get its state variable
    /// (the pass that checks their accesses runs in the device pipeline).
    pub memcheck: bool,
}

impl FrontendOptions {
    /// The header every device parse begins with.
    pub fn prefix_header(&self) -> PathBuf {
        self.hip_headers.join("hip/hip_runtime.h")
    }

    /// The clang arguments of a device-side parse.
    pub fn clang_args(&self) -> Vec<String> {
        let mut args: Vec<String> = [
            "-x",
            "hip",
            // AMD's flavour of SPIR-V: clang gives kernels the device_kernel calling convention
            // in their types only for the plain spirv64 triple, where host code then cannot
            // hold a kernel in a plain function pointer (`void (*k)(float*) = kernel;`). With
            // this triple, kernels are typed as on AMD GPUs and nvcc: as ordinary functions.
            // Its other differences are undone: the AMD macros, which would select AMD-only
            // code paths in user headers, and atomic-alignment warnings made errors.
            "--offload=spirv64-amd-amdhsa",
            "-U__AMDGCN__",
            "-U__AMDGPU__",
            "-U__AMD__",
            "-Wno-error=atomic-alignment",
            "--cuda-device-only",
            "-nogpuinc",
            "-nogpulib",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(format!("-std={}", self.std.as_deref().unwrap_or("c++17")));
        args.push(format!("-I{}", self.hip_headers.display()));
        // As clang's HIP driver pre-includes its wrapper header: hipmlir's device declarations
        // (math functions among them) must come before the user's <cmath>.
        args.push("-include".into());
        args.push(self.prefix_header().display().to_string());
        args.extend(
            self.include_dirs
                .iter()
                .map(|d| format!("-I{}", d.display())),
        );
        args.extend(self.macro_flags.iter().cloned());
        if let Some(dir) = &self.program_dir {
            args.push("-idirafter".into());
            args.push(dir.display().to_string());
        }
        args
    }

    /// The arguments of [`Self::clang_args`] that the prefix header's parse depends on (all but
    /// the program's own folder): what its PCH is made with and keyed by.
    pub fn prefix_header_args(&self) -> Vec<String> {
        FrontendOptions {
            program_dir: None,
            ..self.clone()
        }
        .clang_args()
    }
}

/// The frontend's result: the module and what it learned about each kernel.
pub struct FrontendOutput<'c> {
    pub module: Module<'c>,
    pub kernels: Vec<KernelInfo>,
    pub warnings: Vec<Diagnostic>,
    /// Applied to the main file, these give the host-only source.
    pub host_edits: Vec<SourceEdit>,
    /// Host symbols the host object must make local: the shadows of the source's own device
    /// variables whose definitions no host edit can make `static` (see `host_shadows`).
    pub local_host_symbols: Vec<String>,
    /// `__device__`/`__constant__` variables defined in the file.
    pub device_variables: Vec<DeviceVariable>,
    /// Qualified names of the kernel templates launched from host templates, whose instances
    /// only the host compile knows (`ns::scale`).
    pub dependent_kernel_templates: Vec<String>,
    /// Device functions and variables used here and defined in another source: declarations
    /// that only a device link (`-fgpu-rdc`) resolves.
    pub undefined: Vec<UndefinedSymbol>,
    /// How long libclang took to parse the source ([`parse`]; [`build`] is building MLIR), for
    /// `-ftime-report`.
    pub parse_time: std::time::Duration,
    /// The symbol each of [`FrontendOptions::name_expressions`] names, in their order; None for
    /// one that names no kernel, device function or device variable.
    pub lowered_names: Vec<Option<String>>,
    /// Every file the parse read besides the source (headers, from a precompiled header or
    /// not), for caches of what the source compiles to.
    pub included_files: Vec<PathBuf>,
}

/// A source parsed for its device code, not yet built as MLIR (which needs an MLIR context:
/// [`parse`] does not, so the two can be made side by side).
pub struct ParsedSource {
    path: PathBuf,
    tu: clang::TranslationUnit,
    warnings: Vec<Diagnostic>,
    /// The source's text as the host edits address it.
    source: String,
    parse_time: std::time::Duration,
}

/// Parses `path` with libclang for its device code.
pub fn parse(path: &Path, options: &FrontendOptions) -> Result<ParsedSource> {
    let bytes = std::fs::read(path).map_err(|e| {
        let message = if e.kind() == std::io::ErrorKind::NotFound {
            format!("no such file or directory: '{}'", path.display())
        } else {
            e.to_string()
        };
        FrontendError::unreadable(SourceLoc::file_only(path), message)
    })?;
    // Instances and name expressions are named at the end of the file, where every template
    // is declared.
    let instances = launches::instance_requests(&options.kernel_instances)
        + &launches::name_expression_requests(&options.name_expressions);
    let source = host_edits::text_at_same_offsets(&bytes);
    let parsed_text = if instances.is_empty() {
        bytes.clone()
    } else {
        [&bytes[..], b"\n", instances.as_bytes()].concat()
    };
    let parse_started = std::time::Instant::now();
    let (tu, warnings) = pch::parse_device_source(path, options, &parsed_text)?;
    Ok(ParsedSource {
        path: path.to_path_buf(),
        tu,
        warnings,
        source,
        parse_time: parse_started.elapsed(),
    })
}

/// Builds a parsed source's device code as MLIR. The module verifies.
pub fn build<'c>(
    ctx: &'c Context,
    parsed: ParsedSource,
    options: &FrontendOptions,
) -> Result<FrontendOutput<'c>> {
    let ParsedSource {
        path,
        tu,
        warnings,
        source,
        parse_time,
    } = parsed;
    let path = path.as_path();
    let root = tu.cursor();
    let main_file = root.spelling();
    let mut texts = host_edits::FileTexts::new(&main_file, source);
    let user_code = launches::find_launches(&root, &options.hip_headers);
    let launches = user_code.launches;
    let location = Location::new(ctx, &path.display().to_string(), 0, 0);
    let mut codegen = codegen::ModuleCodegen::new(ctx, location, &options.hip_headers);
    codegen.unit_key = options.unit_key.clone();
    codegen.memcheck = options.memcheck;
    let named = launches::named_entities(&root, options.name_expressions.len());
    let launched: Vec<clang::Cursor> = launches
        .iter()
        .filter_map(|l| l.kernel)
        .chain(launches::requested_instances(&root))
        .chain(user_code.kernel_values)
        .chain(
            named
                .iter()
                .flatten()
                .filter(|c| codegen::is_kernel(c))
                .copied(),
        )
        .collect();
    let unit = codegen::UnitScope {
        files: options.unit_files,
        relocatable: options.relocatable,
    };
    let shadows = match &options.unit_key {
        Some(unit_key) => {
            let shadow_options = host_shadows::ShadowOptions {
                hip_headers: &options.hip_headers,
                gpu_rdc: options.gpu_rdc,
                unit_key,
            };
            host_shadows::plan(&root, &shadow_options, &mut texts)?
        }
        None => host_shadows::ShadowPlan::default(),
    };
    let own_variables: Vec<clang::Cursor> = shadows.own.iter().map(|s| s.decl).collect();
    codegen.emit_translation_unit(&root, &launched, &user_code.lambdas, unit, &own_variables)?;
    if options.memcheck {
        codegen.emit_memcheck_state(location)?;
    }
    for v in &mut codegen.device_variables {
        v.registered_by_unit = shadows.own.iter().any(|s| s.symbol == v.symbol);
    }

    for (index, site) in launches.iter().enumerate() {
        if let Some(kernel) = site.kernel.and_then(|k| k.definition()) {
            codegen.emit_launch_site(index, &kernel, site)?;
        }
    }
    if !codegen.module.as_operation().verify() {
        // For hipmlir's developers: show the IR that failed to verify.
        if std::env::var_os("HIPMLIR_DUMP_INVALID_IR").is_some() {
            eprintln!("{}", codegen.module.as_operation());
        }
        return Err(FrontendError::internal(
            SourceLoc::file_only(path),
            "the frontend built MLIR that does not verify",
        ));
    }
    let mut dependent_kernel_templates: Vec<String> = launches
        .iter()
        .filter(|l| l.kernel.is_none())
        .filter_map(|l| launches::launched_template(&l.call))
        .collect();
    dependent_kernel_templates.sort();
    dependent_kernel_templates.dedup();
    let main_end = texts.get(&main_file).map_or(0, str::len);
    let registration = options
        .unit_key
        .as_deref()
        .and_then(|key| shadows.registration(&main_file, main_end, key));
    Ok(FrontendOutput {
        parse_time,
        lowered_names: named.iter().map(|c| c.map(|c| c.mangled_name())).collect(),
        included_files: tu.included_files(),
        dependent_kernel_templates,
        module: codegen.module,
        kernels: codegen.kernels,
        undefined: codegen.undefined,
        device_variables: codegen.device_variables,
        warnings,
        local_host_symbols: shadows.local_symbols,
        host_edits: host_edits::in_order(
            host_edits::device_body_edits(
                &root,
                &options.hip_headers,
                &mut texts,
                &user_code.lambdas,
                options.unit_key.as_deref(),
            )?
            .into_iter()
            .chain(launches.into_iter().flat_map(|l| l.edits))
            .chain(shadows.edits)
            .chain(registration)
            .collect(),
        ),
    })
}
