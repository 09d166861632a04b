#!/usr/bin/env bash
# The GPU encoder on the GPU machine (16 cores, pip's h5py 3.16 with its own HDF5 2.0, CuPy,
# PyTorch): its tests, compute-sanitizer on small cases, and the benchmarks of its goals, in one
# command.
#
#   bash scripts/gpu_encode_check.sh OUT_DIR
#
# Builds with scripts/gpu_machine.sh (unpacks Debian's HDF5 and the arrays first; reuses an
# existing build-gpu-machine), then writes into OUT_DIR:
#   ctest.log     the encoder's and the writers' C tests: gpu_encode (every case and the real
#                 arrays, bit-identical to the CPU encoder), gpu_encode_host, test_h5_write (parz_h5_write under omp, serial and cuda, parz_h5_write_device
#                 and parz_h5_write_cuda: the chunks H5Dwrite stores, chunk by chunk),
#                 test_h5_read_device, policy_dispatch, host_pool, test_mpi_roundtrip_np2_gpu
#                 where MPI is built
#   dispatch.log  test_policy_dispatch with PARZ_EXEC=cuda (the filter's encode on the GPU),
#                 test_gpu_decode --small
#   pytest.log    python_tests/test_parz_write.py and test_parz_write_gpu.py with python3 (pip's
#                 h5py, CuPy, PyTorch), the build tree's parz package, HDF5_PLUGIN_PATH unset
#   sanitize.log  compute-sanitizer memcheck and racecheck on test_gpu_encode --small and on
#                 test_h5_write --device-small (parz_h5_write_device, cases under 1 MiB)
#   kernel.md     bench_gpu_encode, arrays resident on the GPU: etopo5 float32 at accuracy
#                 1e-2 x range with C = auto, 1, 32 (and in chunks of 4 and 16 MiB), etopo5 as
#                 float64, levitus (3D float32) and vasp (3D float64) at 1e-2 and 1e-3
#   h5write.md    bench_h5write on etopo5 tiled to 150 MB, file in /tmp, chunks of 4, 16, 64 MiB:
#                 H5Dwrite through the filter with PARZ_EXEC=cuda against omp at 16 threads, the
#                 per-chunk breakdown, and parz_h5_write_device against cudaMemcpy + H5Dwrite
#                 (omp at 16 threads, and uncompressed)
#   summary.txt   the goal rows (met or not), the verdicts
# The last line is "gpu_encode_check: PASS" when every test passed, the sanitizers reported no
# error, and every benchmark found the GPU's chunks equal to the CPU's; else FAIL (goals are
# reported, not judged). Takes about 4 minutes after the build.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:?usage: $0 OUT_DIR}"
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
THREADS="${PARZ_BENCH_THREADS:-16}"
SCRATCH=/tmp/parz_gpu_encode_check
mkdir -p "$SCRATCH"

bash "$ROOT/scripts/gpu_machine.sh" setup >"$OUT/setup.log" 2>&1 ||
  { tail -30 "$OUT/setup.log"; echo "gpu_encode_check: FAIL (build)"; exit 1; }
eval "$(bash "$ROOT/scripts/gpu_machine.sh" env)"
B="$PARZ_BUILD"
D="$PARZ_SHARED_DATA"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  echo "cores: $(nproc)"
  python3 -c "import h5py, numpy; print('h5py', h5py.__version__, 'HDF5',
      h5py.version.hdf5_version, 'numpy', numpy.__version__)"
  git -C "$ROOT" log --oneline -1
} >"$OUT/machine.txt" 2>&1

# ---- tests ----------------------------------------------------------------------------------
TESTS="^(gpu_encode|gpu_encode_host|host_pool|policy_dispatch|test_h5_write"
TESTS="$TESTS|test_h5_read_device|test_mpi_roundtrip_np2_gpu)$"
(cd "$B" && timeout 900 ctest --output-on-failure -R "$TESTS") >"$OUT/ctest.log" 2>&1
ctest_rc=$?
{
  PARZ_EXEC=cuda timeout 300 "$B/tests/test_policy_dispatch" &&
    timeout 300 "$B/tests/test_gpu_decode" --small | tail -2
} >"$OUT/dispatch.log" 2>&1
dispatch_rc=$?
if grep -q "test_mpi_roundtrip_np2_gpu" "$OUT/ctest.log"; then
  mpi_note="$(grep -E "test_mpi_roundtrip_np2_gpu .*(Passed|Failed|Skipped|Not Run)" \
    "$OUT/ctest.log" | sed 's/.*\.\.\. *//')"
