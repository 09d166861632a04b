# ctest script: the install's ldconfig step (cmake/ldconfig.cmake) runs ldconfig for a real install
# into /usr or /usr/local, and for a DESTDIR or another prefix says what to do instead. A stand-in
# command records whether it ran.
# Usage: cmake -DSTEP=<cmake/ldconfig.cmake> -DWORK=<dir> -P ldconfig_step.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(ran "${WORK}/ran")
foreach(case "/usr/local|-|yes" "/usr|-|yes" "/opt/parz|-|no" "/usr/local|${WORK}/dest|no")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 prefix)
  list(GET case 1 destdir)
  list(GET case 2 want)
  if(destdir STREQUAL "-")
    set(destdir "")
  endif()
  file(REMOVE "${ran}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env "DESTDIR=${destdir}" ${CMAKE_COMMAND}
                          -DCMAKE_INSTALL_PREFIX=${prefix}
                          "-DPARZ_LDCONFIG=${CMAKE_COMMAND};-E;touch;${ran}" -P "${STEP}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(EXISTS "${ran}")
    set(got yes)
  else()
    set(got no)
  endif()
  if(NOT rc EQUAL 0 OR NOT got STREQUAL want)
    message(FATAL_ERROR "prefix ${prefix}, DESTDIR '${destdir}': ran ldconfig: ${got}, "
                        "expected ${want}:\n${out}")
  endif()
  if(want STREQUAL "no" AND NOT out MATCHES "ldconfig not run: .* -Wl,-rpath,${prefix}/lib")
    message(FATAL_ERROR "prefix ${prefix}: no advice instead of ldconfig:\n${out}")
  endif()
  message(STATUS "prefix ${prefix}, DESTDIR '${destdir}': ldconfig run: ${got}")
endforeach()
