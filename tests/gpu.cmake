# The GPU decoder's length parsers and window decoder compiled for the CPU, checked block by block
# against the encoder and the general decoder, and the GPU encoder's steps against the serial
# encoder: run wherever C++ is enabled (CMakeLists.txt), GPU or not, CUDA or not.
# One host test: ctest NAME runs test_NAME, built from test_NAME.cpp and SOURCES with the codec's
# headers and the gpu/ folders in DIRS, given ARGS; REALDATA adds NAME_realdata over the real arrays.
function(parz_host_test name)
  cmake_parse_arguments(H "REALDATA" "" "SOURCES;DIRS;LIBS;ARGS" ${ARGN})
  set(dirs)
  foreach(d IN LISTS H_DIRS)
    list(APPEND dirs ${PROJECT_SOURCE_DIR}/${d})
  endforeach()
  add_executable(test_${name} ${CMAKE_CURRENT_SOURCE_DIR}/test_${name}.cpp ${H_SOURCES})
  target_include_directories(test_${name} PRIVATE ${dirs} ${PROJECT_SOURCE_DIR}/codec)
  target_link_libraries(test_${name} parz_codec ${H_LIBS} m)
  target_compile_features(test_${name} PRIVATE cxx_std_17)
  add_test(NAME ${name} COMMAND test_${name} ${H_ARGS})
  if(H_REALDATA AND EXISTS "${PARZ_SHARED_DATA}")
    add_test(NAME ${name}_realdata COMMAND test_${name} "${PARZ_SHARED_DATA}")
    set_tests_properties(${name}_realdata PROPERTIES TIMEOUT 900)
  endif()
endfunction()

if(CMAKE_CXX_COMPILER_LOADED)
  parz_host_test(gpu_parse_host SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gpu_planes_host.cpp
                 DIRS gpu gpu/zfp)
  # the GPU encoder's per-thread steps, run in the kernels' order on the CPU
  parz_host_test(gpu_encode_host DIRS gpu gpu/zfp)
  # the error-bounded codec's GPU encoder's steps, the same way
  parz_host_test(gpu_bounded_encode_host DIRS gpu gpu/bounded LIBS parz_real_arrays REALDATA)
  # the error-bounded codec's GPU decoder's interpolation steps, the same way
  parz_host_test(gpu_bounded_host DIRS gpu/bounded)
  # the lossless codec's GPU decoder's steps, the same way
  parz_host_test(gpu_lossless_host DIRS gpu/lossless)
  # the lossless codec's GPU encoder's steps, the same way
  parz_host_test(gpu_lossless_encode_host DIRS gpu gpu/lossless LIBS parz_real_arrays
                 ARGS ${PROJECT_SOURCE_DIR}/data/series REALDATA)
endif()

# GPU decoder tests: built whenever the CUDA decoder is, run everywhere; without a CUDA
# device they exit 77, which ctest reports as skipped (with the program's message).
if(NOT TARGET parz_gpu)
  return()
endif()
add_executable(test_gpu_decode ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_decode.cu)
target_link_libraries(test_gpu_decode parz_gpu)
target_compile_features(test_gpu_decode PRIVATE cuda_std_17)
set(PARZ_GPU_TEST_ARGS)
if(EXISTS "${PARZ_SHARED_DATA}")
  set(PARZ_GPU_TEST_ARGS "${PARZ_SHARED_DATA}")
endif()
add_test(NAME gpu_decode COMMAND test_gpu_decode ${PARZ_GPU_TEST_ARGS})
set_tests_properties(gpu_decode PROPERTIES SKIP_RETURN_CODE 77)

# The error-bounded codec's GPU encoder against the serial encoder, byte for byte, and its
# refusals; every real array of ${PARZ_SHARED_DATA} when there are some.
add_executable(test_gpu_bounded_encode ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_bounded_encode.cu)
target_link_libraries(test_gpu_bounded_encode parz_gpu parz_real_arrays m)
target_compile_features(test_gpu_bounded_encode PRIVATE cuda_std_17)
add_test(NAME gpu_bounded_encode COMMAND test_gpu_bounded_encode ${PARZ_GPU_TEST_ARGS})
set_tests_properties(gpu_bounded_encode PROPERTIES SKIP_RETURN_CODE 77)

