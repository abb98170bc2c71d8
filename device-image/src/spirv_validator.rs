//! Running spirv-val on a module we emitted, for `hipmlir inspect` and the tests alike.
//!
//! spirv-val up to 2023.1 (Debian 12's) takes the ShaderClockKHR capability to imply Shader, as
//! the SPIR-V grammar did until SPIRV-Headers decoupled them (January 2023, for OpenCL's
//! cl_khr_kernel_clock), and then wants Shader's constant WorkgroupSize in kernels. For such a
//! validator, a module reading the clock is validated as a copy in which each
//! `OpReadClockKHR %u64 %scope` is the `OpUConvert %u64 %scope` of the same shape, without the
//! capability and extension: everything else is checked.
//!
//! No spirv-val (2023.1 here; LLVM's own tests of 2025 say the same of later ones) accepts
//! `OpConstantFunctionPointerINTEL` naming a function, which the module defines after its
//! globals as every module must: "ID '%f' has not been defined". A module whose recursive calls
//! go through SPV_INTEL_function_pointers (see dialect-passes' `patch::call_through_pointers`)
//! is validated as the copy with direct calls it was patched from: each
//! `OpFunctionPointerCallINTEL` of a pointer loaded from a slot holding the constant of `%f` is
//! `OpFunctionCall %f`, without the slots, pointer types, constants, capability and extension.
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;

use crate::spirv_words::{self, spirv::Capability, spirv::Op, spirv::StorageClass};

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
    let mut module = spirv.to_vec();
    if predates_kernel_clock(&version) {
        module = without_clock_capability(&module).unwrap_or(module);
    }
    module = with_direct_calls(&module).unwrap_or(module);
    let path = scratch.join("validated.spv");
    if std::fs::write(&path, &module).is_err() {
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

/// The copy with direct calls described above; None for a module without function pointers
/// (or not SPIR-V).
fn with_direct_calls(spirv: &[u8]) -> Option<Vec<u8>> {
    let words = spirv_words::words(spirv).ok()?;
    let instructions: Vec<_> = spirv_words::instructions(&words)
        .map_while(Result::ok)
        .collect();
    let capability = Capability::FunctionPointersINTEL as u32;
    if !instructions
        .iter()
        .any(|i| i.is(Op::Capability) && i.operand(0) == Some(capability))
    {
        return None;
    }
    let pointer_to = |i: &spirv_words::Instruction, class: StorageClass| {
        i.is(Op::TypePointer) && i.operand(1) == Some(class as u32)
    };
    // Pointer types, slot types, slots; what each constant, slot and load points to.
    let pointer_types: HashSet<u32> = instructions
        .iter()
        .filter(|i| pointer_to(i, StorageClass::CodeSectionINTEL))
        .filter_map(|i| i.operand(0))
        .collect();
    let slot_types: HashSet<u32> = instructions
        .iter()
        .filter(|i| pointer_to(i, StorageClass::Function))
        .filter(|i| i.operand(2).is_some_and(|t| pointer_types.contains(&t)))
        .filter_map(|i| i.operand(0))
        .collect();
    let slots: HashSet<u32> = instructions
        .iter()
        .filter(|i| i.is(Op::Variable) && i.operand(0).is_some_and(|t| slot_types.contains(&t)))
        .filter_map(|i| i.operand(1))
        .collect();
    let mut function_of: HashMap<u32, u32> = instructions
        .iter()
        .filter(|i| i.is(Op::ConstantFunctionPointerINTEL))
        .filter_map(|i| Some((i.operand(1)?, i.operand(2)?)))
        .collect();
    for i in &instructions {
        if let (true, Some(slot), Some(value)) = (i.is(Op::Store), i.operand(0), i.operand(1)) {
            if let (true, Some(f)) = (slots.contains(&slot), function_of.get(&value).copied()) {
                function_of.insert(slot, f);
            }
        }
        if let (true, Some(loaded), Some(slot)) = (i.is(Op::Load), i.operand(1), i.operand(2)) {
            if let Some(f) = function_of
                .get(&slot)
                .copied()
                .filter(|_| slots.contains(&slot))
            {
                function_of.insert(loaded, f);
            }
        }
    }
    let mut out = words.get(..spirv_words::HEADER_WORDS)?.to_vec();
    for i in &instructions {
        let is_slot_type = |t: u32| pointer_types.contains(&t) || slot_types.contains(&t);
        let dropped = (i.is(Op::Capability) && i.operand(0) == Some(capability))
            || (i.is(Op::Extension) && i.string_is(0, spirv_words::FUNCTION_POINTERS_EXTENSION))
            || (i.is(Op::TypePointer) && i.operand(0).is_some_and(is_slot_type))
            || i.is(Op::ConstantFunctionPointerINTEL)
            || (i.is(Op::Variable) && i.operand(1).is_some_and(|v| slots.contains(&v)))
            || (i.is(Op::Store) && i.operand(0).is_some_and(|p| slots.contains(&p)))
            || (i.is(Op::Load) && i.operand(2).is_some_and(|p| slots.contains(&p)));
        if dropped {
            continue;
        }
        let callee = i
            .operand(2)
            .filter(|_| i.is(Op::FunctionPointerCallINTEL))
            .and_then(|pointer| function_of.get(&pointer));
        match callee {
            Some(f) => {
                let mut operands = i.operands().to_vec();
                operands[2] = *f;
                spirv_words::push_instruction(&mut out, Op::FunctionCall, &operands).ok()?;
            }
            None => out.extend_from_slice(i.words),
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
