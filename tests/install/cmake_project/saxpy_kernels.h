#pragma once
#include <hip/hip_runtime.h>

// Launches y = a * x + y on the device (the kernel is in saxpy_kernels.cpp).
hipError_t launch_saxpy(float a, const float* x, float* y, int n);
