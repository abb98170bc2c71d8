//! `hipDeviceProp_t`, filled from OpenCL device queries.
//!
//! The layout is hipmlir's own (programs are compiled against `headers/hip/hip_runtime_api.h`, whose
//! struct must match this one field for field; the C++ test checks every offset). Field names and
//! meanings follow HIP. Values OpenCL cannot tell are documented at each field.

use std::ffi::c_char;

use crate::backend::DeviceInfo;

/// The HIP API level hipmlir's headers follow, as `HIP_VERSION` encodes it
/// (major * 10000000 + minor * 100000 + patch): hip/hip_version.h's numbers (a test checks).
pub const HIP_VERSION: i32 = 60_200_000;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_snake_case)]
pub struct HipDeviceProp {
    pub name: [c_char; 256],
    /// CL_DEVICE_GLOBAL_MEM_SIZE.
    pub totalGlobalMem: usize,
    /// CL_DEVICE_LOCAL_MEM_SIZE.
    pub sharedMemPerBlock: usize,
    /// OpenCL has no register count; 65536, what HIP reports on AMD GPUs.
    pub regsPerBlock: i32,
    /// The subgroup size kernels run with (see `device::choose_warp_size`).
    pub warpSize: i32,
    /// Largest pitch for 2-D copies: CL_DEVICE_MAX_MEM_ALLOC_SIZE is not tracked, so i32::MAX.
    pub memPitch: usize,
    /// CL_DEVICE_MAX_WORK_GROUP_SIZE.
    pub maxThreadsPerBlock: i32,
    /// CL_DEVICE_MAX_WORK_ITEM_SIZES.
    pub maxThreadsDim: [i32; 3],
    /// OpenCL bounds only the global size (a size_t); i32::MAX in each dimension.
    pub maxGridSize: [i32; 3],
    /// kHz, from CL_DEVICE_MAX_CLOCK_FREQUENCY (MHz); 0 when the device does not say.
    pub clockRate: i32,
    /// CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE.
    pub totalConstMem: usize,
    /// The device's OpenCL version (3.1 gives major 3, minor 1).
    pub major: i32,
    pub minor: i32,
    pub textureAlignment: usize,
    /// 1: streams are separate queues, so copies may overlap kernels.
    pub deviceOverlap: i32,
    /// CL_DEVICE_MAX_COMPUTE_UNITS.
    pub multiProcessorCount: i32,
    pub kernelExecTimeoutEnabled: i32,
    /// 1 for CPU devices and devices with host-unified memory.
    pub integrated: i32,
    pub canMapHostMemory: i32,
    /// 0: hipComputeModeDefault.
    pub computeMode: i32,
    pub concurrentKernels: i32,
    pub ECCEnabled: i32,
    pub pciBusID: i32,
    pub pciDeviceID: i32,
    pub pciDomainID: i32,
    pub asyncEngineCount: i32,
    /// 1: device pointers are plain addresses (USM/SVM).
    pub unifiedAddressing: i32,
    /// kHz; unknown in OpenCL, 0.
    pub memoryClockRate: i32,
    /// Bits; unknown in OpenCL, 0.
    pub memoryBusWidth: i32,
    /// CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (saturated to i32).
    pub l2CacheSize: i32,
    /// CL_DEVICE_MAX_WORK_GROUP_SIZE.
    pub maxThreadsPerMultiProcessor: i32,
    pub sharedMemPerMultiprocessor: usize,
    pub maxSharedMemoryPerMultiProcessor: usize,
    /// 1 when hipMallocManaged works (USM shared allocations).
    pub managedMemory: i32,
    pub isMultiGpuBoard: i32,
    /// "spirv64" (there is no GCN architecture).
    pub gcnArchName: [c_char; 256],
    /// Room to add fields without changing the struct's size.
    pub hipmlirReserved: [i32; 64],
}

impl Default for HipDeviceProp {
    fn default() -> Self {
        // SAFETY: every field is an integer or an array of integers; all-zero is valid.
        unsafe { std::mem::zeroed() }
    }
}

fn saturate_i32<T: TryInto<i32>>(v: T) -> i32 {
    v.try_into().unwrap_or(i32::MAX)
}

