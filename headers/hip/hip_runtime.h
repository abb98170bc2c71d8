// hipmlir's HIP runtime header: what a HIP program includes.
//
// It is read twice: by libclang in HIP device mode (hipmlir's frontend, with -nogpuinc, so everything
// device code uses is declared here) and by the system C++ compiler for the host code, which never
// sees device bodies (hipmlir drops them before the host compile).
#ifndef HIPMLIR_HIP_RUNTIME_H
#define HIPMLIR_HIP_RUNTIME_H

// What hipcc defines on both sides of a build for a SPIR-V platform (__HIPCC__,
// __HIP_PLATFORM_SPIRV__) and the device's feature macros.
#include "hip_common.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "hip_runtime_api.h"
#include "hipmlir_vector_types.h"
#include "hipmlir_device.h"
// Device declarations of C library functions come before the C headers that redeclare them.
#include "hipmlir_math.h"
#include "hipmlir_libc.h"
#include "hipmlir_heap.h"

// What hipcc makes visible before any user code: clang's HIP wrapper header includes <cmath>,
// <cstdlib>, <stdlib.h>, <algorithm>, <complex> and <new>; ROCm's headers add <string.h> and
// <assert.h>. (glibc's <stdlib.h> also brings the `uint`, `ushort` and `ulong` typedefs.)
#include <assert.h>
#include <string.h>
#include <stdlib.h>
#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <complex>
#include <new>

#include "hipmlir_math_ext.h"
#include "hipmlir_intrinsics.h"
#include "hipmlir_texture.h"
#include "hipmlir_surface.h"
#include "hipmlir_launch.h"
#include "hipmlir_variables.h"

#endif  // HIPMLIR_HIP_RUNTIME_H
