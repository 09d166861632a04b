# ctest script: `cmake --install` (into a DESTDIR) puts libparz_h5.so and its headers
# (include/parz/) in place, and a program outside the tree (h5_readers_client.c) builds against
# them with the C compiler alone and runs: the headers stand alone, the API links, and the
# library loads and works (with the CUDA decoder: with no CUDA installed, its runtime is inside;
# libparz_h5_device.so, the library's former name, links to it).
# Usage: cmake -DBUILD= -DDEST= -DPREFIX= -DCC= -DSRC= -DOUT= -DHDF5_INC=a|b -DHDF5_LIBS=a|b
#              -DDEVICE=ON|OFF -P h5_readers_install.cmake
include(${CMAKE_CURRENT_LIST_DIR}/install_into.cmake)
parz_install_into("${BUILD}" "${DEST}" out)
set(root "${DEST}${PREFIX}")
set(files lib/libparz_h5.so include/parz/parz_h5_read.h include/parz/parz_omp.h
          include/parz/parz_chunked.h include/parz/parz_chunk.h include/parz/parz.h)
set(lib parz_h5)
set(defs "")
if(DEVICE)
  list(APPEND files lib/libparz_h5_device.so include/parz/parz_h5_device.h include/parz/parz_gpu.h)
  set(lib parz_h5_device) # the former name still links
  set(defs -DPARZ_CLIENT_DEVICE)
endif()
foreach(f IN LISTS files)
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
execute_process(COMMAND "${CC}" -std=c99 -Wall -Werror ${defs} -I${root}/include ${flags} "${SRC}"
                        -o "${OUT}" -L${root}/lib -l${lib} -Wl,-rpath,${root}/lib ${libs}
                RESULT_VARIABLE rc OUTPUT_VARIABLE cout ERROR_VARIABLE cout)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a program cannot build against the installed library:\n${cout}")
endif()
execute_process(COMMAND "${OUT}" "${OUT}.h5" RESULT_VARIABLE rc OUTPUT_VARIABLE rout
                ERROR_VARIABLE rout)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the program built against the installed library failed:\n${rout}")
endif()
message(STATUS "${rout}")
