// hipmlir's HIP host API: the C functions of libhipmlir_rt (runtime/), their types and codes.
//
// Valid C++17 including only standard headers: it is compiled by g++ and clang++ (libstdc++ or
// libc++) for host code and parsed by libclang in HIP device mode. Error codes are HIP's own
// numbers; hipDeviceProp_t is hipmlir's layout (HIP's field names), matched field for field by the
// runtime's Rust struct (runtime/src/props.rs; a test checks every offset).
#ifndef HIPMLIR_HIP_RUNTIME_API_H
#define HIPMLIR_HIP_RUNTIME_API_H

#include <stddef.h>
#include <stdint.h>

#include "hip_version.h"

#define __HIPMLIR__ 1

// Names a kernel (possibly a template instantiation with commas) in hipLaunchKernelGGL.
#define HIP_KERNEL_NAME(...) __VA_ARGS__

// A device variable as the symbol functions take it (hipMemcpyToSymbol(HIP_SYMBOL(x), ...)).
#define HIP_SYMBOL(X) ((const void*)&(X))

// Default arguments of the C functions, in C++ only.
#ifdef __cplusplus
#define HIPMLIR_DEFAULT(value) = value
#else
#define HIPMLIR_DEFAULT(value)
#endif

// The driver-API style result codes some programs compare with (HIP_SUCCESS == hipSuccess).
enum {
  HIP_SUCCESS = 0,
  HIP_ERROR_INVALID_VALUE,
  HIP_ERROR_NOT_INITIALIZED,
  HIP_ERROR_LAUNCH_OUT_OF_RESOURCES
};

// Every HIP error code, with HIP's numbers and its deprecated second spellings.
typedef enum hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorMemoryAllocation = 2,
  hipErrorNotInitialized = 3,
  hipErrorInitializationError = 3,
  hipErrorDeinitialized = 4,
  hipErrorProfilerDisabled = 5,
  hipErrorProfilerNotInitialized = 6,
  hipErrorProfilerAlreadyStarted = 7,
  hipErrorProfilerAlreadyStopped = 8,
  hipErrorInvalidConfiguration = 9,
  hipErrorInvalidPitchValue = 12,
  hipErrorInvalidSymbol = 13,
  hipErrorInvalidDevicePointer = 17,
  hipErrorInvalidMemcpyDirection = 21,
  hipErrorInsufficientDriver = 35,
  hipErrorMissingConfiguration = 52,
  hipErrorPriorLaunchFailure = 53,
  hipErrorInvalidDeviceFunction = 98,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorInvalidContext = 201,
  hipErrorContextAlreadyCurrent = 202,
  hipErrorMapFailed = 205,
  hipErrorMapBufferObjectFailed = 205,
  hipErrorUnmapFailed = 206,
  hipErrorArrayIsMapped = 207,
  hipErrorAlreadyMapped = 208,
  hipErrorNoBinaryForGpu = 209,
  hipErrorAlreadyAcquired = 210,
  hipErrorNotMapped = 211,
  hipErrorNotMappedAsArray = 212,
  hipErrorNotMappedAsPointer = 213,
  hipErrorECCNotCorrectable = 214,
  hipErrorUnsupportedLimit = 215,
  hipErrorContextAlreadyInUse = 216,
  hipErrorPeerAccessUnsupported = 217,
  hipErrorInvalidKernelFile = 218,
  hipErrorInvalidGraphicsContext = 219,
  hipErrorInvalidSource = 300,
  hipErrorFileNotFound = 301,
  hipErrorSharedObjectSymbolNotFound = 302,
  hipErrorSharedObjectInitFailed = 303,
  hipErrorOperatingSystem = 304,
  hipErrorInvalidHandle = 400,
  hipErrorInvalidResourceHandle = 400,
  hipErrorIllegalState = 401,
  hipErrorNotFound = 500,
  hipErrorNotReady = 600,
  hipErrorIllegalAddress = 700,
  hipErrorLaunchOutOfResources = 701,
  hipErrorLaunchTimeOut = 702,
  hipErrorPeerAccessAlreadyEnabled = 704,
  hipErrorPeerAccessNotEnabled = 705,
  hipErrorSetOnActiveProcess = 708,
  hipErrorContextIsDestroyed = 709,
  hipErrorAssert = 710,
  hipErrorHostMemoryAlreadyRegistered = 712,
  hipErrorHostMemoryNotRegistered = 713,
  hipErrorLaunchFailure = 719,
  hipErrorCooperativeLaunchTooLarge = 720,
  hipErrorNotSupported = 801,
  hipErrorStreamCaptureUnsupported = 900,
  hipErrorStreamCaptureInvalidated = 901,
  hipErrorStreamCaptureMerge = 902,
  hipErrorStreamCaptureUnmatched = 903,
  hipErrorStreamCaptureUnjoined = 904,
  hipErrorStreamCaptureIsolation = 905,
  hipErrorStreamCaptureImplicit = 906,
  hipErrorCapturedEvent = 907,
  hipErrorStreamCaptureWrongThread = 908,
  hipErrorGraphExecUpdateFailure = 910,
  hipErrorInvalidChannelDescriptor = 911,
  hipErrorInvalidTexture = 912,
  hipErrorUnknown = 999,
  hipErrorRuntimeMemory = 1052,
  hipErrorRuntimeOther = 1053,
  hipErrorTbd
} hipError_t;

