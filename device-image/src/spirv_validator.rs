//! Running spirv-val on a module we emitted, for `hipmlir inspect` and the tests alike.
//!
//! spirv-val up to 2023.1 (Debian 12's) takes the ShaderClockKHR capability to imply Shader, as
//! the SPIR-V grammar did until SPIRV-Headers decoupled them (January 2023, for OpenCL's
//! cl_khr_kernel_clock), and then wants Shader's constant WorkgroupSize in kernels. For such a
//! validator, a module reading the clock is validated as a copy in which each
//! `OpReadClockKHR %u64 %scope` is the `OpUConvert %u64 %scope` of the same shape, without the
//! capability and extension: everything else is checked.
use std::path::Path;
use std::process::Command;

use crate::spirv_words::{self, spirv::Capability, spirv::Op};

/// spirv-val's verdict on a module.
pub enum Verdict {
    Valid,
    /// What spirv-val printed against it.
    Invalid(String),
    /// spirv-val could not be run: why.
    NotRun(String),
}

/// Validates the SPIR-V module `spirv` with spirv-val, writing copies into `scratch` (a folder).
pub fn validate(spirv: &[u8], scratch: &Path) -> Verdict {
    let version = match Command::new("spirv-val").arg("--version").output() {
        Ok(out) => String::from_utf8_lossy(&out.stdout).into_owned(),
        Err(_) => return Verdict::NotRun("not found (install spirv-tools to validate)".into()),
    };
    let rewritten = predates_kernel_clock(&version)
        .then(|| without_clock_capability(spirv))
        .flatten();
    let path = scratch.join("validated.spv");
    if std::fs::write(&path, rewritten.as_deref().unwrap_or(spirv)).is_err() {
        return Verdict::NotRun("not run (cannot write a temporary file)".into());
    }
    match Command::new("spirv-val").arg(&path).output() {
        Err(e) => Verdict::NotRun(format!("not run ({e})")),
        Ok(out) if out.status.success() => Verdict::Valid,
        Ok(out) => Verdict::Invalid(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

/// Whether `spirv-val --version` names a release before the grammar decoupled ShaderClockKHR
/// from Shader (2023.1 and earlier).
fn predates_kernel_clock(version: &str) -> bool {
    let Some((_, rest)) = version.split_once("SPIRV-Tools v") else {
        return false;
    };
    let mut parts = rest.split(|c: char| !c.is_ascii_digit());
    let year = parts.next().and_then(|p| p.parse::<u32>().ok());
    let release = parts.next().and_then(|p| p.parse::<u32>().ok());
    matches!((year, release), (Some(y), Some(r)) if (y, r) <= (2023, 1))
}

/// The copy described above; None for a module that does not read the clock (or is not SPIR-V).
fn without_clock_capability(spirv: &[u8]) -> Option<Vec<u8>> {
    let words = spirv_words::words(spirv).ok()?;
    let is_clock_capability = |i: &spirv_words::Instruction| {
        i.is(Op::Capability) && i.operand(0) == Some(Capability::ShaderClockKHR as u32)
    };
    if !spirv_words::instructions(&words)
        .map_while(Result::ok)
        .any(|i| is_clock_capability(&i))
    {
        return None;
    }
    let mut out = words.get(..5)?.to_vec();
    for i in spirv_words::instructions(&words).map_while(Result::ok) {
        if is_clock_capability(&i)
            || (i.is(Op::Extension) && i.string_is(0, "SPV_KHR_shader_clock"))
        {
            continue;
        }
        if i.is(Op::ReadClockKHR) {
            spirv_words::push_instruction(&mut out, Op::UConvert, i.operands()).ok()?;
        } else {
            out.extend_from_slice(i.words);
        }
    }
    Some(spirv_words::to_bytes(&out))
}

#[cfg(test)]
mod tests {
    use super::predates_kernel_clock;

    #[test]
    fn validator_versions_are_read() {
        assert!(predates_kernel_clock(
            "SPIRV-Tools v2023.1 unknown hash, 2023-02-15"
        ));
        assert!(predates_kernel_clock("SPIRV-Tools v2022.4"));
        assert!(!predates_kernel_clock("SPIRV-Tools v2023.2 unknown hash"));
        assert!(!predates_kernel_clock("SPIRV-Tools v2025.1"));
        assert!(!predates_kernel_clock("something else"));
    }
}
