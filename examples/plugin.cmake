# Plugin examples: the C usage demo (the Python one, plugin_demo.py, is run by scripts/demo.sh).
if(TARGET H5Zparz)
  add_executable(plugin_demo plugin_demo.c)
  target_include_directories(plugin_demo PRIVATE ${PROJECT_SOURCE_DIR}/plugin/filter)
  target_link_libraries(plugin_demo PRIVATE parz_hdf5 m)
  add_dependencies(plugin_demo H5Zparz)
endif()
