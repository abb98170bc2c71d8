//! Device selection: the OpenCL devices whose IL versions include SPIR-V (all of them, or those
//! `HIPMLIR_PLATFORM` / `HIPMLIR_DEVICE` name), each with its context, its null stream's queue
//! and its memory model: one [`Runtime`] per HIP device, its ordinal its index. Done once per
//! process, when `select` picks OpenCL (never from `__hipmlirRegisterImage`, which runs before
//! `main`). A device `HIPMLIR_DEVICE` lists twice is opened twice, a context each: two HIP
//! devices whose memory is apart, as two GPUs' is (how multi-device programs are tested on one).

use std::sync::{Arc, Mutex, OnceLock, Weak};

use cl3::types::cl_device_id;
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_ALL};

use super::memory::AllocationTable;
use super::memory_model::{MemoryBackend, MemoryPreference};
use super::stream::ClQueue;
use crate::backend::device_info::{filter_matches, select_devices, Visibility};
use crate::backend::{DeviceId, DeviceInfo, DeviceSettings, Stream, StreamFlags};
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

/// An opened device and everything created for it. Lives for the whole process (never dropped:
/// tearing OpenCL down from an atexit handler races the ICD's own teardown).
pub struct Runtime {
    /// Its HIP ordinal.
    pub id: DeviceId,
    pub device: Device,
    pub context: Context,
    /// The null stream (legacy default stream): an in-order queue with profiling.
    pub null_queue: Arc<ClQueue>,
    /// The same queue as the runtime's stream object.
    pub null_stream: Arc<Stream>,
    /// Every created stream's queue (per-thread streams included), for the null stream's
    /// implicit dependencies and `hipDeviceSynchronize`.
    pub streams: Mutex<Vec<Weak<ClQueue>>>,
    /// The last commands of destroyed streams not known to be done: their work still runs
    /// (`hipStreamDestroy` does not wait), and device-wide waits wait for it.
    pub retired: Mutex<Vec<super::cl::OwnedEvent>>,
    pub memory: MemoryBackend,
    /// Whether the device reaches the host's own memory (`hipHostRegister`).
    pub system_memory: bool,
    pub info: DeviceInfo,
    /// CL_PLATFORM_VERSION of the device's platform.
    pub platform_version: String,
    /// This device's allocations (see `memory`).
    pub allocations: Mutex<AllocationTable>,
    /// What the program set on the device and reads back.
    pub settings: DeviceSettings,
    /// `CL_DEVICE_UUID_KHR` where the device has `cl_khr_device_uuid`.
    pub uuid: Option<[u8; 16]>,
    /// The queue of copies between devices (`peer`), made on first use.
    pub transfer: OnceLock<Arc<ClQueue>>,
    /// The pitched copy and fill kernels (`rect`), built at the first pitched copy or fill.
    pub rect: OnceLock<Result<super::rect::RectKernels, String>>,
    /// The staging buffer kept for pitched copies of pageable memory (`staged_copy`).
    pub staging: super::staged_copy::KeptStaging,
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

static RUNTIMES: OnceLock<Result<Vec<Runtime>, String>> = OnceLock::new();

/// Opens the selected devices (once; a failure, reported once by the caller, stays).
pub fn open() -> Result<&'static [Runtime], String> {
    RUNTIMES
        .get_or_init(open_selected)
        .as_ref()
        .map(Vec::as_slice)
        .map_err(Clone::clone)
}

/// The opened devices (none before `open`).
pub fn all() -> &'static [Runtime] {
    match RUNTIMES.get() {
        Some(Ok(all)) => all,
        _ => &[],
    }
}

/// Device `id`; `hipErrorInvalidDevice` if there is no such device (`hipErrorNoDevice` before
/// any is open: the backend never runs then).
pub fn runtime_of(id: DeviceId) -> HipResult<&'static Runtime> {
    if RUNTIMES.get().is_none_or(|r| r.is_err()) {
        return Err(Failure::quiet(HipError::NoDevice));
    }
    let all = all();
    all.get(id).ok_or_else(|| {
        Failure::new(
            HipError::InvalidDevice,
            format!(
                "device {id} does not exist (hipmlir has {} OpenCL device(s))",
                all.len()
            ),
        )
    })
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

fn open_selected() -> Result<Vec<Runtime>, String> {
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
    let names: Vec<String> = usable.iter().map(|(_, _, _, n)| n.clone()).collect();
    let chosen = select_devices(device_filter.as_deref(), &names, true)?;
    // HIP's visibility variables (none left: there is no HIP device, see `select`).
    let chosen: Vec<usize> = Visibility::from_env(false)
        .apply(chosen.len())
        .into_iter()
        .map(|i| chosen[i])
        .collect();
    let mut opened = Vec::with_capacity(chosen.len());
    for (id, index) in chosen.into_iter().enumerate() {
        let (platform, device, memory, name) = &usable[index];
        let runtime = open_device(id, platform, Device::new(device.id()), *memory)
            .map_err(|e| format!("cannot open OpenCL device '{}': {e}", name.trim()))?;
        opened.push(runtime);
    }
    Ok(opened)
}

/// `HIPMLIR_SYSTEM_MEMORY=0`: use the device as one that does not reach the host's own memory
/// (no `hipHostRegister`, pageable memory staged for pitched copies): how tests cover such
/// devices (GPUs without shared system memory access) on one that does.
fn system_memory_allowed() -> bool {
    std::env::var("HIPMLIR_SYSTEM_MEMORY").map_or(true, |v| v.trim() != "0")
}

fn open_device(
    id: DeviceId,
    platform: &opencl3::platform::Platform,
    device: Device,
    memory: MemoryBackend,
) -> Result<Runtime, String> {
    let context = Context::from_device(&device)
        .map_err(|e| format!("clCreateContext: {}", super::cl::error_name(e.0)))?;
    let null_queue = ClQueue::new(id, &context, &device, StreamFlags::default(), 0, true)
        .map_err(|e| format!("clCreateCommandQueue: {}", super::cl::error_name(e)))?;
    let null_queue = Arc::new(null_queue);
    let info = query_info(&device);
    let system_memory = memory.reaches_system_memory(&device) && system_memory_allowed();
    let uuid = info
        .extensions
        .split_whitespace()
        .any(|e| e == "cl_khr_device_uuid")
        .then(|| device.get_data(cl3::device::CL_DEVICE_UUID_KHR).ok())
        .flatten()
        .and_then(|bytes| <[u8; 16]>::try_from(bytes.as_slice()).ok());
    hlog!(
        Info,
        "device '{}' ({}) on platform '{}', memory: {}, warpSize {}, HIP device {id}",
        info.name.trim(),
        info.version,
        platform.name().unwrap_or_default(),
        memory.name(),
        info.warp_size()
    );
    Ok(Runtime {
        id,
        device,
        context,
        null_stream: Arc::new(Stream::null(id, null_queue.clone())),
        null_queue,
        streams: Mutex::new(Vec::new()),
        retired: Mutex::new(Vec::new()),
        system_memory,
        memory,
        info,
        platform_version: platform.version().unwrap_or_default(),
        allocations: Mutex::new(AllocationTable::new()),
        settings: DeviceSettings::default(),
        uuid,
        transfer: OnceLock::new(),
        rect: OnceLock::new(),
        staging: Default::default(),
    })
}
