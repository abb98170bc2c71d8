// The host side of the device variables a source defines (hipmlir's frontend writes the calls;
// see frontend/src/host_shadows.rs):
// - a source compiled without -fgpu-rdc owns its device variables, as with hipcc: their host
//   shadows are `static`, and the source registers them itself with its translation unit's key;
// - a `__managed__` variable's name is, on the host, a reference to managed memory that the
//   runtime allocates and fills with the variable's initial value when the reference is bound,
//   and whose address the device's variable holds.
#ifndef HIPMLIR_VARIABLES_H
#define HIPMLIR_VARIABLES_H

#include <stddef.h>

#if !defined(__HIP_DEVICE_COMPILE__)
extern "C" void __hipmlirRegisterUnitVar(const void* host_shadow, const char* name, size_t size,
                                         const char* unit);
extern "C" void* __hipmlirRegisterManagedVar(const void* initial_value, size_t size,
                                             size_t align, const char* name, const char* unit);

namespace hipmlir {
namespace detail {
template <class T>
inline T& managed_variable(T& initial_value, const char* name, const char* unit) {
  return *static_cast<T*>(__hipmlirRegisterManagedVar(__builtin_addressof(initial_value),
                                                      sizeof(T), alignof(T), name, unit));
}
}  // namespace detail
}  // namespace hipmlir
#endif

#endif  // HIPMLIR_VARIABLES_H
