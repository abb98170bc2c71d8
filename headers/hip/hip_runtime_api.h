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

// The HIP API level these headers follow (HIP_VERSION encoding: major*10000000 + minor*100000 +
// patch). hipRuntimeGetVersion and hipDriverGetVersion report the same number.
#ifndef HIP_VERSION_MAJOR
#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 2
#define HIP_VERSION_PATCH 0
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)
#endif

#define __HIPMLIR__ 1

// Names a kernel (possibly a template instantiation with commas) in hipLaunchKernelGGL.
#define HIP_KERNEL_NAME(...) __VA_ARGS__

typedef enum hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorMemoryAllocation = 2,
  hipErrorNotInitialized = 3,
  hipErrorInitializationError = 3,
  hipErrorInvalidConfiguration = 9,
  hipErrorInvalidSymbol = 13,
  hipErrorInvalidDevicePointer = 17,
  hipErrorInvalidMemcpyDirection = 21,
  hipErrorInsufficientDriver = 35,
  hipErrorInvalidDeviceFunction = 98,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorInvalidContext = 201,
  hipErrorNoBinaryForGpu = 209,
  hipErrorInvalidKernelFile = 218,
  hipErrorInvalidSource = 300,
  hipErrorFileNotFound = 301,
  hipErrorSharedObjectInitFailed = 303,
  hipErrorInvalidHandle = 400,
  hipErrorInvalidResourceHandle = 400,
  hipErrorNotFound = 500,
  hipErrorNotReady = 600,
  hipErrorIllegalAddress = 700,
  hipErrorLaunchOutOfResources = 701,
  hipErrorAssert = 710,
  hipErrorLaunchFailure = 719,
  hipErrorNotSupported = 801,
  hipErrorUnknown = 999,
  hipErrorRuntimeMemory = 1052,
  hipErrorRuntimeOther = 1053
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

// Streams: opaque; only the null stream (0) is supported for now.
typedef struct ihipStream_t* hipStream_t;

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

hipError_t hipMalloc(void** ptr, size_t size);
hipError_t hipFree(void* ptr);
hipError_t hipMemcpy(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind);
hipError_t hipMemset(void* dst, int value, size_t sizeBytes);
hipError_t hipDeviceSynchronize(void);

hipError_t hipGetLastError(void);
hipError_t hipPeekAtLastError(void);
const char* hipGetErrorString(hipError_t error);
const char* hipGetErrorName(hipError_t error);

hipError_t hipGetDeviceCount(int* count);
hipError_t hipSetDevice(int deviceId);
hipError_t hipGetDevice(int* deviceId);
hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int deviceId);
hipError_t hipDriverGetVersion(int* driverVersion);
hipError_t hipRuntimeGetVersion(int* runtimeVersion);

// Launches a kernel by name (mangled, or as spelled in source: "scale<float>"), with its
// arguments packed like a C struct of its parameters. Asynchronous.
hipError_t hipLaunchKernelByName(const char* name, dim3 grid, dim3 block, size_t sharedMemBytes,
                                 hipStream_t stream, const void* args, size_t argsSize);

// hipmlir's registration and launch entry points, used by compiled programs and hipmlir_launch.h.
void __hipmlirRegisterImage(const unsigned char* bundle, size_t size);
void __hipmlirRegisterFunction(const void* hostFunction, const char* kernelName);
hipError_t __hipmlirLaunchKernelGGL(const void* hostFunction, const char* spelledName, dim3 grid,
                                    dim3 block, size_t sharedMemBytes, hipStream_t stream,
                                    const void* args, size_t argsSize);

#ifdef __cplusplus
}  // extern "C"

// HIP's typed convenience overload: hipMalloc(&floatPtr, bytes).
template <class T>
static inline hipError_t hipMalloc(T** ptr, size_t size) {
  return hipMalloc(reinterpret_cast<void**>(ptr), size);
}
#endif

#endif  // HIPMLIR_HIP_RUNTIME_API_H
