# Tests of the HDF5 filter plugin. The HDF5 tests load the plugin like any user does:
# from HDF5_PLUGIN_PATH, pointing at the build tree's plugin directory.
if(NOT TARGET H5Zparz)
  return()
endif()

# The plugin's folders keep their layers: no HDF5 in cd_values/ and exec/.
add_test(NAME plugin_layers COMMAND ${CMAKE_COMMAND} -DPLUGIN=${PROJECT_SOURCE_DIR}/plugin
                                    -P ${CMAKE_CURRENT_SOURCE_DIR}/plugin_layers.cmake)

add_executable(test_plugin_config test_plugin_config.c)
target_link_libraries(test_plugin_config PRIVATE parz_filter_config parz_h5z)
add_test(NAME test_plugin_config COMMAND test_plugin_config)

set(PARZ_PLUGIN_TEST_ENV "HDF5_PLUGIN_PATH=${PARZ_PLUGIN_DIR}")
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/plugin_scratch)

add_executable(test_plugin_hdf5 test_plugin_hdf5.c)
target_include_directories(test_plugin_hdf5 PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter)
target_link_libraries(test_plugin_hdf5 PRIVATE parz_hdf5 m)
add_dependencies(test_plugin_hdf5 H5Zparz)
# it writes five of the real arrays: left out, like the other real-data tests, without them
if(EXISTS "${PARZ_SHARED_DATA}/etopo5_relief_f32le_2161x4320.bin")
  add_test(NAME test_plugin_hdf5
           COMMAND test_plugin_hdf5 ${PARZ_SHARED_DATA} ${CMAKE_CURRENT_BINARY_DIR}/plugin_scratch)
  set_tests_properties(test_plugin_hdf5 PROPERTIES ENVIRONMENT "${PARZ_PLUGIN_TEST_ENV}")
else()
  message(STATUS "plugin: no real arrays in ${PARZ_SHARED_DATA}; test_plugin_hdf5 left out")
endif()

# Crafted files whose cd_values disagree with the dataset: refused, nothing read outside a buffer.
add_executable(test_plugin_crafted test_plugin_crafted.c)
target_include_directories(test_plugin_crafted PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter
                                                       ${PROJECT_SOURCE_DIR}/plugin/cd_values
                                                       ${PROJECT_SOURCE_DIR}/codec)
target_link_libraries(test_plugin_crafted PRIVATE parz_hdf5)
add_dependencies(test_plugin_crafted H5Zparz)
add_test(NAME test_plugin_crafted
         COMMAND test_plugin_crafted ${CMAKE_CURRENT_BINARY_DIR}/plugin_scratch)
set_tests_properties(test_plugin_crafted PROPERTIES ENVIRONMENT "${PARZ_PLUGIN_TEST_ENV}")

# fork() after OpenMP encodes and decodes: the child's ParZ write and read must not hang.
add_executable(test_plugin_fork test_plugin_fork.c)
target_include_directories(test_plugin_fork PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter)
target_link_libraries(test_plugin_fork PRIVATE parz_hdf5)
add_dependencies(test_plugin_fork H5Zparz)
add_test(NAME test_plugin_fork COMMAND test_plugin_fork ${CMAKE_CURRENT_BINARY_DIR}/plugin_scratch 60)
set_tests_properties(test_plugin_fork PROPERTIES TIMEOUT 120
  ENVIRONMENT "${PARZ_PLUGIN_TEST_ENV};PARZ_EXEC=omp;PARZ_THREADS=2")
# The same with the parent decoding on the GPU (where there is one): the child must not touch
# the parent's CUDA context and decodes on the CPU.
add_test(NAME test_plugin_fork_cuda COMMAND test_plugin_fork ${CMAKE_CURRENT_BINARY_DIR}/plugin_scratch 60)
set_tests_properties(test_plugin_fork_cuda PROPERTIES TIMEOUT 120
  ENVIRONMENT "${PARZ_PLUGIN_TEST_ENV};PARZ_EXEC=cuda;PARZ_THREADS=2")

# In-process registration (H5Z_parz_register): no HDF5_PLUGIN_PATH, HDF5's plugin loading off.
add_executable(test_plugin_register test_plugin_register.c)
target_include_directories(test_plugin_register PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter)
target_link_libraries(test_plugin_register PRIVATE parz_hdf5 ${CMAKE_DL_LIBS} m)
add_dependencies(test_plugin_register H5Zparz)
add_test(NAME test_plugin_register
         COMMAND test_plugin_register ${PARZ_PLUGIN_DIR} ${CMAKE_CURRENT_BINARY_DIR}/plugin_scratch)

add_executable(test_plugin_unload test_plugin_unload.c)
target_include_directories(test_plugin_unload PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter)
target_link_libraries(test_plugin_unload PRIVATE parz_hdf5)
add_dependencies(test_plugin_unload H5Zparz)
add_test(NAME test_plugin_unload COMMAND test_plugin_unload ${CMAKE_CURRENT_BINARY_DIR}/plugin_scratch)
set_tests_properties(test_plugin_unload PROPERTIES ENVIRONMENT "${PARZ_PLUGIN_TEST_ENV};PARZ_EXEC=auto"
                                                   TIMEOUT 120)

