# find_package(hip) for hipmlir, used the way ROCm documents CMake without the HIP language:
# CMAKE_CXX_COMPILER is the installed hipcc, which compiles the kernels in .cpp/.hip sources and
# links the runtime. The targets carry the include folder and the runtime for the rest.
#
#   hip::host    host code calling the HIP API (headers, libhipmlir_rt)
#   hip::device  code with kernels (the same here: hipcc compiles device code by itself)
#   hip::hiprtc  code compiling kernels at run time (hip/hiprtc.h, libhiprtc; hipcc links it
#                by itself where a program calls it)
#
# Paths are found from this file's own place, so a moved install keeps working.
get_filename_component(_hip_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

include("${CMAKE_CURRENT_LIST_DIR}/hip-config-version.cmake")
set(hip_VERSION "${PACKAGE_VERSION}")
string(REPLACE "." ";" _hip_parts "${hip_VERSION}")
list(GET _hip_parts 0 hip_VERSION_MAJOR)
list(GET _hip_parts 1 hip_VERSION_MINOR)
list(GET _hip_parts 2 hip_VERSION_PATCH)
set(HIP_PLATFORM "spirv")
set(HIP_COMPILER "hipmlir")
set(HIP_RUNTIME "hipmlir")
set(hip_INCLUDE_DIRS "${_hip_prefix}/include")
set(hip_LIBRARIES hip::host)
set(HIP_HIPCC_EXECUTABLE "${_hip_prefix}/bin/hipcc")
set(HIP_HIPCONFIG_EXECUTABLE "${_hip_prefix}/bin/hipconfig")

if(NOT TARGET hip::host)
  add_library(hip::host INTERFACE IMPORTED)
  set_target_properties(hip::host PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_hip_prefix}/include"
    INTERFACE_COMPILE_DEFINITIONS "__HIP_PLATFORM_SPIRV__=1"
    INTERFACE_LINK_LIBRARIES "${_hip_prefix}/lib/libhipmlir_rt.so")
endif()
if(NOT TARGET hip::device)
  add_library(hip::device INTERFACE IMPORTED)
  set_target_properties(hip::device PROPERTIES INTERFACE_LINK_LIBRARIES hip::host)
  get_filename_component(_hip_compiler_name "${CMAKE_CXX_COMPILER}" NAME)
  if(NOT _hip_compiler_name MATCHES "^(hipcc|hipmlir)")
    message(WARNING "hip::device: kernels need CMAKE_CXX_COMPILER=${_hip_prefix}/bin/hipcc "
                    "(it is ${CMAKE_CXX_COMPILER})")
  endif()
endif()
if(NOT TARGET hip::hiprtc)
  add_library(hip::hiprtc INTERFACE IMPORTED)
  set_target_properties(hip::hiprtc PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_hip_prefix}/include"
    INTERFACE_LINK_LIBRARIES "${_hip_prefix}/lib/libhiprtc.so")
endif()
set(hip_FOUND TRUE)
