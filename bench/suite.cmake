# Benchmark suite: parz_bench measures ParZ and its peers in one run; scripts/bench.sh runs it
# and draws the report (bench_report.py). Peers are optional: without libzfp or HDF5 the driver
# still builds and reports them as missing. libzfp is linked here only.
add_executable(parz_bench parz_bench.c bench_stats.c bench_zfp.c bench_h5.c bench_gpu.c)
target_link_libraries(parz_bench PRIVATE parz_omp parz_codec parz_real_arrays parz_bench_clock m)

find_path(PARZ_ZFP_INCLUDE_DIR zfp.h)
find_library(PARZ_ZFP_LIBRARY zfp)
if(PARZ_ZFP_INCLUDE_DIR AND PARZ_ZFP_LIBRARY)
  target_include_directories(parz_bench PRIVATE ${PARZ_ZFP_INCLUDE_DIR})
  target_link_libraries(parz_bench PRIVATE ${PARZ_ZFP_LIBRARY})
  target_compile_definitions(parz_bench PRIVATE PARZ_BENCH_HAVE_ZFP)
else()
  message(STATUS "parz_bench: libzfp not found, the libzfp peer is left out")
endif()

if(TARGET parz_hdf5)
  target_include_directories(parz_bench PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter)
  target_link_libraries(parz_bench PRIVATE parz_hdf5)
  target_compile_definitions(parz_bench PRIVATE PARZ_BENCH_HAVE_HDF5)
  if(TARGET H5Zparz)
    add_dependencies(parz_bench H5Zparz)
  endif()
else()
  message(STATUS "parz_bench: HDF5 not found, the HDF5 peers are left out")
endif()

if(TARGET parz_gpu)
  target_link_libraries(parz_bench PRIVATE parz_gpu)
  target_compile_definitions(parz_bench PRIVATE PARZ_BENCH_HAVE_CUDA)
endif()
