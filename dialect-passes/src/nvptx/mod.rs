//! The NVPTX target: its device pipeline ([`nvptx_pipeline`]) and the passes only it runs,
//! from the outlined gpu.module to the LLVM and NVVM dialects that `serialize` turns into PTX.

mod helpers;
pub(crate) mod lower;
pub(crate) mod narrow_stores;
pub(crate) mod parameters;
mod ptx_text;
pub(crate) mod sign_flips;

use hipmlir_device_image::NvidiaArch;

use crate::registry::{self, upstream, PassOptions};
use crate::{Element, LowerError, Pipeline};

/// An internal error of the NVPTX lowering.
pub(crate) fn err(e: impl std::fmt::Display) -> LowerError {
    LowerError::bug(format!("lowering HIP for NVPTX: {e}"))
}

/// Options of the NVPTX conversion.
#[derive(Debug, Clone)]
pub struct NvptxOptions {
    /// The GPU architecture the PTX is for (`sm_70`); the driver JITs it for newer GPUs.
    pub chip: String,
    /// libdevice (`libdevice.10.bc`), linked for the `__nv_*` math functions; without it a
    /// kernel calling one is refused after serialization.
    pub libdevice: Option<std::path::PathBuf>,
    /// The memory checker (`-fsanitize=address`): `hipmlir-check-memory-accesses` runs.
    pub memcheck: bool,
}

/// At least PTX ISA 6.3 (CUDA 10: activemask and the sync shuffles, which every current driver
/// JITs): LLVM's default for architectures before sm_75 is older. Newer architectures need
/// their own newer default (sm_90 needs 7.8), so they are left to it.
fn ptx_features(chip: &str) -> &'static str {
    let capability = NvidiaArch::parse(chip).map_or(0, |a| a.capability);
    if capability < 75 {
        " features=+ptx63"
    } else {
        ""
    }
}

/// The device pipeline for NVPTX: from the (linked) frontend module to a gpu.module of the LLVM
/// and NVVM dialects with an `#nvvm.target`, ready for `serialize_ptx`.
pub fn nvptx_pipeline(options: &NvptxOptions) -> Pipeline {
    // (A trap ends the kernel on PTX: a work-item whose check failed stops there.)
    let memcheck = options
        .memcheck
        .then(|| PassOptions::default().with_flag(registry::MEMCHECK_TRAP));
    let mut elements = crate::pipeline::outlining(memcheck);
    let link = options
        .libdevice
        .as_ref()
        .map(|p| format!(" l={}", p.display()))
        .unwrap_or_default();
    elements.extend([
        Element::pass(&registry::ADDRESS_SPACES_TO_NVPTX),
        Element::pass(&registry::LOWER_HIP_TO_NVPTX),
        crate::pipeline::clean_up_gpu_module(),
        // After CSE: a sine and a cosine of one angle then share their operand.
        Element::pass(&registry::FUSE_SINCOS),
        Element::upstream_with(
            upstream::NVVM_ATTACH_TARGET,
            format!(
                "chip={}{} O=3{link}",
                options.chip,
                ptx_features(&options.chip)
            ),
        ),
        Element::upstream(upstream::CONVERT_SCF_TO_CF),
        // Math ops without a libdevice function (ctpop) become LLVM intrinsics.
        Element::nest(
            "gpu.module",
            vec![
                Element::upstream(upstream::CONVERT_GPU_TO_NVVM),
                Element::upstream(upstream::CONVERT_MATH_TO_LLVM),
                Element::upstream(upstream::RECONCILE_UNREALIZED_CASTS),
            ],
        ),
        Element::pass(&registry::NVPTX_PARAMETER_ATTRIBUTES),
    ]);
    Pipeline::from_elements(elements)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptx_versions_suit_the_architecture() {
        assert_eq!(ptx_features("sm_70"), " features=+ptx63");
        assert_eq!(ptx_features("sm_90"), "");
        assert_eq!(ptx_features("sm_90a"), "");
        let text = nvptx_pipeline(&NvptxOptions {
            chip: "sm_80".into(),
            libdevice: Some("/x/libdevice.10.bc".into()),
            memcheck: false,
        })
        .to_string();
        assert!(
            text.contains("nvvm-attach-target{chip=sm_80 O=3 l=/x/libdevice.10.bc}"),
            "{text}"
        );
    }
}
