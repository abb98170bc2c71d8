// The host side of the device variables a source defines (hipmlir's frontend writes the calls;
// see frontend/src/host_shadows.rs): a source compiled without -fgpu-rdc owns its device
// variables, as with hipcc: their host shadows are `static`, and the source registers them itself
// with its translation unit's key.
#ifndef HIPMLIR_VARIABLES_H
#define HIPMLIR_VARIABLES_H

#include <stddef.h>

#if !defined(__HIP_DEVICE_COMPILE__)
extern "C" void __hipmlirRegisterUnitVar(const void* host_shadow, const char* name, size_t size,
                                         const char* unit);
#endif

#endif  // HIPMLIR_VARIABLES_H