fn saturate_usize(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// Copies `text` into a C string field, truncating at a character boundary; always NUL-terminated.
fn copy_c_string(dst: &mut [c_char], text: &str) {
    dst.fill(0);
    let room = dst.len().saturating_sub(1);
    let mut end = text.len().min(room);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    for (d, &b) in dst.iter_mut().zip(text.as_bytes()[..end].iter()) {
        *d = b as c_char;
    }
}

/// Sets `gcnArchName` (the CUDA backend's `sm_90`).
pub fn set_arch_name(p: &mut HipDeviceProp, arch: &str) {
    copy_c_string(&mut p.gcnArchName, arch);
}

impl HipDeviceProp {
    pub fn from_device(info: &DeviceInfo) -> Self {
        let mut p = HipDeviceProp::default();
        copy_c_string(&mut p.name, info.name.trim());
        copy_c_string(&mut p.gcnArchName, "spirv64");
        p.totalGlobalMem = saturate_usize(info.global_mem_size);
        p.sharedMemPerBlock = saturate_usize(info.local_mem_size);
        p.regsPerBlock = 65536;
        p.warpSize = saturate_i32(info.warp_size());
        p.memPitch = i32::MAX as usize;
        p.maxThreadsPerBlock = saturate_i32(info.max_work_group_size);
        p.maxThreadsDim = info.max_work_item_sizes.map(saturate_i32);
        p.maxGridSize = [crate::backend::MAX_GRID_DIM; 3];
        p.clockRate = saturate_i32(u64::from(info.max_clock_frequency) * 1000);
        p.totalConstMem = saturate_usize(info.max_constant_buffer_size);
        (p.major, p.minor) = info.opencl_version();
        p.textureAlignment = 256;
        p.multiProcessorCount = saturate_i32(info.max_compute_units);
        p.integrated = i32::from(info.is_cpu || info.host_unified_memory);
        let usm = info.has_extension("cl_intel_unified_shared_memory");
        p.managedMemory = i32::from(usm);
        p.canMapHostMemory = i32::from(usm);
        p.deviceOverlap = 1;
        p.concurrentKernels = 1;
        p.asyncEngineCount = 1;
        p.unifiedAddressing = 1;
        p.l2CacheSize = saturate_i32(info.global_mem_cache_size);
        p.maxThreadsPerMultiProcessor = saturate_i32(info.max_work_group_size);
        p.sharedMemPerMultiprocessor = saturate_usize(info.local_mem_size);
        p.maxSharedMemoryPerMultiProcessor = saturate_usize(info.local_mem_size);
        p
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hip_version_is_the_headers() {
        let (major, minor, patch) = hipmlir_device_image::hip_api_version();
        assert_eq!(
            super::HIP_VERSION as u32,
            major * 10_000_000 + minor * 100_000 + patch
        );
    }

    use super::*;

    fn c_str(field: &[c_char]) -> String {
        let bytes: Vec<u8> = field
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn fills_from_device_info() {
        let info = DeviceInfo {
            name: "  Some CPU ".into(),
            version: "OpenCL 3.1 (Build 0)".into(),
            global_mem_size: 1 << 34,
            local_mem_size: 262144,
            max_constant_buffer_size: 131072,
            max_compute_units: 2,
            max_clock_frequency: 2500,
            max_work_group_size: 8192,
            max_work_item_sizes: [8192, 8192, 8192],
            sub_group_sizes: vec![4, 8, 16, 32, 64],
            is_cpu: true,
            ..DeviceInfo::default()
        };
        let p = HipDeviceProp::from_device(&info);
        assert_eq!(c_str(&p.name), "Some CPU");
        assert_eq!(c_str(&p.gcnArchName), "spirv64");
        assert_eq!(p.totalGlobalMem, 1 << 34);
        assert_eq!(p.sharedMemPerBlock, 262144);
        assert_eq!(p.warpSize, 32);
        assert_eq!(p.maxThreadsPerBlock, 8192);
        assert_eq!(p.maxThreadsDim, [8192; 3]);
        assert_eq!(p.clockRate, 2_500_000);
        assert_eq!((p.major, p.minor), (3, 1));
        assert_eq!(p.multiProcessorCount, 2);
        assert_eq!(p.integrated, 1);
    }

    #[test]
    fn long_names_are_truncated_and_terminated() {
        let mut field = [1 as c_char; 8];
        copy_c_string(&mut field, "abcdefghijkl");
        assert_eq!(c_str(&field), "abcdefg");
        copy_c_string(&mut field, "ééééé"); // 2-byte characters: cut at a boundary
        assert_eq!(c_str(&field), "ééé");
    }
}
