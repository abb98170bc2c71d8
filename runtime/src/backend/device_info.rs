//! What the runtime knows about a device, in the terms both backends share (the OpenCL backend
//! queries it from the driver, the CUDA backend fills it from the driver's attributes), and the
//! rules both apply to it: the warp size, device filters (`HIPMLIR_DEVICE`), and the variables
//! that hide devices as HIP's runtimes do (`HIP_VISIBLE_DEVICES` and its kin).

/// What the runtime needs to know about the device, queried once.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DeviceInfo {
    pub name: String,
    pub vendor: String,
    /// `CL_DEVICE_VERSION`, e.g. "OpenCL 3.1 (Build 0)".
    pub version: String,
    pub driver_version: String,
    pub il_version: String,
    pub extensions: String,
    pub global_mem_size: u64,
    pub local_mem_size: u64,
    pub max_constant_buffer_size: u64,
    pub global_mem_cache_size: u64,
    pub max_compute_units: u32,
    /// MHz; 0 when the device does not say (Intel's CPU runtime reports 0).
    pub max_clock_frequency: u32,
    pub max_work_group_size: usize,
    pub max_work_item_sizes: [usize; 3],
    /// CL_DEVICE_MAX_PARAMETER_SIZE: the most bytes of kernel arguments.
    pub max_parameter_size: usize,
    /// CL_DEVICE_MAX_MEM_ALLOC_SIZE.
    pub max_mem_alloc_size: u64,
    /// CL_DEVICE_PRINTF_BUFFER_SIZE: what kernels' printf output can hold per launch.
    pub printf_buffer_size: usize,
    pub address_bits: u32,
    pub host_unified_memory: bool,
    pub is_cpu: bool,
    /// `CL_DEVICE_SUB_GROUP_SIZES_INTEL`, empty without `cl_intel_required_subgroup_size`.
    pub sub_group_sizes: Vec<usize>,
}

impl DeviceInfo {
    pub fn has_extension(&self, name: &str) -> bool {
        self.extensions.split_whitespace().any(|e| e == name)
    }

    /// `(major, minor)` of the device's OpenCL version ("OpenCL 3.1 ..." gives (3, 1)).
    pub fn opencl_version(&self) -> (i32, i32) {
        parse_opencl_version(&self.version).unwrap_or((1, 2))
    }

    /// The warp size hipmlir reports and compiles for; see [`choose_warp_size`].
    pub fn warp_size(&self) -> u32 {
        choose_warp_size(&self.sub_group_sizes)
    }
}

/// HIP's `warpSize` on this device: the subgroup size kernels are compiled to run with.
///
/// * 32 when the device can run subgroups of 32 (`CL_DEVICE_SUB_GROUP_SIZES_INTEL` lists it, from
///   `cl_intel_required_subgroup_size`): HIP code is most often written for 32 (CUDA's warp, RDNA's
///   wave32), and the device side pins it with `intel_reqd_sub_group_size(32)` /
///   `SubgroupSize 32`.
/// * otherwise the largest size the device lists;
/// * 32 when the device lists none (no way to ask; device code must then not rely on warp ops
///   matching, and the compiler should warn).
pub fn choose_warp_size(sub_group_sizes: &[usize]) -> u32 {
    if sub_group_sizes.contains(&32) {
        return 32;
    }
    sub_group_sizes
        .iter()
        .copied()
        .filter(|&s| s > 0)
        .max()
        .and_then(|s| u32::try_from(s).ok())
        .unwrap_or(32)
}

