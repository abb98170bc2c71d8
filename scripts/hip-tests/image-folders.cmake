# The suite's unit/CMakeLists.txt adds the surface and texture folders for every platform but
# spirv, where chipStar has no surface functions or texture references; hipmlir has them
# (hip/hipmlir_surface.h, hip/hipmlir_texture.h), so the folders are added on spirv too, as the
# other platforms add them. unit/CMakeLists.txt gives no hook of its own: its first reading of
# HIP_PLATFORM (the test that leaves the folders out) adds them, from unit/ itself (a call
# deferred to the file's end may not add folders).
function(hipmlir_add_image_folders variable access)
  get_property(added GLOBAL PROPERTY HIPMLIR_IMAGE_FOLDERS_ADDED)
  if(access STREQUAL "READ_ACCESS" AND NOT added
     AND CMAKE_CURRENT_SOURCE_DIR STREQUAL "${CMAKE_SOURCE_DIR}/unit")
    set_property(GLOBAL PROPERTY HIPMLIR_IMAGE_FOLDERS_ADDED TRUE)
    foreach(folder surface texture)
      if(EXISTS "${CMAKE_SOURCE_DIR}/unit/${folder}/CMakeLists.txt")
        add_subdirectory(${folder})
      endif()
    endforeach()
  endif()
endfunction()

variable_watch(HIP_PLATFORM hipmlir_add_image_folders)
