# Run at install time, after libparz_h5.so is in <prefix>/lib (install(SCRIPT)). The dynamic
# linker finds a new library in /usr/local/lib only once ldconfig has rebuilt its cache: run it
# when installing into /usr or /usr/local for real, else say what to do instead.
# Reads CMAKE_INSTALL_PREFIX and $ENV{DESTDIR}; PARZ_LDCONFIG is the command to run (a list;
# tests give their own), else ldconfig is looked for.
set(_libdir "${CMAKE_INSTALL_PREFIX}/lib")
if(NOT PARZ_LDCONFIG)
  find_program(PARZ_LDCONFIG ldconfig PATHS /sbin /usr/sbin)
endif()
if("$ENV{DESTDIR}" STREQUAL "" AND _libdir MATCHES "^/usr(/local)?/lib$" AND PARZ_LDCONFIG)
  execute_process(COMMAND ${PARZ_LDCONFIG} RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  if(_rc EQUAL 0)
    message(STATUS "Ran ldconfig: the dynamic linker finds libparz_h5.so")
  else()
    message(WARNING "ldconfig failed (${_err}): run it as root before using libparz_h5.so")
  endif()
else()
  message(STATUS "ldconfig not run: ${_libdir} is not /usr/lib or /usr/local/lib, or DESTDIR is "
                 "set; run ldconfig there, or link programs with -Wl,-rpath,${_libdir}")
endif()
