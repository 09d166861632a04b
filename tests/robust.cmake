# Robustness: fuzz harnesses, their replay tests and the hostile-input C tests.
#
# Every harness in tests/fuzz/ is built twice:
#  - robust_replay_<name>: the harness with a plain main() (tests/fuzz/replay_main.c), built with
#    the normal compiler, run by ctest on the seed corpus that robust_gen_corpus writes into the
#    build tree (test robust_gen_corpus, run first) and on every input that once broke it
#    (tests/fuzz/regressions/<name>/, the only inputs kept in git); under scripts/sanitize.sh this
#    runs with AddressSanitizer + UndefinedBehaviorSanitizer.
#  - fuzz_<name>: the libFuzzer binary, only with -DPARZ_FUZZ=ON and clang (tests/fuzz/README.md).
option(PARZ_FUZZ "Build the libFuzzer harnesses (needs clang; see tests/fuzz/README.md)" OFF)

set(PARZ_FUZZ_SRC ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
set(_parz_harnesses chunk_parse chunk_decode decode_blocks)
if(TARGET parz_omp)
  list(APPEND _parz_harnesses omp_decode)
endif()
if(TARGET parz_dispatch AND TARGET parz_filter_config AND TARGET parz_hdf5)
  list(APPEND _parz_harnesses filter)
endif()

function(parz_harness_deps target name)
  target_include_directories(${target} PRIVATE ${PARZ_FUZZ_SRC})
  target_link_libraries(${target} PRIVATE parz_codec)
  if(name STREQUAL "omp_decode")
    target_link_libraries(${target} PRIVATE parz_omp)
  elseif(name STREQUAL "filter")
    # The filter callback as HDF5 calls it: the plugin's own sources, linked with libhdf5.
    target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter/H5Zparz.c
                                     ${PROJECT_SOURCE_DIR}/plugin/filter/filter_keep.c
                                     ${PROJECT_SOURCE_DIR}/plugin/dataset/h5_api.c
                                     ${PROJECT_SOURCE_DIR}/plugin/dataset/h5_dataset.c
                                     ${PROJECT_SOURCE_DIR}/plugin/dataset/huge_pages.c)
    target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter
                                                 ${PROJECT_SOURCE_DIR}/plugin/dataset)
    target_compile_definitions(${target} PRIVATE PARZ_HAVE_DISPATCH)
    target_link_libraries(${target} PRIVATE parz_filter_config parz_dispatch parz_hdf5
                                            ${CMAKE_DL_LIBS})
  endif()
  find_library(PARZ_ROBUST_LIBM m)
  if(PARZ_ROBUST_LIBM)
    target_link_libraries(${target} PRIVATE ${PARZ_ROBUST_LIBM})
  endif()
endfunction()

# The seed generator: valid chunks of every mode, type, rank and table kind, the same bytes on
# every run (tests/fuzz/gen_corpus.c).
set(_gen ${CMAKE_CURRENT_BINARY_DIR}/fuzz_corpus_generated)
if(TARGET parz_filter_config)
  add_executable(robust_gen_corpus ${PARZ_FUZZ_SRC}/gen_corpus.c)
  target_link_libraries(robust_gen_corpus PRIVATE parz_filter_config parz_codec)
  if(PARZ_ROBUST_LIBM)
    target_link_libraries(robust_gen_corpus PRIVATE ${PARZ_ROBUST_LIBM})
  endif()
  add_test(NAME robust_gen_corpus COMMAND robust_gen_corpus ${_gen})
  set_tests_properties(robust_gen_corpus PROPERTIES LABELS robust FIXTURES_SETUP parz_gen_corpus)
endif()

foreach(h IN LISTS _parz_harnesses)
  add_executable(robust_replay_${h} ${PARZ_FUZZ_SRC}/fuzz_${h}.c ${PARZ_FUZZ_SRC}/replay_main.c)
  parz_harness_deps(robust_replay_${h} ${h})
  if(TARGET robust_gen_corpus)
    add_test(NAME robust_replay_${h}
             COMMAND robust_replay_${h} ${_gen}/${h} ${PARZ_FUZZ_SRC}/regressions/${h})
    set_tests_properties(robust_replay_${h} PROPERTIES LABELS robust
                         FIXTURES_REQUIRED parz_gen_corpus)
  else()
    add_test(NAME robust_replay_${h}
             COMMAND robust_replay_${h} ${PARZ_FUZZ_SRC}/regressions/${h})
    set_tests_properties(robust_replay_${h} PROPERTIES LABELS robust)
  endif()
  if(PARZ_FUZZ)
    add_executable(fuzz_${h} ${PARZ_FUZZ_SRC}/fuzz_${h}.c)
    parz_harness_deps(fuzz_${h} ${h})
    target_compile_options(fuzz_${h} PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz_${h} PRIVATE -fsanitize=fuzzer)
  endif()
endforeach()

# Hostile-input C tests (tests/test_hostile_*.c).
file(GLOB _parz_hostile CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/test_hostile_*.c)
foreach(src IN LISTS _parz_hostile)
  get_filename_component(t ${src} NAME_WE)
  add_executable(${t} ${src})
  target_include_directories(${t} PRIVATE ${PARZ_FUZZ_SRC})
  target_link_libraries(${t} PRIVATE parz_codec)
  if(TARGET parz_omp)
    target_link_libraries(${t} PRIVATE parz_omp)
    target_compile_definitions(${t} PRIVATE PARZ_TEST_OMP)
  endif()
  add_test(NAME ${t} COMMAND ${t})
  set_tests_properties(${t} PROPERTIES LABELS robust)
endforeach()
