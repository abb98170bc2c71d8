//! Device selection: an OpenCL device whose IL versions include SPIR-V (the first one, or the one
//! `HIPMLIR_PLATFORM` / `HIPMLIR_DEVICE` name), its context, the null stream's queue and the
//! memory model. Done once per process, when `select` picks OpenCL (never from
//! `__hipmlirRegisterImage`, which runs before `main`). One device is opened: more would each get
//! a `Runtime` of their own, as the backend interface already names devices by index.

use std::sync::{Arc, Mutex, OnceLock, Weak};

use cl3::types::cl_device_id;
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_ALL};

use super::memory_model::{MemoryBackend, MemoryPreference};
use super::stream::ClQueue;
use crate::backend::device_info::filter_matches;
use crate::backend::{DeviceInfo, Stream, StreamFlags};
use crate::error::{Failure, HipError, HipResult};
use crate::hlog;

/// What the runtime needs to know about an OpenCL device, queried once.
fn query_info(device: &Device) -> DeviceInfo {
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

/// The opened device and everything created for it. Lives for the whole process (never dropped:
/// tearing OpenCL down from an atexit handler races the ICD's own teardown).
pub struct Runtime {
    pub device: Device,
    pub context: Context,
    /// The null stream (legacy default stream): an in-order queue with profiling.
    pub null_queue: Arc<ClQueue>,
    /// The same queue as the runtime's stream object.
    pub null_stream: Arc<Stream>,
    /// Every created stream's queue (per-thread streams included), for the null stream's
    /// implicit dependencies and `hipDeviceSynchronize`.
    pub streams: Mutex<Vec<Weak<ClQueue>>>,
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
        super::stream::synchronize_all(self)
    }
}

static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

/// Opens the selected device (once; a failure, reported once by the caller, stays).
pub fn open() -> Result<&'static Runtime, String> {
    RUNTIME
        .get_or_init(open_selected)
        .as_ref()
        .map_err(Clone::clone)
}

/// The opened device; `hipErrorNoDevice` if it is not open (the backend never runs then).
pub fn runtime() -> HipResult<&'static Runtime> {
    RUNTIME
        .get()
        .and_then(|r| r.as_ref().ok())
        .ok_or_else(|| Failure::quiet(HipError::NoDevice))
}

/// How to get a device, for the "no device" message.
const HOW_TO_GET_A_DEVICE: &str = "hipmlir needs an OpenCL driver that accepts SPIR-V \
(CL_DEVICE_IL_VERSION lists SPIR-V) on a 64-bit device. Intel's OpenCL CPU runtime works on any \
x86-64 CPU: `make setup` installs it (PyPI intel-opencl-rt, registered in /etc/OpenCL/vendors); \
or install a GPU driver with SPIR-V support (Intel compute-runtime, or Mesa rusticl with \
RUSTICL_ENABLE). HIPMLIR_PLATFORM and HIPMLIR_DEVICE choose among several.";

fn env_filter(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn open_selected() -> Result<Runtime, String> {
    let preference = MemoryPreference::from_env()?;
    let platforms = opencl3::platform::get_platforms().map_err(|e| {
        format!(
            "cannot list OpenCL platforms ({}): no OpenCL ICD loader or driver is installed. {HOW_TO_GET_A_DEVICE}",
            super::cl::error_name(e.0)
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
    open_device(&platform, device, memory)
        .map_err(|e| format!("cannot open OpenCL device '{}': {e}", name.trim()))
}

fn open_device(
    platform: &opencl3::platform::Platform,
    device: Device,
    memory: MemoryBackend,
) -> Result<Runtime, String> {
    let context = Context::from_device(&device)
        .map_err(|e| format!("clCreateContext: {}", super::cl::error_name(e.0)))?;
    let null_queue = ClQueue::new(&context, &device, StreamFlags::default(), 0, true)
        .map_err(|e| format!("clCreateCommandQueue: {}", super::cl::error_name(e)))?;
    let null_queue = Arc::new(null_queue);
    let info = query_info(&device);
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
        null_stream: Arc::new(Stream::null(0, null_queue.clone())),
        null_queue,
        streams: Mutex::new(Vec::new()),
        memory,
        info,
        platform_version: platform.version().unwrap_or_default(),
    })
}
