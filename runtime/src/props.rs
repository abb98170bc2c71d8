//! `hipDeviceProp_t`, filled from OpenCL device queries.
//!
//! The layout is HIP 6's (programs are compiled against `headers/hip/hip_runtime_api.h`, whose
//! struct must match this one field for field; the C++ test checks every offset). Values OpenCL
//! cannot tell are documented at each field.

use std::ffi::c_char;

use crate::backend::DeviceInfo;

/// The HIP API level hipmlir's headers follow, as `HIP_VERSION` encodes it
/// (major * 10000000 + minor * 100000 + patch): hip/hip_version.h's numbers (a test checks).
pub const HIP_VERSION: i32 = 60_200_000;

/// `hipDeviceArch_t`: the device's features as bits (hasGlobalInt32Atomics is bit 0, ...,
/// hasDynamicParallelism bit 16), the same as device code's `__HIP_ARCH_HAS_*__` macros
/// (headers/hip/hip_common.h).
#[repr(transparent)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HipDeviceArch(pub u32);

impl HipDeviceArch {
    /// What hipmlir's device code has on every target: integer and float atomics on global and
    /// shared memory (32- and 64-bit), doubles, warp votes, ballots, shuffles and funnel shifts,
    /// `__threadfence_system`, the `__syncthreads_*` votes, surface functions and 3-D grids; not
    /// dynamic parallelism (bit 16).
    pub const HIPMLIR: HipDeviceArch = HipDeviceArch(0xffff);
}

/// HIP 6's `hipDeviceProp_t` (ROCm's `hipDeviceProp_tR0600`), field for field; a test checks
/// every offset against the header. Values OpenCL cannot tell are documented at each field, and
/// `api::device::device_attribute` answers `hipDeviceGetAttribute` with the same values.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_snake_case)]
pub struct HipDeviceProp {
    pub name: [c_char; 256],
    /// Not queried (CL_DEVICE_UUID_KHR): zero.
    pub uuid: [c_char; 16],
    pub luid: [c_char; 8],
    pub luidDeviceNodeMask: u32,
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
    pub texturePitchAlignment: usize,
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
    /// Texture and surface limits: the arrays hipmlir makes (`arrays::TEXTURE_LIMITS`,
    /// `SURFACE_LIMITS`); no mipmaps (0).
    pub maxTexture1D: i32,
    pub maxTexture1DMipmap: i32,
    pub maxTexture1DLinear: i32,
    pub maxTexture2D: [i32; 2],
    pub maxTexture2DMipmap: [i32; 2],
    pub maxTexture2DLinear: [i32; 3],
    pub maxTexture2DGather: [i32; 2],
    pub maxTexture3D: [i32; 3],
    pub maxTexture3DAlt: [i32; 3],
    pub maxTextureCubemap: i32,
    pub maxTexture1DLayered: [i32; 2],
    pub maxTexture2DLayered: [i32; 3],
    pub maxTextureCubemapLayered: [i32; 2],
    pub maxSurface1D: i32,
    pub maxSurface2D: [i32; 2],
    pub maxSurface3D: [i32; 3],
    pub maxSurface1DLayered: [i32; 2],
    pub maxSurface2DLayered: [i32; 3],
    pub maxSurfaceCubemap: i32,
    pub maxSurfaceCubemapLayered: [i32; 2],
    pub surfaceAlignment: usize,
    pub concurrentKernels: i32,
    pub ECCEnabled: i32,
    pub pciBusID: i32,
    pub pciDeviceID: i32,
    pub pciDomainID: i32,
    pub tccDriver: i32,
    pub asyncEngineCount: i32,
    /// 1: device pointers are plain addresses (USM/SVM).
    pub unifiedAddressing: i32,
    /// kHz; unknown in OpenCL, 0.
    pub memoryClockRate: i32,
    /// Bits; unknown in OpenCL, 0.
    pub memoryBusWidth: i32,
    /// CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (saturated to i32).
    pub l2CacheSize: i32,
    pub persistingL2CacheMaxSize: i32,
    /// CL_DEVICE_MAX_WORK_GROUP_SIZE.
    pub maxThreadsPerMultiProcessor: i32,
    /// 0: stream priorities are accepted but do not order work.
    pub streamPrioritiesSupported: i32,
    pub globalL1CacheSupported: i32,
    pub localL1CacheSupported: i32,
    pub sharedMemPerMultiprocessor: usize,
    /// As regsPerBlock.
    pub regsPerMultiprocessor: i32,
    /// 1 when hipMallocManaged works (USM shared allocations).
    pub managedMemory: i32,
    pub isMultiGpuBoard: i32,
    pub multiGpuBoardGroupID: i32,
    pub hostNativeAtomicSupported: i32,
    pub singleToDoublePrecisionPerfRatio: i32,
    /// 1 on a CPU device: kernels read and write any host memory.
    pub pageableMemoryAccess: i32,
    /// As managedMemory: USM shared memory is coherent while kernels run.
    pub concurrentManagedAccess: i32,
    pub computePreemptionSupported: i32,
    pub canUseHostPointerForRegisteredMem: i32,
    /// 0: OpenCL cannot promise that every work-group of a grid is resident at once.
    pub cooperativeLaunch: i32,
    pub cooperativeMultiDeviceLaunch: i32,
    /// As sharedMemPerBlock: there is no opt-in beyond it.
    pub sharedMemPerBlockOptin: usize,
    pub pageableMemoryAccessUsesHostPageTables: i32,
    /// As managedMemory.
    pub directManagedMemAccessFromHost: i32,
    /// One warp per block: maxThreadsPerMultiProcessor / warpSize.
    pub maxBlocksPerMultiProcessor: i32,
    pub accessPolicyMaxWindowSize: i32,
    pub reservedSharedMemPerBlock: usize,
    pub hostRegisterSupported: i32,
    pub sparseHipArraySupported: i32,
    pub hostRegisterReadOnlySupported: i32,
    pub timelineSemaphoreInteropSupported: i32,
    pub memoryPoolsSupported: i32,
    pub gpuDirectRDMASupported: i32,
    pub gpuDirectRDMAFlushWritesOptions: u32,
    pub gpuDirectRDMAWritesOrdering: i32,
    pub memoryPoolSupportedHandleTypes: u32,
    pub deferredMappingHipArraySupported: i32,
    pub ipcEventSupported: i32,
    pub clusterLaunch: i32,
    pub unifiedFunctionPointers: i32,
    pub reserved: [i32; 63],
    pub hipReserved: [i32; 32],
    /// "spirv64" (there is no GCN architecture); the CUDA backend's `sm_XX`.
    pub gcnArchName: [c_char; 256],
    pub maxSharedMemoryPerMultiProcessor: usize,
    /// kHz of the counter clock64 reads (the backends set it; clockRate until then).
    pub clockInstructionRate: i32,
    pub arch: HipDeviceArch,
    /// AMD's HDP registers: none (null pointers, kept as addresses so the struct is Send).
    pub hdpMemFlushCntl: usize,
    pub hdpRegFlushCntl: usize,
    pub cooperativeMultiDeviceUnmatchedFunc: i32,
    pub cooperativeMultiDeviceUnmatchedGridDim: i32,
    pub cooperativeMultiDeviceUnmatchedBlockDim: i32,
    pub cooperativeMultiDeviceUnmatchedSharedMem: i32,
    /// 1 where the host reaches all of the device's memory (CPU and host-unified devices).
    pub isLargeBar: i32,
    pub asicRevision: i32,
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
        p.texturePitchAlignment = p.textureAlignment;
        p.surfaceAlignment = p.textureAlignment;
        p.regsPerMultiprocessor = p.regsPerBlock;
        p.singleToDoublePrecisionPerfRatio = 2;
        p.pageableMemoryAccess = i32::from(info.is_cpu);
        p.concurrentManagedAccess = p.managedMemory;
        p.directManagedMemAccessFromHost = p.managedMemory;
        p.sharedMemPerBlockOptin = p.sharedMemPerBlock;
        p.maxBlocksPerMultiProcessor =
            saturate_i32(crate::backend::occupancy::max_blocks_per_cu(info));
        p.clockInstructionRate = p.clockRate;
        p.arch = HipDeviceArch::HIPMLIR;
        p.isLargeBar = p.integrated;
        set_array_limits(&mut p);
        p
    }
}

