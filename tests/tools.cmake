# Tests of what users of the filter see around it: one version everywhere, the `parz` command,
# and the installed files C programs build against (pkg-config, find_package, h5cc).
if(NOT TARGET H5Zparz)
  return()
endif()
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/tools_scratch)
set(PARZ_TOOLS_SCRATCH ${CMAKE_CURRENT_BINARY_DIR}/tools_scratch)

add_executable(test_version test_version.c)
target_include_directories(test_version PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter)
target_link_libraries(test_version PRIVATE parz_hdf5 parz_codec)
target_compile_definitions(test_version PRIVATE PARZ_PROJECT_VERSION="${PROJECT_VERSION}")
add_dependencies(test_version H5Zparz)
add_test(NAME test_version COMMAND test_version ${PARZ_TOOLS_SCRATCH})
set_tests_properties(test_version PROPERTIES ENVIRONMENT "HDF5_PLUGIN_PATH=${PARZ_PLUGIN_DIR}")

# ---- the parz command ---------------------------------------------------------------------------
if(TARGET parz_tool)
  add_executable(tool_fixture tool_fixture.c)
  target_include_directories(tool_fixture PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter)
  target_link_libraries(tool_fixture PRIVATE parz_hdf5 m)
  add_dependencies(tool_fixture H5Zparz)
  add_test(NAME test_tool_cli
           COMMAND ${CMAKE_COMMAND} -DPARZ=$<TARGET_FILE:parz_tool>
                   -DFIXTURE=$<TARGET_FILE:tool_fixture> -DDIR=${PARZ_TOOLS_SCRATCH}/cli
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/tool_cli.cmake)
  set_tests_properties(test_tool_cli PROPERTIES ENVIRONMENT "HDF5_PLUGIN_PATH=${PARZ_PLUGIN_DIR}"
                                              TIMEOUT 120)

  # cd-values against the Python helper, with a python3 that imports numpy (the parz package
  # needs it): Debian's, or the first on PATH (a virtual environment).
  find_program(PARZ_DEBIAN_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
  find_program(PARZ_PATH_PYTHON python3)
  set(_parz_numpy_python "")
  foreach(_py ${PARZ_DEBIAN_PYTHON} ${PARZ_PATH_PYTHON})
    if(NOT _parz_numpy_python)
      execute_process(COMMAND ${_py} -c "import numpy" RESULT_VARIABLE _parz_py_rc
                      OUTPUT_QUIET ERROR_QUIET)
      if(_parz_py_rc EQUAL 0)
        set(_parz_numpy_python ${_py})
      endif()
    endif()
  endforeach()
  if(_parz_numpy_python)
    add_test(NAME test_tool_cd_values
             COMMAND ${_parz_numpy_python} ${CMAKE_CURRENT_SOURCE_DIR}/tool_cd_values.py
                     $<TARGET_FILE:parz_tool>)
    set_tests_properties(test_tool_cd_values PROPERTIES
                         ENVIRONMENT "PYTHONPATH=${PARZ_PYTHON_BUILD_DIR}")
  endif()
endif()

# ---- README "Limits": zfp's integer range, on the codec ------------------------------------------
add_executable(test_zfp_int_range test_zfp_int_range.c)
target_link_libraries(test_zfp_int_range PRIVATE parz_codec)
add_test(NAME test_zfp_int_range COMMAND test_zfp_int_range)

# ---- the install's ldconfig step (libparz_h5.so), with a stand-in for ldconfig -------------------
add_test(NAME test_ldconfig_step
         COMMAND ${CMAKE_COMMAND} -DSTEP=${PROJECT_SOURCE_DIR}/cmake/ldconfig.cmake
                 -DWORK=${PARZ_TOOLS_SCRATCH}/ldconfig -P ${CMAKE_CURRENT_SOURCE_DIR}/ldconfig_step.cmake)

# ---- what C programs build against once installed -------------------------------------------------
# Both tests below build plain programs that load the plugin: a sanitized plugin cannot go into
# them, and they check packaging and linking, not memory safety.
if(PARZ_SANITIZE)
  return()
endif()
if(TARGET parz_h5_shared AND TARGET parz_gpu)
  set(_parz_device ON)
else()
  set(_parz_device OFF)
endif()
find_program(PARZ_PKG_CONFIG pkg-config)
get_target_property(_parz_h5_inc parz_hdf5 INTERFACE_INCLUDE_DIRECTORIES)
get_target_property(_parz_h5_libs parz_hdf5 INTERFACE_LINK_LIBRARIES)
string(REPLACE ";" "|" _parz_h5_inc "${_parz_h5_inc}")
string(REPLACE ";" "|" _parz_h5_libs "${_parz_h5_libs}")
string(REPLACE ";" "|" _parz_prefix_path "${CMAKE_PREFIX_PATH}")
add_test(NAME test_c_package_install
         COMMAND ${CMAKE_COMMAND} -DBUILD=${PROJECT_BINARY_DIR}
                 -DDEST=${PARZ_TOOLS_SCRATCH}/destdir -DPREFIX=${CMAKE_INSTALL_PREFIX}
                 -DPLUGIN_DIR=${PARZ_PLUGIN_INSTALL_DIR} -DVERSION=${PROJECT_VERSION}
                 -DDEVICE=${_parz_device} -DCC=${CMAKE_C_COMPILER}
                 -DSRC=${CMAKE_CURRENT_SOURCE_DIR} -DWORK=${PARZ_TOOLS_SCRATCH}/package
                 -DPKG_CONFIG=${PARZ_PKG_CONFIG} "-DHDF5_INC=${_parz_h5_inc}"
                 "-DHDF5_LIBS=${_parz_h5_libs}" "-DPREFIX_PATH=${_parz_prefix_path}"
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/c_package_install.cmake)
set_tests_properties(test_c_package_install PROPERTIES TIMEOUT 300)

# ---- h5cc: static HDF5 (its default) cannot serve plugins, and the plugin says so ----------------
find_program(PARZ_H5CC h5cc)
if(PARZ_H5CC)
  add_test(NAME test_h5cc_static
           COMMAND ${CMAKE_COMMAND} -DH5CC=${PARZ_H5CC} -DSRC=${CMAKE_CURRENT_SOURCE_DIR}
                   -DINCLUDE=${PROJECT_SOURCE_DIR}/plugin/filter -DWORK=${PARZ_TOOLS_SCRATCH}/h5cc
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/h5cc_static.cmake)
  set_tests_properties(test_h5cc_static PROPERTIES ENVIRONMENT "HDF5_PLUGIN_PATH=${PARZ_PLUGIN_DIR}"
                       SKIP_REGULAR_EXPRESSION "h5cc cannot build a program here")
endif()
