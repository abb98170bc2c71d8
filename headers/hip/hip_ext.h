// HIP's extensions beyond CUDA's API: launches that record events around the kernel
// (hipExtLaunchKernelGGL, hipExtModuleLaunchKernel) and the other hipExt* functions, which
// hip_runtime_api.h declares.
#ifndef HIPMLIR_HIP_EXT_H
#define HIPMLIR_HIP_EXT_H

#include "hip_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

// hipModuleLaunchKernel with the grid given in work-items (each a multiple of the block's
// extent), events recorded before and after the kernel (either may be null), and flags
// (hipExtAnyOrderLaunch).
hipError_t hipExtModuleLaunchKernel(hipFunction_t f, uint32_t globalWorkSizeX,
                                    uint32_t globalWorkSizeY, uint32_t globalWorkSizeZ,
                                    uint32_t localWorkSizeX, uint32_t localWorkSizeY,
                                    uint32_t localWorkSizeZ, size_t sharedMemBytes,
                                    hipStream_t hStream, void** kernelParams, void** extra,
                                    hipEvent_t startEvent HIPMLIR_DEFAULT(0),
                                    hipEvent_t stopEvent HIPMLIR_DEFAULT(0),
                                    uint32_t flags HIPMLIR_DEFAULT(0));
// The same, under its HCC-era name (deprecated by HIP).
hipError_t hipHccModuleLaunchKernel(hipFunction_t f, uint32_t globalWorkSizeX,
                                    uint32_t globalWorkSizeY, uint32_t globalWorkSizeZ,
                                    uint32_t localWorkSizeX, uint32_t localWorkSizeY,
                                    uint32_t localWorkSizeZ, size_t sharedMemBytes,
                                    hipStream_t hStream, void** kernelParams, void** extra,
                                    hipEvent_t startEvent HIPMLIR_DEFAULT(0),
                                    hipEvent_t stopEvent HIPMLIR_DEFAULT(0));

#ifdef __cplusplus
}  // extern "C"

#if !defined(__HIP_DEVICE_COMPILE__)
#include <tuple>
#include <utility>

namespace __hipmlir_ext {
// Launches `kernel` with `args` converted to its parameters' types (as a launch converts them),
// between two event records: the start event is reached when the stream reaches the kernel, the
// stop event when the kernel is done.
template <class... Params, class... Args>
inline hipError_t launch_between_events(void (*kernel)(Params...), dim3 grid, dim3 block,
                                        uint32_t shared_mem_bytes, hipStream_t stream,
                                        hipEvent_t start, hipEvent_t stop, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "hipExtLaunchKernelGGL: the number of kernel arguments differs from the number "
                "of the kernel's parameters");
  std::tuple<Params...> converted(std::forward<Args>(args)...);
  hipError_t err = hipSuccess;
  if (start != nullptr && (err = hipEventRecord(start, stream)) != hipSuccess) return err;
  err = std::apply(
      [&](auto&... values) {
        void* pointers[sizeof...(Params) + 1] = {static_cast<void*>(&values)..., nullptr};
        return hipLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, pointers,
                               shared_mem_bytes, stream);
      },
      converted);
  if (err != hipSuccess) return err;
  if (stop != nullptr) err = hipEventRecord(stop, stream);
  return err;
}
}  // namespace __hipmlir_ext
#endif

// hipLaunchKernelGGL with events recorded before and after the kernel (either may be null) and
// launch flags (hipExtAnyOrderLaunch lets the kernel run out of order with the stream's other
// work; hipmlir keeps stream order, which that allows). The device-side parse reads it as the
// launch it makes, so that clang chooses the kernel (a template's instance from the arguments)
// and hipmlir compiles that instance.
#if defined(__HIP_DEVICE_COMPILE__)
#define hipExtLaunchKernelGGL(kernelName, numBlocks, dimBlocks, sharedMemBytes, stream,        \
                              startEvent, stopEvent, flags, ...)                                \
  ((void)(startEvent), (void)(stopEvent), (void)(flags),                                       \
   (void)hipLaunchKernelGGL(kernelName, numBlocks, dimBlocks, sharedMemBytes, stream,           \
                            ##__VA_ARGS__))
#else
template <typename... Args, typename F = void (*)(Args...)>
inline void hipExtLaunchKernelGGL(F kernel, const dim3& numBlocks, const dim3& dimBlocks,
                                  uint32_t sharedMemBytes, hipStream_t stream,
                                  hipEvent_t startEvent, hipEvent_t stopEvent, uint32_t flags,
                                  Args... args) {
  (void)flags;
  (void)__hipmlir_ext::launch_between_events(kernel, numBlocks, dimBlocks, sharedMemBytes, stream,
                                             startEvent, stopEvent, args...);
}
#endif
#endif  // __cplusplus

#endif  // HIPMLIR_HIP_EXT_H
