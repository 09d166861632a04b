# Parallel HDF5 tests: the MPI example mpi_checkpoint (examples/mpi.cmake, with MPI found by
# cmake/ParZMPI.cmake) under mpiexec with 2 and 4 ranks (4 with oversubscription), a restart read
# on other rank counts, and invalid parameters on one or all ranks, which must end every rank
# with an error (no hang: a timeout fails the test).
if(NOT TARGET mpi_checkpoint OR NOT TARGET H5Zparz)
  if(PARZ_HAVE_MPI)
    message(STATUS "ParZ: MPI tests skipped (they run the MPI example: PARZ_EXAMPLES=ON)")
  endif()
  return()
endif()

set(_dir ${CMAKE_CURRENT_BINARY_DIR}/mpi_scratch)
file(MAKE_DIRECTORY ${_dir})
# As root (CI containers), OpenMPI refuses to start without these.
set(_env "HDF5_PLUGIN_PATH=${PARZ_PLUGIN_DIR}" "OMPI_ALLOW_RUN_AS_ROOT=1"
         "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1" "PARZ_THREADS=1")
separate_arguments(_flags UNIX_COMMAND "${PARZ_MPIEXEC_FLAGS}")
set(_small --slab-rows 8 --ny 24 --nx 40 --chunk-rows 4 --rows2 16 --cols 96 --chunk-rows2 8)

# parz_add_mpi_test(name ranks args...)
function(parz_add_mpi_test name np)
  set(_over "")
  if(np GREATER 2)
    set(_over ${PARZ_MPIEXEC_OVERSUBSCRIBE})
  endif()
  add_test(NAME ${name}
           COMMAND ${PARZ_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${np} ${_over} ${_flags}
                   $<TARGET_FILE:mpi_checkpoint> ${ARGN})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${_env}" TIMEOUT 120 PROCESSORS ${np}
                       PASS_REGULAR_EXPRESSION "mpi_checkpoint: ok")
endfunction()

parz_add_mpi_test(test_mpi_roundtrip_np2 2 --roundtrip ${_dir}/roundtrip2.h5 ${_small})
parz_add_mpi_test(test_mpi_roundtrip_np4 4 --roundtrip ${_dir}/roundtrip4.h5 ${_small})
# MPI + OpenMP: chunks above the OpenMP drivers' serial threshold, 2 threads per rank.
parz_add_mpi_test(test_mpi_roundtrip_np2_omp 2 --roundtrip ${_dir}/roundtrip2omp.h5
                  --slab-rows 8 --ny 64 --nx 64 --chunk-rows 4 --rows2 32 --cols 1024 --chunk-rows2 16)
set_tests_properties(test_mpi_roundtrip_np2_omp PROPERTIES ENVIRONMENT
  "HDF5_PLUGIN_PATH=${PARZ_PLUGIN_DIR};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;PARZ_EXEC=omp;PARZ_THREADS=2")

# Fields in GPU memory (--device cuda): the filter encodes and decodes every chunk on the GPU
# inside the collective calls; a fallback to the CPU fails the test. Skipped without a GPU.
if(TARGET parz_gpu)
  add_test(NAME test_mpi_roundtrip_np2_gpu
           COMMAND ${PARZ_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} 2 ${_flags} $<TARGET_FILE:mpi_checkpoint>
                   --device cuda --roundtrip ${_dir}/roundtrip2gpu.h5
                   --slab-rows 8 --ny 64 --nx 64 --chunk-rows 4 --rows2 32 --cols 1024
                   --chunk-rows2 16)
  set_tests_properties(test_mpi_roundtrip_np2_gpu PROPERTIES
    ENVIRONMENT "${_env};PARZ_EXEC=cuda" TIMEOUT 180 PROCESSORS 2
    PASS_REGULAR_EXPRESSION "mpi_checkpoint: ok" SKIP_REGULAR_EXPRESSION "no CUDA GPU on any rank"
    FAIL_REGULAR_EXPRESSION "GPU (encoder|decoder) failed|no usable CUDA GPU|FAILED")
endif()

# Restart: written by 2 ranks, read by 3 (uneven rows, chunks split between readers) and 1;
# written by 4, read by 2.
parz_add_mpi_test(test_mpi_restart_write_np2 2 --write ${_dir}/restart2.h5 ${_small})
parz_add_mpi_test(test_mpi_restart_read_np3 3 --read ${_dir}/restart2.h5)
parz_add_mpi_test(test_mpi_restart_read_np1 1 --read ${_dir}/restart2.h5)
parz_add_mpi_test(test_mpi_restart_write_np4 4 --write ${_dir}/restart4.h5 ${_small})
parz_add_mpi_test(test_mpi_restart_read_np2 2 --read ${_dir}/restart4.h5)
set_tests_properties(test_mpi_restart_write_np2 PROPERTIES FIXTURES_SETUP parz_mpi_restart2)
set_tests_properties(test_mpi_restart_read_np3 test_mpi_restart_read_np1 PROPERTIES
                     FIXTURES_REQUIRED parz_mpi_restart2)
set_tests_properties(test_mpi_restart_write_np4 PROPERTIES FIXTURES_SETUP parz_mpi_restart4)
set_tests_properties(test_mpi_restart_read_np2 PROPERTIES FIXTURES_REQUIRED parz_mpi_restart4)