typedef enum hipMemcpyKind {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4
} hipMemcpyKind;

// Grid and block extents. Passed by value to the runtime as three uint32_t.
struct dim3 {
  uint32_t x;
  uint32_t y;
  uint32_t z;
#ifdef __cplusplus
  constexpr dim3(uint32_t x_ = 1, uint32_t y_ = 1, uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}
#endif
};

// Streams and events: opaque handles, checked by the runtime (a destroyed or foreign handle is
// hipErrorInvalidHandle, never a crash). The null stream (0) is the legacy default stream: it
// synchronizes with every blocking stream (one created without hipStreamNonBlocking).
typedef struct ihipStream_t* hipStream_t;
typedef struct ihipEvent_t* hipEvent_t;
typedef struct ihipModule_t* hipModule_t;
typedef struct ihipModuleSymbol_t* hipFunction_t;

#define hipStreamPerThread ((hipStream_t)2)
#define hipStreamDefault 0x0
#define hipStreamNonBlocking 0x1

#define hipEventDefault 0x0
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2
#define hipEventInterprocess 0x4  // not supported: hipErrorNotSupported

#define hipHostMallocDefault 0x0
#define hipHostMallocPortable 0x1
#define hipHostMallocMapped 0x2
#define hipHostMallocWriteCombined 0x4
#define hipHostMallocNumaUser 0x20000000
#define hipHostMallocCoherent 0x40000000
#define hipHostMallocNonCoherent 0x80000000
#define hipHostAllocDefault hipHostMallocDefault
#define hipHostAllocPortable hipHostMallocPortable
#define hipHostAllocMapped hipHostMallocMapped
#define hipHostAllocWriteCombined hipHostMallocWriteCombined

#define hipMemAttachGlobal 0x01
#define hipMemAttachHost 0x02
#define hipMemAttachSingle 0x04

// Device ids with a special meaning: the host (hipMemPrefetchAsync, hipMemAdvise), none.
#define hipCpuDeviceId ((int)-1)
#define hipInvalidDeviceId ((int)-2)

typedef enum hipMemoryAdvise {
  hipMemAdviseSetReadMostly = 1,
  hipMemAdviseUnsetReadMostly = 2,
  hipMemAdviseSetPreferredLocation = 3,
  hipMemAdviseUnsetPreferredLocation = 4,
  hipMemAdviseSetAccessedBy = 5,
  hipMemAdviseUnsetAccessedBy = 6,
  hipMemAdviseSetCoarseGrain = 100,
  hipMemAdviseUnsetCoarseGrain = 101
} hipMemoryAdvise;

#define hipDeviceScheduleAuto 0x0
#define hipDeviceScheduleSpin 0x1
#define hipDeviceScheduleYield 0x2
#define hipDeviceScheduleBlockingSync 0x4
#define hipDeviceMapHost 0x8

// hipModuleLaunchKernel's `extra`: {HIP_LAUNCH_PARAM_BUFFER_POINTER, buf,
// HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END}.
#define HIP_LAUNCH_PARAM_BUFFER_POINTER ((void*)0x01)
#define HIP_LAUNCH_PARAM_BUFFER_SIZE ((void*)0x02)
#define HIP_LAUNCH_PARAM_END ((void*)0x03)

typedef enum hipMemoryType {
  hipMemoryTypeUnregistered = 0,
  hipMemoryTypeHost = 1,
  hipMemoryTypeDevice = 2,
  hipMemoryTypeManaged = 3,
  hipMemoryTypeArray = 10,
  hipMemoryTypeUnified = 11
} hipMemoryType;

typedef struct hipPointerAttribute_t {
  hipMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
  int isManaged;
  unsigned allocationFlags;
} hipPointerAttribute_t;

typedef struct hipFuncAttributes {
  int binaryVersion;
  int cacheModeCA;
  size_t constSizeBytes;
  size_t localSizeBytes;      // CL_KERNEL_PRIVATE_MEM_SIZE
  int maxDynamicSharedSizeBytes;
  int maxThreadsPerBlock;     // CL_KERNEL_WORK_GROUP_SIZE
  int numRegs;
  int preferredShmemCarveout;
  int ptxVersion;
  size_t sharedSizeBytes;     // CL_KERNEL_LOCAL_MEM_SIZE
} hipFuncAttributes;

typedef enum hipFuncCache_t {
  hipFuncCachePreferNone,
  hipFuncCachePreferShared,
  hipFuncCachePreferL1,
  hipFuncCachePreferEqual
} hipFuncCache_t;

// hipFuncSetAttribute: both are kept and reported by hipFuncGetAttributes.
typedef enum hipFuncAttribute {
  hipFuncAttributeMaxDynamicSharedMemorySize = 8,
  hipFuncAttributePreferredSharedMemoryCarveout = 9,
  hipFuncAttributeMax
} hipFuncAttribute;

