//! The device side of a build, all in-process: frontend → device link → the target's pass
//! pipeline (dialect-passes, the outliner's pass among them) → SPIR-V serialization.

use std::path::Path;

use hipmlir_device_image::{
    DeviceImage, FatImage, GlobalVar, ImageError, KernelInfo, ModuleMetadata, PtxCode, SpirvVariant,
};

use hipmlir_device_image::device_ir::{DeviceIr, UndefinedSymbol, DEVICE_IR_SECTION};
use hipmlir_dialect_passes::{LinkUnit, LowerError, PendingContext};
use hipmlir_frontend::{Diagnostic, FrontendOptions, SourceEdit};
use melior::ir::operation::{OperationLike, OperationPrintingFlags};
use melior::ir::Module;

use crate::cli::{Offload, Stage};
use crate::elf::Elf;
use crate::error::{Error, Result};
use crate::time_report;

/// The OpenCL extension the native float-atomics variant needs.
const FLOAT_ATOMICS_EXTENSION: &str = "cl_ext_float_atomics";

/// What the device side of a compile is asked for: the targets, where to stop, how the source's
/// device code is kept, and what is shown or kept on the way.
#[derive(Debug, Clone)]
pub struct DeviceJob {
    /// The device targets.
    pub offload: Offload,
    /// Where to stop.
    pub stop_at: Stage,
    /// Lowered to an image now, or kept as MLIR for the device link.
    pub mode: DeviceMode,
    /// `--mlir-print-ir-after-all`: the IR after every pass, on stderr.
    pub print_ir_after_all: bool,
    /// Keep the MLIR of every named stage passed (`--save-temps`), in
    /// [`DeviceOutput::stage_texts`].
    pub record_stages: bool,
    /// `-fsanitize=address`: device memory accesses are checked.
    pub memcheck: bool,
}

impl DeviceJob {
    /// A finished image for `offload`, with nothing shown or kept on the way.
    pub fn image(offload: Offload) -> DeviceJob {
        DeviceJob {
            offload,
            stop_at: Stage::Binary,
            mode: DeviceMode::Image,
            print_ir_after_all: false,
            record_stages: false,
            memcheck: false,
        }
    }
}

