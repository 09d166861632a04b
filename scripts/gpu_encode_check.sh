#!/usr/bin/env bash
# The GPU encoder on the GPU machine (16 cores, pip's h5py 3.16 with its own HDF5 2.0, CuPy,
# PyTorch): its tests, compute-sanitizer on small cases, and the benchmarks of its goals, in one
# command.
#
#   bash scripts/gpu_encode_check.sh OUT_DIR
#
# Builds with scripts/gpu_machine.sh (unpacks Debian's HDF5 and the arrays first; reuses an
# existing build-gpu-machine), then writes into OUT_DIR:
#   ctest.log     the encoder's C tests: gpu_encode (every case, boxes of arrays and the real
#                 arrays, bit-identical to the CPU encoder), gpu_encode_host, test_h5_read_device,
#                 policy_dispatch, host_pool, test_mpi_roundtrip_np2_gpu where MPI is built
#   test_h5_write.log  the writers against H5Dwrite, chunk by chunk: parz_h5_write under omp,
#                 serial and cuda, parz_h5_write_device and parz_h5_write_cuda (datasets with
#                 the mask off and masked ones: NaN, fill values); datasets that mask through
#                 parz_h5_write and H5Dwrite under cuda and auto
#   dispatch.log  test_policy_dispatch with PARZ_EXEC=cuda (the filter's encode on the GPU),
#                 test_gpu_decode --small
#   pytest.log    python_tests/test_parz_write.py and test_parz_write_gpu.py with python3 (pip's
#                 h5py, CuPy, PyTorch), the build tree's parz package, HDF5_PLUGIN_PATH unset
#   sanitize.log  compute-sanitizer memcheck on test_gpu_encode --small, memcheck and racecheck on
#                 test_h5_write --device-small (parz_h5_write_device, cases under 256 KiB); their
#                 whole output in sanitize/
#   kernel.md     bench_gpu_encode, arrays resident on the GPU: etopo5 float32 at accuracy
#                 1e-2 x range with C = auto, 1, 32 (and in chunks of 4 and 16 MiB), etopo5 as
#                 float64, levitus (3D float32) and vasp (3D float64) at 1e-2 and 1e-3
#   h5write.md    bench_h5write on etopo5 tiled to 150 MB, file in /tmp, chunks of 4, 16, 64 MiB:
#                 H5Dwrite through the filter with PARZ_EXEC=cuda against omp at 16 threads, the
#                 per-chunk breakdown, and parz_h5_write_device against cudaMemcpy + H5Dwrite
#                 (omp at 16 threads, and uncompressed)
#   summary.txt   the goal rows (met or not), the verdicts
# With "racecheck" as its second argument it runs compute-sanitizer racecheck on test_gpu_encode
# --small alone (about 290 s on the H100), within the same budget.
# The last line is "gpu_encode_check: PASS" when every test passed, the sanitizers reported no
# error, and every benchmark found the GPU's chunks equal to the CPU's; else FAIL (goals are
# reported, not judged). Takes at most PARZ_CHECK_SECONDS (340) after the build, give or take a
# few: each step's time limit is cut to what is left, the sanitizers sharing the last 120 s or
# more. A step stopped at its limit counts as failed, and its log says so.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/gpu_check_common.sh"
MODE="${2:-all}"
case "$MODE" in all | racecheck) ;; *) echo "usage: $0 OUT_DIR [racecheck]" >&2; exit 2 ;; esac
gpu_check_prepare gpu_encode_check "${1:?usage: $0 OUT_DIR [racecheck]}"
B="$BUILD"
D="$PARZ_SHARED_DATA"
SCRATCH=/tmp/parz_gpu_encode_check
mkdir -p "$SCRATCH"
{
  nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv
  git -C "$ROOT" log --oneline -1
} >>"$OUT/machine.txt" 2>&1

# Every step gets a time limit cut to what is left of BUDGET seconds after the build: the tests
# and benchmarks up to 120 s before the end, the sanitizers (slowest, last) the rest.
BUDGET="${PARZ_CHECK_SECONDS:-$([ "$MODE" = racecheck ] && echo 400 || echo 340)}"
DEADLINE=$(($(date +%s) + BUDGET))
limit() { # limit CAP: CAP seconds, or what is left before the sanitizers' share (at least 10)
  local left=$((DEADLINE - 120 - $(date +%s)))
  [ "$left" -lt 10 ] && left=10
  [ "$left" -lt "$1" ] && echo "$left" || echo "$1"
}

