# find_package(hiprtc) for hipmlir, as ROCm provides it: hiprtc::hiprtc is HIP's runtime
# compilation library (hip/hiprtc.h, libhiprtc), the same as find_package(hip)'s hip::hiprtc.
# Paths are found from this file's own place, so a moved install keeps working.
get_filename_component(_hiprtc_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

include("${CMAKE_CURRENT_LIST_DIR}/hiprtc-config-version.cmake")
set(hiprtc_VERSION "${PACKAGE_VERSION}")
set(hiprtc_INCLUDE_DIRS "${_hiprtc_prefix}/include")
set(hiprtc_LIBRARIES hiprtc::hiprtc)

if(NOT TARGET hiprtc::hiprtc)
  add_library(hiprtc::hiprtc SHARED IMPORTED)
  set_target_properties(hiprtc::hiprtc PROPERTIES
    IMPORTED_LOCATION "${_hiprtc_prefix}/lib/libhiprtc.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_hiprtc_prefix}/include")
endif()
set(hiprtc_FOUND TRUE)