#define hipOccupancyDefault 0x00
#define hipOccupancyDisableCachingOverride 0x01

// hipMemRangeGetAttribute: what hipMemAdvise and hipMemPrefetchAsync recorded for a range.
typedef enum hipMemRangeAttribute {
  hipMemRangeAttributeReadMostly = 1,
  hipMemRangeAttributePreferredLocation = 2,
  hipMemRangeAttributeAccessedBy = 3,
  hipMemRangeAttributeLastPrefetchLocation = 4,
  hipMemRangeAttributeCoherencyMode = 100
} hipMemRangeAttribute;

typedef enum hipMemRangeCoherencyMode {
  hipMemRangeCoherencyModeFineGrain = 0,
  hipMemRangeCoherencyModeCoarseGrain = 1,
  hipMemRangeCoherencyModeIndeterminate = 2
} hipMemRangeCoherencyMode;

// HIP 6 numbering. Textures and surfaces read 0 (none on OpenCL); see runtime/src/api/device.rs.
typedef enum hipDeviceAttribute_t {
  hipDeviceAttributeCudaCompatibleBegin = 0,
  hipDeviceAttributeEccEnabled = hipDeviceAttributeCudaCompatibleBegin,
  hipDeviceAttributeAccessPolicyMaxWindowSize,
  hipDeviceAttributeAsyncEngineCount,
  hipDeviceAttributeCanMapHostMemory,
  hipDeviceAttributeCanUseHostPointerForRegisteredMem,
  hipDeviceAttributeClockRate,
  hipDeviceAttributeComputeMode,
  hipDeviceAttributeComputePreemptionSupported,
  hipDeviceAttributeConcurrentKernels,
  hipDeviceAttributeConcurrentManagedAccess,
  hipDeviceAttributeCooperativeLaunch,
  hipDeviceAttributeCooperativeMultiDeviceLaunch,
  hipDeviceAttributeDeviceOverlap,
  hipDeviceAttributeDirectManagedMemAccessFromHost,
  hipDeviceAttributeGlobalL1CacheSupported,
  hipDeviceAttributeHostNativeAtomicSupported,
  hipDeviceAttributeIntegrated,
  hipDeviceAttributeIsMultiGpuBoard,
  hipDeviceAttributeKernelExecTimeout,
  hipDeviceAttributeL2CacheSize,
  hipDeviceAttributeLocalL1CacheSupported,
  hipDeviceAttributeLuid,
  hipDeviceAttributeLuidDeviceNodeMask,
  hipDeviceAttributeComputeCapabilityMajor,
  hipDeviceAttributeManagedMemory,
  hipDeviceAttributeMaxBlocksPerMultiProcessor,
  hipDeviceAttributeMaxBlockDimX,
  hipDeviceAttributeMaxBlockDimY,
  hipDeviceAttributeMaxBlockDimZ,
  hipDeviceAttributeMaxGridDimX,
  hipDeviceAttributeMaxGridDimY,
  hipDeviceAttributeMaxGridDimZ,
  hipDeviceAttributeMaxSurface1D,
  hipDeviceAttributeMaxSurface1DLayered,
  hipDeviceAttributeMaxSurface2D,
  hipDeviceAttributeMaxSurface2DLayered,
  hipDeviceAttributeMaxSurface3D,
  hipDeviceAttributeMaxSurfaceCubemap,
  hipDeviceAttributeMaxSurfaceCubemapLayered,
  hipDeviceAttributeMaxTexture1DWidth,
  hipDeviceAttributeMaxTexture1DLayered,
  hipDeviceAttributeMaxTexture1DLinear,
  hipDeviceAttributeMaxTexture1DMipmap,
  hipDeviceAttributeMaxTexture2DWidth,
  hipDeviceAttributeMaxTexture2DHeight,
  hipDeviceAttributeMaxTexture2DGather,
  hipDeviceAttributeMaxTexture2DLayered,
  hipDeviceAttributeMaxTexture2DLinear,
  hipDeviceAttributeMaxTexture2DMipmap,
  hipDeviceAttributeMaxTexture3DWidth,
  hipDeviceAttributeMaxTexture3DHeight,
  hipDeviceAttributeMaxTexture3DDepth,
  hipDeviceAttributeMaxTexture3DAlt,
  hipDeviceAttributeMaxTextureCubemap,
  hipDeviceAttributeMaxTextureCubemapLayered,
  hipDeviceAttributeMaxThreadsDim,
  hipDeviceAttributeMaxThreadsPerBlock,
  hipDeviceAttributeMaxThreadsPerMultiProcessor,
  hipDeviceAttributeMaxPitch,
  hipDeviceAttributeMemoryBusWidth,
  hipDeviceAttributeMemoryClockRate,
  hipDeviceAttributeComputeCapabilityMinor,
  hipDeviceAttributeMultiGpuBoardGroupID,
  hipDeviceAttributeMultiprocessorCount,
  hipDeviceAttributeUnused1,
  hipDeviceAttributePageableMemoryAccess,
  hipDeviceAttributePageableMemoryAccessUsesHostPageTables,
  hipDeviceAttributePciBusId,
  hipDeviceAttributePciDeviceId,
  hipDeviceAttributePciDomainID,
  hipDeviceAttributePersistingL2CacheMaxSize,
  hipDeviceAttributeMaxRegistersPerBlock,
  hipDeviceAttributeMaxRegistersPerMultiprocessor,
  hipDeviceAttributeReservedSharedMemPerBlock,
  hipDeviceAttributeMaxSharedMemoryPerBlock,
  hipDeviceAttributeSharedMemPerBlockOptin,
  hipDeviceAttributeSharedMemPerMultiprocessor,
  hipDeviceAttributeSingleToDoublePrecisionPerfRatio,
  hipDeviceAttributeStreamPrioritiesSupported,
  hipDeviceAttributeSurfaceAlignment,
  hipDeviceAttributeTccDriver,
  hipDeviceAttributeTextureAlignment,
  hipDeviceAttributeTexturePitchAlignment,
  hipDeviceAttributeTotalConstantMemory,
  hipDeviceAttributeTotalGlobalMem,
  hipDeviceAttributeUnifiedAddressing,
  hipDeviceAttributeUnused2,
  hipDeviceAttributeWarpSize,
  hipDeviceAttributeMemoryPoolsSupported,
  hipDeviceAttributeVirtualMemoryManagementSupported,
  hipDeviceAttributeHostRegisterSupported,
  hipDeviceAttributeMemoryPoolSupportedHandleTypes,
  hipDeviceAttributeHostNumaId,
  hipDeviceAttributeCudaCompatibleEnd = 9999,
  hipDeviceAttributeAmdSpecificBegin = 10000,
  hipDeviceAttributeClockInstructionRate = hipDeviceAttributeAmdSpecificBegin,
  hipDeviceAttributeUnused3,
  hipDeviceAttributeMaxSharedMemoryPerMultiprocessor,
  hipDeviceAttributeUnused4,
  hipDeviceAttributeUnused5,
  hipDeviceAttributeHdpMemFlushCntl,
  hipDeviceAttributeHdpRegFlushCntl,
  hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc,
  hipDeviceAttributeCooperativeMultiDeviceUnmatchedGridDim,
  hipDeviceAttributeCooperativeMultiDeviceUnmatchedBlockDim,
  hipDeviceAttributeCooperativeMultiDeviceUnmatchedSharedMem,
  hipDeviceAttributeIsLargeBar,
  hipDeviceAttributeAsicRevision,
  hipDeviceAttributeCanUseStreamWaitValue,
  hipDeviceAttributeImageSupport,
  hipDeviceAttributePhysicalMultiProcessorCount,
  hipDeviceAttributeFineGrainSupport,
  hipDeviceAttributeWallClockRate,
  hipDeviceAttributeAmdSpecificEnd = 19999,
  hipDeviceAttributeVendorSpecificBegin = 20000
} hipDeviceAttribute_t;

