# ctest script: Debian's h5cc links HDF5 statically unless given -shlib, and a static HDF5 exports
# no functions to plugins. A program built that way must get the plugin's message saying so and
# what to do; the same program built with h5cc -shlib must work.
# Usage: cmake -DH5CC= -DSRC=<tests dir> -DINCLUDE=<dir of H5Zparz.h> -DWORK= -P h5cc_static.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
foreach(kind static shared)
  set(flags "")
  if(kind STREQUAL "shared")
    set(flags -shlib)
  endif()
  execute_process(COMMAND "${H5CC}" ${flags} -I${INCLUDE} "${SRC}/h5z_client.c" -o
                          "${WORK}/client_${kind}"
                  WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE o)
  if(NOT rc EQUAL 0)
    # An h5cc whose HDF5 is not where it was built for (unpacked elsewhere): nothing to test.
    message(STATUS "h5cc cannot build a program here (h5cc ${flags}):\n${o}")
    return()
  endif()
  execute_process(COMMAND "${WORK}/client_${kind}" "${WORK}/${kind}.h5" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out_${kind} ERROR_VARIABLE out_${kind})
  set(rc_${kind} ${rc})
endforeach()
if(rc_static EQUAL 0 OR NOT out_static MATCHES
   "parz: HDF5 function H5open not found: the program links HDF5 statically \\(h5cc's default\\); plugins need shared HDF5: h5cc -shlib, or pkg-config hdf5-serial")
  message(FATAL_ERROR "h5cc (static HDF5): exit ${rc_static}, no clear message:\n${out_static}")
endif()
if(NOT rc_shared EQUAL 0 OR NOT out_shared MATCHES "round trip ok")
  message(FATAL_ERROR "h5cc -shlib: exit ${rc_shared}:\n${out_shared}")
endif()
message(STATUS "static HDF5: ${out_static}\nshared HDF5: ${out_shared}")
