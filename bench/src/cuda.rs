//! The CUDA driver API as the GPU part uses it: the first GPU in its primary context, modules
//! loaded from PTX (hipmlir's) or cubin (nvcc's), device buffers, launches on the default stream
//! timed by events, and the device-to-device copy bandwidth. libcuda is loaded at run time
//! (cudarc's dynamic loading), so the bench builds and runs where there is no NVIDIA driver.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

use cudarc::driver::sys::{self, CUresult};

/// The driver's name for a result, with the call that returned it.
fn err(what: &str, r: CUresult) -> String {
    let mut p: *const c_char = std::ptr::null();
    // SAFETY: cuGetErrorName writes a pointer to a static string, or fails.
    let ok = unsafe { sys::cuGetErrorName(r, &mut p) } == CUresult::CUDA_SUCCESS;
    let name = if ok && !p.is_null() {
        // SAFETY: a NUL-terminated static string from the driver.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    } else {
        format!("CUresult {}", r as i32)
    };
    format!("{what}: {name}")
}

fn check(what: &str, r: CUresult) -> Result<(), String> {
    if r == CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(err(what, r))
    }
}

/// What the report says about the GPU.
#[derive(Debug, Clone, Default)]
pub struct GpuInfo {
    pub name: String,
    /// Compute capability as `major * 10 + minor` (90 for an H100).
    pub capability: u32,
    /// `cuDriverGetVersion` as `major.minor` (the CUDA version the driver supports).
    pub cuda_version: String,
    pub memory_gib: f64,
    pub sms: i32,
}

/// The first GPU, its primary context current on this thread.
pub struct Gpu {
    device: sys::CUdevice,
    pub info: GpuInfo,
}

impl Gpu {
    /// Opens GPU 0, or says why there is none (no driver, no device).
    pub fn open() -> Result<Gpu, String> {
        // SAFETY: only tries to dlopen the library's usual names.
        if !unsafe { sys::is_culib_present() } {
            return Err("no NVIDIA driver (libcuda cannot be loaded)".into());
        }
        // SAFETY: plain driver calls with valid out-pointers.
        unsafe {
            check("cuInit", sys::cuInit(0))?;
            let mut count: c_int = 0;
            check("cuDeviceGetCount", sys::cuDeviceGetCount(&mut count))?;
            if count == 0 {
                return Err("the NVIDIA driver reports no GPU".into());
            }
            let mut device: sys::CUdevice = 0;
            check("cuDeviceGet", sys::cuDeviceGet(&mut device, 0))?;
            let mut name = [0 as c_char; 256];
            check(
                "cuDeviceGetName",
                sys::cuDeviceGetName(name.as_mut_ptr(), name.len() as c_int, device),
            )?;
            let attr = |a: sys::CUdevice_attribute| -> Result<i32, String> {
                let mut v: c_int = 0;
                check(
                    "cuDeviceGetAttribute",
                    sys::cuDeviceGetAttribute(&mut v, a, device),
                )?;
                Ok(v)
            };
            use sys::CUdevice_attribute::*;
            let major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
            let minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
            let sms = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
            let mut bytes = 0usize;
            check(
                "cuDeviceTotalMem",
                sys::cuDeviceTotalMem_v2(&mut bytes, device),
            )?;
            let mut version: c_int = 0;
            check("cuDriverGetVersion", sys::cuDriverGetVersion(&mut version))?;
            let mut ctx: sys::CUcontext = std::ptr::null_mut();
            check(
                "cuDevicePrimaryCtxRetain",
                sys::cuDevicePrimaryCtxRetain(&mut ctx, device),
            )?;
            check("cuCtxSetCurrent", sys::cuCtxSetCurrent(ctx))?;
            Ok(Gpu {
                device,
                info: GpuInfo {
                    name: CStr::from_ptr(name.as_ptr()).to_string_lossy().into_owned(),
                    capability: (major * 10 + minor) as u32,
                    cuda_version: format!("{}.{}", version / 1000, version % 1000 / 10),
                    memory_gib: bytes as f64 / (1u64 << 30) as f64,
                    sms,
                },
            })
        }
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: releases the retain of `open`.
        unsafe {
            sys::cuDevicePrimaryCtxRelease_v2(self.device);
        }
    }
}

