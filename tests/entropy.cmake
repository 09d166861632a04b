# The codecs' shared entropy coders (codec/entropy/): code lengths against an exhaustive search
# and a reference package-merge, canonical words, the bit streams and the table decoder.
add_executable(test_entropy ${CMAKE_CURRENT_SOURCE_DIR}/test_entropy.c)
target_link_libraries(test_entropy parz_codec)
add_test(NAME entropy COMMAND test_entropy)
