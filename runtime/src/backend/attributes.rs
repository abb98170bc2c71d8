//! `hipDeviceAttribute_t` (HIP 6 numbering, the AMD-specific ones included) and the values both
//! backends derive from a device's properties; a backend answers some itself first (the CUDA
//! driver knows more than the properties say).

use std::ffi::c_int;

use super::occupancy::max_blocks_per_cu;
use super::DeviceInfo;
use crate::error::{Failure, HipResult};
use crate::props::HipDeviceProp;

macro_rules! device_attributes {
    ($($variant:ident = $code:literal,)*) => {
        /// `hipDeviceAttribute_t`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum DeviceAttribute {
            $($variant,)*
        }

        impl DeviceAttribute {
            /// The attribute a `hipDeviceAttribute_t` value names, if HIP defines it.
            pub fn from_raw(code: c_int) -> Option<Self> {
                match code {
                    $($code => Some(DeviceAttribute::$variant),)*
                    _ => None,
                }
            }

            pub fn raw(self) -> c_int {
                match self {
                    $(DeviceAttribute::$variant => $code,)*
                }
            }
        }
    };
}

device_attributes! {
    EccEnabled = 0,
    AccessPolicyMaxWindowSize = 1,
    AsyncEngineCount = 2,
    CanMapHostMemory = 3,
    CanUseHostPointerForRegisteredMem = 4,
    ClockRate = 5,
    ComputeMode = 6,
    ComputePreemptionSupported = 7,
    ConcurrentKernels = 8,
    ConcurrentManagedAccess = 9,
    CooperativeLaunch = 10,
    CooperativeMultiDeviceLaunch = 11,
    DeviceOverlap = 12,
    DirectManagedMemAccessFromHost = 13,
    GlobalL1CacheSupported = 14,
    HostNativeAtomicSupported = 15,
    Integrated = 16,
    IsMultiGpuBoard = 17,
    KernelExecTimeout = 18,
    L2CacheSize = 19,
    LocalL1CacheSupported = 20,
    Luid = 21,
    LuidDeviceNodeMask = 22,
    ComputeCapabilityMajor = 23,
    ManagedMemory = 24,
    MaxBlocksPerMultiProcessor = 25,
    MaxBlockDimX = 26,
    MaxBlockDimY = 27,
    MaxBlockDimZ = 28,
    MaxGridDimX = 29,
    MaxGridDimY = 30,
    MaxGridDimZ = 31,
    MaxSurface1D = 32,
    MaxSurface1DLayered = 33,
    MaxSurface2D = 34,
    MaxSurface2DLayered = 35,
    MaxSurface3D = 36,
    MaxSurfaceCubemap = 37,
    MaxSurfaceCubemapLayered = 38,
    MaxTexture1DWidth = 39,
    MaxTexture1DLayered = 40,
    MaxTexture1DLinear = 41,
    MaxTexture1DMipmap = 42,
    MaxTexture2DWidth = 43,
    MaxTexture2DHeight = 44,
    MaxTexture2DGather = 45,
    MaxTexture2DLayered = 46,
    MaxTexture2DLinear = 47,
    MaxTexture2DMipmap = 48,
    MaxTexture3DWidth = 49,
    MaxTexture3DHeight = 50,
    MaxTexture3DDepth = 51,
    MaxTexture3DAlt = 52,
    MaxTextureCubemap = 53,
    MaxTextureCubemapLayered = 54,
    MaxThreadsDim = 55,
    MaxThreadsPerBlock = 56,
    MaxThreadsPerMultiProcessor = 57,
    MaxPitch = 58,
    MemoryBusWidth = 59,
    MemoryClockRate = 60,
    ComputeCapabilityMinor = 61,
    MultiGpuBoardGroupId = 62,
    MultiprocessorCount = 63,
    Unused1 = 64,
    PageableMemoryAccess = 65,
    PageableMemoryAccessUsesHostPageTables = 66,
    PciBusId = 67,
    PciDeviceId = 68,
    PciDomainId = 69,
    PersistingL2CacheMaxSize = 70,
    MaxRegistersPerBlock = 71,
    MaxRegistersPerMultiprocessor = 72,
    ReservedSharedMemPerBlock = 73,
    MaxSharedMemoryPerBlock = 74,
    SharedMemPerBlockOptin = 75,
    SharedMemPerMultiprocessor = 76,
    SingleToDoublePrecisionPerfRatio = 77,
    StreamPrioritiesSupported = 78,
    SurfaceAlignment = 79,
    TccDriver = 80,
    TextureAlignment = 81,
    TexturePitchAlignment = 82,
    TotalConstantMemory = 83,
    TotalGlobalMem = 84,
    UnifiedAddressing = 85,
    Unused2 = 86,
    WarpSize = 87,
    MemoryPoolsSupported = 88,
    VirtualMemoryManagementSupported = 89,
    HostRegisterSupported = 90,
    MemoryPoolSupportedHandleTypes = 91,
    HostNumaId = 92,
    ClockInstructionRate = 10000,
    Unused3 = 10001,
    MaxSharedMemoryPerMultiprocessor = 10002,
    Unused4 = 10003,
    Unused5 = 10004,
    HdpMemFlushCntl = 10005,
    HdpRegFlushCntl = 10006,
    CooperativeMultiDeviceUnmatchedFunc = 10007,
    CooperativeMultiDeviceUnmatchedGridDim = 10008,
    CooperativeMultiDeviceUnmatchedBlockDim = 10009,
    CooperativeMultiDeviceUnmatchedSharedMem = 10010,
    IsLargeBar = 10011,
    AsicRevision = 10012,
    CanUseStreamWaitValue = 10013,
    ImageSupport = 10014,
    PhysicalMultiProcessorCount = 10015,
    FineGrainSupport = 10016,
    WallClockRate = 10017,
}