typedef struct hipDeviceProp_t {
  char name[256];
  size_t totalGlobalMem;              // CL_DEVICE_GLOBAL_MEM_SIZE
  size_t sharedMemPerBlock;           // CL_DEVICE_LOCAL_MEM_SIZE
  int regsPerBlock;                   // no OpenCL equivalent: 65536
  int warpSize;                       // subgroup size kernels run with (32 when supported)
  size_t memPitch;
  int maxThreadsPerBlock;             // CL_DEVICE_MAX_WORK_GROUP_SIZE
  int maxThreadsDim[3];               // CL_DEVICE_MAX_WORK_ITEM_SIZES
  int maxGridSize[3];                 // INT_MAX each: OpenCL bounds only the global size
  int clockRate;                      // kHz (0 if the device does not say)
  size_t totalConstMem;               // CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE
  int major;                          // the device's OpenCL version
  int minor;
  size_t textureAlignment;
  int deviceOverlap;
  int multiProcessorCount;            // CL_DEVICE_MAX_COMPUTE_UNITS
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryClockRate;
  int memoryBusWidth;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  size_t sharedMemPerMultiprocessor;
  size_t maxSharedMemoryPerMultiProcessor;
  int managedMemory;
  int isMultiGpuBoard;
  char gcnArchName[256];              // "spirv64"
  int hipmlirReserved[64];
} hipDeviceProp_t;

