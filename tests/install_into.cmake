# For the install tests (cmake -P scripts): `cmake --install` of build dir `build` into an empty
# DESTDIR `dest`; its output in `out_var`. Fails the test when the install fails.
function(parz_install_into build dest out_var)
  file(REMOVE_RECURSE "${dest}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env "DESTDIR=${dest}"
                          ${CMAKE_COMMAND} --install "${build}" --component Unspecified
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install failed:\n${out}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
