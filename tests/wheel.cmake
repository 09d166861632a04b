# The wheel (setup.py): built with `python3 -m build --wheel --no-isolation`, installed with pip
# into a fresh virtual environment, used there with HDF5_PLUGIN_PATH unset (scripts/wheel_check.sh).
# test_wheel packs this tree's plugin and runs the helper, registration and error tests in the
# environment; test_wheel_cmake lets the build backend configure and build the plugin itself
# (CPU only, to stay quick) and checks a write and a read.
# Not in sanitizer builds: their module needs the sanitizer runtimes that Python does not load.
if(NOT TARGET H5Zparz OR PARZ_SANITIZE)
  return()
endif()
set(_parz_wheel_scratch ${CMAKE_CURRENT_BINARY_DIR}/wheel_scratch)
add_test(NAME test_wheel
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/wheel_check.sh --from-build ${PROJECT_BINARY_DIR}
                 --tests quick ${_parz_wheel_scratch}/from_build)
add_test(NAME test_wheel_cmake
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/wheel_check.sh --cmake-args -DPARZ_CUDA=OFF
                 --tests none ${_parz_wheel_scratch}/cmake)
set_tests_properties(test_wheel test_wheel_cmake PROPERTIES
                     ENVIRONMENT "PARZ_SHARED_DATA=${PARZ_SHARED_DATA}" TIMEOUT 900)