#ifdef __cplusplus
extern "C" {
#endif

// ---- memory ----
hipError_t hipMalloc(void** ptr, size_t size);
hipError_t hipMallocManaged(void** ptr, size_t size,
                            unsigned int flags HIPMLIR_DEFAULT(hipMemAttachGlobal));
hipError_t hipMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height);
// A 3-D allocation: `depth` slices of `height` rows of `width` bytes, rows padded to `pitch`.
typedef struct hipExtent {
  size_t width;  // bytes
  size_t height;
  size_t depth;
} hipExtent;
typedef struct hipPitchedPtr {
  void* ptr;
  size_t pitch;
  size_t xsize;
  size_t ysize;
} hipPitchedPtr;
static inline hipExtent make_hipExtent(size_t w, size_t h, size_t d) {
  hipExtent e = {w, h, d};
  return e;
}
static inline hipPitchedPtr make_hipPitchedPtr(void* d, size_t p, size_t xsz, size_t ysz) {
  hipPitchedPtr r = {d, p, xsz, ysz};
  return r;
}
hipError_t hipMalloc3D(hipPitchedPtr* pitchedDevPtr, hipExtent extent);
hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags);
hipError_t hipMallocHost(void** ptr, size_t size);
hipError_t hipHostGetDevicePointer(void** devicePointer, void* hostPointer, unsigned int flags);
hipError_t hipFree(void* ptr);
hipError_t hipHostFree(void* ptr);
hipError_t hipFreeHost(void* ptr);
hipError_t hipMemcpy(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind);
hipError_t hipMemcpyAsync(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind,
                          hipStream_t stream HIPMLIR_DEFAULT(0));
hipError_t hipMemcpyWithStream(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind,
                               hipStream_t stream);
hipError_t hipMemcpyHtoD(void* dst, const void* src, size_t sizeBytes);
hipError_t hipMemcpyDtoH(void* dst, const void* src, size_t sizeBytes);
hipError_t hipMemcpyDtoD(void* dst, const void* src, size_t sizeBytes);
hipError_t hipMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                       size_t height, hipMemcpyKind kind);
hipError_t hipMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                            size_t width, size_t height, hipMemcpyKind kind,
                            hipStream_t stream HIPMLIR_DEFAULT(0));
hipError_t hipMemset(void* dst, int value, size_t sizeBytes);
hipError_t hipMemsetAsync(void* dst, int value, size_t sizeBytes,
                          hipStream_t stream HIPMLIR_DEFAULT(0));
hipError_t hipMemsetD8(void* dst, unsigned char value, size_t count);
hipError_t hipMemsetD16(void* dst, unsigned short value, size_t count);
hipError_t hipMemsetD32(void* dst, int value, size_t count);
hipError_t hipMemsetD8Async(void* dst, unsigned char value, size_t count,
                             hipStream_t stream HIPMLIR_DEFAULT(0));
hipError_t hipMemsetD16Async(void* dst, unsigned short value, size_t count,
                             hipStream_t stream HIPMLIR_DEFAULT(0));
hipError_t hipMemsetD32Async(void* dst, int value, size_t count,
                             hipStream_t stream HIPMLIR_DEFAULT(0));
hipError_t hipMemGetInfo(size_t* free, size_t* total);
hipError_t hipPointerGetAttributes(hipPointerAttribute_t* attributes, const void* ptr);
hipError_t hipMemPrefetchAsync(const void* ptr, size_t count, int device,
                              hipStream_t stream HIPMLIR_DEFAULT(0));
hipError_t hipMemAdvise(const void* ptr, size_t count, hipMemoryAdvise advice, int device);
hipError_t hipMemRangeGetAttribute(void* data, size_t dataSize, hipMemRangeAttribute attribute,
                                   const void* ptr, size_t count);
hipError_t hipMemRangeGetAttributes(void** data, size_t* dataSizes,
                                    hipMemRangeAttribute* attributes, size_t numAttributes,
                                    const void* ptr, size_t count);

// ---- device ----
hipError_t hipInit(unsigned int flags);
hipError_t hipDeviceSynchronize(void);
// Device limits: the stack size (any value is accepted: OpenCL sizes private memory itself), the
// printf buffer (up to the device's CL_DEVICE_PRINTF_BUFFER_SIZE), no device heap.
typedef enum hipLimit_t {
  hipLimitStackSize = 0x0,
  hipLimitPrintfFifoSize = 0x01,
  hipLimitMallocHeapSize = 0x02,
} hipLimit_t;
hipError_t hipDeviceGetLimit(size_t* pValue, hipLimit_t limit);
hipError_t hipDeviceSetLimit(hipLimit_t limit, size_t value);
hipError_t hipDeviceReset(void);
hipError_t hipGetDeviceCount(int* count);
hipError_t hipSetDevice(int deviceId);
hipError_t hipGetDevice(int* deviceId);
hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int deviceId);
hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attribute, int deviceId);
hipError_t hipDeviceGetName(char* name, int len, int deviceId);
hipError_t hipDeviceTotalMem(size_t* bytes, int deviceId);
hipError_t hipDeviceComputeCapability(int* major, int* minor, int deviceId);
hipError_t hipDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority);
hipError_t hipSetDeviceFlags(unsigned int flags);
hipError_t hipGetDeviceFlags(unsigned int* flags);
hipError_t hipChooseDevice(int* device, const hipDeviceProp_t* prop);
hipError_t hipDeviceGetPCIBusId(char* pciBusId, int len, int device);
hipError_t hipDeviceGetByPCIBusId(int* device, const char* pciBusId);
hipError_t hipDeviceSetCacheConfig(hipFuncCache_t config);
hipError_t hipDeviceCanAccessPeer(int* canAccess, int deviceId, int peerDeviceId);
hipError_t hipDriverGetVersion(int* driverVersion);
hipError_t hipRuntimeGetVersion(int* runtimeVersion);

