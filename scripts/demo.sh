#!/usr/bin/env bash
# The main job: compress a real array shipped in data/ into a ParZ HDF5 file (fixed accuracy),
# read it back with h5py and h5dump, print compression ratio, max error and times.
# Optional: scripts/demo.sh [array.bin [tolerance]]  (shape and type from the file name)
#
# It installs only the demo's Debian packages (scripts/deps.sh --demo) and builds only what the
# demo runs: the CPU library and the HDF5 plugin (target H5Zparz), the Python package beside them,
# in $PARZ_BUILD_DIR (default build/). A new build tree is configured without the tests, examples
# and benchmarks (scripts/test.sh and scripts/bench.sh turn theirs on); an existing tree keeps its
# settings.
# The CUDA module is built where a GPU is present (/dev/nvidia0, or `nvidia-smi -L` lists one),
# for that GPU's architecture in a new tree, and needs nvcc (/usr/local/cuda/bin or PATH).
#   PARZ_CUDA=ON   build the CUDA module even without a GPU (then for the default architectures)
#   PARZ_CUDA=OFF  never build it
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$PARZ_ROOT"

gpu=OFF
if parz_gpu_present; then gpu=ON; fi
case "${PARZ_CUDA:-}" in
  ON|on|1) cuda=ON ;;
  OFF|off|0) cuda=OFF ;;
  "") cuda=$gpu ;;
  *) echo "demo.sh: PARZ_CUDA must be ON or OFF, not '$PARZ_CUDA'" >&2; exit 2 ;;
esac
extra=()
if [ "$cuda" = ON ]; then extra=(g++); fi  # nvcc's host compiler
PARZ_EXTRA_PACKAGES="${PARZ_EXTRA_PACKAGES:-} ${extra[*]}" "$PARZ_ROOT/scripts/deps.sh" --demo

args=()
if [ ! -f "$PARZ_BUILD_DIR/CMakeCache.txt" ]; then
  args+=(-DPARZ_TESTS=OFF -DPARZ_EXAMPLES=OFF -DPARZ_BENCH=OFF "-DPARZ_CUDA=$cuda")
  if [ "$cuda" = ON ] && [ "$gpu" = ON ]; then args+=(-DCMAKE_CUDA_ARCHITECTURES=native); fi
elif [ -n "${PARZ_CUDA:-}" ] || [ "$gpu" = ON ]; then
  args+=("-DPARZ_CUDA=$cuda")
fi
mkdir -p "$PARZ_BUILD_DIR"
LOG="$PARZ_BUILD_DIR/build.log"
{ parz_configure "${args[@]}" && cmake --build "$PARZ_BUILD_DIR" -j2 --target H5Zparz; } \
  > "$LOG" 2>&1 || { cat "$LOG"; exit 1; }
echo "built ParZ in $PARZ_BUILD_DIR (log: $LOG)"
if grep -q "ParZ: OpenMP=.* CUDA=ON" "$LOG"; then
  echo "with the CUDA module (plugins/parz_cuda.so)"
elif [ "$gpu" = ON ]; then
  echo "without the CUDA module: a GPU is present but no nvcc was found (see $LOG)"
else
  echo "without the CUDA module: no GPU found (PARZ_CUDA=ON builds it)"
fi
PY="$(parz_python)"
parz_env

ARRAY="${1:-$PARZ_ROOT/data/egm96_geoid_f32le_721x1440.bin}"
TOL="${2:-1e-3}"
OUT="$PARZ_BUILD_DIR/demo/$(basename "${ARRAY%.bin}")_parz.h5"
mkdir -p "$(dirname "$OUT")"

"$PY" "$PARZ_ROOT/examples/plugin_demo.py" "$ARRAY" "$OUT" --accuracy "$TOL"

echo
echo "== h5dump -p -H (filter and stored parameters) =="
h5dump -p -H "$OUT" | awk '/STORAGE_LAYOUT|FILTERS/ {on = 1} /FILLVALUE/ {on = 0} on'
echo "== h5dump: first values of the first row =="
h5dump -d /data -s 0,0 -c 1,6 "$OUT" | sed -n '/DATA {/,/}/p'
