# The error-bounded codec's core (codec/bounded/): crafted and hostile input always, every real
# array of ${PARZ_SHARED_DATA} when there are some.
add_executable(test_bounded ${CMAKE_CURRENT_SOURCE_DIR}/test_bounded.c)
target_link_libraries(test_bounded parz_bounded parz_real_arrays m)
add_test(NAME bounded_crafted COMMAND test_bounded)
if(EXISTS "${PARZ_SHARED_DATA}")
  add_test(NAME bounded_realdata COMMAND test_bounded "${PARZ_SHARED_DATA}")
  set_tests_properties(bounded_realdata PROPERTIES TIMEOUT 900)
endif()

# The codec through the chunk's frame (codec 4): serial and OpenMP, windows, hostile chunks; every
# real array in chunks of about 1 MiB when there are some.
add_executable(test_bounded_chunk ${CMAKE_CURRENT_SOURCE_DIR}/test_bounded_chunk.c)
target_link_libraries(test_bounded_chunk parz_omp parz_real_arrays m)
add_test(NAME bounded_chunk_crafted COMMAND test_bounded_chunk)
if(EXISTS "${PARZ_SHARED_DATA}")
  add_test(NAME bounded_chunk_realdata COMMAND test_bounded_chunk "${PARZ_SHARED_DATA}")
  set_tests_properties(bounded_chunk_realdata PROPERTIES TIMEOUT 900)
endif()

# The caller's keep of chunk-wide blocks (codec/frame/chunk_keep.c) with the codec that takes
# them: its rules, chunks of every size, rank and type through one keep, threads sharing one or
# each with its own.
add_executable(test_chunk_keep ${CMAKE_CURRENT_SOURCE_DIR}/test_chunk_keep.c)
target_link_libraries(test_chunk_keep parz_omp m)
add_test(NAME chunk_keep COMMAND test_chunk_keep)

# The segment decode split among lanes (codec/bounded/bounded_lanes.h, the GPU's segment kernel's
# steps) emulated on the CPU against the serial decode: crafted and damaged segments always,
# every real array when there are some.
add_executable(test_bounded_lanes ${CMAKE_CURRENT_SOURCE_DIR}/test_bounded_lanes.c)
target_link_libraries(test_bounded_lanes parz_bounded parz_real_arrays m)
add_test(NAME bounded_lanes_crafted COMMAND test_bounded_lanes)
if(EXISTS "${PARZ_SHARED_DATA}")
  add_test(NAME bounded_lanes_realdata COMMAND test_bounded_lanes "${PARZ_SHARED_DATA}")
  set_tests_properties(bounded_lanes_realdata PROPERTIES TIMEOUT 900)
endif()
