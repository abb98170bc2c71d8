// HIP's OpenGL interoperation: registering GL buffers and textures as graphics resources
// (hipGraphics*, hip_runtime_api.h). The GL types are declared here as OpenGL defines them, so
// that this header does not need GL's.
#ifndef HIPMLIR_HIP_GL_INTEROP_H
#define HIPMLIR_HIP_GL_INTEROP_H

#include "hip_runtime_api.h"

typedef unsigned int GLuint;
typedef unsigned int GLenum;

typedef enum hipGLDeviceList {
  hipGLDeviceListAll = 1,
  hipGLDeviceListCurrentFrame = 2,
  hipGLDeviceListNextFrame = 3
} hipGLDeviceList;

#ifdef __cplusplus
extern "C" {
#endif

hipError_t hipGLGetDevices(unsigned int* pHipDeviceCount, int* pHipDevices,
                           unsigned int hipDeviceCount, hipGLDeviceList deviceList);
hipError_t hipGraphicsGLRegisterBuffer(hipGraphicsResource** resource, GLuint buffer,
                                       unsigned int flags);
hipError_t hipGraphicsGLRegisterImage(hipGraphicsResource** resource, GLuint image,
                                      GLenum target, unsigned int flags);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // HIPMLIR_HIP_GL_INTEROP_H
