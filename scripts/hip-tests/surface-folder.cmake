# The suite's unit/CMakeLists.txt adds the surface folder for every platform but spirv, where
# chipStar has no surface functions; hipmlir has them (hip/hipmlir_surface.h), so the folder is
# added on spirv too, as the other platforms add it. unit/CMakeLists.txt gives no hook of its
# own: its first reading of HIP_PLATFORM (the test that leaves the folder out) adds it, from
# unit/ itself (a call deferred to the file's end may not add folders).
function(hipmlir_add_surface_folder variable access)
  get_property(added GLOBAL PROPERTY HIPMLIR_SURFACE_FOLDER_ADDED)
  if(access STREQUAL "READ_ACCESS" AND NOT added
     AND CMAKE_CURRENT_SOURCE_DIR STREQUAL "${CMAKE_SOURCE_DIR}/unit"
     AND EXISTS "${CMAKE_SOURCE_DIR}/unit/surface/CMakeLists.txt")
    set_property(GLOBAL PROPERTY HIPMLIR_SURFACE_FOLDER_ADDED TRUE)
    add_subdirectory(surface)
  endif()
endfunction()

variable_watch(HIP_PLATFORM hipmlir_add_surface_folder)
