# ctest script: `cmake --install` (into a DESTDIR) gives C programs what they build against, and a
# program builds and runs with it twice: with pkg-config (parz.pc, with hdf5-serial.pc) and with
# find_package(ParZ) (tests/install_client), the dataset readers too (parz-h5.pc, COMPONENTS h5;
# with the CUDA decoder parz-h5-device.pc, COMPONENTS h5_device). The installed parz command runs.
# Usage: cmake -DBUILD= -DDEST= -DPREFIX= -DPLUGIN_DIR= -DVERSION= -DDEVICE=ON|OFF -DCC= -DSRC=
#              -DWORK= -DPKG_CONFIG= -DHDF5_INC=a|b -DHDF5_LIBS=a|b -DPREFIX_PATH=a|b
#              -P c_package_install.cmake
# (SRC: the tests/ directory; PREFIX_PATH: where this build found HDF5, for the client project)
include(${CMAKE_CURRENT_LIST_DIR}/install_into.cmake)
parz_install_into("${BUILD}" "${DEST}" out)
set(root "${DEST}${PREFIX}")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(run_env "HDF5_PLUGIN_PATH=${DEST}${PLUGIN_DIR}")

set(files include/H5Zparz.h include/H5Zparz_register.h bin/parz lib/pkgconfig/parz.pc
          lib/cmake/ParZ/ParZConfig.cmake
          lib/cmake/ParZ/ParZConfigVersion.cmake lib/cmake/ParZ/ParZTargets.cmake
          lib/pkgconfig/parz-h5.pc lib/libparz_h5.so)
# Installed into a DESTDIR: ldconfig must not run, and the output says what to do instead.
if(NOT out MATCHES "ldconfig not run: [^\n]*or DESTDIR is set; run ldconfig there, or link programs with -Wl,-rpath,")
  message(FATAL_ERROR "no word about ldconfig in the install output:\n${out}")
endif()
if(DEVICE) # with the link to the CUDA module beside libparz_h5.so (it must resolve in DESTDIR)
  list(APPEND files lib/pkgconfig/parz-h5-device.pc lib/libparz_h5_device.so lib/parz_cuda.so)
endif()
foreach(f IN LISTS files)
  if(NOT EXISTS "${root}/${f}")
    message(FATAL_ERROR "not installed: ${PREFIX}/${f}\n${out}")
  endif()
endforeach()

# Runs a command; fails the test with its output unless it succeeds. Output in out_var.
function(must out_var what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE o)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${o}")
  endif()
  set(${out_var} "${o}" PARENT_SCOPE)
endfunction()

