#!/bin/sh
# Collective parallel HDF5 write/read benchmark, ParZ vs no filter, over rank counts.
#
#   bench/bench_mpi.sh [RANKS...]             default: 1 2 4 8 16
#
# Prints one Markdown table (see bench/bench_mpi.c for the columns). Rank counts above the
# core count run with --oversubscribe and say so in the "note" column: their times measure
# time-sharing, not scaling. Settings through the environment:
#   BUILD        build directory holding bench/bench_mpi and plugins/ (default: ../build-mpi)
#   BIN          directory holding bench_mpi directly (a bundle, see bench_mpi_bundle.sh)
#   NZ NY NX     global field shape, float64 (default 256 256 256 = 134 MB)
#   CHUNK_ROWS   rows per chunk (default 8); NZ must be a multiple of ranks x CHUNK_ROWS
#   TOL          accuracy tolerance (default 1e-3)        REPS  repetitions, best kept (3)
#   SCRATCH      directory for the benchmark file (default /tmp)
#   PARZ_THREADS OpenMP threads per rank for the filter (default: cores / ranks, at least 1)
#   MPIEXEC, MPIEXEC_FLAGS   launcher and extra flags (e.g. "--mca btl self,vader")
#   BIND         process binding flags; default for Open MPI "--bind-to none": its default binds
#                each rank to ONE core when there are 2 ranks or fewer, which leaves the
#                filter's OpenMP threads (PARZ_THREADS > 1) sharing that core
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ranks=${*:-1 2 4 8 16}
BUILD=${BUILD:-$here/../build-mpi}
if [ -z "${BIN:-}" ] && [ -x "$here/bench_mpi" ]; then BIN=$here; fi  # run from a bundle
BIN=${BIN:-$BUILD/bench}
bench=$BIN/bench_mpi
[ -x "$bench" ] || { echo "bench_mpi.sh: no $bench (build target bench_mpi, or set BUILD/BIN)" >&2; exit 1; }
if [ -z "${HDF5_PLUGIN_PATH:-}" ]; then
  if [ -e "$BIN/libH5Zparz.so" ]; then HDF5_PLUGIN_PATH=$BIN; else HDF5_PLUGIN_PATH=$BUILD/plugins; fi
fi
export HDF5_PLUGIN_PATH
# A bundle carries its own parallel HDF5 (bench_mpi_bundle.sh).
if ls "$BIN"/libhdf5_openmpi.so* >/dev/null 2>&1; then
  LD_LIBRARY_PATH=$BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export LD_LIBRARY_PATH
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NZ=${NZ:-256} NY=${NY:-256} NX=${NX:-256} CHUNK_ROWS=${CHUNK_ROWS:-8} TOL=${TOL:-1e-3}
REPS=${REPS:-3} SCRATCH=${SCRATCH:-/tmp} MPIEXEC=${MPIEXEC:-mpirun} MPIEXEC_FLAGS=${MPIEXEC_FLAGS:-}
cores=$(nproc)
if [ -z "${BIND+set}" ]; then
  BIND=""
  if $MPIEXEC --version 2>/dev/null | grep -q "Open MPI"; then BIND="--bind-to none"; fi
fi
user_threads=${PARZ_THREADS:-}
echo "# bench_mpi: $(uname -n), $cores cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# field ${NZ}x${NY}x${NX} float64, chunks of $CHUNK_ROWS rows, tolerance $TOL, best of $REPS, file in $SCRATCH"
echo "# plugin: $HDF5_PLUGIN_PATH; PARZ_EXEC=${PARZ_EXEC:-auto}; binding: ${BIND:-launcher default}"
header=--header
for np in $ranks; do
  if [ $((NZ % (np * CHUNK_ROWS))) -ne 0 ]; then
    echo "# skipped $np ranks: NZ=$NZ is not a multiple of $np x $CHUNK_ROWS" >&2
    continue
  fi
  over="" note="-"
  if [ "$np" -gt "$cores" ]; then over="--oversubscribe" note="oversubscribed ($np on $cores cores)"; fi
  threads=${user_threads:-$((cores / np > 0 ? cores / np : 1))}
  # shellcheck disable=SC2086
  PARZ_THREADS=$threads $MPIEXEC -np "$np" $over $BIND $MPIEXEC_FLAGS "$bench" --nz "$NZ" --ny "$NY" \
    --nx "$NX" --chunk-rows "$CHUNK_ROWS" --tolerance "$TOL" --reps "$REPS" \
    --file "$SCRATCH/bench_mpi_$$.h5" --note "$note" $header
  header=""
done
