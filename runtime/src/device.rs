//! Device selection: an OpenCL device whose IL versions include SPIR-V (the first one, or the one
//! `HIPMLIR_PLATFORM` / `HIPMLIR_DEVICE` name), its context, the null stream's queue and the
//! memory backend. Done lazily, once per process, on the first API call that needs a device (never
//! from `__hipmlirRegisterImage`, which runs before `main`).

use std::sync::{Arc, OnceLock};

use cl3::types::cl_device_id;
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_ALL};

use crate::backend::{MemoryBackend, MemoryPreference};
use crate::error::{Failure, HipError, HipResult};
use crate::hlog;
use crate::stream::Stream;

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
    fn query(device: &Device) -> Self {
        let sizes = device.max_work_item_sizes().unwrap_or_default();
        let dim = |i: usize| sizes.get(i).copied().unwrap_or(1);
        let sub_group_sizes = device
            .get_data(cl3::ext::CL_DEVICE_SUB_GROUP_SIZES_INTEL)
            .map(|bytes| {
                bytes
                    .chunks_exact(std::mem::size_of::<usize>())
                    .filter_map(|c| c.try_into().ok().map(usize::from_ne_bytes))
                    .collect()
            })
            .unwrap_or_default();
        DeviceInfo {
            name: device.name().unwrap_or_default(),
            vendor: device.vendor().unwrap_or_default(),
            version: device.version().unwrap_or_default(),
            driver_version: device.driver_version().unwrap_or_default(),
            il_version: device.il_version().unwrap_or_default(),
            extensions: device.extensions().unwrap_or_default(),
            global_mem_size: device.global_mem_size().unwrap_or(0),
            local_mem_size: device.local_mem_size().unwrap_or(0),
            max_constant_buffer_size: device.max_constant_buffer_size().unwrap_or(0),
            global_mem_cache_size: device.global_mem_cache_size().unwrap_or(0),
            max_compute_units: device.max_compute_units().unwrap_or(1),
            max_clock_frequency: device.max_clock_frequency().unwrap_or(0),
            max_work_group_size: device.max_work_group_size().unwrap_or(1),
            max_work_item_sizes: [dim(0), dim(1), dim(2)],
            max_parameter_size: device.max_parameter_size().unwrap_or(1024),
            max_mem_alloc_size: device.max_mem_alloc_size().unwrap_or(0),
            printf_buffer_size: device.printf_buffer_size().unwrap_or(0),
            address_bits: device.address_bits().unwrap_or(0),
            host_unified_memory: device.host_unified_memory().unwrap_or(false),
            is_cpu: device
                .dev_type()
                .map(|t| t & cl3::ext::CL_DEVICE_TYPE_CPU != 0)
                .unwrap_or(false),
            sub_group_sizes,
        }
    }

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

