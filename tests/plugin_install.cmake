# ctest script: `cmake --install` (into a DESTDIR) puts the plugin into HDF5's default plugin
# directory and the Python helper into the Python install directory.
# Usage: cmake -DBUILD=<build dir> -DDEST=<scratch dir> -DPLUGIN_DIR=<dir> -DPYTHON_DIR=<dir> -P
file(REMOVE_RECURSE "${DEST}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env "DESTDIR=${DEST}"
                        ${CMAKE_COMMAND} --install "${BUILD}" --component Unspecified
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed:\n${out}")
endif()
foreach(f "${PLUGIN_DIR}/libH5Zparz.so" "${PYTHON_DIR}/parz/__init__.py"
          "${PYTHON_DIR}/parz/_filter.py" "${PYTHON_DIR}/parz/_plugin_dir.py")
  if(NOT EXISTS "${DEST}${f}")
    message(FATAL_ERROR "not installed: ${f}\n${out}")
  endif()
endforeach()
file(READ "${DEST}${PYTHON_DIR}/parz/_plugin_dir.py" cfg)
if(NOT cfg MATCHES "PLUGIN_DIR = \"${PLUGIN_DIR}\"")
  message(FATAL_ERROR "installed parz package points at the wrong plugin directory:\n${cfg}")
endif()
message(STATUS "installed:\n${out}")