function(expect what text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: no match for '${regex}' in:\n${text}")
  endif()
endfunction()

must(o "the installed parz" ${CMAKE_COMMAND} -E env ${run_env} "${root}/bin/parz" --version)
expect("parz --version" "${o}" "^parz ${VERSION} ")

# ---- pkg-config (ParZ's flags from it, HDF5's as this build found them) ----------------------------
string(REPLACE "|" ";" hdf5_flags "${HDF5_INC}")
list(TRANSFORM hdf5_flags PREPEND "-I")
string(REPLACE "|" ";" hdf5_libs "${HDF5_LIBS}")
list(APPEND hdf5_flags ${hdf5_libs})
if(NOT PKG_CONFIG)
  message(STATUS "no pkg-config here: parz.pc not tried")
else()
  set(pc ${CMAKE_COMMAND} -E env "PKG_CONFIG_PATH=${root}/lib/pkgconfig" "${PKG_CONFIG}")
  must(o "pkg-config --modversion parz" ${pc} --modversion parz)
  expect("pkg-config --modversion parz" "${o}" "^${VERSION}\n$")
  must(o "pkg-config --variable=plugindir parz" ${pc} --variable=plugindir parz)
  expect("parz.pc plugindir" "${o}" "^${PLUGIN_DIR}\n$")
  set(module parz)
  if(DEVICE)
    set(module parz-h5-device)
  endif()
  must(flags "pkg-config --cflags --libs ${module}" ${pc} --cflags --libs ${module})
  string(STRIP "${flags}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  must(o "cc with pkg-config" "${CC}" -std=c99 -Wall -Werror "${SRC}/h5z_client.c" -o
       "${WORK}/client_pc" ${flags} ${hdf5_flags} -lm)
  must(o "the program built with pkg-config" ${CMAKE_COMMAND} -E env ${run_env}
       "${WORK}/client_pc" "${WORK}/pc.h5")
  expect("the program built with pkg-config" "${o}"
         "H5Zparz.h version ${VERSION} [^\n]*\nfilter \"ParZ-${VERSION} [^\n]*\": round trip ok")
  set(readers parz-h5)
  set(defs "")
  if(DEVICE)
    set(readers parz-h5-device)
    set(defs -DPARZ_CLIENT_DEVICE)
  endif()
  must(rflags "pkg-config --cflags --libs ${readers}" ${pc} --cflags --libs ${readers})
  string(STRIP "${rflags}" rflags)
  separate_arguments(rflags UNIX_COMMAND "${rflags}")
  must(o "cc with pkg-config ${readers}" "${CC}" -std=c99 -Wall -Werror ${defs}
       "${SRC}/h5_readers_client.c" -o "${WORK}/readers_pc" ${rflags} ${hdf5_flags}
       -Wl,-rpath,${root}/lib)
  must(o "the readers' program built with pkg-config" "${WORK}/readers_pc" "${WORK}/readers_pc.h5")
endif()

# Programs linked with -lparz_h5_device (a link to libparz_h5.so with the CUDA decoder) build and run.
if(DEVICE)
  must(o "cc -lparz_h5_device" "${CC}" -std=c99 -Wall -Werror -DPARZ_CLIENT_DEVICE
       "${SRC}/h5_readers_client.c" -o "${WORK}/readers_device" -I${root}/include ${hdf5_flags}
       -L${root}/lib -lparz_h5_device -Wl,-rpath,${root}/lib)
  must(o "the program linked with -lparz_h5_device" "${WORK}/readers_device"
       "${WORK}/readers_device.h5")
endif()

# ---- find_package --------------------------------------------------------------------------------
string(REPLACE "|" ";" prefix_path "${root}|${PREFIX_PATH}")
set(configure ${CMAKE_COMMAND} -S "${SRC}/install_client" "-DCMAKE_PREFIX_PATH=${prefix_path}"
              -DCMAKE_C_COMPILER=${CC} -DPARZ_WANT_DEVICE=${DEVICE})
must(o "find_package(ParZ ${VERSION})" ${configure} -B "${WORK}/client" -DPARZ_WANT_VERSION=${VERSION})
expect("find_package(ParZ)" "${o}"
       "ParZ ${VERSION}, plugin dir ${PLUGIN_DIR}, tool ${root}/bin/parz\n")
must(o "building with find_package(ParZ)" ${CMAKE_COMMAND} --build "${WORK}/client")
must(o "the program built with find_package" ${CMAKE_COMMAND} -E env ${run_env}
     "${WORK}/client/h5z_client" "${WORK}/cmake.h5")
expect("the program built with find_package" "${o}" "filter \"ParZ-${VERSION} [^\n]*\": round trip ok")
must(o "the readers' program built with find_package" "${WORK}/client/h5_readers_client"
     "${WORK}/client/readers.h5")
# A version this install is not, and (without the CUDA decoder) a component it lacks, are refused.
execute_process(COMMAND ${configure} -B "${WORK}/client_v99" -DPARZ_WANT_VERSION=99.0
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 0)
  message(FATAL_ERROR "find_package(ParZ 99.0) succeeded against version ${VERSION}")
endif()
if(NOT DEVICE)
  execute_process(COMMAND ${configure} -B "${WORK}/client_dev" -DPARZ_WANT_DEVICE=ON
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    message(FATAL_ERROR "find_package(ParZ COMPONENTS h5_device) succeeded without the library")
  endif()
endif()
message(STATUS "pkg-config and find_package(ParZ ${VERSION}) build programs that run")
