//! The device side of a build: frontend → outliner → dialect-passes → SPIR-V, all in-process.

use std::path::Path;

use hipmlir_device_image::{DeviceImage, GlobalVar, ModuleMetadata, SpirvVariant};

/// The OpenCL extension the native float-atomics variant needs.
const FLOAT_ATOMICS_EXTENSION: &str = "cl_ext_float_atomics";
use hipmlir_frontend::{Diagnostic, FrontendOptions, SourceEdit};

/// Where to stop the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    Frontend,
    Outlined,
    Lowered,
    SpirvDialect,
    Binary,
}

pub struct DeviceOutput {
    /// The MLIR text of the stage stopped at, unless that is the binary.
    pub mlir_text: Option<String>,
    pub image: DeviceImage,
    pub warnings: Vec<Diagnostic>,
    pub host_edits: Vec<SourceEdit>,
    /// Kernel templates launched from host templates (see `FrontendOutput`).
    pub dependent_kernel_templates: Vec<String>,
    /// With `record_stages`, the MLIR text of every stage passed (for --save-temps).
    pub stage_texts: Vec<(Stage, String)>,
}

pub fn compile_device(
    input: &Path,
    options: &FrontendOptions,
    stop_at: Stage,
    print_ir_after_all: bool,
    record_stages: bool,
) -> Result<DeviceOutput, String> {
    let ctx = hipmlir_dialect_passes::new_context();
    let frontend = hipmlir_frontend::compile(&ctx, input, options).map_err(|e| e.to_string())?;
    let mut module = frontend.module;
    let device_variables: Vec<GlobalVar> = frontend
        .device_variables
        .iter()
        .map(|v| GlobalVar {
            name: v.symbol.clone(),
            size: v.size,
            address_kernel: hipmlir_frontend::address_kernel(&v.symbol),
        })
        .collect();
    let mut output = DeviceOutput {
        mlir_text: None,
        image: DeviceImage {
            spirv: Vec::new(),
            metadata: ModuleMetadata::new(frontend.kernels),
        },
        warnings: frontend.warnings,
        host_edits: frontend.host_edits,
        dependent_kernel_templates: frontend.dependent_kernel_templates,
        stage_texts: Vec::new(),
    };
    let text = |m: &melior::ir::Module| Some(m.as_operation().to_string());
    let record = |output: &mut DeviceOutput, stage: Stage, m: &melior::ir::Module| {
        if record_stages {
            output
                .stage_texts
                .push((stage, m.as_operation().to_string()));
        }
    };
    record(&mut output, Stage::Frontend, &module);
    if stop_at == Stage::Frontend {
        output.mlir_text = text(&module);
        return Ok(output);
    }
    let ice = |e: &dyn std::fmt::Display| format!("{}: error: {e}", input.display());
    hipmlir_dialect_passes::inline_device_functions(&ctx, &mut module, print_ir_after_all)
        .map_err(|e| match e {
            // Already a diagnostic at the construct's location.
            hipmlir_dialect_passes::LowerError::Unsupported { .. } => e.to_string(),
            other => ice(&other),
        })?;
    hipmlir_outliner::outline_kernels(&ctx, &mut module).map_err(|e| ice(&e))?;
    record(&mut output, Stage::Outlined, &module);
    if stop_at == Stage::Outlined {
        output.mlir_text = text(&module);
        return Ok(output);
    }
    hipmlir_dialect_passes::lower_hip_semantics(&ctx, &mut module, print_ir_after_all)
        .map_err(|e| ice(&e))?;
    // The metadata the runtime gets is what the lowered kernels carry.
    output.image.metadata =
        ModuleMetadata::new(hipmlir_dialect_passes::kernel_metadata(&module).map_err(|e| ice(&e))?);
    output.image.metadata.globals = device_variables;
    output.image.metadata.linear_block_kernels =
        hipmlir_dialect_passes::linear_block_kernels(&module);
    record(&mut output, Stage::Lowered, &module);
    if stop_at == Stage::Lowered {
        output.mlir_text = text(&module);
        return Ok(output);
    }
    let spirv_options = hipmlir_dialect_passes::SpirvOptions::default();
    // Float atomicAdd is a compare-and-swap loop everywhere; devices with cl_ext_float_atomics
    // get a variant with native instructions, chosen by the runtime when it builds the module.
    if stop_at == Stage::Binary && hipmlir_dialect_passes::uses_float_atomic_add(&module) {
        let mut native = hipmlir_dialect_passes::clone_module(&module);
        let options = hipmlir_dialect_passes::SpirvOptions {
            native_float_atomics: true,
            ..spirv_options.clone()
        };
        hipmlir_dialect_passes::convert_to_spirv(&ctx, &mut native, &options, false)
            .map_err(|e| ice(&e))?;
        let spirv =
            hipmlir_dialect_passes::serialize_spirv(&ctx, &mut native).map_err(|e| ice(&e))?;
        output
            .image
            .metadata
            .spirv_variants
            .push(SpirvVariant::new(FLOAT_ATOMICS_EXTENSION, &spirv));
    }
    hipmlir_dialect_passes::convert_to_spirv(&ctx, &mut module, &spirv_options, print_ir_after_all)
        .map_err(|e| ice(&e))?;
    record(&mut output, Stage::SpirvDialect, &module);
    if stop_at == Stage::SpirvDialect {
        output.mlir_text = text(&module);
        return Ok(output);
    }
    output.image.spirv =
        hipmlir_dialect_passes::serialize_spirv(&ctx, &mut module).map_err(|e| ice(&e))?;
    Ok(output)
}