# The lossless codec's GPU encoder against the serial encoder, byte for byte, and its refusals;
# every real array of ${PARZ_SHARED_DATA} and the series of data/series.
add_executable(test_gpu_lossless_encode ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_lossless_encode.cu)
target_link_libraries(test_gpu_lossless_encode parz_gpu parz_real_arrays m)
target_compile_features(test_gpu_lossless_encode PRIVATE cuda_std_17)
add_test(NAME gpu_lossless_encode COMMAND test_gpu_lossless_encode ${PARZ_GPU_TEST_ARGS}
                                          ${PROJECT_SOURCE_DIR}/data/series)
set_tests_properties(gpu_lossless_encode PROPERTIES SKIP_RETURN_CODE 77)

# GPU encoder against the serial encoder, byte for byte; skipped (77) without a device.
add_executable(test_gpu_encode ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_encode.cu)
target_link_libraries(test_gpu_encode parz_gpu)
target_compile_features(test_gpu_encode PRIVATE cuda_std_17)
add_test(NAME gpu_encode COMMAND test_gpu_encode ${PARZ_GPU_TEST_ARGS})
set_tests_properties(gpu_encode PROPERTIES SKIP_RETURN_CODE 77)

# The filter path's host thread pool needs no device: it runs wherever the CUDA code is built.
add_executable(test_host_pool ${CMAKE_CURRENT_SOURCE_DIR}/test_host_pool.cu)
target_link_libraries(test_host_pool parz_gpu)
target_compile_features(test_host_pool PRIVATE cuda_std_17)
add_test(NAME host_pool COMMAND test_host_pool)

# The GPU's codec table: the raw codec of the tests (codec_raw/, its codec table in place of the
# library's) refused by the device API, the filter path and the encoder, naming it; the refusals
# before any work run without a device, the rest skip there.
add_executable(test_gpu_codecs ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_codecs.cu
                               ${CMAKE_CURRENT_SOURCE_DIR}/codec_raw/raw_codec.c
                               ${CMAKE_CURRENT_SOURCE_DIR}/codec_raw/codec_table.c)
target_include_directories(test_gpu_codecs PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                                   ${CMAKE_CURRENT_SOURCE_DIR}/codec_raw)
target_link_libraries(test_gpu_codecs parz_gpu m)
target_compile_features(test_gpu_codecs PRIVATE cuda_std_17)
add_test(NAME gpu_codecs COMMAND test_gpu_codecs)

# The error-bounded codec on the GPU against the serial decoder, bit for bit, hostile chunks
# included; every real array of ${PARZ_SHARED_DATA} when there are some; skipped (77) without a
# device.
add_executable(test_gpu_bounded ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_bounded.cu)
target_link_libraries(test_gpu_bounded parz_gpu parz_omp parz_real_arrays m)
target_compile_features(test_gpu_bounded PRIVATE cuda_std_17)
add_test(NAME gpu_bounded COMMAND test_gpu_bounded ${PARZ_GPU_TEST_ARGS})
set_tests_properties(gpu_bounded PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)

# The lossless codec's GPU decoder against the serial decoder (types, ranks, predictors, coders,
# special bit patterns, hostile chunks, batches with other codecs, the real arrays and series);
# skipped (77) without a device.
add_executable(test_gpu_lossless ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_lossless.cu)
target_link_libraries(test_gpu_lossless parz_gpu parz_real_arrays m)
target_compile_features(test_gpu_lossless PRIVATE cuda_std_17)
set(PARZ_GPU_LOSSLESS_ARGS)
if(EXISTS "${PARZ_SHARED_DATA}")
  list(APPEND PARZ_GPU_LOSSLESS_ARGS "${PARZ_SHARED_DATA}")
endif()
list(APPEND PARZ_GPU_LOSSLESS_ARGS "${PROJECT_SOURCE_DIR}/data/series")
add_test(NAME gpu_lossless COMMAND test_gpu_lossless ${PARZ_GPU_LOSSLESS_ARGS})
set_tests_properties(gpu_lossless PROPERTIES SKIP_RETURN_CODE 77)
