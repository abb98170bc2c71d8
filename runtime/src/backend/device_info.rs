//! What the runtime knows about a device, in the terms both backends share (the OpenCL backend
//! queries it from the driver, the CUDA backend fills it from the driver's attributes), and the
//! rules both apply to it: the warp size, device filters (`HIPMLIR_DEVICE`).

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
    fn opencl_version_parses() {
        assert_eq!(parse_opencl_version("OpenCL 3.1 (Build 0)"), Some((3, 1)));
        assert_eq!(parse_opencl_version("OpenCL 1.2 pocl"), Some((1, 2)));
        assert_eq!(parse_opencl_version("garbage"), None);
    }
}
