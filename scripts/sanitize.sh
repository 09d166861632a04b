#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer run of the library and the C tests.
# Called by scripts/test.sh (CI). Builds in $PARZ_ASAN_BUILD_DIR (default build-asan) with
# -DPARZ_SANITIZE=ON, without CUDA, then runs ctest with every sanitizer report fatal. Among the
# tests: the replay of every fuzz corpus and regression input (robust_replay_*), the hostile
# chunk tests (test_hostile_*) and the C++ host tests that run the GPU kernels' steps on the CPU
# (gpu_*_host). Takes about 14 minutes on an idle 2-core machine.
#
# Left out, by name: the MPI tests (OpenMPI's own allocations and its launcher do not run under
# ASan), the real-data table sweep and the host tests' real-data runs (each tens of minutes of
# sanitizer time for no code path their small cases miss) and
# test_plugin_symbols (it checks the release module's undefined symbols; a sanitized module
# necessarily imports the sanitizer runtimes).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
BUILD="${PARZ_ASAN_BUILD_DIR:-$PARZ_ROOT/build-asan}"
JOBS="${PARZ_JOBS:-2}"

# clang when there is one (better UBSan checks), else the system compiler.
CC_ASAN="${CC_ASAN:-}"
if [ -z "$CC_ASAN" ]; then
  for c in clang-14 clang gcc cc; do
    if command -v "$c" >/dev/null 2>&1; then CC_ASAN="$c"; break; fi
  done
fi

# The C++ compiler of the same family, for the host tests of the GPU kernels' steps.
CXX_ASAN="${CXX_ASAN:-}"
if [ -z "$CXX_ASAN" ]; then
  case "$CC_ASAN" in
    clang*) CXX_ASAN="clang++${CC_ASAN#clang}" ;;
    gcc*) CXX_ASAN="g++${CC_ASAN#gcc}" ;;
    *) CXX_ASAN="c++" ;;
  esac
fi

start=$(date +%s)
mkdir -p "$BUILD"
# -O1, the level the sanitizers' documentation advises: at -O2 clang spends several times as long
# on the instrumented codec (codec/decode.c above all), and the tests run no faster for it.
CC="$CC_ASAN" CXX="$CXX_ASAN" cmake -S "$PARZ_ROOT" -B "$BUILD" -DPARZ_SANITIZE=ON -DPARZ_CUDA=OFF \
  -DPARZ_EXAMPLES=OFF -DPARZ_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g -DNDEBUG" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g -DNDEBUG" \
  "-DPARZ_SHARED_DATA=$PARZ_SHARED_DATA" \
  >"$BUILD/sanitize-configure.log" 2>&1 || { cat "$BUILD/sanitize-configure.log"; echo "sanitize.sh: configure FAILED" >&2; exit 1; }
cmake --build "$BUILD" -j"$JOBS" >"$BUILD/sanitize-build.log" 2>&1 ||
  { tail -50 "$BUILD/sanitize-build.log"; echo "sanitize.sh: build FAILED" >&2; exit 1; }
built=$(date +%s)

# Every report is fatal. Leaks are checked (a decoder error path that leaks is a bug); HDF5 and
# libgomp keep a few allocations until exit, suppressed by name in the file below.
SUPP="$PARZ_ROOT/scripts/sanitize.supp"
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1${ASAN_EXTRA:+:$ASAN_EXTRA}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# use_tls=0: clang-14's LeakSanitizer crashes ("Tracer caught signal 11") walking the dynamic TLS
# of threads that libgomp starts inside a dlopen'ed module on glibc 2.36 (Debian bookworm).
# ParZ keeps nothing in thread-local storage, so no ParZ allocation is hidden by skipping it;
# ld.so's own dlopen bookkeeping, reachable only from TLS, is suppressed by name.
export LSAN_OPTIONS="suppressions=$SUPP:print_suppressions=0:use_tls=0"
export HDF5_PLUGIN_PATH="$BUILD/plugins"
# Serial HDF5 only: the module built here is instrumented and must not go into uninstrumented
# tools (h5dump, h5repack); the tests that run those are excluded below.
EXCLUDE='mpi|MPI|realdata_sweep|_host_realdata|test_plugin_symbols'
(cd "$BUILD" && ctest -j"$JOBS" --output-on-failure -E "$EXCLUDE" --timeout 600)
rc=$?
tested=$(date +%s)

# Hostile HDF5 files (python_tests/test_hostile_files.py; test_hostile_index.py, whose parz
# command is this build's), parz.read / parz.write with misaligned arrays
# (python_tests/test_parz_alignment.py) and h5py's copies of open datasets whose chunks sit in
# their chunk cache (python_tests/test_h5_copy.py) with their child processes on the sanitized
# plugin: Python is not instrumented, so the ASan runtime is preloaded into them. The test
# process itself writes the files with the normal build's plugin ($PARZ_BUILD_DIR). Of the last
# two files only the tests whose children load the sanitized plugin run here: their other tests
# (in-process reads and writes, h5copy, h5repack) use the normal build and ran in test.sh's pytest.
ASAN_RT="$("$CC_ASAN" -print-file-name=libclang_rt.asan-x86_64.so 2>/dev/null || true)"
PY="$(parz_python 2>/dev/null || true)"
if [ -n "$PY" ] && [ -f "$ASAN_RT" ] && [ -f "$PARZ_BUILD_DIR/plugins/libH5Zparz.so" ]; then
  (unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
   parz_env
   PARZ_HOSTILE_PLUGIN_DIR="$BUILD/plugins" PARZ_HOSTILE_PRELOAD="$ASAN_RT" \
     "$PY" -m pytest -q -p no:cacheprovider "$PARZ_ROOT/python_tests/test_hostile_files.py" \
       "$PARZ_ROOT/python_tests/test_hostile_index.py" \
       "$PARZ_ROOT/python_tests/test_parz_alignment.py::test_misaligned_in_child" \
       "$PARZ_ROOT/python_tests/test_h5_copy.py::test_group_copy_of_open_cached_dataset") ||
    rc=1
else
  echo "sanitize.sh: hostile-file tests under ASan skipped (needs clang's ASan runtime, h5py and" \
       "a normal build in $PARZ_BUILD_DIR)"
fi
echo "sanitize.sh: ASan+UBSan ($CC_ASAN) run finished in $(( $(date +%s) - start )) s (build" \
     "$((built - start)) s, ctest $((tested - built)) s, pytest $(( $(date +%s) - tested )) s), rc=$rc"
exit $rc