# Invalid parameters: every rank must stop with exit status 1, a message, and no file written,
# within the script's timeout. test_mpi_fail.sh clean|abort <message> <file> <timeout> <command...>
function(parz_add_mpi_fail_test name np expect)
  set(_over "")
  if(np GREATER 2)
    set(_over ${PARZ_MPIEXEC_OVERSUBSCRIBE})
  endif()
  set(_file ${_dir}/${name}.h5)
  add_test(NAME ${name}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_fail.sh clean "${expect}" ${_file} 60
                   ${PARZ_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${np} ${_over} ${_flags}
                   $<TARGET_FILE:mpi_checkpoint> --roundtrip ${_file} ${_small} ${ARGN})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${_env}" TIMEOUT 90 PROCESSORS ${np})
endfunction()

parz_add_mpi_fail_test(test_mpi_invalid_tolerance_all 2 "tolerance -1 must be positive" --tolerance -1)
parz_add_mpi_fail_test(test_mpi_invalid_mode_all 2 "unknown mode 9" --mode 9)
parz_add_mpi_fail_test(test_mpi_invalid_tolerance_rank1 2 "tolerance -1 must be positive"
                       --tolerance -1 --bad-rank 1)
parz_add_mpi_fail_test(test_mpi_invalid_mode_rank3_np4 4 "unknown mode 9"
                       --mode 9 --bad-rank 3)
# Valid on every rank but not the same: must be refused too (HDF5 needs identical arguments).
parz_add_mpi_fail_test(test_mpi_mismatch_rank0 2 "differ between ranks" --tolerance 0.5 --bad-rank 0)

# The worst case: H5Dwrite fails on rank 1 alone (a selection beyond the extent) while rank 0
# waits inside the collective write for it. Rank 1 must give up waiting and MPI_Abort the job.
add_test(NAME test_mpi_write_fails_rank1
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_fail.sh abort "not within extent" - 60
                 ${PARZ_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} 2 ${_flags} $<TARGET_FILE:mpi_checkpoint>
                 --roundtrip ${_dir}/write_fails.h5 ${_small} --fault-write-rank 1 --agree-timeout 3)
set_tests_properties(test_mpi_write_fails_rank1 PROPERTIES ENVIRONMENT "${_env}" TIMEOUT 90
                     PROCESSORS 2)

# The plugin missing on one rank only (a node without it): Open MPI's MPMD syntax gives rank 0
# another HDF5_PLUGIN_PATH. Both the write and a restart read must stop every rank cleanly.
if(PARZ_MPIEXEC_OVERSUBSCRIBE)  # Open MPI
  set(_bad -x HDF5_PLUGIN_PATH=${_dir}/no_plugins_here)
  add_test(NAME test_mpi_no_plugin_rank0_write
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_fail.sh clean "not registered"
                   ${_dir}/no_plugin.h5 60 ${PARZ_MPIEXEC} ${_flags}
                   -np 1 ${_bad} $<TARGET_FILE:mpi_checkpoint> --write ${_dir}/no_plugin.h5 ${_small}
                   : -np 1 $<TARGET_FILE:mpi_checkpoint> --write ${_dir}/no_plugin.h5 ${_small})
  add_test(NAME test_mpi_no_plugin_rank0_read
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_fail.sh clean "is not available"
                   ${_dir}/never_written.h5 60 ${PARZ_MPIEXEC} ${_flags}
                   -np 1 ${_bad} $<TARGET_FILE:mpi_checkpoint> --read ${_dir}/restart2.h5
                   : -np 1 $<TARGET_FILE:mpi_checkpoint> --read ${_dir}/restart2.h5)
  set_tests_properties(test_mpi_no_plugin_rank0_write test_mpi_no_plugin_rank0_read PROPERTIES
                       ENVIRONMENT "${_env}" TIMEOUT 90 PROCESSORS 2)
  set_tests_properties(test_mpi_no_plugin_rank0_read PROPERTIES FIXTURES_REQUIRED parz_mpi_restart2)
endif()

# A rank killed half way through a checkpoint write: the previous checkpoint stays whole and
# readable (the new one is written under another name and renamed after a clean close), and is
# kept as FILE.prev by the next clean write.
add_test(NAME test_mpi_killed_rank_keeps_checkpoint
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_keep.sh ${_dir}/keep.h5 60
                 ${PARZ_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} 2 ${_flags} $<TARGET_FILE:mpi_checkpoint>
                 -- ${_small} --agree-timeout 20)
set_tests_properties(test_mpi_killed_rank_keeps_checkpoint PROPERTIES ENVIRONMENT "${_env}"
                     TIMEOUT 240 PROCESSORS 2)

# A rank that stops (SIGSTOP) after its first collective write: the other rank must give up
# within --agree-timeout with a message and MPI_Abort, without spinning while it waits.
add_test(NAME test_mpi_stopped_rank_aborts
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_fail.sh stall "did not answer within 3 s"
                 - 60 ${PARZ_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} 2 ${_flags} $<TARGET_FILE:mpi_checkpoint>
                 --roundtrip ${_dir}/stopped.h5 ${_small} --fault-stop-rank 1 --agree-timeout 3)
set_tests_properties(test_mpi_stopped_rank_aborts PROPERTIES ENVIRONMENT "${_env}" TIMEOUT 90
                     PROCESSORS 2)
# The same, stopped just before that write: the other rank waits inside the collective H5Dwrite,
# where only the watchdog thread can end it.
add_test(NAME test_mpi_stopped_rank_in_write_aborts
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi_fail.sh abort "no progress for 3 s since"
                 - 60 ${PARZ_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} 2 ${_flags} $<TARGET_FILE:mpi_checkpoint>
                 --roundtrip ${_dir}/stopped_early.h5 ${_small} --fault-stop-early-rank 1
                 --agree-timeout 3)
set_tests_properties(test_mpi_stopped_rank_in_write_aborts PROPERTIES ENVIRONMENT "${_env}"
                     TIMEOUT 90 PROCESSORS 2)
