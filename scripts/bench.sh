#!/usr/bin/env bash
# ParZ benchmark suite, one command: builds parz_bench in the main build tree, measures ParZ and
# its peers (libzfp serial, H5Z-ZFP and uncompressed HDF5 reads and writes) on the real arrays in
# the same run, and writes into OUT (six files, nothing else): results.csv (one row per
# measurement), meta.txt (machine, settings), results.md (tables and headline ratios) and the
# plots rate_distortion.png, decode_threads.png, table_size.png.
#
#   scripts/bench.sh [--quick] [--out DIR] [--data PATH]... [--threads 1,2,4,8,16]
#                    [-- parz_bench options, e.g. --reps 7 --only etopo5 --time-limit 300]
#
# PATH: a directory of name_f32le_AxB.bin arrays (default: the shared data), one such file, or
# FILE.h5:/dataset. --quick: fewer settings, arrays cut to 2 MiB, 3 timed rounds, steps that
# would end past 90 s skipped. parz_bench --help lists its options.
# The build tree is $PARZ_BUILD_DIR (default build/, the one scripts/test.sh and scripts/demo.sh
# build): used as it is when configured (only parz_bench and what it needs are brought up to
# date; the benchmarks turned on where they are off, as in a tree the demo made), else
# configured with the project's defaults (parz_configure). Environment: PARZ_BUILD_DIR,
# PARZ_SHARED_DATA; HDF5 unpacked from Debian packages under /opt/h5 (the GPU machine) is found
# at run time.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
BUILD="$PARZ_BUILD_DIR"
OUT="bench-out"
bench_args=()
data=()

while [ $# -gt 0 ]; do
  case "$1" in
    --quick) bench_args+=(--quick) ;;
    --out) OUT="$2"; shift ;;
    --data) data+=(--data "$2"); shift ;;
    --threads) bench_args+=(--threads "$2"); shift ;;
    --) shift; bench_args+=("$@"); break ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ ${#data[@]} -gt 0 ] || data=(--data "$PARZ_SHARED_DATA")
mkdir -p "$OUT"
# the files of an earlier run there (only these names): the folder then holds this run alone
(cd "$OUT" && rm -f results.csv results.md meta.txt build.log rate_distortion.png \
  decode_threads.png table_size.png)

# ---- build: the benchmark's targets in the main build tree ----
mkdir -p "$BUILD"
LOG="$BUILD/bench-build.log"
echo "bench.sh: building parz_bench in $BUILD (log: $LOG)" >&2
t0=$SECONDS
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  parz_configure >"$LOG" 2>&1 ||
    { tail -20 "$LOG" >&2; echo "bench.sh: cmake failed (log: $LOG)" >&2; exit 1; }
fi
if grep -q "^PARZ_BENCH:BOOL=OFF" "$BUILD/CMakeCache.txt"; then  # e.g. scripts/demo.sh's tree
  echo "bench.sh: turning the benchmarks on in $BUILD (PARZ_BENCH=ON)" >&2
  parz_configure -DPARZ_BENCH=ON >>"$LOG" 2>&1 ||
    { tail -20 "$LOG" >&2; echo "bench.sh: cmake failed (log: $LOG)" >&2; exit 1; }
fi
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build "$BUILD" -j"$jobs" --target parz_bench >>"$LOG" 2>&1 ||
  { tail -30 "$LOG" >&2; echo "bench.sh: build failed (log: $LOG)" >&2; exit 1; }
echo "bench.sh: built in $((SECONDS - t0)) s" >&2
BIN="$BUILD/bench/parz_bench"

# ---- run-time environment: the build's ParZ plugin, then the system's H5Z-ZFP ----
plugin_path="$BUILD/plugins"
for d in /usr/lib/x86_64-linux-gnu/hdf5/serial/plugins \
         /opt/h5/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins; do
  [ -d "$d" ] && plugin_path="$plugin_path:$d"
done
export HDF5_PLUGIN_PATH="$plugin_path"
if [ -d /opt/h5/usr/lib/x86_64-linux-gnu ] && ldd "$BIN" | grep -q "not found"; then
  export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/opt/h5/usr/lib/x86_64-linux-gnu:/opt/h5/usr/lib/x86_64-linux-gnu/hdf5/serial"
fi
unset PARZ_EXEC PARZ_THREADS  # the driver sets the policy per probe

# a driver that fails part-way still leaves the rows of the steps it finished: report those
status=0
"$BIN" --out "$OUT" "${data[@]}" "${bench_args[@]}" || status=$?
[ "$status" -eq 0 ] || echo "bench.sh: parz_bench failed (exit $status); reporting what it wrote" >&2
[ -s "$OUT/results.csv" ] || exit 1

# ---- report: a python3 with matplotlib draws the plots; any python3 writes results.md ----
py=""
for cand in /usr/bin/python3 "$(command -v python3 || true)" "$(command -v python || true)"; do
  if [ -n "$cand" ] && "$cand" -c "import matplotlib" 2>/dev/null; then py="$cand"; break; fi
done
[ -n "$py" ] || py="$(command -v python3 || true)"
if [ -z "$py" ]; then
  echo "bench.sh: no python3: $OUT/results.csv written, no report" >&2
  exit 0
fi
"$py" "$PARZ_ROOT/bench/bench_report.py" "$OUT"
sed -n '/^## Headline/,/^## Compression/p' "$OUT/results.md" | sed '$d'
echo "bench.sh: $((SECONDS)) s in all; wrote $(cd "$OUT" && echo results.csv meta.txt results.md *.png)"
exit "$status"
