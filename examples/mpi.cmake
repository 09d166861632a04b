# The parallel HDF5 checkpoint example, built when cmake/ParZMPI.cmake found MPI and a parallel
# HDF5. tests/mpi.cmake runs mpi_checkpoint under mpiexec; bench/mpi.cmake's bench_mpi shares
# its helpers (parz_mpi_common).
if(NOT PARZ_HAVE_MPI)
  return()
endif()

add_library(parz_mpi_common STATIC mpi_common.c)
target_link_libraries(parz_mpi_common PUBLIC parz_hdf5_mpi)
target_include_directories(parz_mpi_common PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})

add_executable(mpi_checkpoint mpi_checkpoint.c)
target_link_libraries(mpi_checkpoint PRIVATE parz_mpi_common)
if(TARGET H5Zparz)
  add_dependencies(mpi_checkpoint H5Zparz)
endif()
# --device cuda (fields in GPU memory) where the project builds its CUDA codec
if(TARGET parz_gpu AND TARGET CUDA::cudart)
  target_link_libraries(mpi_checkpoint PRIVATE CUDA::cudart)
  target_compile_definitions(mpi_checkpoint PRIVATE PARZ_EXAMPLE_CUDA)
endif()
