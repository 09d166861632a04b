# Parallel HDF5 benchmark (bench_mpi.sh runs it over rank counts): collective writes and reads
# through the filter against the same unfiltered ones, on the MPI example's field and helpers;
# it also times the codec alone (parz_omp), outside HDF5.
if(NOT TARGET parz_mpi_common)
  return()
endif()
add_executable(bench_mpi bench_mpi.c)
target_link_libraries(bench_mpi PRIVATE parz_mpi_common parz_omp)
if(TARGET H5Zparz)
  add_dependencies(bench_mpi H5Zparz)
endif()
