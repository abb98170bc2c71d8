//! Which SPIR-V capabilities a module declares, and whether the device can run them: a module
//! that needs what the device lacks (double precision on a device without fp64, say) fails its
//! launches with hipErrorNoBinaryForGpu and a message naming the feature, instead of a driver
//! build error or a wrong result.

use hipmlir_device_image::spirv_words::{self, spirv::Capability, spirv::Op};

use crate::backend::DeviceInfo;

/// SPIR-V capabilities → (what they are, the device extensions of which one suffices).
const REQUIREMENTS: &[(Capability, &str, &[&str])] = &[
    (
        Capability::Float16,
        "half precision (fp16, __half)",
        &["cl_khr_fp16"],
    ),
    (
        Capability::Float64,
        "double precision (fp64)",
        &["cl_khr_fp64"],
    ),
    (
        Capability::Int64Atomics,
        "64-bit atomics",
        &["cl_khr_int64_base_atomics"],
    ),
    (
        Capability::GroupNonUniformBallot,
        "subgroup ballots (__ballot, __activemask, the memory checker: -fsanitize=address)",
        &["cl_khr_subgroup_ballot"],
    ),
    (
        Capability::GroupNonUniformShuffle,
        "subgroup shuffles (__shfl*)",
        &["cl_khr_subgroup_shuffle"],
    ),
    (
        Capability::GroupNonUniformVote,
        "subgroup votes",
        &["cl_khr_subgroup_non_uniform_vote"],
    ),
    (
        Capability::GroupNonUniformArithmetic,
        "subgroup reductions (__any, __all, __ballot)",
        &["cl_khr_subgroup_non_uniform_arithmetic"],
    ),
    (
        Capability::SubgroupDispatch,
        "a required subgroup size (warp operations)",
        &["cl_intel_required_subgroup_size"],
    ),
];

/// The capabilities a SPIR-V module declares (OpCapability operands), up to any malformed
/// instruction.
pub fn declared(words: &[u32]) -> Vec<Capability> {
    spirv_words::instructions(words)
        .map_while(Result::ok)
        .filter(|i| i.is(Op::Capability))
        .filter_map(|i| Capability::from_u32(i.operand(0)?))
        .collect()
}

/// The features a module needs that the device lacks, described for people.
pub fn missing(words: &[u32], device: &DeviceInfo) -> Vec<String> {
    let caps = declared(words);
    let mut out: Vec<String> = REQUIREMENTS
        .iter()
        .filter(|(cap, _, extensions)| {
            caps.contains(cap) && !extensions.iter().any(|e| device.has_extension(e))
        })
        .map(|(_, what, extensions)| format!("{what} ({})", extensions.join(" or ")))
        .collect();
    // Warp operations are compiled for 32-wide subgroups.
    if caps.contains(&Capability::SubgroupDispatch)
        && !device.sub_group_sizes.is_empty()
        && !device.sub_group_sizes.contains(&32)
    {
        out.push("32-wide subgroups (the warp size hipmlir compiles for)".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(caps: &[Capability]) -> Vec<u32> {
        let mut words = vec![spirv_words::MAGIC, 0x0001_0000, 0, 10, 0];
        for c in caps {
            spirv_words::push_instruction(&mut words, Op::Capability, &[*c as u32]).unwrap();
        }
        words
    }

    #[test]
    fn doubles_need_fp64() {
        let device = DeviceInfo {
            extensions: "cl_khr_int64_base_atomics".into(),
            ..Default::default()
        };
        let missing = missing(
            &module(&[
                Capability::Addresses,
                Capability::Kernel,
                Capability::Float64,
            ]),
            &device,
        );
        assert_eq!(
            missing,
            vec!["double precision (fp64) (cl_khr_fp64)".to_string()]
        );
    }

    #[test]
    fn a_capable_device_misses_nothing() {
        let device = DeviceInfo {
            extensions: "cl_khr_fp64 cl_khr_int64_base_atomics cl_khr_subgroup_shuffle".into(),
            sub_group_sizes: vec![8, 16, 32],
            ..Default::default()
        };
        assert!(missing(
            &module(&[
                Capability::Float64,
                Capability::Int64Atomics,
                Capability::GroupNonUniformShuffle,
            ]),
            &device
        )
        .is_empty());
    }

    #[test]
    fn warp_modules_need_32_wide_subgroups() {
        let device = DeviceInfo {
            extensions: "cl_intel_required_subgroup_size".into(),
            sub_group_sizes: vec![8, 16],
            ..Default::default()
        };
        assert_eq!(
            missing(&module(&[Capability::SubgroupDispatch]), &device).len(),
            1
        );
    }
}