if [ "$MODE" = all ]; then
# ---- tests ----------------------------------------------------------------------------------
TESTS="^(gpu_encode|gpu_encode_host|host_pool|policy_dispatch|test_h5_read_device"
TESTS="$TESTS|test_mpi_roundtrip_np2_gpu)$"
stopped() { # stopped RC LOG: notes in LOG that a step ran into its time limit
  [ "$1" -ne 124 ] || echo "(stopped at its time limit)" >>"$2"
}
(cd "$B" && timeout "$(limit 150)" ctest --output-on-failure -R "$TESTS") >"$OUT/ctest.log" 2>&1
ctest_rc=$?
stopped $ctest_rc "$OUT/ctest.log"
mkdir -p "$SCRATCH/h5_write"
HDF5_PLUGIN_PATH="$B/plugins" timeout "$(limit 90)" "$B/tests/test_h5_write" "$SCRATCH/h5_write" \
  >"$OUT/test_h5_write.log" 2>&1
h5test_rc=$?
stopped $h5test_rc "$OUT/test_h5_write.log"
{
  PARZ_EXEC=cuda timeout "$(limit 30)" "$B/tests/test_policy_dispatch" &&
    timeout "$(limit 30)" "$B/tests/test_gpu_decode" --small | tail -2
} >"$OUT/dispatch.log" 2>&1
dispatch_rc=$?
stopped $dispatch_rc "$OUT/dispatch.log"
if grep -q "test_mpi_roundtrip_np2_gpu" "$OUT/ctest.log"; then
  mpi_note="$(grep -E "Test +#[0-9]+: test_mpi_roundtrip_np2_gpu " "$OUT/ctest.log" | head -1 |
    sed 's/.*test_mpi_roundtrip_np2_gpu \.* *//')"
else
  mpi_note="not built here (no MPI and parallel HDF5 on this machine)"
fi

(cd "$ROOT/python_tests" && timeout "$(limit 90)" \
   env -u HDF5_PLUGIN_PATH PYTHONPATH="$B/python" python3 -m pytest -q -rs test_parz_write.py \
   test_parz_write_gpu.py) >"$OUT/pytest.log" 2>&1
pytest_rc=$?
stopped $pytest_rc "$OUT/pytest.log"

# ---- benchmarks -----------------------------------------------------------------------------
E="$D/etopo5_relief_f32le_2161x4320.bin"
(
  timeout "$(limit 60)" "$B/bench/bench_gpu_encode" --c 0,1,32 --chunk-mib 4,16 "$E" &&
    timeout "$(limit 30)" "$B/bench/bench_gpu_encode" --c 0,1,32 --f64 "$E" || exit 1
  # levitus with its -1e10 land declared as the fill value, as its dataset would (undeclared, it
  # puts blocks at risk of the accuracy bound, which the GPU encoder leaves to the CPU)
  for spec in "levitus_temp_f32le_20x180x360.bin --fill -1e10" \
    "vasp_fepo4_chgcar_f64le_72x192x160.bin"; do
    set -- $spec
    f="$1"
    shift
    [ ! -f "$D/$f" ] ||
      timeout "$(limit 30)" "$B/bench/bench_gpu_encode" --c 0,1,32 --rel 1e-2,1e-3 "$@" "$D/$f" ||
      exit 1
  done
) >"$OUT/kernel.md" 2>&1
kernel_rc=$?
stopped $kernel_rc "$OUT/kernel.md"

timeout "$(limit 120)" "$B/bench/bench_h5write" --data "$D" --only etopo5 --min-mib 150 \
  --chunk-mib 4,16,64 --threads "$THREADS" --reps 3 --file "$SCRATCH/bench_h5write" \
  >"$OUT/h5write.md" 2>&1
h5write_rc=$?
stopped $h5write_rc "$OUT/h5write.md"

fi