pub struct DeviceOutput {
    /// The MLIR text of the stage stopped at, unless that is the binary.
    pub mlir_text: Option<String>,
    /// The SPIR-V, the PTX of each architecture built, and the metadata they share.
    pub image: FatImage,
    pub warnings: Vec<Diagnostic>,
    pub host_edits: Vec<SourceEdit>,
    /// Host symbols the host object makes local (see `FrontendOutput`).
    pub local_host_symbols: Vec<String>,
    /// Kernel templates launched from host templates (see `FrontendOutput`).
    pub dependent_kernel_templates: Vec<String>,
    /// With `record_stages`, the MLIR text of every named stage passed (for --save-temps).
    pub stage_texts: Vec<(&'static str, String)>,
    /// Compiled as relocatable device code: the frontend's module, for the device link.
    pub device_ir: Option<DeviceIr>,
    /// The symbol each name expression names (`FrontendOptions::name_expressions`).
    pub lowered_names: Vec<Option<String>>,
    /// Every file the source included.
    pub included_files: Vec<std::path::PathBuf>,
    /// Warnings of the lowering, for the caller to show (a default build's PTX left out).
    pub notes: Vec<String>,
}

impl DeviceOutput {
    /// The output before the lowering: an image of no code yet, with the metadata the frontend
    /// (or the device link's records) gave.
    fn before_lowering(kernels: Vec<KernelInfo>, globals: Vec<GlobalVar>) -> DeviceOutput {
        let mut metadata = ModuleMetadata::new(kernels);
        metadata.globals = globals;
        DeviceOutput {
            mlir_text: None,
            image: DeviceImage {
                spirv: Vec::new(),
                metadata,
            }
            .into(),
            warnings: Vec::new(),
            host_edits: Vec::new(),
            local_host_symbols: Vec::new(),
            dependent_kernel_templates: Vec::new(),
            stage_texts: Vec::new(),
            device_ir: None,
            lowered_names: Vec::new(),
            included_files: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// How a source's device code is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceMode {
    /// Lowered to a finished image now; every device symbol must be defined in the source.
    Image,
    /// Kept as MLIR for the device link (`-fgpu-rdc`).
    Relocatable,
}

/// Called once the frontend is done, before the device code is lowered, with what the host
/// compile needs (the host edits): the build starts the host compile there, so that it runs
/// beside the lowering.
pub type AfterFrontend<'a> = &'a mut dyn FnMut(&DeviceOutput) -> Result<()>;

/// The device side of one source: its frontend, then (for an image) the device link of the
/// source alone and the target pipelines, as far as `job` asks.
pub fn compile_device(
    input: &Path,
    options: &FrontendOptions,
    job: &DeviceJob,
    after_frontend: Option<AfterFrontend>,
) -> Result<DeviceOutput> {
    let DeviceJob {
        ref stop_at,
        mode,
        record_stages,
        ..
    } = *job;
    let options = FrontendOptions {
        relocatable: mode == DeviceMode::Relocatable,
        memcheck: job.memcheck,
        ..options.clone()
    };
    let context = PendingContext::start();
    let parsed = hipmlir_frontend::parse(input, &options);
    let (ctx, took) = context.wait();
    time_report::add("MLIR context (beside the device parse)", took);
    let started = std::time::Instant::now();
    let frontend = hipmlir_frontend::build(&ctx, parsed?, &options)?;
    let name = input.display();
    time_report::add(format!("device parse ({name})"), frontend.parse_time);
    time_report::add(format!("device MLIR building ({name})"), started.elapsed());
    let module = frontend.module;
    let globals: Vec<GlobalVar> = frontend
        .device_variables
        .iter()
        .map(|v| GlobalVar {
            name: v.symbol.clone(),
            size: v.size,
            address_kernel: hipmlir_frontend::address_kernel(&v.symbol),
            unit: options.unit_key.clone().filter(|_| v.registered_by_unit),
            managed_size: v.managed_size,
            constant: v.constant,
        })
        .collect();
    let mut output = DeviceOutput {
        warnings: frontend.warnings,
        host_edits: frontend.host_edits,
        local_host_symbols: frontend.local_host_symbols,
        dependent_kernel_templates: frontend.dependent_kernel_templates,
        lowered_names: frontend.lowered_names,
        included_files: frontend.included_files,
        ..DeviceOutput::before_lowering(frontend.kernels, globals.clone())
    };
    if let Some(after_frontend) = after_frontend {
        after_frontend(&output)?;
    }
    if mode == DeviceMode::Relocatable {
        let flags = OperationPrintingFlags::new().enable_debug_info(true, false);
        let mlir = module
            .as_operation()
            .to_string_with_flags(flags)
            .map_err(|e| {
                Error::internal(
                    &input.display().to_string(),
                    "printing the device code",
                    &e.to_string(),
                )
            })?;
        if *stop_at == Stage::Frontend {
            output.mlir_text = Some(module.as_operation().to_string());
        }
        output.device_ir = Some(DeviceIr {
            source: input.display().to_string(),
            mlir,
            variables: globals,
            undefined: frontend
                .undefined
                .iter()
                .map(|u| UndefinedSymbol {
                    symbol: u.symbol.clone(),
                    diagnostic: format!(
                        "{}: error: {} is defined in no source of the program",
                        u.location, u.what
                    ),
                })
                .collect(),
        });
        return Ok(output);
    }
    if let Some(u) = frontend.undefined.first() {
        return Err(Error::Undefined(vec![format!(
            "{}: error: {} is not defined in this source: compile with -fgpu-rdc to link \
             device code across sources",
            u.location, u.what
        )]));
    }
    // A source with no kernels and no device variables (a C++ source compiled as HIP, as hipcc
    // compiles every one) has no image: its pipeline would only lower nothing.
    if *stop_at == Stage::Binary
        && !record_stages
        && output.image.metadata.kernels.is_empty()
        && globals.is_empty()
    {
        return Ok(output);
    }
    if record_stages {
        output
            .stage_texts
            .push(("frontend", module.as_operation().to_string()));
    }
    if *stop_at == Stage::Frontend {
        output.mlir_text = Some(module.as_operation().to_string());
        return Ok(output);
    }
    let unit = LinkUnit {
        source: input.display().to_string(),
        module,
    };
    let linked = hipmlir_dialect_passes::link_modules(&ctx, vec![unit])
        .map_err(|e| Error::lowering(&input.display().to_string(), e))?;
    lower(
        &ctx,
        linked.module,
        &input.display().to_string(),
        job,
        &mut output,
    )?;
    Ok(output)
}

/// The device link: the device code of several sources (`-fgpu-rdc` records) as one image, for
/// `job`'s targets (a link always makes the finished image: its stage and mode are the image's).
pub fn link_device(records: &[DeviceIr], job: &DeviceJob) -> Result<DeviceOutput> {
    let job = DeviceJob {
        stop_at: Stage::Binary,
        mode: DeviceMode::Image,
        ..job.clone()
    };
    let ctx = time_report::time("MLIR context", hipmlir_dialect_passes::new_context);
    let mut units = Vec::with_capacity(records.len());
    for r in records {
        let module = Module::parse(&ctx, &r.mlir).ok_or_else(|| {
            Error::Input(format!(
                "the device code of '{}' does not parse: the object is damaged or from another \
                 hipmlir version",
                r.source
            ))
        })?;
        units.push(LinkUnit {
            source: r.source.clone(),
            module,
        });
    }
    let name = records
        .iter()
        .map(|r| r.source.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let linked = time_report::time("device link", || {
        hipmlir_dialect_passes::link_modules(&ctx, units)
    })
    .map_err(|e| Error::lowering(&name, e))?;
    let missing: Vec<String> = records
        .iter()
        .flat_map(|r| &r.undefined)
        .filter(|u| linked.unresolved.contains(&u.symbol))
        .map(|u| u.diagnostic.clone())
        .collect();
    if !missing.is_empty() {
        return Err(Error::Undefined(missing));
    }
    let globals = records.iter().flat_map(|r| r.variables.clone()).collect();
    let mut output = DeviceOutput::before_lowering(Vec::new(), globals);
    if job.record_stages {
        output
            .stage_texts
            .push(("frontend", linked.module.as_operation().to_string()));
    }
    lower(&ctx, linked.module, &name, &job, &mut output)?;
    Ok(output)
}

/// The relocatable device code records (`-fgpu-rdc`) of an object file's bytes, or of every
/// member of an archive's: what the device link links. A file that is not an ELF object has
/// none.
pub fn device_ir_records(bytes: &[u8]) -> Result<Vec<DeviceIr>, ImageError> {
    let from_elf = |bytes: &[u8]| -> Result<Vec<DeviceIr>, ImageError> {
        let Ok(elf) = Elf::parse(bytes) else {
            return Ok(Vec::new());
        };
        match elf.section(DEVICE_IR_SECTION) {
            Some(section) => DeviceIr::decode_all(section.data),
            None => Ok(Vec::new()),
        }
    };
    if !bytes.starts_with(b"!<arch>\n") {
        return from_elf(bytes);
    }
    let bad_archive = |e: object::read::Error| ImageError::BadArchive(e.to_string());
    let archive = object::read::archive::ArchiveFile::parse(bytes).map_err(bad_archive)?;
    let mut records = Vec::new();
    for member in archive.members() {
        let member = member.map_err(bad_archive)?;
        records.extend(from_elf(member.data(bytes).map_err(bad_archive)?)?);
    }
    Ok(records)
}

/// From the (linked) frontend module to the stage `job` asks for: the target's pipeline, run in
/// pieces between the points where the driver looks at the module (the named stages, the pass
/// to stop after), then serialization. The image's metadata is what the lowered kernels carry.
fn lower(
    ctx: &melior::Context,
    mut module: Module,
    source: &str,
    job: &DeviceJob,
    output: &mut DeviceOutput,
) -> Result<()> {
    use hipmlir_dialect_passes::{spirv_pipeline, SpirvOptions, STAGES};
    let DeviceJob {
        ref offload,
        ref stop_at,
        print_ir_after_all,
        record_stages,
        memcheck,
        ..
    } = *job;
    let ice = |e: LowerError| Error::lowering(source, e);
    // The NVPTX pipeline starts from the same module (the SPIR-V one changes it in place).
    let nvptx_input = (*stop_at == Stage::Binary && !offload.ptx.is_empty())
        .then(|| hipmlir_dialect_passes::clone_module(&module));
    let spirv_options = SpirvOptions {
        memcheck,
        ..SpirvOptions::default()
    };
    let mut rest = spirv_pipeline(&spirv_options);
    let stop_pass = match stop_at {
        Stage::AfterPass(pass) => Some(pass.as_str()),
        Stage::Frontend | Stage::Binary => None,
    };
    let lowered = hipmlir_dialect_passes::stage_pass("lowered").unwrap_or_default();
    // The points in pipeline order: (pass, stage named after it).
    let order = rest.pass_names();
    let position = |pass: &str| order.iter().position(|p| *p == pass);
    if let Some(pass) = stop_pass {
        if let Some(arch) = nvptx_emit_arch(offload, pass, position(pass).is_some()) {
            return emit_nvptx_stage(ctx, module, arch, pass, job, output).map_err(ice);
        }
    }
    // With PTX targets only, the SPIR-V pipeline runs as far as the metadata for itself: what
    // MLIR prints after each pass is the NVPTX pipeline's (lower_to_ptx).
    let print_spirv = print_ir_after_all && (offload.spirv || *stop_at != Stage::Binary);
    let mut points: Vec<(String, Option<&'static str>)> = STAGES
        .iter()
        .map(|(stage, pass)| (pass.to_string(), Some(*stage)))
        .collect();
    if let Some(pass) = stop_pass {
        if position(pass).is_none() {
            return Err(Error::Usage(format!(
                "the device pipeline runs no pass '{pass}' (hipmlir --list-passes names them)"
            )));
        }
        if !points.iter().any(|(p, _)| p == pass) {
            points.push((pass.to_string(), None));
        }
    }
    points.sort_by_key(|(pass, _)| position(pass));
    for (pass, stage) in points {
        let (head, tail) = rest.split_after(&pass).ok_or_else(|| {
            Error::internal(source, "lowering", &format!("no pass '{pass}' left to run"))
        })?;
        head.run(ctx, &mut module, print_spirv).map_err(ice)?;
        rest = tail;
        if pass == lowered {
            let globals = std::mem::take(&mut output.image.metadata.globals);
            output.image.metadata =
                ModuleMetadata::new(hipmlir_dialect_passes::kernel_metadata(&module).map_err(ice)?);
            output.image.metadata.globals = globals;
            output.image.metadata.linear_block_kernels =
                hipmlir_dialect_passes::linear_block_kernels(&module);
            output.image.metadata.memcheck_sites =
                hipmlir_dialect_passes::memcheck_sites(&module).map_err(ice)?;
            // Float atomicAdd is a compare-and-swap loop everywhere; devices with
            // cl_ext_float_atomics get a variant with native instructions, converted from a copy
            // of the lowered module and chosen by the runtime when it builds the module.
            // Without the SPIR-V target the SPIR-V pipeline runs this far only, for the metadata.
            if *stop_at == Stage::Binary && !offload.spirv {
                break;
            }
            if *stop_at == Stage::Binary && hipmlir_dialect_passes::uses_float_atomic_add(&module) {
                let options = SpirvOptions {
                    native_float_atomics: true,
                    ..spirv_options.clone()
                };
                let native_pipeline = spirv_pipeline(&options);
                let (_, native_rest) = native_pipeline.split_after(lowered).ok_or_else(|| {
                    Error::internal(source, "lowering", "no lowered stage in the pipeline")
                })?;
                let mut native = hipmlir_dialect_passes::clone_module(&module);
                native_rest.run(ctx, &mut native, false).map_err(ice)?;
                let spirv =
                    time_report::time("device serialization (native float atomics)", || {
                        hipmlir_dialect_passes::serialize_spirv(ctx, &mut native)
                    })
                    .map_err(ice)?;
                output
                    .image
                    .metadata
                    .spirv_variants
                    .push(SpirvVariant::new(FLOAT_ATOMICS_EXTENSION, &spirv));
            }
        }
        if let (Some(stage), true) = (stage, record_stages) {
            output
                .stage_texts
                .push((stage, module.as_operation().to_string()));
        }
        if stop_pass == Some(pass.as_str()) {
            output.mlir_text = Some(module.as_operation().to_string());
            return Ok(());
        }
    }
    if offload.spirv || *stop_at != Stage::Binary {
        rest.run(ctx, &mut module, print_spirv).map_err(ice)?;
        output.image.spirv = time_report::time("device serialization", || {
            hipmlir_dialect_passes::serialize_spirv(ctx, &mut module)
        })
        .map_err(ice)?;
    }
    if let Some(input) = nvptx_input {
        for arch in &offload.ptx {
            match lower_to_ptx(ctx, &input, arch, job) {
                Ok(ptx) => output.image.ptx.push(PtxCode {
                    arch: arch.clone(),
                    ptx,
                }),
                Err(e) if offload.explicit => return Err(Error::lowering(source, e)),
                Err(e) => {
                    // The default's PTX is a bonus: the program still runs on SPIR-V devices.
                    let reason = Error::lowering(source, e).to_string();
                    let reason = reason.lines().next().unwrap_or("");
                    let reason = reason.strip_prefix("hipmlir: error: ").unwrap_or(reason);
                    output.notes.push(format!(
                        "hipmlir: warning: no PTX for {arch} in this image, the program will run \
                         on SPIR-V (OpenCL) devices only: {reason}\n\
                         hipmlir: note: --offload-arch=spirv64 builds for SPIR-V alone, without \
                         this warning"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The NVIDIA architecture whose pipeline `--emit-mlir=<pass>` stops in: with PTX targets only,
/// or for a pass that the SPIR-V pipeline does not run; None for the SPIR-V pipeline.
fn nvptx_emit_arch<'a>(offload: &'a Offload, pass: &str, in_spirv: bool) -> Option<&'a str> {
    use hipmlir_dialect_passes::{nvptx_pipeline, NvptxOptions};
    let arch = offload.ptx.first()?;
    if offload.spirv && in_spirv {
        return None;
    }
    let options = NvptxOptions {
        chip: arch.clone(),
        libdevice: None,
        memcheck: false,
    };
    let runs = nvptx_pipeline(&options).pass_names().contains(&pass);
    runs.then_some(arch.as_str())
}

/// `--emit-mlir=<pass>` of the NVPTX pipeline: the module after `pass`, with the metadata of
/// the kernels it still holds (for `--function`).
fn emit_nvptx_stage(
    ctx: &melior::Context,
    mut module: Module,
    arch: &str,
    pass: &str,
    job: &DeviceJob,
    output: &mut DeviceOutput,
) -> Result<(), LowerError> {
    use hipmlir_dialect_passes::{nvptx_pipeline, NvptxOptions};
    let print_ir_after_all = job.print_ir_after_all;
    let options = NvptxOptions {
        chip: arch.to_string(),
        libdevice: crate::paths::libdevice(),
        memcheck: job.memcheck,
    };
    let Some((head, _)) = nvptx_pipeline(&options).split_after(pass) else {
        return Err(LowerError::Pipeline(format!(
            "the NVPTX pipeline runs no pass '{pass}'"
        )));
    };
    head.run(ctx, &mut module, print_ir_after_all)?;
    // Kernels converted to llvm.func (after convert-gpu-to-nvvm) carry no metadata any more.
    if let Ok(kernels) = hipmlir_dialect_passes::kernel_metadata(&module) {
        output.image.metadata = ModuleMetadata::new(kernels);
    }
    output.mlir_text = Some(module.as_operation().to_string());
    Ok(())
}

/// The PTX of the (linked) frontend module for one NVIDIA architecture.
fn lower_to_ptx(
    ctx: &melior::Context,
    input: &Module,
    arch: &str,
    job: &DeviceJob,
) -> Result<Vec<u8>, LowerError> {
    use hipmlir_dialect_passes::{nvptx_pipeline, NvptxOptions};
    let options = NvptxOptions {
        chip: arch.to_string(),
        libdevice: crate::paths::libdevice(),
        memcheck: job.memcheck,
    };
    let mut module = hipmlir_dialect_passes::clone_module(input);
    nvptx_pipeline(&options).run(ctx, &mut module, job.print_ir_after_all)?;
    time_report::time(&format!("device PTX serialization ({arch})"), || {
        hipmlir_dialect_passes::serialize_ptx(ctx, &mut module)
    })
}
