# What C programs build against once ParZ is installed: pkg-config files (parz.pc, parz-h5.pc for
# the dataset readers, and parz-h5-device.pc with the CUDA decoder) and a CMake package
# (find_package(ParZ)), both relocatable, their paths taken from where they lie.
if(NOT TARGET parz_h5z)
  return()
endif()
include(CMakePackageConfigHelpers)
set(_parz_cmake_dir lib/cmake/ParZ)
install(EXPORT ParZTargets NAMESPACE ParZ:: DESTINATION ${_parz_cmake_dir})
if(TARGET parz_h5_shared AND TARGET parz_gpu)
  set(PARZ_PACKAGE_H5_DEVICE TRUE)
else()
  set(PARZ_PACKAGE_H5_DEVICE FALSE)
endif()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ParZConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/ParZConfig.cmake INSTALL_DESTINATION ${_parz_cmake_dir})
# Before 1.0 a minor version may change the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/ParZConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/ParZConfig.cmake
              ${PROJECT_BINARY_DIR}/package/ParZConfigVersion.cmake
        DESTINATION ${_parz_cmake_dir})

configure_file(${CMAKE_CURRENT_LIST_DIR}/parz.pc.in ${PROJECT_BINARY_DIR}/package/parz.pc @ONLY)
set(_parz_pc ${PROJECT_BINARY_DIR}/package/parz.pc)
if(TARGET parz_h5_shared)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/parz-h5.pc.in ${PROJECT_BINARY_DIR}/package/parz-h5.pc
                 @ONLY)
  list(APPEND _parz_pc ${PROJECT_BINARY_DIR}/package/parz-h5.pc)
endif()
if(PARZ_PACKAGE_H5_DEVICE)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/parz-h5-device.pc.in
                 ${PROJECT_BINARY_DIR}/package/parz-h5-device.pc @ONLY)
  list(APPEND _parz_pc ${PROJECT_BINARY_DIR}/package/parz-h5-device.pc)
endif()
install(FILES ${_parz_pc} DESTINATION lib/pkgconfig)
