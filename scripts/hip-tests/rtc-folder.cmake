# Included by spirv.cmake (the suite's CMAKE_PROJECT_INCLUDE on spirv). The suite's
# unit/rtc folder makes its RTC executable for HIP_PLATFORM amd and nvidia only, although its
# common tests (TEST_SRC there) are "independent of all platforms". hipmlir has hiprtc on spirv
# too, so for spirv the folder's executable is made as the nvidia platform makes it: from the
# common tests, linked with hiprtc, in the folder itself, run beside the files it copies there.
# The folder gives no hook of its own: its first setting of TEST_SRC schedules the call for the
# end of that folder's CMakeLists.txt, where the folder's own variables are in scope.
function(hipmlir_rtc_common_executable)
  if(NOT TARGET RTC)
    hip_add_exe_to_target(NAME RTC
                          TEST_SRC ${TEST_SRC}
                          TEST_TARGET_NAME build_tests
                          LINKER_LIBS hiprtc)
  endif()
endfunction()

function(hipmlir_watch_rtc_sources variable access)
  get_property(scheduled GLOBAL PROPERTY HIPMLIR_RTC_COMMON_SCHEDULED)
  if(access STREQUAL "MODIFIED_ACCESS" AND NOT scheduled
     AND CMAKE_CURRENT_SOURCE_DIR STREQUAL "${CMAKE_SOURCE_DIR}/unit/rtc")
    set_property(GLOBAL PROPERTY HIPMLIR_RTC_COMMON_SCHEDULED TRUE)
    cmake_language(DEFER CALL hipmlir_rtc_common_executable)
  endif()
endfunction()

variable_watch(TEST_SRC hipmlir_watch_rtc_sources)
