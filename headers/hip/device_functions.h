// ROCm's header of HIP's device functions (synchronization, atomics, warp operations, integer and
// floating-point intrinsics). hipmlir declares them with the rest of the device API in
// hip_runtime.h, which this includes.
#ifndef HIPMLIR_DEVICE_FUNCTIONS_H
#define HIPMLIR_DEVICE_FUNCTIONS_H
#include "hip_runtime.h"
#endif  // HIPMLIR_DEVICE_FUNCTIONS_H
