# The suite's unit/CMakeLists.txt adds the surface folder for every platform but spirv, where
# chipStar has no surface functions; hipmlir has them (hip/hipmlir_surface.h), so the folder is
# added on spirv too, as the other platforms add it. unit/CMakeLists.txt gives no hook of its
# own: the first folder below it that sets TEST_SRC schedules the addition for the end of
# unit/CMakeLists.txt, after the folders it adds itself.
function(hipmlir_watch_unit_folders variable access)
  get_property(scheduled GLOBAL PROPERTY HIPMLIR_SURFACE_FOLDER_SCHEDULED)
  get_filename_component(parent "${CMAKE_CURRENT_SOURCE_DIR}" DIRECTORY)
  if(access STREQUAL "MODIFIED_ACCESS" AND NOT scheduled
     AND parent STREQUAL "${CMAKE_SOURCE_DIR}/unit"
     AND EXISTS "${CMAKE_SOURCE_DIR}/unit/surface/CMakeLists.txt")
    set_property(GLOBAL PROPERTY HIPMLIR_SURFACE_FOLDER_SCHEDULED TRUE)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}/unit" CALL add_subdirectory surface)
  endif()
endfunction()

if(HIP_PLATFORM STREQUAL "spirv")
  variable_watch(TEST_SRC hipmlir_watch_unit_folders)
endif()
