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
# The codec through the frame: serial and OpenMP, windows, stored chunks, hostile chunks, the
# real arrays.
add_executable(test_lossless_chunk ${CMAKE_CURRENT_SOURCE_DIR}/test_lossless_chunk.c)
target_link_libraries(test_lossless_chunk parz_omp parz_real_arrays parz_chunk_testutil)
add_test(NAME lossless_chunk COMMAND test_lossless_chunk "${PARZ_LOSSLESS_DATA}"
                                     "${PROJECT_SOURCE_DIR}/data/series")
set_tests_properties(lossless_chunk PROPERTIES ENVIRONMENT "OMP_WAIT_POLICY=passive")
