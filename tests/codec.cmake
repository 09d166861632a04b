# Codec tests (codec/parz.h). libzfp 1.0 is the oracle here and only here.
find_path(PARZ_CODEC_ZFP_INCLUDE zfp.h)
find_library(PARZ_CODEC_ZFP_LIB zfp)
if(NOT PARZ_CODEC_ZFP_INCLUDE OR NOT PARZ_CODEC_ZFP_LIB)
  message(WARNING "libzfp not found: codec tests skipped (apt-get install libzfp-dev)")
  return()
endif()
add_library(parz_codec_testutil STATIC ${CMAKE_CURRENT_SOURCE_DIR}/test_codec_common.c)
target_include_directories(parz_codec_testutil PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
                           ${PARZ_CODEC_ZFP_INCLUDE})
target_link_libraries(parz_codec_testutil PUBLIC parz_codec ${PARZ_CODEC_ZFP_LIB})
foreach(t zfp params roundtrip access bound errors)
  add_executable(test_codec_${t} ${CMAKE_CURRENT_SOURCE_DIR}/test_codec_${t}.c)
  target_link_libraries(test_codec_${t} parz_codec_testutil)
  add_test(NAME codec_${t} COMMAND test_codec_${t})
endforeach()
# Real arrays: one test per file in ${PARZ_SHARED_DATA}.
add_executable(test_codec_realdata ${CMAKE_CURRENT_SOURCE_DIR}/test_codec_realdata.c)
target_link_libraries(test_codec_realdata parz_codec_testutil)
file(GLOB PARZ_CODEC_DATA_FILES "${PARZ_SHARED_DATA}/*.bin")
if(PARZ_CODEC_DATA_FILES)
  foreach(f ${PARZ_CODEC_DATA_FILES})
    get_filename_component(stem ${f} NAME_WE)
    string(REGEX REPLACE "_f(32|64)le_.*" "" stem ${stem})
    add_test(NAME codec_realdata_${stem} COMMAND test_codec_realdata ${f})
  endforeach()
else()
  message(STATUS "codec: no arrays in ${PARZ_SHARED_DATA}; real-data codec tests skipped")
endif()

# The codec as a compiler without GNU vector extensions builds it (PARZ_VECTOR=0: the inverse
# transform's scalar lifts, which device code runs too) must write and read libzfp's streams
# as well: the same sources, the same tests.
get_target_property(PARZ_CODEC_SCALAR_SOURCES parz_codec SOURCES)
add_library(parz_codec_scalar STATIC ${PARZ_CODEC_SCALAR_SOURCES})
target_include_directories(parz_codec_scalar
                           PUBLIC $<TARGET_PROPERTY:parz_codec,INTERFACE_INCLUDE_DIRECTORIES>)
target_compile_definitions(parz_codec_scalar PRIVATE PARZ_VECTOR=0)
target_link_libraries(parz_codec_scalar PUBLIC $<TARGET_PROPERTY:parz_codec,INTERFACE_LINK_LIBRARIES>)
add_library(parz_codec_testutil_scalar STATIC ${CMAKE_CURRENT_SOURCE_DIR}/test_codec_common.c)
target_include_directories(parz_codec_testutil_scalar PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
                           ${PARZ_CODEC_ZFP_INCLUDE})
target_link_libraries(parz_codec_testutil_scalar PUBLIC parz_codec_scalar ${PARZ_CODEC_ZFP_LIB})
foreach(t zfp roundtrip access)
  add_executable(test_codec_${t}_scalar ${CMAKE_CURRENT_SOURCE_DIR}/test_codec_${t}.c)
  target_link_libraries(test_codec_${t}_scalar parz_codec_testutil_scalar)
  add_test(NAME codec_${t}_scalar COMMAND test_codec_${t}_scalar)
endforeach()

# No cycles between files: neither #include lines among codec/, omp/ and gpu/, nor calls between
# the object files of the codec and the OpenMP drivers (the frame calls a codec only through the
# registry, codec/frame/codecs.h).
find_program(PARZ_CYCLES_PYTHON python3)
if(PARZ_CYCLES_PYTHON)
  add_test(NAME codec_include_cycles
           COMMAND ${PARZ_CYCLES_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_cycles.py --includes
                   ${PROJECT_SOURCE_DIR} codec omp gpu)
  add_test(NAME codec_call_cycles
           COMMAND ${PARZ_CYCLES_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_cycles.py --calls
                   $<TARGET_FILE:parz_codec> $<TARGET_FILE:parz_omp>)
  set_tests_properties(codec_call_cycles PROPERTIES ENVIRONMENT "NM=${CMAKE_NM}")
  # The frame and the OpenMP drivers reach zfp, the lossless and the error-bounded codecs only
  # through the codec table: no header of codec/zfp/, codec/lossless/ or codec/bounded/
  # included, no symbol of them called (the table itself names the codecs).
  add_test(NAME codec_layers_includes
           COMMAND ${PARZ_CYCLES_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_layers.py --includes
                   ${PROJECT_SOURCE_DIR} zfp lossless bounded)
  add_test(NAME codec_layers_calls
           COMMAND ${PARZ_CYCLES_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_layers.py --calls
                   ${PROJECT_SOURCE_DIR} zfp lossless bounded -- codec=$<TARGET_FILE:parz_codec>
                   omp=$<TARGET_FILE:parz_omp>)
  set_tests_properties(codec_layers_calls PROPERTIES ENVIRONMENT "NM=${CMAKE_NM}")
  # No mutable state of their own in the codec and the OpenMP drivers: what a caller reuses
  # between chunks is an object it owns (parz_keep).
  add_test(NAME codec_no_static_state
           COMMAND ${PARZ_CYCLES_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_state.py
                   $<TARGET_FILE:parz_codec> $<TARGET_FILE:parz_omp>)
  set_tests_properties(codec_no_static_state PROPERTIES ENVIRONMENT "OBJDUMP=${CMAKE_OBJDUMP}")
endif()