impl DeviceAttribute {
    /// The attribute, or `hipErrorInvalidValue` for a value HIP does not define.
    pub fn parse(code: c_int) -> HipResult<Self> {
        DeviceAttribute::from_raw(code).ok_or_else(|| {
            Failure::invalid_value(format!(
                "{code} is not a hipDeviceAttribute_t hipmlir knows"
            ))
        })
    }
}

/// The value of `attribute` from the device's properties. `None` for HdpMemFlushCntl and
/// HdpRegFlushCntl: an AMD GPU register's address, written as a pointer over the value; no such
/// register exists here, and writing 8 bytes into an int would overrun callers that pass one.
pub fn from_properties(
    p: &HipDeviceProp,
    info: &DeviceInfo,
    attribute: DeviceAttribute,
) -> Option<c_int> {
    use DeviceAttribute::*;
    let clamp = |v: usize| c_int::try_from(v).unwrap_or(c_int::MAX);
    Some(match attribute {
        EccEnabled => p.ECCEnabled,
        AccessPolicyMaxWindowSize
        | CanUseHostPointerForRegisteredMem
        | ComputePreemptionSupported
        | CooperativeLaunch
        | CooperativeMultiDeviceLaunch
        | GlobalL1CacheSupported
        | HostNativeAtomicSupported
        | LocalL1CacheSupported
        | Luid
        | LuidDeviceNodeMask
        | MultiGpuBoardGroupId
        | PageableMemoryAccessUsesHostPageTables
        | PersistingL2CacheMaxSize
        | ReservedSharedMemPerBlock
        | TccDriver
        | Unused2
        | VirtualMemoryManagementSupported => 0,
        // Stream-ordered allocation: the driver's pools, or the runtime's (`mempool`).
        MemoryPoolsSupported => 1,
        AsyncEngineCount => p.asyncEngineCount,
        CanMapHostMemory => p.canMapHostMemory,
        ClockRate => p.clockRate,
        ComputeMode => p.computeMode,
        ConcurrentKernels => p.concurrentKernels,
        ConcurrentManagedAccess | DirectManagedMemAccessFromHost => p.managedMemory,
        DeviceOverlap => p.deviceOverlap,
        Integrated => p.integrated,
        IsMultiGpuBoard => p.isMultiGpuBoard,
        KernelExecTimeout => p.kernelExecTimeoutEnabled,
        L2CacheSize => p.l2CacheSize,
        ComputeCapabilityMajor => p.major,
        ManagedMemory => p.managedMemory,
        MaxBlocksPerMultiProcessor => clamp(max_blocks_per_cu(info)),
        MaxBlockDimX => p.maxThreadsDim[0],
        MaxBlockDimY => p.maxThreadsDim[1],
        MaxBlockDimZ => p.maxThreadsDim[2],
        MaxGridDimX => p.maxGridSize[0],
        MaxGridDimY => p.maxGridSize[1],
        MaxGridDimZ => p.maxGridSize[2],
        // Textures and surfaces: the arrays hipmlir makes (props' limits); a 2-D surface's
        // limit is one number (square), a layered one's its width; no mipmaps.
        MaxSurface1D => p.maxSurface1D,
        MaxSurface1DLayered => p.maxSurface1DLayered[0],
        MaxSurface2D => p.maxSurface2D[0],
        MaxSurface2DLayered => p.maxSurface2DLayered[0],
        MaxSurface3D => p.maxSurface3D[0],
        MaxSurfaceCubemap => p.maxSurfaceCubemap,
        MaxSurfaceCubemapLayered => p.maxSurfaceCubemapLayered[0],
        MaxTexture1DWidth => p.maxTexture1D,
        MaxTexture1DLayered => p.maxTexture1DLayered[0],
        MaxTexture1DLinear => p.maxTexture1DLinear,
        MaxTexture2DWidth => p.maxTexture2D[0],
        MaxTexture2DHeight => p.maxTexture2D[1],
        MaxTexture2DGather => p.maxTexture2DGather[0],
        MaxTexture2DLayered => p.maxTexture2DLayered[0],
        MaxTexture2DLinear => p.maxTexture2DLinear[0],
        MaxTexture3DWidth => p.maxTexture3D[0],
        MaxTexture3DHeight => p.maxTexture3D[1],
        MaxTexture3DDepth => p.maxTexture3D[2],
        MaxTexture3DAlt => p.maxTexture3DAlt[0],
        MaxTextureCubemap => p.maxTextureCubemap,
        MaxTextureCubemapLayered => p.maxTextureCubemapLayered[0],
        MaxTexture1DMipmap | MaxTexture2DMipmap => 0,
        MaxThreadsDim => p.maxThreadsDim[0],
        MaxThreadsPerBlock => p.maxThreadsPerBlock,
        MaxThreadsPerMultiProcessor => p.maxThreadsPerMultiProcessor,
        MaxPitch => clamp(p.memPitch),
        MemoryBusWidth => p.memoryBusWidth,
        MemoryClockRate => p.memoryClockRate,
        ComputeCapabilityMinor => p.minor,
        MultiprocessorCount => p.multiProcessorCount,
        Unused1 => 0,
        PageableMemoryAccess => i32::from(info.is_cpu),
        PciBusId => p.pciBusID,
        PciDeviceId => p.pciDeviceID,
        PciDomainId => p.pciDomainID,
        MaxRegistersPerBlock | MaxRegistersPerMultiprocessor => p.regsPerBlock,
        MaxSharedMemoryPerBlock | SharedMemPerBlockOptin => clamp(p.sharedMemPerBlock),
        SharedMemPerMultiprocessor => clamp(p.sharedMemPerMultiprocessor),
        SingleToDoublePrecisionPerfRatio => 2,
        StreamPrioritiesSupported => 0,
        SurfaceAlignment => clamp(p.surfaceAlignment),
        TextureAlignment => clamp(p.textureAlignment),
        TexturePitchAlignment => clamp(p.texturePitchAlignment),
        TotalConstantMemory => clamp(p.totalConstMem),
        TotalGlobalMem => clamp(p.totalGlobalMem),
        UnifiedAddressing => p.unifiedAddressing,
        WarpSize => p.warpSize,
        HostRegisterSupported => 0,
        // The runtime's pools cannot be shared between processes.
        MemoryPoolSupportedHandleTypes => 0,
        // The device does not say.
        HostNumaId => -1,
        // kHz.
        ClockInstructionRate => p.clockInstructionRate,
        Unused3 | Unused4 | Unused5 => 0,
        MaxSharedMemoryPerMultiprocessor => clamp(p.maxSharedMemoryPerMultiProcessor),
        HdpMemFlushCntl | HdpRegFlushCntl => return None,
        // No cooperative launches.
        CooperativeMultiDeviceUnmatchedFunc
        | CooperativeMultiDeviceUnmatchedGridDim
        | CooperativeMultiDeviceUnmatchedBlockDim
        | CooperativeMultiDeviceUnmatchedSharedMem => 0,
        // The host reaches device memory.
        IsLargeBar => i32::from(info.is_cpu || info.host_unified_memory),
        AsicRevision => 0,
        // hipStreamWaitValue32/64 work on both backends (OpenCL: a host thread reads the word).
        CanUseStreamWaitValue => 1,
        // Textures, surfaces and cubemaps work on every device (read in software, no image
        // support of the device's own needed).
        ImageSupport => 1,
        PhysicalMultiProcessorCount => p.multiProcessorCount,
        // USM is coherent.
        FineGrainSupport => p.managedMemory,
        // The backends that have a wall clock answer for it themselves.
        WallClockRate => 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip() {
        for code in (0..=100).chain(10000..=10020) {
            if let Some(a) = DeviceAttribute::from_raw(code) {
                assert_eq!(a.raw(), code);
            }
        }
        assert_eq!(
            DeviceAttribute::from_raw(87),
            Some(DeviceAttribute::WarpSize)
        );
        assert_eq!(
            DeviceAttribute::from_raw(10017),
            Some(DeviceAttribute::WallClockRate)
        );
        assert!(DeviceAttribute::from_raw(93).is_none());
        assert!(DeviceAttribute::parse(9999).is_err());
    }
}