else
  mpi_note="not built here (no MPI and parallel HDF5 on this machine)"
fi

py() { env -u HDF5_PLUGIN_PATH PYTHONPATH="$B/python" python3 "$@"; }
(cd "$ROOT/python_tests" &&
   py -m pytest -q -rs test_parz_write.py test_parz_write_gpu.py) >"$OUT/pytest.log" 2>&1
pytest_rc=$?

# ---- compute-sanitizer ----------------------------------------------------------------------
# Its own path, never a stale one on PATH; it waits for its target (a static CUDA runtime loads
# lazily) up to --launch-timeout, whose default of 10 s a cold machine can exceed.
CS="$(command -v compute-sanitizer || true)"
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [ -n "$CS" ] || { [ -x "$c" ] && CS="$c"; }
done
sanitize_rc=0
{
  if [ -z "$CS" ]; then
    echo "compute-sanitizer not found"
    sanitize_rc=1
  else
    "$CS" --version | tail -1
    for tool in memcheck racecheck; do
      for t in "test_gpu_encode --small" "test_h5_write $SCRATCH --device-small"; do
        set -- $t
        echo "== $tool: $*"
        HDF5_PLUGIN_PATH="$B/plugins" timeout 600 "$CS" --tool "$tool" --launch-timeout 120 \
          --error-exitcode 3 "$B/tests/$1" "${@:2}" >"$SCRATCH/sanitize.out" 2>&1
        rc=$?
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error|error|failures|stored the chunks" \
          "$SCRATCH/sanitize.out" | tail -6
        if ! grep -qE "(ERROR|RACECHECK) SUMMARY: 0 (errors|hazards)" "$SCRATCH/sanitize.out"; then
          echo "-- no clean summary: the first lines of its output:"
          head -20 "$SCRATCH/sanitize.out"
          [ "$rc" -ne 0 ] || rc=4
        fi
        echo "exit $rc"
        [ "$rc" -eq 0 ] || sanitize_rc=1
      done
    done
  fi
} >"$OUT/sanitize.log" 2>&1

# ---- benchmarks -----------------------------------------------------------------------------
E="$D/etopo5_relief_f32le_2161x4320.bin"
{
  "$B/bench/bench_gpu_encode" --c 0,1,32 --chunk-mib 4,16 "$E"
  "$B/bench/bench_gpu_encode" --c 0,1,32 --f64 "$E"
  for f in levitus_temp_f32le_20x180x360.bin vasp_fepo4_chgcar_f64le_72x192x160.bin; do
    [ -f "$D/$f" ] && "$B/bench/bench_gpu_encode" --c 0,1,32 --rel 1e-2,1e-3 "$D/$f"
  done
} >"$OUT/kernel.md" 2>&1
kernel_rc=$?

timeout 600 "$B/bench/bench_h5write" --data "$D" --only etopo5 --min-mib 150 \
  --chunk-mib 4,16,64 --threads "$THREADS" --reps 3 --file "$SCRATCH/bench_h5write" \
  >"$OUT/h5write.md" 2>&1
h5write_rc=$?
rm -rf "$SCRATCH"

