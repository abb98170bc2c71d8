//! What the CUDA backend reads from PTX text without the driver: which of an image's PTX entries
//! a device runs (by architecture), and the parameter list of a kernel's `.entry` (how many
//! parameters and their sizes), so a launch can check the metadata's layout against the code.

use hipmlir_device_image::{ArchVariant, NvidiaArch};

/// The entry to load on a device of compute capability `(major, minor)`: the highest
/// architecture not above it (among equals, an arch-specific one). `Err` says what the image
/// has.
pub fn choose_entry<'a>(
    arches: impl IntoIterator<Item = &'a str>,
    major: i32,
    minor: i32,
) -> Result<usize, String> {
    let capability = u32::try_from(major * 10 + minor).unwrap_or(0);
    let mut best: Option<(usize, NvidiaArch)> = None;
    let mut seen = Vec::new();
    for (i, name) in arches.into_iter().enumerate() {
        seen.push(name.to_string());
        let Some(arch) = NvidiaArch::parse(name) else {
            continue;
        };
        if !arch.runs_on(capability) {
            continue;
        }
        let better = match best {
            None => true,
            Some((_, b)) => {
                arch.capability > b.capability
                    || (arch.capability == b.capability
                        && arch.variant != ArchVariant::Portable
                        && b.variant == ArchVariant::Portable)
            }
        };
        if better {
            best = Some((i, arch));
        }
    }
    best.map(|(i, _)| i).ok_or_else(|| {
        if seen.is_empty() {
            "the device image carries no PTX (it was built for SPIR-V only): rebuild it with an \
             NVIDIA target, e.g. --offload-arch=sm_70"
                .to_string()
        } else {
            format!(
                "the device image's PTX is for {}; none runs on a device of compute capability \
                 {major}.{minor}",
                seen.join(", ")
            )
        }
    })
}

/// One `.param` of a kernel's `.entry`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamDecl {
    pub size: usize,
    /// Declared `.ptr`: the kernel dereferences it (a pointer argument, or a by-value one the
    /// compiler passes by reference).
    pub pointer: bool,
}

/// The parameters of the PTX kernel `name`, in order; `None` when the text has no `.entry` of
/// that name.
pub fn entry_params(ptx: &str, name: &str) -> Option<Vec<ParamDecl>> {
    let mut search = ptx;
    let after = loop {
        let at = search.find(".entry")?;
        let rest = &search[at + ".entry".len()..];
        let trimmed = rest.trim_start();
        if let Some(after) = trimmed.strip_prefix(name) {
            if after.trim_start().starts_with('(')
                || after.trim_start().starts_with('{')
                || after.trim_start().starts_with('.')
            {
                break after.trim_start();
            }
        }
        search = rest;
    };
    let Some(list) = after.strip_prefix('(') else {
        return Some(Vec::new());
    };
    let end = list.find(')')?;
    list[..end]
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|decl| {
            Some(ParamDecl {
                size: param_size(decl)?,
                pointer: decl.split_whitespace().any(|t| t == ".ptr"),
            })
        })
        .collect()
}

/// The size of one `.param` declaration (`.param .u64 .ptr .align 1 x`, `.param .align 8 .b8
/// x[24]`).
fn param_size(decl: &str) -> Option<usize> {
    let mut element = None;
    for token in decl.split_whitespace() {
        let t = token.trim_start_matches('.');
        let bits = match t {
            "u8" | "s8" | "b8" => 8,
            "u16" | "s16" | "b16" | "f16" => 16,
            "u32" | "s32" | "b32" | "f32" => 32,
            "u64" | "s64" | "b64" | "f64" => 64,
            "pred" => 8,
            _ => continue,
        };
        element = Some(bits / 8);
    }
    let element = element?;
    let count = match (decl.rfind('['), decl.rfind(']')) {
        (Some(open), Some(close)) if open < close => decl[open + 1..close].trim().parse().ok()?,
        _ => 1,
    };
    Some(element * count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highest_arch_not_above_the_device() {
        let arches = ["sm_70", "sm_80", "sm_90", "sm_100"];
        assert_eq!(choose_entry(arches, 9, 0), Ok(2));
        assert_eq!(choose_entry(arches, 8, 6), Ok(1));
        assert_eq!(choose_entry(arches, 12, 0), Ok(3));
        assert_eq!(choose_entry(["sm_80", "sm_70"], 7, 5), Ok(1));
        let e = choose_entry(["sm_80"], 7, 0).unwrap_err();
        assert!(e.contains("sm_80") && e.contains("7.0"), "{e}");
        let e = choose_entry([], 9, 0).unwrap_err();
        assert!(e.contains("no PTX"), "{e}");
    }

    #[test]
    fn arch_specific_entries_need_their_exact_device() {
        assert_eq!(choose_entry(["sm_90", "sm_90a"], 9, 0), Ok(1));
        assert_eq!(choose_entry(["sm_80", "sm_90a"], 10, 0), Ok(0));
        assert_eq!(choose_entry(["sm_100f"], 10, 3), Ok(0));
        assert!(choose_entry(["sm_100f"], 12, 0).is_err());
    }

    const PTX: &str = "//\n.version 8.0\n.target sm_70\n.address_size 64\n\n\
        .visible .entry _Z4vaddPKfS0_Pfi(\n\
        \t.param .u64 .ptr .align 1 _Z4vaddPKfS0_Pfi_param_0,\n\
        \t.param .u64 _Z4vaddPKfS0_Pfi_param_1,\n\
        \t.param .u64 _Z4vaddPKfS0_Pfi_param_2,\n\
        \t.param .u32 _Z4vaddPKfS0_Pfi_param_3\n)\n{\n\tret;\n}\n\
        .visible .entry _Z4vadd2v()\n{\n\tret;\n}\n\
        .visible .entry _Z5byvalS_(\n\t.param .align 8 .b8 _Z5byvalS__param_0[24]\n)\n{\n\tret;\n}\n";

    #[test]
    fn entry_parameters_and_sizes() {
        let sizes =
            |name| entry_params(PTX, name).map(|p| p.iter().map(|d| d.size).collect::<Vec<_>>());
        assert_eq!(sizes("_Z4vaddPKfS0_Pfi"), Some(vec![8, 8, 8, 4]));
        let params = entry_params(PTX, "_Z4vaddPKfS0_Pfi").unwrap();
        assert!(params[0].pointer && !params[1].pointer && !params[3].pointer);
        assert_eq!(sizes("_Z4vadd2v"), Some(vec![]));
        assert_eq!(sizes("_Z5byvalS_"), Some(vec![24]));
        // A name that is a prefix of another entry's is not that entry.
        assert_eq!(entry_params(PTX, "_Z4vadd"), None);
        assert_eq!(entry_params(PTX, "missing"), None);
    }
}