// ---- errors ----
hipError_t hipGetLastError(void);
hipError_t hipPeekAtLastError(void);
const char* hipGetErrorString(hipError_t error);
const char* hipGetErrorName(hipError_t error);

// ---- streams ----
hipError_t hipStreamCreate(hipStream_t* stream);
hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned int flags);
hipError_t hipStreamCreateWithPriority(hipStream_t* stream, unsigned int flags, int priority);
hipError_t hipStreamDestroy(hipStream_t stream);
hipError_t hipStreamSynchronize(hipStream_t stream);
hipError_t hipStreamQuery(hipStream_t stream);
hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event,
                              unsigned int flags HIPMLIR_DEFAULT(0));
// Host work in stream order: runs once earlier work on the stream is done, on a runtime thread;
// later work waits for it to return. It must not call HIP.
typedef void (*hipHostFn_t)(void* userData);
typedef void (*hipStreamCallback_t)(hipStream_t stream, hipError_t status, void* userData);
hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void* userData);
hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback, void* userData,
                                unsigned int flags);
hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int* flags);
hipError_t hipStreamGetPriority(hipStream_t stream, int* priority);

// ---- events ----
hipError_t hipEventCreate(hipEvent_t* event);
hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned int flags);
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream HIPMLIR_DEFAULT(0));
hipError_t hipEventSynchronize(hipEvent_t event);
hipError_t hipEventQuery(hipEvent_t event);
hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop);
hipError_t hipEventDestroy(hipEvent_t event);

// ---- modules (raw SPIR-V files or hipmlir device images) ----
hipError_t hipModuleLoad(hipModule_t* module, const char* fname);
hipError_t hipModuleLoadData(hipModule_t* module, const void* image);
hipError_t hipModuleLoadDataEx(hipModule_t* module, const void* image, unsigned int numOptions,
                               int* options, void** optionValues);
hipError_t hipModuleUnload(hipModule_t module);
hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* name);
hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
                                 unsigned int gridDimZ, unsigned int blockDimX,
                                 unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, hipStream_t stream,
                                 void** kernelParams, void** extra);
hipError_t hipModuleGetGlobal(void** dptr, size_t* bytes, hipModule_t module, const char* name);

// ---- kernels ----
// `function` is a kernel's host stub (or a hipFunction_t); `args` one pointer per argument.
hipError_t hipLaunchKernel(const void* function, dim3 grid, dim3 block, void** args,
                           size_t sharedMemBytes HIPMLIR_DEFAULT(0),
                           hipStream_t stream HIPMLIR_DEFAULT(0));
hipError_t hipFuncGetAttributes(hipFuncAttributes* attr, const void* function);
hipError_t hipOccupancyMaxPotentialBlockSize(int* gridSize, int* blockSize, const void* function,
                                             size_t dynSharedMemPerBlk, int blockSizeLimit);
hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* function,
                                                        int blockSize, size_t dynSharedMemPerBlk);
hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks,
                                                                 const void* function,
                                                                 int blockSize,
                                                                 size_t dynSharedMemPerBlk,
                                                                 unsigned int flags);
hipError_t hipFuncSetAttribute(const void* function, hipFuncAttribute attr, int value);
hipError_t hipFuncSetCacheConfig(const void* function, hipFuncCache_t config);

// ---- device variables (__device__ / __constant__) ----
// `symbol` is the variable's host-side address: HIP_SYMBOL(x), or pass `x` itself to the C++
// templates below. Offsets and sizes beyond the variable are hipErrorInvalidValue; a pointer that
// is no device variable is hipErrorInvalidSymbol.
hipError_t hipMemcpyToSymbol(const void* symbol, const void* src, size_t sizeBytes,
                             size_t offset HIPMLIR_DEFAULT(0),
                             hipMemcpyKind kind HIPMLIR_DEFAULT(hipMemcpyHostToDevice));
hipError_t hipMemcpyFromSymbol(void* dst, const void* symbol, size_t sizeBytes,
                               size_t offset HIPMLIR_DEFAULT(0),
                               hipMemcpyKind kind HIPMLIR_DEFAULT(hipMemcpyDeviceToHost));
hipError_t hipMemcpyToSymbolAsync(const void* symbol, const void* src, size_t sizeBytes,
                                  size_t offset, hipMemcpyKind kind,
                                  hipStream_t stream HIPMLIR_DEFAULT(0));
hipError_t hipMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t sizeBytes,
                                    size_t offset, hipMemcpyKind kind,
                                    hipStream_t stream HIPMLIR_DEFAULT(0));
hipError_t hipGetSymbolAddress(void** devPtr, const void* symbol);
hipError_t hipGetSymbolSize(size_t* size, const void* symbol);

