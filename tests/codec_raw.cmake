# A second codec through the filter's cd_values, the plugin and the parz command: tests/codec_raw's
# codec table (the library's codecs and the raw copy codec, 200) in place of the library's
# (codec/frame/codecs.h), in programs built for the tests only.
if(NOT TARGET parz_filter_config)
  return()
endif()

# The cd_values of the raw codec, without HDF5.
add_executable(test_cd_values_raw codec_raw/cd_values_raw.c codec_raw/raw_codec.c
                                  codec_raw/codec_table.c)
target_include_directories(test_cd_values_raw PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                                      ${CMAKE_CURRENT_SOURCE_DIR}/codec_raw)
target_link_libraries(test_cd_values_raw PRIVATE parz_filter_config)
add_test(NAME cd_values_raw COMMAND test_cd_values_raw)

if(NOT TARGET H5Zparz OR NOT TARGET parz_tool)
  return()
endif()

# The plugin module and the parz command built again with the raw codec:
# python_tests/test_codec_choice.py writes codec "raw" through h5py with them, reads it back and
# has parz inspect name it. Nothing of the plugin or the command changes for it: each copy is
# its target's sources, settings and libraries, plus the codec's folder. Not installed.
set(PARZ_RAW_DIR ${CMAKE_CURRENT_BINARY_DIR}/codec_raw)

# ${copy}: target ${target} with the raw codec and its table, built into PARZ_RAW_DIR.
function(parz_with_raw_codec target copy)
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  set(files ${CMAKE_CURRENT_SOURCE_DIR}/codec_raw/raw_codec.c
            ${CMAKE_CURRENT_SOURCE_DIR}/codec_raw/codec_table.c)
  foreach(s IN LISTS sources)
    if(NOT IS_ABSOLUTE "${s}")
      set(s "${source_dir}/${s}")
    endif()
    list(APPEND files "${s}")
  endforeach()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "MODULE_LIBRARY")
    add_library(${copy} MODULE ${files})
  else()
    add_executable(${copy} ${files})
  endif()
  foreach(p INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS LINK_LIBRARIES LINK_OPTIONS
            C_VISIBILITY_PRESET SKIP_BUILD_RPATH)
    get_target_property(v ${target} ${p})
    if(v)
      set_property(TARGET ${copy} PROPERTY ${p} "${v}")
    endif()
  endforeach()
  target_include_directories(${copy} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/codec_raw)
  set_target_properties(${copy} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${PARZ_RAW_DIR}
                                           RUNTIME_OUTPUT_DIRECTORY ${PARZ_RAW_DIR})
endfunction()

parz_with_raw_codec(H5Zparz H5Zparz_raw_codec)
set_target_properties(H5Zparz_raw_codec PROPERTIES OUTPUT_NAME H5Zparz)
parz_with_raw_codec(parz_tool parz_tool_raw_codec)
set_target_properties(parz_tool_raw_codec PROPERTIES OUTPUT_NAME parz)

