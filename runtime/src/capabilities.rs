//! Which SPIR-V capabilities a module declares, and whether the device can run them: a module
//! that needs what the device lacks (double precision on a device without fp64, say) fails its
//! launches with hipErrorNoBinaryForGpu and a message naming the feature, instead of a driver
//! build error or a wrong result.

use crate::device::DeviceInfo;

/// SPIR-V capabilities → (what they are, the device extensions of which one suffices).
const REQUIREMENTS: &[(u32, &str, &[&str])] = &[
    (9, "half precision (fp16, __half)", &["cl_khr_fp16"]),
    (10, "double precision (fp64)", &["cl_khr_fp64"]),
    (12, "64-bit atomics", &["cl_khr_int64_base_atomics"]),
    (
        64,
        "subgroup ballots (__ballot, __activemask)",
        &["cl_khr_subgroup_ballot"],
    ),
    (
        65,
        "subgroup shuffles (__shfl*)",
        &["cl_khr_subgroup_shuffle"],
    ),
    (
        63,
        "subgroup reductions (__any, __all, __ballot)",
        &["cl_khr_subgroup_non_uniform_arithmetic"],
    ),
    (
        58,
        "a required subgroup size (warp operations)",
        &["cl_intel_required_subgroup_size"],
    ),
];

/// The capabilities a SPIR-V module declares (OpCapability operands).
pub fn declared(words: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut pos = 5;
    while pos < words.len() {
        let count = (words[pos] >> 16) as usize;
        let opcode = words[pos] & 0xffff;
        if count == 0 {
            break;
        }
        if opcode == 17 && count >= 2 && pos + 1 < words.len() {
            out.push(words[pos + 1]);
        }
        pos += count;
    }
    out
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
    if caps.contains(&58)
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

    fn module(caps: &[u32]) -> Vec<u32> {
        let mut words = vec![0x0723_0203, 0x0001_0000, 0, 10, 0];
        for c in caps {
            words.extend_from_slice(&[(2 << 16) | 17, *c]);
        }
        words
    }

    #[test]
    fn doubles_need_fp64() {
        let device = DeviceInfo {
            extensions: "cl_khr_int64_base_atomics".into(),
            ..Default::default()
        };
        let missing = missing(&module(&[4, 6, 10]), &device);
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
        assert!(missing(&module(&[10, 12, 65]), &device).is_empty());
    }

    #[test]
    fn warp_modules_need_32_wide_subgroups() {
        let device = DeviceInfo {
            extensions: "cl_intel_required_subgroup_size".into(),
            sub_group_sizes: vec![8, 16],
            ..Default::default()
        };
        assert_eq!(missing(&module(&[58]), &device).len(), 1);
    }
}
