# The lossless codec's core (codec/lossless/): bit-exact round trips of every special bit
# pattern, every rank, the real arrays (PARZ_SHARED_DATA and data/series) and damaged segments.
if(NOT TARGET parz_chunk_testutil)
  return()
endif()
add_executable(test_lossless ${CMAKE_CURRENT_SOURCE_DIR}/test_lossless.c)
target_link_libraries(test_lossless parz_lossless parz_real_arrays parz_chunk_testutil)
if(EXISTS "${PARZ_SHARED_DATA}")
  set(PARZ_LOSSLESS_DATA "${PARZ_SHARED_DATA}")
else()
  set(PARZ_LOSSLESS_DATA "")
endif()
add_test(NAME lossless COMMAND test_lossless "${PARZ_LOSSLESS_DATA}"
                               "${PROJECT_SOURCE_DIR}/data/series")
# Coder 3's and 4's runs, read side by side, against the shared reader run after run.
add_executable(test_lossless_runs ${CMAKE_CURRENT_SOURCE_DIR}/test_lossless_runs.c)
target_link_libraries(test_lossless_runs parz_lossless)
add_test(NAME lossless_runs COMMAND test_lossless_runs)
# The codec through the frame: serial and OpenMP, windows, stored chunks, hostile chunks, the
# real arrays.
add_executable(test_lossless_chunk ${CMAKE_CURRENT_SOURCE_DIR}/test_lossless_chunk.c)
target_link_libraries(test_lossless_chunk parz_omp parz_real_arrays parz_chunk_testutil)
add_test(NAME lossless_chunk COMMAND test_lossless_chunk "${PARZ_LOSSLESS_DATA}"
                                     "${PROJECT_SOURCE_DIR}/data/series")
set_tests_properties(lossless_chunk PROPERTIES ENVIRONMENT "OMP_WAIT_POLICY=passive")
# The core's bytes do not depend on how it is compiled: test_lossless (its inputs built as
# above) against the core built with -O0 and with -O3 -ffast-math -march=native, each held to
# the same pinned fingerprints, so their segments are byte for byte the Release build's (Holt's
# predictor, the Lorenzo predictor and every coder). The -O0 build leaves out the encoder's AVX2
# build of the residual rows (PARZ_LL_NO_AVX2), so that the rows of CPUs without AVX2 are held to
# the fingerprints on any host. The scaled transforms' divisions are IEEE operations that
# -ffast-math may replace (transform.h: such a build neither chooses nor decodes them), so
# transform.c keeps the build's own flags in the second.
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  set(PARZ_LL_CORE_SOURCES
      ${PROJECT_SOURCE_DIR}/codec/lossless/lossless.c ${PROJECT_SOURCE_DIR}/codec/lossless/lorenzo.c
      ${PROJECT_SOURCE_DIR}/codec/lossless/holt.c
      ${PROJECT_SOURCE_DIR}/codec/lossless/residual_coder.c
      ${PROJECT_SOURCE_DIR}/codec/entropy/huffman.c)
  add_library(parz_ll_transform_plain OBJECT ${PROJECT_SOURCE_DIR}/codec/lossless/transform.c)
  target_link_libraries(parz_ll_transform_plain PRIVATE parz_codec)
  foreach(flavour O0 fast)
    if(flavour STREQUAL "O0")
      set(flags -O0 -DPARZ_LL_NO_AVX2)
      set(sources ${PARZ_LL_CORE_SOURCES} ${PROJECT_SOURCE_DIR}/codec/lossless/transform.c)
      set(transform "")
    else()
      set(flags -O3 -ffast-math -march=native)
      set(sources ${PARZ_LL_CORE_SOURCES})
      set(transform $<TARGET_OBJECTS:parz_ll_transform_plain>)
    endif()
    add_library(parz_ll_core_${flavour} OBJECT ${sources})
    target_compile_options(parz_ll_core_${flavour} PRIVATE ${flags})
    target_link_libraries(parz_ll_core_${flavour} PRIVATE parz_codec)
    add_executable(test_lossless_${flavour} ${CMAKE_CURRENT_SOURCE_DIR}/test_lossless.c
                                            $<TARGET_OBJECTS:parz_ll_core_${flavour}> ${transform})
    target_link_libraries(test_lossless_${flavour} parz_lossless parz_real_arrays
                          parz_chunk_testutil)
    add_test(NAME lossless_flags_${flavour} COMMAND test_lossless_${flavour} ""
                                                    "${PROJECT_SOURCE_DIR}/data/series")
  endforeach()
endif()
