// ROCm's name for part of the HIP API: here it is all in hip_runtime_api.h (types, host functions)
// and hip_runtime.h (device functions), which this includes.
#ifndef HIPMLIR_FORWARD_HIP_TEXTURE_TYPES_H
#define HIPMLIR_FORWARD_HIP_TEXTURE_TYPES_H
#include "hip_runtime.h"
#endif  // HIPMLIR_FORWARD_HIP_TEXTURE_TYPES_H
