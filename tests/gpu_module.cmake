# The CUDA decoder in a module of its own (gpu/cuda_module.h): what every user loads stays small and
# free of CUDA, and works the same where the module is absent.
if(NOT TARGET H5Zparz)
  return()
endif()

# Size and dependencies of the plugin, libparz_h5.so and the parz command (and of the module: it
# exports its entry point alone and needs no CUDA installed). Not in sanitizer builds, whose
# instrumented code is ten times larger and which build no CUDA.
if(PARZ_SANITIZE)
  return()
endif()
set(_parz_small $<TARGET_FILE:H5Zparz>)
foreach(_target parz_h5_shared parz_tool)
  if(TARGET ${_target})
    list(APPEND _parz_small $<TARGET_FILE:${_target}>)
  endif()
endforeach()
string(JOIN "|" _parz_small ${_parz_small})
set(_parz_module "")
if(TARGET parz_cuda)
  set(_parz_module $<TARGET_FILE:parz_cuda>)
endif()
add_test(NAME test_plugin_size
         COMMAND ${CMAKE_COMMAND} "-DFILES=${_parz_small}" -DLIMIT=5000000 "-DMODULE=${_parz_module}"
                 -DNM=${CMAKE_NM} -DOBJDUMP=${CMAKE_OBJDUMP}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/module_size.cmake)

# The plugin and the parz command without the module (PARZ_CUDA_MODULE names a missing file, or
# one that is not the module) and with it, found beside the plugin in the build tree.
if(NOT TARGET parz_cuda OR NOT TARGET parz_tool)
  return()
endif()
set(_parz_scratch ${CMAKE_CURRENT_BINARY_DIR}/gpu_module_scratch)
file(MAKE_DIRECTORY ${_parz_scratch})
add_executable(test_gpu_module test_gpu_module.c)
target_include_directories(test_gpu_module PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter)
target_link_libraries(test_gpu_module PRIVATE parz_hdf5 parz_codec ${CMAKE_DL_LIBS})
add_dependencies(test_gpu_module H5Zparz parz_cuda parz_tool)
foreach(_mode missing foreign present)
  add_test(NAME gpu_module_${_mode}
           COMMAND test_gpu_module ${_mode} $<TARGET_FILE:H5Zparz> $<TARGET_FILE:parz_tool>
                   ${_parz_scratch})
endforeach()
set_tests_properties(gpu_module_missing PROPERTIES ENVIRONMENT
  "HDF5_PLUGIN_PATH=${PARZ_PLUGIN_DIR};PARZ_CUDA_MODULE=${_parz_scratch}/absent/parz_cuda.so")
set_tests_properties(gpu_module_foreign PROPERTIES ENVIRONMENT
  "HDF5_PLUGIN_PATH=${PARZ_PLUGIN_DIR};PARZ_CUDA_MODULE=$<TARGET_FILE:H5Zparz>")
set_tests_properties(gpu_module_present PROPERTIES ENVIRONMENT "HDF5_PLUGIN_PATH=${PARZ_PLUGIN_DIR}")
