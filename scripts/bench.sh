#!/usr/bin/env bash
# ParZ benchmark suite, one command (issue 8): builds parz_bench, measures ParZ and its peers
# (libzfp serial, H5Z-ZFP and uncompressed HDF5 reads and writes) on the real arrays in the same
# run, and writes into OUT (six files, nothing else): results.csv (one row per measurement),
# meta.txt (machine, settings), results.md (tables, headline ratios, goals) and the plots
# rate_distortion.png, decode_threads.png, table_size.png.
#
#   scripts/bench.sh [--quick] [--out DIR] [--data PATH]... [--threads 1,2,4,8,16]
#                    [-- parz_bench options, e.g. --reps 7 --only etopo5 --time-limit 300]
#
# PATH: a directory of name_f32le_AxB.bin arrays (default: the shared data), one such file, or
# FILE.h5:/dataset. --quick: fewer settings, arrays cut to 2 MiB, 3 timed rounds, steps that
# would end past 90 s skipped (about 80 s on 2 cores). parz_bench --help lists its options. Environment: PARZ_BENCH_BUILD_DIR
# (default build-bench; the build log is kept there), PARZ_CMAKE_ARGS (extra cmake arguments),
# PARZ_SHARED_DATA. HDF5 unpacked from Debian packages under /opt/h5 is picked up when present.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
BUILD="${PARZ_BENCH_BUILD_DIR:-$PARZ_ROOT/build-bench}"
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
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ ${#data[@]} -gt 0 ] || data=(--data "$PARZ_SHARED_DATA")
mkdir -p "$OUT"
# the files of an earlier run there (only these names): the folder then holds this run alone
(cd "$OUT" && rm -f results.csv results.md meta.txt build.log rate_distortion.png \
  decode_threads.png table_size.png)

# ---- build (Release, only the benchmark and the plugin it reads through) ----
args=(-DCMAKE_BUILD_TYPE=Release "-DPARZ_SHARED_DATA=$PARZ_SHARED_DATA")
prefixes=()
if [ -d /opt/h5 ]; then
  for d in /opt/h5/usr /opt/h5/usr/lib/x86_64-linux-gnu/hdf5/serial; do
    [ -d "$d" ] && prefixes+=("$d")
  done
fi
[ ${#prefixes[@]} -gt 0 ] && args+=("-DCMAKE_PREFIX_PATH=$(IFS=';'; echo "${prefixes[*]}")")
if [ -x /usr/local/cuda/bin/nvcc ]; then
  args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
  # a GPU here: compile for it alone (half the nvcc time of the default two architectures)
  if nvidia-smi -L >/dev/null 2>&1 && ! grep -q CMAKE_CUDA_ARCHITECTURES <<<"${PARZ_CMAKE_ARGS:-}"; then
    args+=(-DCMAKE_CUDA_ARCHITECTURES=native)
  fi
fi
# shellcheck disable=SC2206
[ -n "${PARZ_CMAKE_ARGS:-}" ] && args+=(${PARZ_CMAKE_ARGS})
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$BUILD"
LOG="$BUILD/bench-build.log"
echo "bench.sh: building in $BUILD (log: $LOG)" >&2
t0=$SECONDS
cmake -S "$PARZ_ROOT" -B "$BUILD" "${args[@]}" >"$LOG" 2>&1 ||
  { tail -20 "$LOG" >&2; echo "bench.sh: cmake failed (log: $LOG)" >&2; exit 1; }
grep -E "parz_bench|ParZ:" "$LOG" >&2 || true
if ! grep -q "parz_bench" "$BUILD/Makefile" 2>/dev/null && [ ! -f "$BUILD/build.ninja" ]; then
  echo "bench.sh: the benchmark is disabled in this build (PARZ_BENCH=OFF): nothing to do" >&2
  exit 0
fi
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