// ---- not supported yet: each returns hipErrorNotSupported (and says so once on stderr) ----
hipError_t hipHostRegister(void* hostPtr, size_t sizeBytes, unsigned int flags);
hipError_t hipHostUnregister(void* hostPtr);
hipError_t hipLaunchCooperativeKernel(const void* f, dim3 gridDim, dim3 blockDim,
                                      void** kernelParams, unsigned int sharedMemBytes,
                                      hipStream_t stream);
hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags);
hipError_t hipMemcpyPeer(void* dst, int dstDeviceId, const void* src, int srcDeviceId,
                         size_t sizeBytes);

// Launches a kernel by name (mangled, or as spelled in source: "scale<float>"), with its
// arguments packed like a C struct of its parameters. Asynchronous.
hipError_t hipLaunchKernelByName(const char* name, dim3 grid, dim3 block, size_t sharedMemBytes,
                                 hipStream_t stream, const void* args, size_t argsSize);

// hipmlir's registration and launch entry points, used by compiled programs and hipmlir_launch.h.
void __hipmlirRegisterImage(const unsigned char* bundle, size_t size);
void __hipmlirRegisterFunction(const void* hostFunction, const char* kernelName);
void __hipmlirRegisterVar(const void* hostShadow, const char* name, size_t size);
hipError_t __hipmlirLaunchKernelGGL(const void* hostFunction, const char* spelledName, dim3 grid,
                                    dim3 block, size_t sharedMemBytes, hipStream_t stream,
                                    const void* args, size_t argsSize);
// Finds the kernel of a host stub whose parameters include closure objects: closures[i] names
// the lambda of parameter i ("(lambda at file:line:col)", as the device compile spells its
// closure type), or is null.
hipError_t __hipmlirRegisterClosureStub(const void* hostFunction, const char* spelledName,
                                        const char* const* closures, size_t count);

#ifdef __cplusplus
}  // extern "C"

