# Parallel HDF5 (issue 6): the MPI checkpoint example and the MPI benchmark.
#
# Optional: built only when MPI and a parallel HDF5 are found. The main build uses the serial
# HDF5 (target parz_hdf5); these programs link the parallel one, and nothing else does. The
# filter itself is the same libH5Zparz.so, loaded at run time (it does not link libhdf5).
# Debian: apt install libhdf5-openmpi-dev openmpi-bin. Another parallel HDF5 (e.g. built from
# source with --enable-parallel): -DPARZ_HDF5_MPI_ROOT=<its prefix>.
#
# tests/mpi.cmake includes this file too (tests/ is configured before examples/); the guard
# makes the second inclusion a no-op.
include_guard(GLOBAL)

option(PARZ_MPI "Build the MPI examples and tests when MPI and a parallel HDF5 are found" ON)
set(PARZ_HDF5_MPI_ROOT "" CACHE PATH "Prefix of a parallel HDF5 (empty: Debian's OpenMPI one)")
if(NOT PARZ_MPI)
  return()
endif()

find_package(MPI COMPONENTS C QUIET)
if(PARZ_HDF5_MPI_ROOT)
  set(_parz_h5mpi_inc "${PARZ_HDF5_MPI_ROOT}/include")
  set(_parz_h5mpi_lib "${PARZ_HDF5_MPI_ROOT}/lib" "${PARZ_HDF5_MPI_ROOT}/lib64")
else()
  set(_parz_h5mpi_inc /usr/include/hdf5/openmpi)
  set(_parz_h5mpi_lib /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/hdf5/openmpi
                      /usr/lib/x86_64-linux-gnu/hdf5/openmpi)
endif()
find_path(PARZ_HDF5_MPI_INCLUDE_DIR H5pubconf.h PATHS ${_parz_h5mpi_inc} NO_DEFAULT_PATH)
find_library(PARZ_HDF5_MPI_LIBRARY NAMES hdf5 PATHS ${_parz_h5mpi_lib} NO_DEFAULT_PATH)

set(_parz_mpi_missing "")
if(NOT MPI_C_FOUND)
  list(APPEND _parz_mpi_missing "MPI (C)")
endif()
if(NOT PARZ_HDF5_MPI_INCLUDE_DIR OR NOT PARZ_HDF5_MPI_LIBRARY)
  list(APPEND _parz_mpi_missing "parallel HDF5 in ${_parz_h5mpi_inc}")
else()
  file(STRINGS "${PARZ_HDF5_MPI_INCLUDE_DIR}/H5pubconf.h" _parz_h5_parallel
       REGEX "^#define H5_HAVE_PARALLEL 1")
  if(NOT _parz_h5_parallel)
    list(APPEND _parz_mpi_missing "H5_HAVE_PARALLEL in ${PARZ_HDF5_MPI_INCLUDE_DIR}")
  endif()
endif()
if(_parz_mpi_missing)
  message(STATUS "ParZ: MPI examples and tests skipped (missing: ${_parz_mpi_missing})")
  return()
endif()
message(STATUS "ParZ: MPI examples with ${PARZ_HDF5_MPI_LIBRARY}")

# The parallel HDF5 for the MPI programs only: never mixed with parz_hdf5 (serial).
add_library(parz_hdf5_mpi INTERFACE)
target_include_directories(parz_hdf5_mpi INTERFACE ${PARZ_HDF5_MPI_INCLUDE_DIR}
                           ${PROJECT_SOURCE_DIR}/plugin)
target_link_libraries(parz_hdf5_mpi INTERFACE ${PARZ_HDF5_MPI_LIBRARY} MPI::MPI_C m)

add_library(parz_mpi_common STATIC ${PROJECT_SOURCE_DIR}/examples/mpi_common.c)
target_link_libraries(parz_mpi_common PUBLIC parz_hdf5_mpi)
target_include_directories(parz_mpi_common PUBLIC ${PROJECT_SOURCE_DIR}/examples)

add_executable(mpi_checkpoint ${PROJECT_SOURCE_DIR}/examples/mpi_checkpoint.c)
target_link_libraries(mpi_checkpoint PRIVATE parz_mpi_common)
set_target_properties(mpi_checkpoint PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/examples)
if(TARGET H5Zparz)
  add_dependencies(mpi_checkpoint H5Zparz)
endif()
# --device cuda (fields in GPU memory) where the project builds its CUDA codec
if(TARGET parz_gpu AND TARGET CUDA::cudart)
  target_link_libraries(mpi_checkpoint PRIVATE CUDA::cudart)
  target_compile_definitions(mpi_checkpoint PRIVATE PARZ_EXAMPLE_CUDA)
endif()

# mpiexec and how to call it: OpenMPI needs --oversubscribe for more ranks than cores.
set(PARZ_MPIEXEC "${MPIEXEC_EXECUTABLE}" CACHE FILEPATH "mpiexec used by tests and benchmarks")
set(PARZ_MPIEXEC_FLAGS "" CACHE STRING
    "Extra mpiexec flags, e.g. '--mca btl self,vader' or '--mca btl_vader_single_copy_mechanism none'")
execute_process(COMMAND ${PARZ_MPIEXEC} --version OUTPUT_VARIABLE _parz_mpiexec_version
                ERROR_QUIET)
set(PARZ_MPIEXEC_OVERSUBSCRIBE "")
if(_parz_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(PARZ_MPIEXEC_OVERSUBSCRIBE "--oversubscribe")
endif()

# The benchmark also times the codec alone (parz_omp), outside HDF5.
add_executable(bench_mpi ${PROJECT_SOURCE_DIR}/examples/bench_mpi.c)
target_link_libraries(bench_mpi PRIVATE parz_mpi_common parz_omp)
set_target_properties(bench_mpi PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/examples)
if(TARGET H5Zparz)
  add_dependencies(bench_mpi H5Zparz)
endif()
