# GPU decode-kernel benchmark: kernel throughput against segment size C and parse shape.
if(TARGET parz_gpu AND TARGET parz_omp)
  add_executable(bench_gpu_kernel bench_gpu_kernel.cu)
  target_link_libraries(bench_gpu_kernel PRIVATE parz_gpu parz_omp parz_real_arrays)
  target_compile_features(bench_gpu_kernel PRIVATE cuda_std_17)
  target_compile_options(bench_gpu_kernel PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda>)
endif()
# GPU encoder benchmark: kernel and call throughput against C and scheme, batches of chunks.
if(TARGET parz_gpu AND TARGET parz_omp)
  add_executable(bench_gpu_encode bench_gpu_encode.cu)
  target_include_directories(bench_gpu_encode PRIVATE ${PROJECT_SOURCE_DIR}/gpu)
  target_link_libraries(bench_gpu_encode PRIVATE parz_gpu parz_omp parz_real_arrays)
  target_compile_features(bench_gpu_encode PRIVATE cuda_std_17)
endif()