// HIP's typed convenience overloads: hipMalloc(&floatPtr, bytes), default flags, and kernels
// passed by name where HIP takes `const void*`.
template <class T>
static inline hipError_t hipMalloc(T** ptr, size_t size) {
  return hipMalloc(reinterpret_cast<void**>(ptr), size);
}
template <class T>
static inline hipError_t hipMallocManaged(T** ptr, size_t size,
                                          unsigned int flags = hipMemAttachGlobal) {
  return hipMallocManaged(reinterpret_cast<void**>(ptr), size, flags);
}
template <class T>
static inline hipError_t hipHostMalloc(T** ptr, size_t size,
                                       unsigned int flags = hipHostMallocDefault) {
  return hipHostMalloc(reinterpret_cast<void**>(ptr), size, flags);
}
template <class T>
static inline hipError_t hipMallocHost(T** ptr, size_t size) {
  return hipMallocHost(reinterpret_cast<void**>(ptr), size);
}
template <class T>
static inline hipError_t hipMallocPitch(T** ptr, size_t* pitch, size_t width, size_t height) {
  return hipMallocPitch(reinterpret_cast<void**>(ptr), pitch, width, height);
}
// (F* rather than void (*)(Params...): in HIP device mode a kernel's type carries a calling
// convention no C++ spelling matches.)
template <class F>
static inline hipError_t hipFuncGetAttributes(hipFuncAttributes* attr, F* kernel) {
  return hipFuncGetAttributes(attr, reinterpret_cast<const void*>(kernel));
}
template <class F>
static inline hipError_t hipOccupancyMaxPotentialBlockSize(int* gridSize, int* blockSize,
                                                           F* kernel,
                                                           size_t dynSharedMemPerBlk = 0,
                                                           int blockSizeLimit = 0) {
  return hipOccupancyMaxPotentialBlockSize(gridSize, blockSize,
                                           reinterpret_cast<const void*>(kernel),
                                           dynSharedMemPerBlk, blockSizeLimit);
}
template <class F>
static inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, F* kernel,
                                                                      int blockSize,
                                                                      size_t dynSharedMemPerBlk) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessor(
      numBlocks, reinterpret_cast<const void*>(kernel), blockSize, dynSharedMemPerBlk);
}
template <class F>
static inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* numBlocks, F* kernel, int blockSize, size_t dynSharedMemPerBlk, unsigned int flags) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
      numBlocks, reinterpret_cast<const void*>(kernel), blockSize, dynSharedMemPerBlk, flags);
}
template <class F>
static inline hipError_t hipFuncSetAttribute(F* kernel, hipFuncAttribute attr, int value) {
  return hipFuncSetAttribute(reinterpret_cast<const void*>(kernel), attr, value);
}
template <class F>
static inline hipError_t hipFuncSetCacheConfig(F* kernel, hipFuncCache_t config) {
  return hipFuncSetCacheConfig(reinterpret_cast<const void*>(kernel), config);
}
// Device variables passed by name: hipMemcpyToSymbol(coeffs, ...) means HIP_SYMBOL(coeffs).
// (A `const void*` argument, HIP_SYMBOL's result, picks the C function: non-templates win ties.)
template <class T>
static inline hipError_t hipMemcpyToSymbol(const T& symbol, const void* src, size_t sizeBytes,
                                           size_t offset = 0,
                                           hipMemcpyKind kind = hipMemcpyHostToDevice) {
  return hipMemcpyToSymbol((const void*)&symbol, src, sizeBytes, offset, kind);
}
template <class T>
static inline hipError_t hipMemcpyFromSymbol(void* dst, const T& symbol, size_t sizeBytes,
                                             size_t offset = 0,
                                             hipMemcpyKind kind = hipMemcpyDeviceToHost) {
  return hipMemcpyFromSymbol(dst, (const void*)&symbol, sizeBytes, offset, kind);
}
template <class T>
static inline hipError_t hipMemcpyToSymbolAsync(const T& symbol, const void* src,
                                                size_t sizeBytes, size_t offset,
                                                hipMemcpyKind kind, hipStream_t stream = 0) {
  return hipMemcpyToSymbolAsync((const void*)&symbol, src, sizeBytes, offset, kind, stream);
}
template <class T>
static inline hipError_t hipMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t sizeBytes,
                                                  size_t offset, hipMemcpyKind kind,
                                                  hipStream_t stream = 0) {
  return hipMemcpyFromSymbolAsync(dst, (const void*)&symbol, sizeBytes, offset, kind, stream);
}
template <class T>
static inline hipError_t hipGetSymbolAddress(void** devPtr, const T& symbol) {
  return hipGetSymbolAddress(devPtr, (const void*)&symbol);
}
template <class T>
static inline hipError_t hipGetSymbolSize(size_t* size, const T& symbol) {
  return hipGetSymbolSize(size, (const void*)&symbol);
}
// A literal nullptr is a null symbol (hipErrorInvalidSymbol), not the address of a temporary.
static inline hipError_t hipMemcpyToSymbol(decltype(nullptr), const void* src, size_t sizeBytes,
                                           size_t offset = 0,
                                           hipMemcpyKind kind = hipMemcpyHostToDevice) {
  return hipMemcpyToSymbol(static_cast<const void*>(nullptr), src, sizeBytes, offset, kind);
}
static inline hipError_t hipMemcpyFromSymbol(void* dst, decltype(nullptr), size_t sizeBytes,
                                             size_t offset = 0,
                                             hipMemcpyKind kind = hipMemcpyDeviceToHost) {
  return hipMemcpyFromSymbol(dst, static_cast<const void*>(nullptr), sizeBytes, offset, kind);
}
static inline hipError_t hipMemcpyToSymbolAsync(decltype(nullptr), const void* src,
                                                size_t sizeBytes, size_t offset,
                                                hipMemcpyKind kind, hipStream_t stream = 0) {
  return hipMemcpyToSymbolAsync(static_cast<const void*>(nullptr), src, sizeBytes, offset, kind,
                                stream);
}
static inline hipError_t hipMemcpyFromSymbolAsync(void* dst, decltype(nullptr), size_t sizeBytes,
                                                  size_t offset, hipMemcpyKind kind,
                                                  hipStream_t stream = 0) {
  return hipMemcpyFromSymbolAsync(dst, static_cast<const void*>(nullptr), sizeBytes, offset,
                                  kind, stream);
}
static inline hipError_t hipGetSymbolAddress(void** devPtr, decltype(nullptr)) {
  return hipGetSymbolAddress(devPtr, static_cast<const void*>(nullptr));
}
static inline hipError_t hipGetSymbolSize(size_t* size, decltype(nullptr)) {
  return hipGetSymbolSize(size, static_cast<const void*>(nullptr));
}
template <class F>
static inline hipError_t hipLaunchKernel(F* kernel, dim3 grid, dim3 block,
                                         void** args, size_t sharedMemBytes = 0,
                                         hipStream_t stream = 0) {
  return hipLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, args, sharedMemBytes,
                         stream);
}
// A cooperative launch promises that every block of the grid runs at once (for
// cooperative_groups::grid_group::sync()). OpenCL cannot promise that for several work-groups,
// so only a single-block grid, trivially resident, is launched (as hipLaunchKernel does); a
// larger grid goes to the runtime's hipLaunchCooperativeKernel, which returns
// hipErrorNotSupported.
template <class F>
static inline hipError_t hipLaunchCooperativeKernel(F* kernel, dim3 grid, dim3 block,
                                                    void** args, unsigned int sharedMemBytes = 0,
                                                    hipStream_t stream = 0) {
  const void* f = reinterpret_cast<const void*>(kernel);
  if (grid.x == 1 && grid.y == 1 && grid.z == 1) {
    return hipLaunchKernel(f, grid, block, args, sharedMemBytes, stream);
  }
  return hipLaunchCooperativeKernel(f, grid, block, args, sharedMemBytes, stream);
}
#endif

// Arrays, texture objects and 3-D copies.
#include "hipmlir_texture_types.h"

#endif  // HIPMLIR_HIP_RUNTIME_API_H
