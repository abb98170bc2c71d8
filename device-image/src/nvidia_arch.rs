//! NVIDIA GPU architecture names (`sm_70`, `sm_90a`, `sm_100f`, `compute_80`), read by one
//! parser: the compiler checks `--offload-arch` values and picks the PTX version for them, the
//! runtime picks the PTX entry of an image that a device runs.

use std::fmt;

/// The variant an architecture name's suffix selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchVariant {
    /// No suffix: runs on its capability and every later one.
    Portable,
    /// `a`: arch-specific features, runs only on that exact capability.
    Specific,
    /// `f`: family-specific features, runs within its family (the same major version).
    Family,
}

/// A parsed architecture name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NvidiaArch {
    /// The compute capability it needs, as `major * 10 + minor`.
    pub capability: u32,
    pub variant: ArchVariant,
    /// `compute_XX` (a virtual architecture, PTX only) rather than `sm_XX`.
    pub is_virtual: bool,
}

/// The architectures LLVM 22's NVPTX backend builds PTX for (`llc -march=nvptx64
/// -mcpu=help`), as `sm_` spells them; `a` and `f` variants where it has them.
const PTX_BACKEND_ARCHS: &[&str] = &[
    "20", "21", "30", "32", "35", "37", "50", "52", "53", "60", "61", "62", "70", "72", "75", "80",
    "86", "87", "88", "89", "90", "90a", "100", "100a", "100f", "101", "101a", "101f", "103",
    "103a", "103f", "110", "110a", "110f", "120", "120a", "120f", "121", "121a", "121f",
];

impl NvidiaArch {
    /// `sm_` or `compute_`, at least two digits (no leading zero), and an optional `a` or `f`.
    pub fn parse(name: &str) -> Option<NvidiaArch> {
        let (rest, is_virtual) = match name.strip_prefix("sm_") {
            Some(rest) => (rest, false),
            None => (name.strip_prefix("compute_")?, true),
        };
        let (digits, variant) = match rest.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
            None => (rest, ArchVariant::Portable),
            Some((i, 'a')) if i + 1 == rest.len() => (&rest[..i], ArchVariant::Specific),
            Some((i, 'f')) if i + 1 == rest.len() => (&rest[..i], ArchVariant::Family),
            Some(_) => return None,
        };
        if digits.len() < 2 || digits.starts_with('0') {
            return None;
        }
        Some(NvidiaArch {
            capability: digits.parse().ok()?,
            variant,
            is_virtual,
        })
    }

    /// Whether code for this architecture runs on a device of `capability` (`major * 10 +
    /// minor`).
    pub fn runs_on(&self, capability: u32) -> bool {
        match self.variant {
            ArchVariant::Portable => self.capability <= capability,
            ArchVariant::Specific => self.capability == capability,
            ArchVariant::Family => {
                self.capability <= capability && self.capability / 10 == capability / 10
            }
        }
    }

    /// Whether the compiler's PTX backend (LLVM 22's NVPTX) builds code for this `sm_`
    /// architecture; another (`sm_31`) would get PTX for no processor.
    pub fn is_built_by_ptx_backend(&self) -> bool {
        let name = self.to_string();
        !self.is_virtual
            && name
                .strip_prefix("sm_")
                .is_some_and(|n| PTX_BACKEND_ARCHS.contains(&n))
    }
}

impl fmt::Display for NvidiaArch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = if self.is_virtual { "compute_" } else { "sm_" };
        let suffix = match self.variant {
            ArchVariant::Portable => "",
            ArchVariant::Specific => "a",
            ArchVariant::Family => "f",
        };
        write!(f, "{prefix}{}{suffix}", self.capability)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arch(capability: u32, variant: ArchVariant, is_virtual: bool) -> Option<NvidiaArch> {
        Some(NvidiaArch {
            capability,
            variant,
            is_virtual,
        })
    }

    #[test]
    fn names_parse_and_print_back() {
        use ArchVariant::*;
        for (name, parsed) in [
            ("sm_70", arch(70, Portable, false)),
            ("sm_90a", arch(90, Specific, false)),
            ("compute_80", arch(80, Portable, true)),
            ("sm_100f", arch(100, Family, false)),
        ] {
            assert_eq!(NvidiaArch::parse(name), parsed, "{name}");
            assert_eq!(parsed.unwrap().to_string(), name);
        }
        for bad in [
            "gfx90a", "sm_7", "sm_70x", "sm_xx", "sm_070", "sm_90af", "sm_", "70",
        ] {
            assert_eq!(NvidiaArch::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_ptx_backend_builds_llvm_s_architectures_only() {
        for known in ["sm_70", "sm_90a", "sm_100f", "sm_20"] {
            assert!(
                NvidiaArch::parse(known).unwrap().is_built_by_ptx_backend(),
                "{known}"
            );
        }
        for unknown in ["sm_31", "sm_75a", "compute_70", "sm_99"] {
            assert!(
                !NvidiaArch::parse(unknown)
                    .unwrap()
                    .is_built_by_ptx_backend(),
                "{unknown}"
            );
        }
    }

    #[test]
    fn variants_run_where_they_may() {
        let run = |name: &str, capability| NvidiaArch::parse(name).unwrap().runs_on(capability);
        assert!(run("sm_70", 90) && !run("sm_80", 75));
        assert!(run("sm_90a", 90) && !run("sm_90a", 100));
        assert!(run("sm_100f", 103) && !run("sm_100f", 120));
    }
}