# The dataset readers against H5Dread: into host memory, and into GPU memory (skipped without a
# CUDA device). Both read the datasets of h5_read_cases.c.
if(TARGET parz_h5)
  add_executable(test_h5_read test_h5_read.c h5_read_cases.c)
  target_link_libraries(test_h5_read PRIVATE parz_h5 m)
  add_dependencies(test_h5_read H5Zparz)
  add_test(NAME test_h5_read COMMAND test_h5_read ${CMAKE_CURRENT_BINARY_DIR}/plugin_scratch)
  set_tests_properties(test_h5_read PROPERTIES ENVIRONMENT "${PARZ_PLUGIN_TEST_ENV}")
endif()
# The dataset writers against H5Dwrite through the filter, chunk by chunk; with the CUDA codec
# also parz_h5_write_device (its GPU parts skipped without a CUDA device).
if(TARGET parz_h5)
  add_executable(test_h5_write test_h5_write.c)
  target_link_libraries(test_h5_write PRIVATE parz_h5 m)
  if(TARGET parz_gpu) # its own CUDA runtime for its device buffers; the encoder from the module
    target_link_libraries(test_h5_write PRIVATE CUDA::cudart_static)
    target_compile_definitions(test_h5_write PRIVATE PARZ_TEST_DEVICE)
  endif()
  add_dependencies(test_h5_write H5Zparz)
  add_test(NAME test_h5_write COMMAND test_h5_write ${CMAKE_CURRENT_BINARY_DIR}/plugin_scratch)
  set_tests_properties(test_h5_write PROPERTIES ENVIRONMENT "${PARZ_PLUGIN_TEST_ENV}" TIMEOUT 300)
endif()
if(TARGET parz_h5 AND TARGET parz_gpu)
  add_executable(test_h5_read_device test_h5_read_device.c h5_read_cases.c)
  # its own CUDA runtime for its device buffers; the decoder comes from the CUDA module
  target_link_libraries(test_h5_read_device PRIVATE parz_h5 CUDA::cudart_static m)
  add_dependencies(test_h5_read_device H5Zparz)
  add_test(NAME test_h5_read_device
           COMMAND test_h5_read_device ${CMAKE_CURRENT_BINARY_DIR}/plugin_scratch)
  set_tests_properties(test_h5_read_device PROPERTIES ENVIRONMENT "${PARZ_PLUGIN_TEST_ENV}"
                                                      SKIP_RETURN_CODE 77)
endif()

add_test(NAME test_plugin_symbols
         COMMAND ${CMAKE_COMMAND} -DPLUGIN=$<TARGET_FILE:H5Zparz> -DNM=${CMAKE_NM}
                 -DOBJDUMP=${CMAKE_OBJDUMP} -P ${CMAKE_CURRENT_SOURCE_DIR}/plugin_symbols.cmake)

# The same module in Debian's OpenMPI parallel HDF5.
find_package(MPI COMPONENTS C QUIET)
find_library(PARZ_HDF5_OPENMPI_LIB NAMES hdf5 PATHS /usr/lib/x86_64-linux-gnu/hdf5/openmpi
             NO_DEFAULT_PATH)
find_path(PARZ_HDF5_OPENMPI_INCLUDE hdf5.h PATHS /usr/include/hdf5/openmpi NO_DEFAULT_PATH)
if(MPI_C_FOUND AND PARZ_HDF5_OPENMPI_LIB AND PARZ_HDF5_OPENMPI_INCLUDE)
  add_executable(test_plugin_mpi_load test_plugin_mpi_load.c)
  target_include_directories(test_plugin_mpi_load PRIVATE ${PARZ_HDF5_OPENMPI_INCLUDE}
                             ${PROJECT_SOURCE_DIR}/plugin/filter)
  target_link_libraries(test_plugin_mpi_load PRIVATE ${PARZ_HDF5_OPENMPI_LIB} MPI::MPI_C m)
  add_dependencies(test_plugin_mpi_load H5Zparz)
  add_test(NAME test_plugin_mpi_load
           COMMAND test_plugin_mpi_load ${CMAKE_CURRENT_BINARY_DIR}/plugin_scratch/mpi_load.h5)
  set_tests_properties(test_plugin_mpi_load PROPERTIES
    ENVIRONMENT "${PARZ_PLUGIN_TEST_ENV};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    PASS_REGULAR_EXPRESSION "filter \"ParZ-[0-9.]+ \\(zfp-1.0 stream, format [0-9]+\\)\", round trip ok")
endif()


add_test(NAME test_plugin_install
         COMMAND ${CMAKE_COMMAND} -DBUILD=${PROJECT_BINARY_DIR}
                 -DDEST=${CMAKE_CURRENT_BINARY_DIR}/plugin_scratch/destdir
                 -DPLUGIN_DIR=${PARZ_PLUGIN_INSTALL_DIR} -DPYTHON_DIR=${PARZ_PYTHON_INSTALL_DIR}
                 -DCUDA=$<TARGET_EXISTS:parz_cuda>
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/plugin_install.cmake)
