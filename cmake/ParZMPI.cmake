# MPI and a parallel HDF5, for the programs that write through parallel HDF5: the MPI example
# (examples/mpi.cmake), its tests (tests/mpi.cmake) and the MPI benchmark (bench/mpi.cmake).
#
# Optional: PARZ_HAVE_MPI is ON when MPI and a parallel HDF5 are found. The main build uses the
# serial HDF5 (target parz_hdf5); the MPI programs link the parallel one (target parz_hdf5_mpi),
# and nothing else does. The filter itself is the same libH5Zparz.so, loaded at run time (it does
# not link libhdf5). Debian: apt install libhdf5-openmpi-dev openmpi-bin. Another parallel HDF5
# (e.g. built from source with --enable-parallel): -DPARZ_HDF5_MPI_ROOT=<its prefix>.
include_guard(GLOBAL)

option(PARZ_MPI "Build the MPI example, its tests and benchmark when MPI and a parallel HDF5 are found" ON)
set(PARZ_HDF5_MPI_ROOT "" CACHE PATH "Prefix of a parallel HDF5 (empty: Debian's OpenMPI one)")
set(PARZ_HAVE_MPI OFF)
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
  message(STATUS "ParZ: MPI example, tests and benchmark skipped (missing: ${_parz_mpi_missing})")
  return()
endif()
message(STATUS "ParZ: MPI programs with ${PARZ_HDF5_MPI_LIBRARY}")
set(PARZ_HAVE_MPI ON)

# The parallel HDF5 for the MPI programs only: never mixed with parz_hdf5 (serial).
add_library(parz_hdf5_mpi INTERFACE)
target_include_directories(parz_hdf5_mpi INTERFACE ${PARZ_HDF5_MPI_INCLUDE_DIR}
                           ${PROJECT_SOURCE_DIR}/plugin/filter)
target_link_libraries(parz_hdf5_mpi INTERFACE ${PARZ_HDF5_MPI_LIBRARY} MPI::MPI_C m)

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
