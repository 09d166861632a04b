# OpenMP benchmarks. bench_omp: decode throughput through the library per thread count, and
# the serial-threshold measurement. bench_h5read: an HDF5 read of the same data compressed with
# ParZ and with H5Z-ZFP (filter 32013), side by side. bench_h5write: H5Dwrite through the filter
# on the CPU and the GPU, and the dataset writers.
add_executable(bench_omp bench_omp.c)
target_link_libraries(bench_omp PRIVATE parz_omp parz_real_arrays parz_bench_clock m)
if(TARGET H5Zparz AND TARGET parz_hdf5)
  add_executable(bench_h5read bench_h5read.c)
  target_link_libraries(bench_h5read PRIVATE parz_real_arrays parz_bench_clock)
  target_include_directories(bench_h5read PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter)
  target_link_libraries(bench_h5read PRIVATE parz_hdf5 parz_codec m ${CMAKE_DL_LIBS})
  add_dependencies(bench_h5read H5Zparz)
  if(TARGET parz_h5) # also times parz_h5_read, and parz_h5_read_device (the read into GPU memory)
    target_link_libraries(bench_h5read PRIVATE parz_h5)
    target_compile_definitions(bench_h5read PRIVATE PARZ_BENCH_H5_READ)
    if(TARGET parz_gpu)
      target_link_libraries(bench_h5read PRIVATE CUDA::cudart_static) # its device buffers
      target_compile_definitions(bench_h5read PRIVATE PARZ_BENCH_H5_DEVICE)
    endif()
  endif()
  # bench_h5write: H5Dwrite through the filter under PARZ_EXEC=omp and cuda, side by side
  add_executable(bench_h5write bench_h5write.c)
  target_include_directories(bench_h5write PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter)
  target_link_libraries(bench_h5write PRIVATE parz_real_arrays parz_bench_clock parz_hdf5
                                              parz_omp parz_codec m ${CMAKE_DL_LIBS})
  add_dependencies(bench_h5write H5Zparz)
  if(TARGET parz_h5) # also times parz_h5_write of the host array
    target_link_libraries(bench_h5write PRIVATE parz_h5)
    target_compile_definitions(bench_h5write PRIVATE PARZ_BENCH_H5_WRITE)
  endif()
  if(TARGET parz_gpu AND TARGET parz_h5)
    # also times the filter's GPU encoder alone and parz_h5_write_device, both from the CUDA
    # module (parz_h5's loader), with a CUDA runtime of its own for its device buffers
    target_link_libraries(bench_h5write PRIVATE CUDA::cudart_static)
    target_compile_definitions(bench_h5write PRIVATE PARZ_BENCH_GPU PARZ_BENCH_H5_DEVICE)
  endif()
endif()
# bench_mask: masked variants of the real arrays (missing values as NaN or the fill value)
# through HDF5 with ParZ, gzip + shuffle and H5Z-ZFP, and the codec's decode speed masked
# against unmasked, serial and OpenMP.
if(TARGET H5Zparz AND TARGET parz_hdf5)
  add_executable(bench_mask bench_mask.c)
  target_include_directories(bench_mask PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter)
  target_link_libraries(bench_mask PRIVATE parz_real_arrays parz_bench_clock parz_hdf5 parz_omp m)
  add_dependencies(bench_mask H5Zparz)
endif()
# bench_bounded_chunks: the error-bounded codec's chunk encoder and decoder alone, serial and
# OpenMP, with a hash of the chunks' bytes (bench/results/build-vm/bounded_speed.md).
add_executable(bench_bounded_chunks bench_bounded_chunks.c bench_span.c)
target_link_libraries(bench_bounded_chunks PRIVATE parz_omp parz_real_arrays parz_bench_clock m)