/// A loaded module (PTX text, JIT-compiled by the driver, or a cubin).
pub struct Module {
    module: sys::CUmodule,
    /// The kernels' (mangled) names, as the driver lists them.
    pub entries: Vec<String>,
}

impl Module {
    /// Loads an image: PTX text (NUL-terminated here) or a cubin's bytes.
    pub fn load(image: &[u8]) -> Result<Module, String> {
        let mut data = image.to_vec();
        if !data.starts_with(b"\x7fELF") {
            data.push(0);
        }
        let mut module: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: `data` is a whole image, PTX NUL-terminated.
        check("cuModuleLoadData", unsafe {
            sys::cuModuleLoadData(&mut module, data.as_ptr() as *const c_void)
        })?;
        let mut m = Module {
            module,
            entries: Vec::new(),
        };
        m.entries = m.enumerate().unwrap_or_else(|_| ptx_entries(image));
        Ok(m)
    }

    /// The module's kernels by `cuModuleEnumerateFunctions` (drivers from CUDA 12.4 on).
    fn enumerate(&self) -> Result<Vec<String>, String> {
        let mut count: c_uint = 0;
        // SAFETY: valid module and out-pointers; the function array has `count` slots.
        unsafe {
            check(
                "cuModuleGetFunctionCount",
                sys::cuModuleGetFunctionCount(&mut count, self.module),
            )?;
            let mut fns = vec![std::ptr::null_mut(); count as usize];
            check(
                "cuModuleEnumerateFunctions",
                sys::cuModuleEnumerateFunctions(fns.as_mut_ptr(), count, self.module),
            )?;
            let mut names = Vec::new();
            for f in fns {
                let mut p: *const c_char = std::ptr::null();
                check("cuFuncGetName", sys::cuFuncGetName(&mut p, f))?;
                if !p.is_null() {
                    names.push(CStr::from_ptr(p).to_string_lossy().into_owned());
                }
            }
            Ok(names)
        }
    }

    /// The kernel whose source name is `kernel` (its C++ mangling or an `extern "C"` name).
    pub fn function(&self, kernel: &str) -> Result<sys::CUfunction, String> {
        let entry = find_entry(&self.entries, kernel).ok_or_else(|| {
            format!(
                "no kernel {kernel} in the module (entries: {})",
                self.entries.join(", ")
            )
        })?;
        let name = std::ffi::CString::new(entry).map_err(|e| e.to_string())?;
        let mut f: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: valid module, NUL-terminated name.
        check("cuModuleGetFunction", unsafe {
            sys::cuModuleGetFunction(&mut f, self.module, name.as_ptr())
        })?;
        Ok(f)
    }
}

impl Module {
    /// Writes `data` into the module's device variable `name`, as large as it.
    pub fn set_global(&self, name: &str, data: &[u8]) -> Result<(), String> {
        let c_name = std::ffi::CString::new(name).map_err(|e| e.to_string())?;
        let (mut address, mut size): (sys::CUdeviceptr, usize) = (0, 0);
        // SAFETY: valid module and out-pointers, NUL-terminated name.
        check(&format!("cuModuleGetGlobal({name})"), unsafe {
            sys::cuModuleGetGlobal_v2(&mut address, &mut size, self.module, c_name.as_ptr())
        })?;
        if size != data.len() {
            return Err(format!("{name} has {size} bytes, not {}", data.len()));
        }
        upload(address, data)
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: the module was loaded by `load` and is unloaded once.
        unsafe {
            sys::cuModuleUnload(self.module);
        }
    }
}

/// The entry for source name `kernel`: the name itself, or an Itanium mangling of a function of
/// that name at namespace scope (`_Z<len><name>...`).
pub fn find_entry<'a>(entries: &'a [String], kernel: &str) -> Option<&'a str> {
    let mangled = format!("_Z{}{}", kernel.len(), kernel);
    entries
        .iter()
        .find(|e| *e == kernel)
        .or_else(|| entries.iter().find(|e| e.starts_with(&mangled)))
        .map(String::as_str)
}