fn parse_opencl_version(version: &str) -> Option<(i32, i32)> {
    let rest = version.strip_prefix("OpenCL ")?;
    let number = rest.split_whitespace().next()?;
    let (major, minor) = number.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// Whether `filter` (an index or a case-insensitive name substring) selects item `index` named
/// `name`.
pub fn filter_matches(filter: &str, index: usize, name: &str) -> bool {
    let filter = filter.trim();
    match filter.parse::<usize>() {
        Ok(i) => i == index,
        Err(_) => name.to_lowercase().contains(&filter.to_lowercase()),
    }
}

/// The devices `HIPMLIR_DEVICE` selects among `names` (a backend's usable devices, in order), as
/// indices into `names`, in the order they become HIP devices: unset, all of them; else a
/// comma-separated list of filters, each an index (that device) or a name substring (every device
/// whose name contains it). A device listed twice is shown twice only where `repeats` allows it
/// (OpenCL opens a context for each, as separate devices); else it is an error.
pub fn select_devices(
    filter: Option<&str>,
    names: &[String],
    repeats: bool,
) -> Result<Vec<usize>, String> {
    let Some(filter) = filter.map(str::trim).filter(|f| !f.is_empty()) else {
        return Ok((0..names.len()).collect());
    };
    let mut chosen = Vec::new();
    for part in filter.split(',').map(str::trim) {
        if part.is_empty() {
            return Err(format!("HIPMLIR_DEVICE={filter} has an empty entry"));
        }
        let matches: Vec<usize> = (0..names.len())
            .filter(|&i| filter_matches(part, i, names[i].trim()))
            .collect();
        if matches.is_empty() {
            let listed: Vec<String> = names
                .iter()
                .enumerate()
                .map(|(i, n)| format!("{i}: {}", n.trim()))
                .collect();
            let which = if part == filter {
                format!("HIPMLIR_DEVICE={filter}")
            } else {
                format!("HIPMLIR_DEVICE={filter}: '{part}'")
            };
            return Err(format!(
                "{which} matches none of the usable devices ({})",
                if listed.is_empty() {
                    "none".to_string()
                } else {
                    listed.join(", ")
                }
            ));
        }
        for i in matches {
            if chosen.contains(&i) && !repeats {
                return Err(format!(
                    "HIPMLIR_DEVICE={filter} names device {i} ('{}') twice",
                    names[i].trim()
                ));
            }
            chosen.push(i);
        }
    }
    Ok(chosen)
}

/// The variables that hide devices as HIP's runtimes do, each applied to what the one before
/// leaves: `ROCR_VISIBLE_DEVICES` (ROCm's layer beneath HIP), then `HIP_VISIBLE_DEVICES`, or,
/// where that is unset, `CUDA_VISIBLE_DEVICES` (which AMD's HIP reads too). Each is a list of
/// device indices read up to its first entry that is no index of the devices left (`-1` hides
/// every device), as HIP reads it. An unset or empty variable hides nothing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Visibility {
    lists: Vec<(&'static str, String)>,
}

impl Visibility {
    /// The variables of the environment. The CUDA backend passes `cuda_driver`: the driver
    /// applies `CUDA_VISIBLE_DEVICES` itself.
    pub fn from_env(cuda_driver: bool) -> Self {
        let read = |name: &'static str| {
            std::env::var(name)
                .ok()
                .filter(|v| !v.trim().is_empty())
                .map(|v| (name, v))
        };
        let hip = read("HIP_VISIBLE_DEVICES").or_else(|| {
            (!cuda_driver)
                .then(|| read("CUDA_VISIBLE_DEVICES"))
                .flatten()
        });
        Visibility {
            lists: read("ROCR_VISIBLE_DEVICES")
                .into_iter()
                .chain(hip)
                .collect(),
        }
    }

    #[cfg(test)]
    fn of(lists: &[(&'static str, &str)]) -> Self {
        Visibility {
            lists: lists.iter().map(|&(n, v)| (n, v.to_string())).collect(),
        }
    }

    /// The indices among `count` devices that stay visible, in the order the lists give them.
    pub fn apply(&self, count: usize) -> Vec<usize> {
        let mut kept: Vec<usize> = (0..count).collect();
        for (_, list) in &self.lists {
            let mut next = Vec::new();
            for entry in list.split(',').map(str::trim) {
                match entry.parse::<usize>() {
                    Ok(i) if i < kept.len() && !next.contains(&kept[i]) => next.push(kept[i]),
                    _ => break,
                }
            }
            kept = next;
        }
        kept
    }

    /// The variables set, as `NAME=value` (for messages); empty when none is.
    pub fn describe(&self) -> String {
        let set: Vec<String> = self.lists.iter().map(|(n, v)| format!("{n}={v}")).collect();
        set.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warp_size_prefers_32() {
        assert_eq!(choose_warp_size(&[4, 8, 16, 32, 64]), 32);
        assert_eq!(choose_warp_size(&[8, 16]), 16);
        assert_eq!(choose_warp_size(&[64]), 64);
        assert_eq!(choose_warp_size(&[]), 32);
    }

    #[test]
    fn filters_take_indices_or_names() {
        assert!(filter_matches("1", 1, "Intel(R) Xeon"));
        assert!(!filter_matches("0", 1, "Intel(R) Xeon"));
        assert!(filter_matches("xeon", 3, "Intel(R) Xeon(R) Processor"));
        assert!(!filter_matches("nvidia", 0, "Intel(R) Xeon"));
    }

    #[test]
    fn device_lists_select_in_order() {
        let names: Vec<String> = ["Intel Xeon", "Intel Arc", "Other GPU"]
            .map(String::from)
            .to_vec();
        assert_eq!(select_devices(None, &names, false).unwrap(), [0, 1, 2]);
        assert_eq!(select_devices(Some(" "), &names, false).unwrap(), [0, 1, 2]);
        assert_eq!(select_devices(Some("2,0"), &names, false).unwrap(), [2, 0]);
        assert_eq!(
            select_devices(Some("intel"), &names, false).unwrap(),
            [0, 1]
        );
        assert_eq!(select_devices(Some("0,0"), &names, true).unwrap(), [0, 0]);
        assert!(select_devices(Some("0,0"), &names, false)
            .unwrap_err()
            .contains("twice"));
        assert!(select_devices(Some("0,,1"), &names, true)
            .unwrap_err()
            .contains("empty"));
        assert!(select_devices(Some("nvidia"), &names, true)
            .unwrap_err()
            .contains("HIPMLIR_DEVICE=nvidia matches none"));
        assert!(select_devices(Some("0,nvidia"), &names, true)
            .unwrap_err()
            .contains("HIPMLIR_DEVICE=0,nvidia: 'nvidia' matches none"));
    }

    #[test]
    fn visibility_lists_read_up_to_their_first_bad_entry() {
        let hip = |v| Visibility::of(&[("HIP_VISIBLE_DEVICES", v)]);
        assert_eq!(Visibility::default().apply(3), [0, 1, 2]);
        assert_eq!(hip("-1").apply(3), Vec::<usize>::new());
        assert_eq!(hip("2,0").apply(3), [2, 0]);
        assert_eq!(hip("1,3,0").apply(3), [1]);
        assert_eq!(hip("0,0,1").apply(3), [0]);
        assert_eq!(hip("x").apply(3), Vec::<usize>::new());
        // The second list indexes what the first leaves.
        let both = Visibility::of(&[
            ("ROCR_VISIBLE_DEVICES", "2,1"),
            ("HIP_VISIBLE_DEVICES", "1"),
        ]);
        assert_eq!(both.apply(3), [1]);
        assert_eq!(
            both.describe(),
            "ROCR_VISIBLE_DEVICES=2,1 HIP_VISIBLE_DEVICES=1"
        );
    }

    #[test]
    fn opencl_version_parses() {
        assert_eq!(parse_opencl_version("OpenCL 3.1 (Build 0)"), Some((3, 1)));
        assert_eq!(parse_opencl_version("OpenCL 1.2 pocl"), Some((1, 2)));
        assert_eq!(parse_opencl_version("garbage"), None);
    }
}
