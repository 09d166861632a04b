# ctest script for the `parz` command: inspect, verify and the exit statuses, on the files
# tool_fixture writes (good.h5, and bad.h5 with four damaged chunks).
# Usage: cmake -DPARZ=<parz> -DFIXTURE=<tool_fixture> -DDIR=<scratch dir> -P tool_cli.cmake
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
set(failures "")

# Runs the tool; its stdout + stderr in out_var, its exit status in rc_var.
function(parz_run out_var rc_var)
  execute_process(COMMAND "${PARZ}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()

# Records a failure unless `text` (the output of `what`) matches every regex given.
function(expect what text)
  foreach(re IN LISTS ARGN)
    if(NOT text MATCHES "${re}")
      set(failures "${failures}\n${what}: no match for '${re}' in:\n${text}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

function(expect_rc what rc want)
  if(NOT rc STREQUAL "${want}")
    set(failures "${failures}\n${what}: exit status ${rc}, expected ${want}" PARENT_SCOPE)
  endif()
endfunction()

execute_process(COMMAND "${FIXTURE}" "${DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE facts
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tool_fixture failed:\n${err}")
endif()

# ---- inspect: every dataset, its chunks, the summary that HDF5's own counts confirm --------------
parz_run(out rc inspect "${DIR}/good.h5")
expect_rc("inspect good.h5" "${rc}" 0)
expect("inspect good.h5" "${out}"
  "/fields/accuracy  float32 \\[100,96\\]  chunks \\[50,48\\]  filters: ParZ\n  ParZ accuracy 0.001, table hybrid, C auto, P 64\n"
  "\n  \\[50,48\\] +[0-9]+ +[0-9.]+  zfp +accuracy +1 +16658 +64 +-10 +[0-9]+ +64  hybrid +[0-9.]+% +0 +0\n"
  "/fields/reversible  float64 big-endian \\[12,16,16\\]  chunks \\[4,16,16\\]  filters: ParZ\n  ParZ reversible"
  "\n  \\[0,0,0\\] +[0-9]+ +[0-9.]+  zfp +reversible +1 +16658 +64 +-1075 +[0-9]+ +64  hybrid +[0-9.]+% +2 +[1-9][0-9]*\n"
  "1 unwritten"
  "/ints/rate  int32 \\[64,64\\]  chunks \\[32,64\\]  filters: ParZ\n  ParZ rate 16, table none, C auto\n"
  "\n  \\[32,0\\] +4240 +1.93  zfp +rate +256 +256 +64 +-1074 +32 +-  none +0.00% +0 +0\n"
  "  ParZ precision 40, table lengths, C 4\n"
  "\n  \\[768\\] +[0-9]+ +[0-9.]+  zfp +precision +1 +16658 +40 +-1074 +4 +-  lengths "
  "  ParZ expert 1,16658,20,-1074, table offsets, C 2\n"
  "  ParZ accuracy 0.01, table hybrid, C 1, P 8\n"
  "/with_checksum  float32 \\[4096\\]  chunks \\[2048\\]  filters: ParZ, fletcher32\n"
  "\n  \\[64\\] +256 +1.00  stored without ParZ"
  "\n/gzip  int16 \\[20,30\\]  chunks \\[10,30\\]  filters: deflate  -- not ParZ\n"
  "\n/plain  float64 \\[20,30\\]  not chunked  -- not ParZ\n"
  "\n/sparse  float32 \\[1099511627776\\]  chunks \\[4096\\]  filters: ParZ\n[^\n]*\n[^\n]*\n  \\[0\\] [^\n]*\n  \\[1099511623680\\] [^\n]*\n  summary: 2 chunks \\(0 stored without ParZ, 268435454 unwritten, 0 bad\\)"
  "\n8 ParZ datasets, 2 others\n$")
# Stored bytes and chunk counts as HDF5 counts them, exceptions as many as infinities.
string(REPLACE "\n" ";" lines "${facts}")
foreach(line IN LISTS lines)
  if(line MATCHES "^(/[^ ]+) ([0-9]+) ([0-9]+) ([0-9]+)$")
    set(path "${CMAKE_MATCH_1}")
    set(stored "${CMAKE_MATCH_2}")
    set(chunks "${CMAKE_MATCH_3}")
    set(exc "${CMAKE_MATCH_4}")
    parz_run(one rc inspect --summary "${DIR}/good.h5:${path}")
    expect_rc("inspect --summary ${path}" "${rc}" 0)
    expect("inspect --summary ${path}" "${one}"
           "^${path}  [^\n]*\n  ParZ [^\n]*\n  summary: ${chunks} chunks \\([0-9]+ stored without ParZ, [0-9]+ unwritten, 0 bad\\), [0-9]+ -> ${stored} bytes")
    if(NOT path STREQUAL "/raw_chunk")
      expect("inspect --summary ${path}" "${one}" ", ${exc} exceptions, [0-9]+ mask bytes\n$")
    endif()
  endif()
endforeach()
parz_run(out rc inspect -s "${DIR}/good.h5")
expect_rc("inspect -s good.h5" "${rc}" 0)
if(out MATCHES "chunk +stored" OR out MATCHES "\n  \\[")
  set(failures "${failures}\ninspect --summary prints chunk lines:\n${out}")
endif()
parz_run(out rc inspect "${DIR}/bad.h5:/ints/precision")
expect_rc("inspect bad.h5:/ints/precision" "${rc}" 1)
expect("inspect bad.h5:/ints/precision" "${out}"
       "\n  \\[512\\] [^\n]*\n +the chunk header says float32 40x40, the dataset's chunks are int64 256")

# ---- verify: a good file passes, every damaged chunk is named by its place ----------------------
parz_run(out rc verify "${DIR}/good.h5")
expect_rc("verify good.h5" "${rc}" 0)
expect("verify good.h5" "${out}" "/fields/reversible: 2 chunks ok, 1 never written\n"
       "/raw_chunk: 4 chunks ok, 1 stored without ParZ\n" "/gzip: not ParZ, skipped\n"
       "/sparse: 2 chunks ok, 268435454 never written\n" "8 ParZ datasets, 21 chunks, 0 bad\n$")
parz_run(out rc verify "${DIR}/bad.h5")
expect_rc("verify bad.h5" "${rc}" 1)
expect("verify bad.h5" "${out}"
  "/fields/accuracy chunk \\[50,48\\]: cannot read the chunk: [^\n]*checksum"
  "/ints/rate chunk \\[32,0\\]: cannot read the chunk: [^\n]*malformed chunk"
  "/ints/precision chunk \\[512\\]: the chunk header says float32 40x40"
  "/with_checksum chunk \\[2048\\]: HDF5 cannot read the chunk: [^\n]*Fletcher32"
  "/fields/accuracy: 1 of 4 chunks bad\n" "8 ParZ datasets, 21 chunks, 4 bad\n$")
string(REGEX MATCHALL "chunk \\[[0-9,]+\\]:" named "${out}")
list(LENGTH named n)
expect_rc("verify bad.h5: chunks named" "${n}" 4)
parz_run(out rc verify "${DIR}/bad.h5:/fields/reversible")
expect_rc("verify an undamaged dataset of bad.h5" "${rc}" 0)

# ---- exit statuses and messages ------------------------------------------------------------------
parz_run(out rc verify "${DIR}/good.h5:/plain")
expect_rc("verify a dataset that is not ParZ" "${rc}" 4)
expect("verify :/plain" "${out}" "no ParZ dataset in .*good.h5:/plain")
parz_run(out rc verify "${DIR}/good.h5:/nothing")
expect_rc("verify a missing dataset" "${rc}" 3)
expect("verify :/nothing" "${out}" "no dataset /nothing in the file")
parz_run(out rc inspect "${DIR}/missing.h5")
expect_rc("inspect a missing file" "${rc}" 3)
expect("inspect missing.h5" "${out}" "cannot read .*missing.h5")
file(WRITE "${DIR}/text.h5" "not HDF5\n")
parz_run(out rc verify "${DIR}/text.h5")
expect_rc("verify a file that is not HDF5" "${rc}" 3)
parz_run(out rc frobnicate)
expect_rc("an unknown command" "${rc}" 2)
parz_run(out rc inspect --bogus "${DIR}/good.h5")
expect_rc("an unknown option" "${rc}" 2)
parz_run(out rc --help)
expect_rc("--help" "${rc}" 0)
expect("--help" "${out}" "parz inspect" "parz verify" "parz cd-values" "Exit status: 0 ok; 1 ")
parz_run(out rc --version)
expect("--version" "${out}" "^parz [0-9]+\\.[0-9]+\\.[0-9]+ \\(filter 37050")

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
message(STATUS "parz inspect and verify: all checks passed")
