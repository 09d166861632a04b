# OpenMP drivers, execution policy and dispatch.
# test_policy needs only the dispatcher library; the others reuse the chunk tests' helpers
# (deterministic arrays, mode parameters; libzfp is linked there but not used here).
if(TARGET parz_dispatch)
  add_executable(test_policy ${CMAKE_CURRENT_SOURCE_DIR}/test_policy.c)
  target_link_libraries(test_policy parz_dispatch)
  add_test(NAME policy_parse COMMAND test_policy)
endif()

if(NOT TARGET parz_chunk_testutil)
  message(WARNING "ParZ: chunk test helpers missing, OpenMP tests skipped")
  return()
endif()

foreach(t equal nested errors limits nomem lengths assemble)
  add_executable(test_omp_${t} ${CMAKE_CURRENT_SOURCE_DIR}/test_omp_${t}.c)
  target_link_libraries(test_omp_${t} parz_omp parz_real_arrays parz_chunk_testutil)
endforeach()
add_executable(test_payload_checksum ${CMAKE_CURRENT_SOURCE_DIR}/test_payload_checksum.c)
target_link_libraries(test_payload_checksum parz_omp parz_real_arrays parz_chunk_testutil)
# a codec compiled only into this test (tests/codec_raw/), through the frame and the OpenMP driver:
# its codec table (codec_raw/codec_table.c) takes the place of the library's (codecs.h); the
# chunk it writes goes to the library as built, whose table does not know it
add_executable(test_codec_raw ${CMAKE_CURRENT_SOURCE_DIR}/test_codec_raw.c
                              ${CMAKE_CURRENT_SOURCE_DIR}/codec_raw/raw_codec.c
                              ${CMAKE_CURRENT_SOURCE_DIR}/codec_raw/codec_table.c)
target_include_directories(test_codec_raw PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/codec_raw)
target_link_libraries(test_codec_raw parz_omp m)
add_test(NAME codec_raw COMMAND test_codec_raw ${CMAKE_CURRENT_BINARY_DIR}/codec_raw_chunk.bin)
add_executable(test_codec_raw_product ${CMAKE_CURRENT_SOURCE_DIR}/codec_raw/product_refuses.c)
target_include_directories(test_codec_raw_product PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(test_codec_raw_product parz_omp)
add_test(NAME codec_raw_product COMMAND test_codec_raw_product
                                        ${CMAKE_CURRENT_BINARY_DIR}/codec_raw_chunk.bin)
set_tests_properties(codec_raw PROPERTIES FIXTURES_SETUP codec_raw_chunk)
set_tests_properties(codec_raw_product PROPERTIES FIXTURES_REQUIRED codec_raw_chunk)
# the drivers' page population (codec/fresh_pages.h), on plain threads
find_package(Threads REQUIRED)
add_executable(test_fresh_pages ${CMAKE_CURRENT_SOURCE_DIR}/test_fresh_pages.c)
target_link_libraries(test_fresh_pages parz_codec Threads::Threads)
add_test(NAME fresh_pages COMMAND test_fresh_pages)
# real arrays are optional: the test prints that it skipped them when the directory is missing
add_test(NAME omp_equal COMMAND test_omp_equal "${PARZ_SHARED_DATA}")
add_test(NAME omp_nested COMMAND test_omp_nested)
add_test(NAME omp_errors COMMAND test_omp_errors)
add_test(NAME omp_lengths COMMAND test_omp_lengths)
add_test(NAME omp_assemble COMMAND test_omp_assemble)
add_test(NAME payload_checksum COMMAND test_payload_checksum "${PARZ_SHARED_DATA}")
# 4096 threads asked under an address-space limit: results right, process alive
add_test(NAME omp_limits COMMAND test_omp_limits)
set_tests_properties(omp_limits PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
# a chunk's begin out of memory on a team, under an address-space limit: PARZ_ERR_NOMEM
add_test(NAME omp_nomem COMMAND test_omp_nomem)
set_tests_properties(omp_nomem PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
set_tests_properties(omp_equal omp_nested omp_errors omp_lengths omp_assemble payload_checksum
  PROPERTIES ENVIRONMENT "OMP_WAIT_POLICY=passive")
# a prefix sum per work unit takes minutes here; one per call well under a second
set_tests_properties(omp_lengths PROPERTIES TIMEOUT 60)

if(TARGET parz_dispatch)
  add_executable(test_policy_dispatch ${CMAKE_CURRENT_SOURCE_DIR}/test_policy_dispatch.c)
  target_link_libraries(test_policy_dispatch parz_dispatch parz_chunk_testutil)
  add_test(NAME policy_dispatch COMMAND test_policy_dispatch)
  # cuda requested where no GPU is usable (this machine, or a build without CUDA): still decodes
  add_test(NAME policy_dispatch_cuda_no_gpu COMMAND test_policy_dispatch)
  set_tests_properties(policy_dispatch_cuda_no_gpu PROPERTIES
    ENVIRONMENT "PARZ_EXEC=cuda;CUDA_VISIBLE_DEVICES=")
endif()