# ---- summary --------------------------------------------------------------------------------
same_rc=0
grep -qE "\| NO \|" "$OUT/kernel.md" "$OUT/h5write.md" && same_rc=1
grep -qE "failed" "$OUT/kernel.md" "$OUT/h5write.md" && same_rc=1
verdict() { [ "$1" -eq 0 ] && echo "$2" || echo "$3"; }
{
  cat "$OUT/machine.txt"
  echo
  echo "goal: kernel encode of etopo5 float32, accuracy 1e-2 x range, default table, resident"
  echo "on the GPU >= 200 GiB/s (GiB/s of input; same bytes as the CPU encoder):"
  awk -F'|' '$2 ~ /^ etopo5_relief_f32le_[0-9x]+\.bin $/ && $4 ~ /accuracy 1e-02/ &&
      $4 !~ /chunks/ {
      c=$5; gsub(/ /, "", c); g=$8; gsub(/ /, "", g);
      printf "  C = %-8s %7s GiB/s  same bytes: %s%s\n", c, g, $10,
        (c ~ /auto/ ? (g + 0 >= 200 ? "  goal met" : "  goal NOT met") : "") }' "$OUT/kernel.md"
  echo "  other arrays (C = auto):"
  awk -F'|' '/^\| / && $5 ~ /auto/ && $2 !~ /^ etopo5_relief_f32le_[0-9x]+\.bin $/ &&
      $4 !~ /chunks/ {
      printf "   %s %s %s GiB/s, same bytes:%s\n", $2, $4, $8, $10 }' "$OUT/kernel.md"
  echo
  echo "goal: H5Dwrite through the filter, PARZ_EXEC=cuda >= 3x omp at $THREADS threads, chunks"
  echo "of 4 MiB and more (etopo5 tiled to 150 MB):"
  awk -F'|' '/^\| chunk \| chunk MiB \| uncompressed/ {on=1; next}
      on && /^\|---/ {next}
      on && /^\| [0-9]/ { r=$7 + 0; printf "  %5s MiB chunks: cuda / omp %5.2f%s, same chunks:%s\n",
        $3, r, (r >= 3 ? "  goal met" : "  goal NOT met"), $8; next }
      on {on=0}' "$OUT/h5write.md"
  echo "  per chunk (ms), from the breakdown:"
  awk -F'|' '/^\| chunk MiB \| H5Dwrite none/ {on=1; next} on && /^\|---/ {next}
      on && /^\| [0-9]/ {printf "   %s MiB: H5Dwrite omp %s, cuda %s; encoders alone: omp %s, cuda %s (up %s, encode %s, down %s); H5Dwrite own: omp %s, cuda %s\n", $2, $4, $5, $6, $7, $8, $9, $10, $11, $12; next}
      on {on=0}' "$OUT/h5write.md"
  echo
  echo "goal: parz_h5_write_device of etopo5 tiled to 150 MB into /tmp >= 5x cudaMemcpy +"
  echo "H5Dwrite (omp, $THREADS threads) and >= 2x cudaMemcpy + uncompressed H5Dwrite:"
  awk -F'|' '/^\| chunk \| chunk MiB \| write_device/ {on=1; next} on && /^\|---/ {next}
      on && /^\| [0-9]/ { a=$8 + 0; b=$9 + 0;
        printf "  %5s MiB chunks: %s MB/s; vs copy + omp %5.2f%s; vs copy + uncompressed %5.2f%s; same chunks:%s\n",
        $3, $4, a, (a >= 5 ? " (met)" : " (NOT met)"), b, (b >= 2 ? " (met)" : " (NOT met)"), $10; next}
      on {on=0}' "$OUT/h5write.md"
  echo
  echo "ctest: $(verdict $ctest_rc passed FAILED) ($(grep -E "tests passed" "$OUT/ctest.log"))"
  grep -E "device writes:" "$OUT/ctest.log" | head -1 | sed 's/^[0-9]*: /  test_h5_write: /'
  echo "  test_mpi_roundtrip_np2_gpu: $mpi_note"
  echo "test_policy_dispatch (PARZ_EXEC=cuda), test_gpu_decode --small: $(verdict $dispatch_rc passed FAILED)"
  echo "pytest: $(verdict $pytest_rc passed FAILED) ($(tail -1 "$OUT/pytest.log"))"
  echo "compute-sanitizer: $(verdict $sanitize_rc clean "NOT CLEAN (sanitize.log)")"
  echo "benchmarks: $(verdict $((kernel_rc | h5write_rc | same_rc)) "ran, GPU chunks equal to the CPU's" \
    "FAILED or CHUNKS DIFFER")"
} >"$OUT/summary.txt"
cat "$OUT/summary.txt"
if [ $ctest_rc -eq 0 ] && [ $dispatch_rc -eq 0 ] && [ $pytest_rc -eq 0 ] &&
   [ $sanitize_rc -eq 0 ] && [ $kernel_rc -eq 0 ] && [ $h5write_rc -eq 0 ] && [ $same_rc -eq 0 ]; then
  echo "gpu_encode_check: PASS" | tee -a "$OUT/summary.txt"
else
  echo "gpu_encode_check: FAIL" | tee -a "$OUT/summary.txt"
  exit 1
fi
