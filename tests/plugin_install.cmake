# ctest script: `cmake --install` (into a DESTDIR) puts the plugin into HDF5's default plugin
# directory (with the CUDA module beside it when CUDA=ON) and the Python helper into the Python
# install directory.
# Usage: cmake -DBUILD=<build dir> -DDEST=<scratch dir> -DPLUGIN_DIR=<dir> -DPYTHON_DIR=<dir>
#              -DCUDA=ON|OFF -P plugin_install.cmake
include(${CMAKE_CURRENT_LIST_DIR}/install_into.cmake)
parz_install_into("${BUILD}" "${DEST}" out)
set(files "${PLUGIN_DIR}/libH5Zparz.so" "${PYTHON_DIR}/parz/__init__.py"
          "${PYTHON_DIR}/parz/_filter.py" "${PYTHON_DIR}/parz/_lib.py"
          "${PYTHON_DIR}/parz/_plugin_dir.py" "${PYTHON_DIR}/parz/_version.py")
if(CUDA)
  list(APPEND files "${PLUGIN_DIR}/parz_cuda.so")
endif()
foreach(f IN LISTS files)
  if(NOT EXISTS "${DEST}${f}")
    message(FATAL_ERROR "not installed: ${f}\n${out}")
  endif()
endforeach()
file(READ "${DEST}${PYTHON_DIR}/parz/_plugin_dir.py" cfg)
if(NOT cfg MATCHES "PLUGIN_DIR = \"${PLUGIN_DIR}\"")
  message(FATAL_ERROR "installed parz package points at the wrong plugin directory:\n${cfg}")
endif()
message(STATUS "installed:\n${out}")
