// HIP's surface types: the surface object handle, its boundary modes and the legacy surface
// reference. Valid C and C++; hip_runtime_api.h includes it. The device functions that read and
// write through a surface object are in hipmlir_surface.h.
#ifndef HIPMLIR_SURFACE_TYPES_H
#define HIPMLIR_SURFACE_TYPES_H

#include "driver_types.h"

struct __hip_surface;
typedef struct __hip_surface* hipSurfaceObject_t;

typedef struct surfaceReference {
  hipSurfaceObject_t surfaceObject;
} surfaceReference;

typedef enum hipSurfaceBoundaryMode {
  hipBoundaryModeZero = 0,
  hipBoundaryModeTrap = 1,
  hipBoundaryModeClamp = 2
} hipSurfaceBoundaryMode;

#endif  // HIPMLIR_SURFACE_TYPES_H