/// The `.entry` names of PTX text (for drivers without cuModuleEnumerateFunctions).
pub fn ptx_entries(ptx: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(ptx)
        .lines()
        .filter_map(|l| {
            let rest = l.trim().split(".entry").nth(1)?;
            let name = rest.trim().split(['(', ' ']).next()?;
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

/// The number of `.param`s of PTX entry `entry`.
pub fn ptx_param_count(ptx: &str, entry: &str) -> Option<usize> {
    let start = ptx.find(&format!(".entry {entry}("))?;
    let body = &ptx[start..];
    let end = body.find(')')?;
    Some(body[..end].matches(".param").count())
}

/// A device allocation.
pub struct DeviceBuf {
    pub ptr: sys::CUdeviceptr,
    pub bytes: usize,
}

impl DeviceBuf {
    pub fn new(bytes: usize) -> Result<DeviceBuf, String> {
        let mut ptr: sys::CUdeviceptr = 0;
        // SAFETY: valid out-pointer; at least one byte so every buffer has an address.
        check("cuMemAlloc", unsafe {
            sys::cuMemAlloc_v2(&mut ptr, bytes.max(1))
        })?;
        Ok(DeviceBuf { ptr, bytes })
    }
    pub fn upload(&self, data: &[u8]) -> Result<(), String> {
        upload(self.ptr, &data[..data.len().min(self.bytes)])
    }
    pub fn download(&self) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; self.bytes];
        // SAFETY: `bytes` bytes fit both sides.
        check("cuMemcpyDtoH", unsafe {
            sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, self.ptr, self.bytes)
        })?;
        Ok(out)
    }
}

impl Drop for DeviceBuf {
    fn drop(&mut self) {
        // SAFETY: allocated by `new`, freed once.
        unsafe {
            sys::cuMemFree_v2(self.ptr);
        }
    }
}

/// Copies `data` to device memory at `address`, which holds at least as many bytes.
fn upload(address: sys::CUdeviceptr, data: &[u8]) -> Result<(), String> {
    // SAFETY: `data.len()` bytes fit both sides, as the callers know.
    check("cuMemcpyHtoD", unsafe {
        sys::cuMemcpyHtoD_v2(address, data.as_ptr() as *const c_void, data.len())
    })
}

/// A kernel argument's bytes.
#[derive(Debug, Clone, Copy)]
pub enum Arg {
    Ptr(sys::CUdeviceptr),
    I32(i32),
    F32(f32),
    U64(u64),
}

/// One launch: function, grid and block (3-D), arguments.
pub struct LaunchSpec {
    pub function: sys::CUfunction,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub args: Vec<Arg>,
}

/// A pair of events on the default stream: the time of what is enqueued between them.
pub struct Timer {
    start: sys::CUevent,
    end: sys::CUevent,
}

impl Timer {
    pub fn new() -> Result<Timer, String> {
        let mut start: sys::CUevent = std::ptr::null_mut();
        let mut end: sys::CUevent = std::ptr::null_mut();
        // SAFETY: valid out-pointers.
        unsafe {
            check("cuEventCreate", sys::cuEventCreate(&mut start, 0))?;
            check("cuEventCreate", sys::cuEventCreate(&mut end, 0))?;
        }
        Ok(Timer { start, end })
    }

    /// Seconds between events recorded before and after `work` on the default stream.
    pub fn time(&self, work: impl FnOnce() -> Result<(), String>) -> Result<f64, String> {
        // SAFETY: events of this context, the default (null) stream.
        unsafe {
            check(
                "cuEventRecord",
                sys::cuEventRecord(self.start, std::ptr::null_mut()),
            )?;
        }
        work()?;
        let mut ms = 0f32;
        // SAFETY: as above; both events were recorded.
        unsafe {
            check(
                "cuEventRecord",
                sys::cuEventRecord(self.end, std::ptr::null_mut()),
            )?;
            check("cuEventSynchronize", sys::cuEventSynchronize(self.end))?;
            check(
                "cuEventElapsedTime",
                sys::cuEventElapsedTime(&mut ms, self.start, self.end),
            )?;
        }
        Ok(ms as f64 / 1e3)
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        // SAFETY: created by `new`, destroyed once.
        unsafe {
            sys::cuEventDestroy_v2(self.start);
            sys::cuEventDestroy_v2(self.end);
        }
    }
}

