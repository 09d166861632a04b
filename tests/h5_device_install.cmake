# ctest script: `cmake --install` (into a DESTDIR) puts libparz_h5_device.so and its headers
# (include/parz/) in place, and a program outside the tree (h5_device_client.c) builds against
# them with the C compiler alone and runs: the headers stand alone, the API links, and the
# library loads and works with no CUDA installed (its runtime is inside).
# Usage: cmake -DBUILD= -DDEST= -DPREFIX= -DCC= -DSRC= -DOUT= -DHDF5_INC=a|b -DHDF5_LIBS=a|b -P
include(${CMAKE_CURRENT_LIST_DIR}/install_into.cmake)
parz_install_into("${BUILD}" "${DEST}" out)
set(root "${DEST}${PREFIX}")
foreach(f lib/libparz_h5_device.so include/parz/parz_h5_device.h include/parz/parz_gpu.h
          include/parz/parz_chunk.h include/parz/parz.h)
  if(NOT EXISTS "${root}/${f}")
    message(FATAL_ERROR "not installed: ${PREFIX}/${f}\n${out}")
  endif()
endforeach()
string(REPLACE "|" ";" inc "${HDF5_INC}")
string(REPLACE "|" ";" libs "${HDF5_LIBS}")
set(flags "")
foreach(d IN LISTS inc)
  list(APPEND flags "-I${d}")
endforeach()
execute_process(COMMAND "${CC}" -std=c99 -Wall -Werror -I${root}/include ${flags} "${SRC}"
                        -o "${OUT}" -L${root}/lib -lparz_h5_device -Wl,-rpath,${root}/lib ${libs}
                RESULT_VARIABLE rc OUTPUT_VARIABLE cout ERROR_VARIABLE cout)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a program cannot build against the installed library:\n${cout}")
endif()
execute_process(COMMAND "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE rout ERROR_VARIABLE rout)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the program built against the installed library failed:\n${rout}")
endif()
message(STATUS "${rout}")