/// The texture and surface limits: the arrays hipmlir makes, on every device (textures and
/// surfaces are read in software).
fn set_array_limits(p: &mut HipDeviceProp) {
    use crate::arrays::{ArrayLimits, MAX_LINEAR_TEXELS, SURFACE_LIMITS, TEXTURE_LIMITS};
    let n = |v: usize| saturate_i32(v);
    let (t, s): (&ArrayLimits, &ArrayLimits) = (&TEXTURE_LIMITS, &SURFACE_LIMITS);
    p.maxTexture1D = n(t.one_d);
    p.maxTexture1DLinear = n(MAX_LINEAR_TEXELS);
    p.maxTexture2D = t.two_d.map(n);
    p.maxTexture2DLinear = [n(t.two_d[0]), n(t.two_d[1]), i32::MAX];
    p.maxTexture2DGather = t.two_d.map(n);
    p.maxTexture3D = t.three_d.map(n);
    p.maxTextureCubemap = n(t.cubemap);
    p.maxTexture1DLayered = t.layered_1d.map(n);
    p.maxTexture2DLayered = t.layered_2d.map(n);
    p.maxTextureCubemapLayered = t.layered_cubemap.map(n);
    p.maxSurface1D = n(s.one_d);
    p.maxSurface2D = s.two_d.map(n);
    p.maxSurface3D = s.three_d.map(n);
    p.maxSurface1DLayered = s.layered_1d.map(n);
    p.maxSurface2DLayered = s.layered_2d.map(n);
    p.maxSurfaceCubemap = n(s.cubemap);
    p.maxSurfaceCubemapLayered = s.layered_cubemap.map(n);
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
        assert_eq!(p.maxBlocksPerMultiProcessor, 8192 / 32);
        assert_eq!(p.arch, HipDeviceArch::HIPMLIR);
        assert_eq!(p.cooperativeLaunch, 0);
        assert_eq!(p.sharedMemPerBlockOptin, 262144);
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
