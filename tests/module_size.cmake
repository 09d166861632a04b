# ctest script: what every user of the plugin loads is small and needs no CUDA: each of FILES (the
# plugin, libparz_h5.so, the parz command) is under LIMIT bytes and links neither the CUDA runtime
# nor the driver. MODULE (the CUDA module, when built) exports its entry point alone and needs no
# CUDA or C++ runtime installed.
# Usage: cmake -DFILES=a|b|c -DLIMIT=<bytes> -DMODULE=<parz_cuda.so or empty> -DNM= -DOBJDUMP=
#              -P module_size.cmake
# Fails when `file` needs a library whose name matches `forbidden`; its NEEDED lines in out_var.
function(needed file forbidden out_var)
  execute_process(COMMAND ${OBJDUMP} -p ${file} OUTPUT_VARIABLE headers RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "objdump failed on ${file}")
  endif()
  string(REGEX MATCHALL "NEEDED +[^\n]+" libs "${headers}")
  foreach(lib IN LISTS libs)
    if(lib MATCHES "${forbidden}")
      message(FATAL_ERROR "${file} links ${lib}")
    endif()
  endforeach()
  set(${out_var} "${libs}" PARENT_SCOPE)
endfunction()

string(REPLACE "|" ";" files "${FILES}")
foreach(file IN LISTS files)
  file(SIZE ${file} size)
  if(size GREATER LIMIT)
    message(FATAL_ERROR "${file} is ${size} bytes, more than ${LIMIT}")
  endif()
  needed(${file} "cudart|libcuda\\.|nvrtc" libs)
  message(STATUS "${file}: ${size} bytes; ${libs}")
endforeach()

if(MODULE)
  needed(${MODULE} "cudart|libcuda\\.|stdc\\+\\+|gcc_s|hdf5" libs)
  execute_process(COMMAND ${NM} -D --defined-only ${MODULE} OUTPUT_VARIABLE defined)
  string(REGEX MATCHALL " [TDBRVW] [A-Za-z_][A-Za-z0-9_]*" exported "${defined}")
  if(NOT exported STREQUAL " T parz_cuda_module_v1")
    message(FATAL_ERROR "${MODULE} must export parz_cuda_module_v1 alone, exports:${exported}")
  endif()
  file(SIZE ${MODULE} size)
  message(STATUS "${MODULE}: ${size} bytes; ${libs}")
endif()
