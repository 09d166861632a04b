# Tests of what users of the filter see around it: one version everywhere, the `parz` command,
# and the installed files C programs build against (pkg-config, find_package, h5cc).
if(NOT TARGET H5Zparz)
  return()
endif()
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/tools_scratch)
set(PARZ_TOOLS_SCRATCH ${CMAKE_CURRENT_BINARY_DIR}/tools_scratch)

add_executable(test_version test_version.c)
target_include_directories(test_version PRIVATE ${PROJECT_SOURCE_DIR}/plugin)
target_link_libraries(test_version PRIVATE parz_hdf5 parz_codec)
target_compile_definitions(test_version PRIVATE PARZ_PROJECT_VERSION="${PROJECT_VERSION}")
add_dependencies(test_version H5Zparz)
add_test(NAME test_version COMMAND test_version ${PARZ_TOOLS_SCRATCH})
set_tests_properties(test_version PROPERTIES ENVIRONMENT "HDF5_PLUGIN_PATH=${PARZ_PLUGIN_DIR}")