# ---- compute-sanitizer ----------------------------------------------------------------------
# Found by its path too (PATH may lack it); it waits for its target (a static CUDA runtime loads
# lazily) up to --launch-timeout, whose default of 10 s a cold machine can exceed. Its whole
# output stays in sanitize/.
CS="$(command -v compute-sanitizer || true)"
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [ -n "$CS" ] || { [ -x "$c" ] && CS="$c"; }
done
mkdir -p "$OUT/sanitize"
sanitize_rc=0
{
  if [ -z "$CS" ]; then
    echo "compute-sanitizer not found"
    sanitize_rc=1
  else
    "$CS" --version | tail -1
    # racecheck on test_gpu_encode --small takes about 290 s on the H100, more than its share
    # here: `bash scripts/gpu_encode_check.sh OUT_DIR racecheck` runs it alone, after the build
    if [ "$MODE" = racecheck ]; then
      checks=("racecheck test_gpu_encode --small")
    else
      checks=("memcheck test_gpu_encode --small" "memcheck test_h5_write $SCRATCH --device-small"
        "racecheck test_h5_write $SCRATCH --device-small")
    fi
    runs=${#checks[@]}
    for c in "${checks[@]}"; do
      set -- $c
      tool="$1"
      shift
      log="$OUT/sanitize/$tool-$1.log"
      left=$((DEADLINE - $(date +%s)))
      share=$((left / runs))
      [ "$share" -lt 30 ] && share=30
      runs=$((runs - 1))
      echo "== $tool: $* (time limit $share s)"
      HDF5_PLUGIN_PATH="$B/plugins" timeout "$share" "$CS" --tool "$tool" --launch-timeout 120 \
        --error-exitcode 3 "$B/tests/$1" "${@:2}" >"$log" 2>&1
      rc=$?
      grep -E "ERROR SUMMARY|RACECHECK SUMMARY|failures|stored the chunks|checks" "$log" | tail -4
      if [ "$rc" -eq 124 ]; then
        echo "-- not finished within $share s (see $log)"
      elif ! grep -qE "(ERROR|RACECHECK) SUMMARY: 0 (errors|hazards)" "$log"; then
        echo "-- no clean summary: the first lines of its output:"
        head -20 "$log"
        [ "$rc" -ne 0 ] || rc=4
      fi
      echo "exit $rc"
      [ "$rc" -eq 0 ] || sanitize_rc=1
    done
  fi
} >"$OUT/sanitize.log" 2>&1
rm -rf "$SCRATCH"
if [ "$MODE" = racecheck ]; then
  cat "$OUT/sanitize.log"
  echo "gpu_encode_check racecheck: $([ "$sanitize_rc" -eq 0 ] && echo PASS || echo FAIL)"
  exit "$sanitize_rc"
fi

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
  echo "test_h5_write: $(verdict $h5test_rc passed FAILED) ($(grep -E "^device writes:" \
    "$OUT/test_h5_write.log" | head -1))"
  echo "  test_mpi_roundtrip_np2_gpu: $mpi_note"
  echo "test_policy_dispatch (PARZ_EXEC=cuda), test_gpu_decode --small: $(verdict $dispatch_rc passed FAILED)"
  echo "pytest: $(verdict $pytest_rc passed FAILED) ($(tail -1 "$OUT/pytest.log"))"
  echo "compute-sanitizer: $(verdict $sanitize_rc clean "NOT CLEAN (sanitize.log)")"
  echo "benchmarks: $(verdict $((kernel_rc | h5write_rc | same_rc)) "ran, GPU chunks equal to the CPU's" \
    "FAILED or CHUNKS DIFFER")"
} >"$OUT/summary.txt"
cat "$OUT/summary.txt"
if [ $ctest_rc -eq 0 ] && [ $h5test_rc -eq 0 ] && [ $dispatch_rc -eq 0 ] && [ $pytest_rc -eq 0 ] &&
   [ $sanitize_rc -eq 0 ] && [ $kernel_rc -eq 0 ] && [ $h5write_rc -eq 0 ] && [ $same_rc -eq 0 ]; then
  echo "gpu_encode_check: PASS" | tee -a "$OUT/summary.txt"
else
  echo "gpu_encode_check: FAIL" | tee -a "$OUT/summary.txt"
  exit 1
fi
