# Chunk format tests (codec/parz_chunk.h). libzfp is the oracle here and only here.
find_path(PARZ_CHUNK_ZFP_INCLUDE zfp.h)
find_library(PARZ_CHUNK_ZFP_LIB zfp)
if(NOT PARZ_CHUNK_ZFP_INCLUDE OR NOT PARZ_CHUNK_ZFP_LIB)
  message(WARNING "libzfp not found: chunk tests skipped (apt-get install libzfp-dev)")
  return()
endif()
add_library(parz_chunk_testutil STATIC ${CMAKE_CURRENT_SOURCE_DIR}/test_chunk_common.c)
target_include_directories(parz_chunk_testutil PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
                           ${PARZ_CHUNK_ZFP_INCLUDE})
target_link_libraries(parz_chunk_testutil PUBLIC parz_codec ${PARZ_CHUNK_ZFP_LIB})
foreach(t unit vector roundtrip nonfinite corrupt v2 limits dest mask jobs)
  add_executable(test_chunk_${t} ${CMAKE_CURRENT_SOURCE_DIR}/test_chunk_${t}.c)
  target_link_libraries(test_chunk_${t} parz_chunk_testutil)
  add_test(NAME chunk_${t} COMMAND test_chunk_${t})
endforeach()
# Real arrays: error bound and table overhead at the default C and P (prints the numbers);
# `test_chunk_realdata --sweep` also sweeps C. Needs ../shared/data.
add_executable(test_chunk_realdata ${CMAKE_CURRENT_SOURCE_DIR}/test_chunk_realdata.c)
target_link_libraries(test_chunk_realdata parz_chunk_testutil)
if(EXISTS "${PARZ_SHARED_DATA}")
  add_test(NAME chunk_realdata COMMAND test_chunk_realdata "${PARZ_SHARED_DATA}")
endif()
