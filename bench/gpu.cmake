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
# Staged upload of the filter path: its parts and its knobs (pool size, piece size).
if(TARGET parz_gpu)
  add_executable(bench_gpu_upload bench_gpu_upload.cu)
  target_include_directories(bench_gpu_upload PRIVATE ${PROJECT_SOURCE_DIR}/gpu)
  target_link_libraries(bench_gpu_upload PRIVATE parz_gpu)
  target_compile_features(bench_gpu_upload PRIVATE cuda_std_17)
  target_compile_options(bench_gpu_upload PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda>)
endif()

# GPU decode of error-bounded chunks (codec 4) resident on the device: one chunk and batches.
if(TARGET parz_gpu AND TARGET parz_omp)
  add_executable(bench_gpu_bounded bench_gpu_bounded.cu)
  target_link_libraries(bench_gpu_bounded PRIVATE parz_gpu parz_omp parz_real_arrays)
  target_compile_features(bench_gpu_bounded PRIVATE cuda_std_17)
endif()
