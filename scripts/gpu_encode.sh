#!/usr/bin/env bash
# The GPU encoder's checks and benchmarks on the GPU machine, after
#   bash scripts/gpu_machine.sh setup test_gpu_encode test_gpu_decode bench_gpu_encode \
#        bench_h5write test_policy_dispatch H5Zparz
# Writes its logs and tables under OUTDIR (default: results-gpu-encode):
#   test.txt       test_gpu_encode on every case and the real arrays, test_gpu_decode --small,
#                  test_policy_dispatch with PARZ_EXEC=cuda (the filter's encode through the GPU)
#   sanitize.txt   compute-sanitizer memcheck and racecheck on test_gpu_encode --small
#   kernel.md      bench_gpu_encode: etopo5 at accuracy 1e-2 x range (C = auto, 1, 32, both
#                  schemes, batches of 4 and 16 MiB chunks), etopo5 tiled 4x, etopo5 as float64,
#                  the 3D arrays (levitus; vasp, float64, when present)
#   h5write.md     bench_h5write: H5Dwrite through the filter, PARZ_EXEC=cuda against omp at 16
#                  threads, chunks of 4, 16 and 64 MiB of etopo5 tiled to 150 MB
# Usage: bash scripts/gpu_encode.sh [OUTDIR]
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUTDIR="${1:-results-gpu-encode}"
mkdir -p "$OUTDIR"
eval "$(bash "$ROOT/scripts/gpu_machine.sh" env)"
B="$PARZ_BUILD"
D="$PARZ_SHARED_DATA"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem --format=csv | tee "$OUTDIR/gpu.txt"

{
  "$B/tests/test_gpu_encode" "$D"
  "$B/tests/test_gpu_decode" --small | tail -2
  PARZ_EXEC=cuda "$B/tests/test_policy_dispatch"
} 2>&1 | tee "$OUTDIR/test.txt"

{
  compute-sanitizer --tool memcheck --error-exitcode 1 "$B/tests/test_gpu_encode" --small
  echo "memcheck exit $?"
  compute-sanitizer --tool racecheck --error-exitcode 1 "$B/tests/test_gpu_encode" --small
  echo "racecheck exit $?"
} 2>&1 | tail -20 | tee "$OUTDIR/sanitize.txt"

E=etopo5_relief_f32le_2161x4320.bin
{
  "$B/examples/bench_gpu_encode" --c 0,1,32 --chunk-mib 4,16 "$D/$E"
  "$B/examples/bench_gpu_encode" --c 0 --tile 4 --chunk-mib 4,16 "$D/$E"
  "$B/examples/bench_gpu_encode" --c 0,1,32 --f64 "$D/$E"
  for f in levitus_temp_f32le_20x180x360.bin vasp_fepo4_chgcar_f64le_72x192x160.bin; do
    [ -f "$D/$f" ] && "$B/examples/bench_gpu_encode" --c 0,1,32 --rel 1e-2,1e-3 "$D/$f"
  done
} 2>&1 | tee "$OUTDIR/kernel.md"

"$B/examples/bench_h5write" --data "$D" --only etopo5 --min-mib 150 --chunk-mib 4,16,64 \
  --threads 16 --file /dev/shm/parz_bench_h5write 2>&1 | tee "$OUTDIR/h5write.md"
