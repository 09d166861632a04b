# GPU decode-kernel benchmark: kernel throughput against segment size C and parse shape.
if(TARGET parz_gpu AND TARGET parz_omp)
  add_executable(bench_gpu_kernel bench_gpu_kernel.cu)
  target_link_libraries(bench_gpu_kernel PRIVATE parz_gpu parz_omp)
  target_compile_features(bench_gpu_kernel PRIVATE cuda_std_17)
  target_compile_options(bench_gpu_kernel PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda>)
endif()
