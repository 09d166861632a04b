#!/usr/bin/env bash
# The main job: compress a real array shipped in data/ into a ParZ HDF5 file (fixed accuracy),
# read it back with h5py and h5dump, print compression ratio, max error and times.
# Optional: scripts/demo.sh [array.bin [tolerance]]  (shape and type from the file name)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$PARZ_ROOT"

"$PARZ_ROOT/scripts/deps.sh"
mkdir -p "$PARZ_BUILD_DIR"
LOG="$PARZ_BUILD_DIR/build.log"
parz_build > "$LOG" 2>&1 || { cat "$LOG"; exit 1; }
echo "built ParZ in $PARZ_BUILD_DIR (log: $LOG)"
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