/// Whether a device can run hipmlir's kernels: SPIR-V ingestion and 64-bit addresses.
fn check_usable(device: &Device) -> Result<(), String> {
    let il = device.il_version().unwrap_or_default();
    let ils = device
        .ils_with_version()
        .map(|v| {
            v.iter()
                .map(|nv| {
                    let name: Vec<u8> = nv.name.iter().take_while(|&&c| c != 0).copied().collect();
                    String::from_utf8_lossy(&name).into_owned()
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    if !il.contains("SPIR-V") && !ils.contains("SPIR-V") {
        return Err("does not accept SPIR-V (no SPIR-V in CL_DEVICE_IL_VERSION)".into());
    }
    match device.address_bits() {
        Ok(64) => Ok(()),
        Ok(bits) => Err(format!(
            "has {bits}-bit addresses; hipmlir's kernels are spirv64"
        )),
        Err(e) => Err(format!("cannot query address bits ({e})")),
    }
}

/// The selected device and everything created for it. Lives for the whole process (never dropped:
/// tearing OpenCL down from an atexit handler races the ICD's own teardown).
pub struct Runtime {
    pub device: Device,
    pub context: Context,
    /// The null stream (legacy default stream): an in-order queue with profiling.
    pub null_stream: Arc<Stream>,
    pub memory: MemoryBackend,
    pub info: DeviceInfo,
    /// CL_PLATFORM_VERSION of the device's platform.
    pub platform_version: String,
}

impl Runtime {
    pub fn device_id(&self) -> cl_device_id {
        self.device.id()
    }

    /// Waits for everything queued on every stream (kernels included) to finish.
    pub fn finish(&self) -> HipResult<()> {
        crate::stream::synchronize_all(self)
    }
}

static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

/// The runtime, initialized on first use. Failure is reported on stderr once; every later call
/// gets `hipErrorNoDevice` quietly.
pub fn runtime() -> HipResult<&'static Runtime> {
    // Every OpenCL path comes here: one the CUDA backend does not serve yet fails instead of
    // opening a second device behind the program's back.
    if crate::select::backend()? == crate::select::Backend::Cuda {
        return Err(crate::select::not_on_cuda("this call"));
    }
    let state = RUNTIME.get_or_init(|| {
        let result = open_selected();
        if let Err(message) = &result {
            hlog!(Error, "{message}");
        }
        result
    });
    state
        .as_ref()
        .map_err(|_| Failure::quiet(HipError::NoDevice))
}

/// The selected device's name and memory model, if the device is open (for tests and tools).
pub fn selected_device() -> Option<(String, &'static str)> {
    runtime_if_initialized().map(|rt| (rt.info.name.trim().to_string(), rt.memory.name()))
}

/// The runtime only if it is already initialized (never triggers device discovery).
pub fn runtime_if_initialized() -> Option<&'static Runtime> {
    RUNTIME.get().and_then(|r| r.as_ref().ok())
}

/// How to get a device, for the "no device" message.
const HOW_TO_GET_A_DEVICE: &str = "hipmlir needs an OpenCL driver that accepts SPIR-V \
(CL_DEVICE_IL_VERSION lists SPIR-V) on a 64-bit device. Intel's OpenCL CPU runtime works on any \
x86-64 CPU: `make setup` installs it (PyPI intel-opencl-rt, registered in /etc/OpenCL/vendors); \
or install a GPU driver with SPIR-V support (Intel compute-runtime, or Mesa rusticl with \
RUSTICL_ENABLE). HIPMLIR_PLATFORM and HIPMLIR_DEVICE choose among several.";

/// Whether `filter` (an index or a case-insensitive name substring) selects item `index` named
/// `name`.
pub fn filter_matches(filter: &str, index: usize, name: &str) -> bool {
    let filter = filter.trim();
    match filter.parse::<usize>() {
        Ok(i) => i == index,
        Err(_) => name.to_lowercase().contains(&filter.to_lowercase()),
    }
}

fn env_filter(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn open_selected() -> Result<Runtime, String> {
    let preference = MemoryPreference::from_env()?;
    let platforms = opencl3::platform::get_platforms().map_err(|e| {
        format!(
            "cannot list OpenCL platforms ({}): no OpenCL ICD loader or driver is installed. {HOW_TO_GET_A_DEVICE}",
            crate::cl::error_name(e.0)
        )
    })?;
    let platform_filter = env_filter("HIPMLIR_PLATFORM");
    let device_filter = env_filter("HIPMLIR_DEVICE");
    let mut rejected = Vec::new();
    let mut usable = Vec::new();
    let mut seen_platforms = Vec::new();
    for (pi, platform) in platforms.iter().enumerate() {
        let pname = platform.name().unwrap_or_else(|_| "?".into());
        seen_platforms.push(format!("{pi}: {pname}"));
        if let Some(f) = &platform_filter {
            if !filter_matches(f, pi, &pname) {
                continue;
            }
        }
        let ids = platform.get_devices(CL_DEVICE_TYPE_ALL).unwrap_or_default();
        for id in ids {
            let device = Device::new(id);
            let name = device.name().unwrap_or_else(|_| "?".into());
            let checked = check_usable(&device).and_then(|()| {
                MemoryBackend::select(platform.id(), &device, preference)
                    .map_err(|e| format!("has no usable memory model: {e}"))
            });
            match checked {
                Ok(memory) => usable.push((*platform, device, memory, name)),
                Err(why) => rejected.push(format!("'{}' {why}", name.trim())),
            }
        }
    }
    if usable.is_empty() {
        let scope = match &platform_filter {
            Some(f) => format!(" on the platform(s) HIPMLIR_PLATFORM={f} selects"),
            None => String::new(),
        };
        let found = if rejected.is_empty() {
            format!(
                "no OpenCL device found{scope} (platforms: {})",
                if seen_platforms.is_empty() {
                    "none".to_string()
                } else {
                    seen_platforms.join(", ")
                }
            )
        } else {
            format!(
                "no OpenCL device{scope} can run SPIR-V kernels: {}",
                rejected.join("; ")
            )
        };
        return Err(format!("{found}. {HOW_TO_GET_A_DEVICE}"));
    }
    let index = match &device_filter {
        None => 0,
        Some(f) => usable
            .iter()
            .enumerate()
            .position(|(i, (_, _, _, name))| filter_matches(f, i, name.trim()))
            .ok_or_else(|| {
                let names: Vec<String> = usable
                    .iter()
                    .enumerate()
                    .map(|(i, (_, _, _, n))| format!("{i}: {}", n.trim()))
                    .collect();
                format!(
                    "HIPMLIR_DEVICE={f} matches none of the usable devices ({})",
                    names.join(", ")
                )
            })?,
    };
    let (platform, device, memory, name) = usable.swap_remove(index);
    open(&platform, device, memory)
        .map_err(|e| format!("cannot open OpenCL device '{}': {e}", name.trim()))
}

fn open(
    platform: &opencl3::platform::Platform,
    device: Device,
    memory: MemoryBackend,
) -> Result<Runtime, String> {
    let context = Context::from_device(&device)
        .map_err(|e| format!("clCreateContext: {}", crate::cl::error_name(e.0)))?;
    let null_stream = Stream::new(context.get(), device.id(), 0, 0, true)
        .map_err(|e| format!("clCreateCommandQueue: {}", crate::cl::error_name(e)))?;
    let info = DeviceInfo::query(&device);
    hlog!(
        Info,
        "device '{}' ({}) on platform '{}', memory: {}, warpSize {}",
        info.name.trim(),
        info.version,
        platform.name().unwrap_or_default(),
        memory.name(),
        info.warp_size()
    );
    Ok(Runtime {
        device,
        context,
        null_stream: Arc::new(null_stream),
        memory,
        info,
        platform_version: platform.version().unwrap_or_default(),
    })
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
    fn opencl_version_parses() {
        assert_eq!(parse_opencl_version("OpenCL 3.1 (Build 0)"), Some((3, 1)));
        assert_eq!(parse_opencl_version("OpenCL 1.2 pocl"), Some((1, 2)));
        assert_eq!(parse_opencl_version("garbage"), None);
    }
}