/// Enqueues `l` on the default stream.
pub fn launch(l: &LaunchSpec) -> Result<(), String> {
    let mut values: Vec<[u8; 8]> = l
        .args
        .iter()
        .map(|a| {
            let mut b = [0u8; 8];
            match *a {
                Arg::Ptr(p) => b.copy_from_slice(&p.to_ne_bytes()),
                Arg::U64(v) => b.copy_from_slice(&v.to_ne_bytes()),
                Arg::I32(v) => b[..4].copy_from_slice(&v.to_ne_bytes()),
                Arg::F32(v) => b[..4].copy_from_slice(&v.to_ne_bytes()),
            }
            b
        })
        .collect();
    let mut params: Vec<*mut c_void> = values
        .iter_mut()
        .map(|v| v.as_mut_ptr() as *mut c_void)
        .collect();
    // SAFETY: one pointer per kernel parameter, each to storage of its size (8 bytes, the value in
    // the low bytes, little-endian), alive through the call (the driver copies them).
    check("cuLaunchKernel", unsafe {
        sys::cuLaunchKernel(
            l.function,
            l.grid[0],
            l.grid[1],
            l.grid[2],
            l.block[0],
            l.block[1],
            l.block[2],
            0,
            std::ptr::null_mut(),
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    })
}

/// Waits for everything enqueued, and reports a kernel's fault.
pub fn synchronize() -> Result<(), String> {
    // SAFETY: a context is current.
    check("cuCtxSynchronize", unsafe { sys::cuCtxSynchronize() })
}

/// Two device buffers and the times of cuMemcpyDtoDAsync between them.
pub struct CopyProbe {
    src: DeviceBuf,
    dst: DeviceBuf,
    timer: Timer,
    pub times: Vec<f64>,
}

impl CopyProbe {
    pub fn new(bytes: usize) -> Result<CopyProbe, String> {
        let src = DeviceBuf::new(bytes)?;
        let dst = DeviceBuf::new(bytes)?;
        // SAFETY: both buffers hold `bytes` bytes.
        unsafe {
            check("cuMemsetD8", sys::cuMemsetD8_v2(src.ptr, 1, bytes))?;
            check("cuMemsetD8", sys::cuMemsetD8_v2(dst.ptr, 0, bytes))?;
        }
        Ok(CopyProbe {
            src,
            dst,
            timer: Timer::new()?,
            times: Vec::new(),
        })
    }

    /// One copy, timed by events; its time is kept when `keep`.
    pub fn run(&mut self, keep: bool) -> Result<(), String> {
        let (src, dst, bytes) = (self.src.ptr, self.dst.ptr, self.src.bytes);
        let t = self.timer.time(|| {
            // SAFETY: both buffers hold `bytes` bytes.
            check("cuMemcpyDtoDAsync", unsafe {
                sys::cuMemcpyDtoDAsync_v2(dst, src, bytes, std::ptr::null_mut())
            })
        })?;
        if keep {
            self.times.push(t);
        }
        Ok(())
    }

    /// Bytes read + written per second (GB/s), from the median time.
    pub fn bandwidth(&self) -> Option<f64> {
        crate::stats::median(&self.times).map(|t| 2.0 * self.src.bytes as f64 / t / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_found_by_source_name() {
        let ptx = ".visible .entry _Z5saxpyfPKfPfi(\n\t.param .f32 a,\n\t.param .u64 b,\n\t.param \
                   .u64 c,\n\t.param .u32 d\n)\n{\n}\n.visible .entry plain(\n)\n";
        let entries = ptx_entries(ptx.as_bytes());
        assert_eq!(entries, ["_Z5saxpyfPKfPfi", "plain"]);
        assert_eq!(find_entry(&entries, "saxpy"), Some("_Z5saxpyfPKfPfi"));
        assert_eq!(find_entry(&entries, "plain"), Some("plain"));
        assert_eq!(find_entry(&entries, "sax"), None);
        assert_eq!(ptx_param_count(ptx, "_Z5saxpyfPKfPfi"), Some(4));
        assert_eq!(ptx_param_count(ptx, "plain"), Some(0));
    }
}
