# Given to the suite's configure by scripts/hip-tests.sh (CMAKE_PROJECT_INCLUDE) for
# HIP_PLATFORM spirv: the suite's folders that it leaves out on spirv although hipmlir has what
# they test, each made as another platform makes it.
if(HIP_PLATFORM STREQUAL "spirv")
  include("${CMAKE_CURRENT_LIST_DIR}/rtc-folder.cmake")
  include("${CMAKE_CURRENT_LIST_DIR}/image-folders.cmake")
endif()
