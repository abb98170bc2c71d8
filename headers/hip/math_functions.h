// ROCm's header of HIP's device math functions. hipmlir declares them with the rest of the device
// API in hip_runtime.h, which this includes.
#ifndef HIPMLIR_MATH_FUNCTIONS_H
#define HIPMLIR_MATH_FUNCTIONS_H
#include "hip_runtime.h"
#endif  // HIPMLIR_MATH_FUNCTIONS_H
