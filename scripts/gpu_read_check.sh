#!/usr/bin/env bash
# The dataset readers on the GPU machine (16 cores, pip's h5py 3.16 with its own HDF5 2.0, CuPy,
# PyTorch): their tests, and the benchmarks of their goals, in one command.
#
#   bash scripts/gpu_read_check.sh OUT_DIR
#
# Builds with scripts/gpu_machine.sh (unpacks Debian's HDF5 and the arrays first; reuses an
# existing build-gpu-machine), then writes into OUT_DIR:
#   ctest.log        the C tests of the readers (test_h5_read, test_h5_read_device, ...)
#   pytest.log       python_tests/test_parz_read.py and test_parz_read_gpu.py with python3 (pip's
#                    h5py), the build tree's parz package, HDF5_PLUGIN_PATH unset
#   bench_read.md    bench/bench_read.py: etopo5 tiled 2x1 read every way, the goals as ratios,
#                    and where parz.read's time goes
#   bench_h5read.txt bench/bench_h5read: H5Dread through the filter (PARZ_EXEC=omp, 16
#                    threads) against H5Z-ZFP on every real array at accuracy 1e-4 x range, with
#                    parz_h5_read and the breakdown; then the same for etopo5 2x1 at 1e-3 in chunks
#                    of 512 rows, and at C = 32 (--segment-blocks 32) for comparison; --breakdown
#                    splits the H5Dread of each array into the stored chunks read, the filter
#                    function as HDF5 calls it (its decode into a warm buffer, and its own work),
#                    HDF5's copy and HDF5's own rest
#   bench_omp_c.txt  bench/bench_omp --compare-c 0,32,1: ccsm, egm96, etopo5 and vasp at 1e-4 each
#                    encoded at auto C, C = 32 and C = 1 and decoded side by side, serially (parse,
#                    checksums, decode in thread CPU time) and whole at 1 and 16 threads
#   summary.txt      the goal rows, the test verdicts
# The last line is "gpu_read_check: PASS" when every test passed (goals are reported, not judged).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/gpu_check_common.sh"
gpu_check_prepare gpu_read_check "${1:?usage: $0 OUT_DIR}"

TESTS="chunk_dest|omp_assemble|test_h5_read|policy_dispatch|test_plugin_hdf5"
(cd "$BUILD" && ctest --output-on-failure -R "$TESTS") >"$OUT/ctest.log" 2>&1
ctest_rc=$?

py() { env -u HDF5_PLUGIN_PATH PYTHONPATH="$BUILD/python" python3 "$@"; }
(cd "$ROOT/python_tests" && py -m pytest -q -rs test_parz_read.py test_parz_read_gpu.py) \
  >"$OUT/pytest.log" 2>&1
pytest_rc=$?

py "$ROOT/bench/bench_read.py" --data "$PARZ_SHARED_DATA" --threads "$THREADS" --reps 5 \
  --out "$OUT" --file /tmp/parz_bench_read.h5 >"$OUT/bench_read.log" 2>&1
bench_rc=$?

{
  echo "## every real array, accuracy 1e-4 x range, whole-array chunks, PARZ_EXEC=omp"
  "$BUILD/bench/bench_h5read" --data "$PARZ_SHARED_DATA" --file /tmp/parz_bench_h5read.h5 \
    --threads "$THREADS" --reps 5 --exec omp --breakdown
  echo
  echo "## etopo5 tiled 2x1, accuracy 1e-3 x range, chunks of 512 rows, PARZ_EXEC=omp"
  "$BUILD/bench/bench_h5read" --data "$PARZ_SHARED_DATA" --file /tmp/parz_bench_h5read.h5 \
    --only etopo5 --min-mib 70 --chunk-mib 8.4375 --accuracy 1e-3 --threads "$THREADS" --reps 5 \
    --exec omp --breakdown
  echo
  echo "## every real array, accuracy 1e-4 x range, C = 32 (the table before auto C)"
  "$BUILD/bench/bench_h5read" --data "$PARZ_SHARED_DATA" --file /tmp/parz_bench_h5read.h5 \
    --threads "$THREADS" --reps 5 --exec omp --segment-blocks 32
} >"$OUT/bench_h5read.txt" 2>&1

for a in ccsm egm96 etopo5 vasp; do
  "$BUILD/bench/bench_omp" --data "$PARZ_SHARED_DATA" --only "$a" --merge-4d \
    --compare-c 0,32,1 --threads "1,$THREADS" --reps 5
done >"$OUT/bench_omp_c.txt" 2>&1

{
  cat "$OUT/machine.txt"
  echo
  sed -n '/^| goal/,/^$/p' "$OUT/bench_read.md" 2>/dev/null
  grep -E "^parz.read with PARZ_EXEC=omp" "$OUT/bench_read.md" 2>/dev/null
  echo
  echo "H5Dread (omp, $THREADS threads) / H5Z-ZFP, every real array at 1e-4 (goal >= 10x):"
  awk '/^## every real array, accuracy 1e-4 x range, whole/{on=1} /^## etopo5/{on=0}
       on && /^[a-z]/{name=$1} on && /ParZ omp/{print "  " name " " $NF}' "$OUT/bench_h5read.txt"
  echo
  echo "where each H5Dread's time goes (ms; the filter's own work and HDF5's own rest):"
  awk '/^## every real array, accuracy 1e-4 x range, whole/{on=1} /^## etopo5/{on=0}
       on && /^[a-z]/{name=$1} on && /the filter function called/{sub(/^ *breakdown, /, "");
       print "  " name " " $0}' "$OUT/bench_h5read.txt"
  echo
  echo "ctest: $([ $ctest_rc -eq 0 ] && echo passed || echo FAILED)"
  echo "pytest: $([ $pytest_rc -eq 0 ] && echo passed || echo FAILED)" \
    "($(tail -1 "$OUT/pytest.log"))"
  echo "bench_read: $([ $bench_rc -eq 0 ] && echo "values equal" || echo "FAILED or VALUES DIFFER")"
} >"$OUT/summary.txt"
cat "$OUT/summary.txt"
if [ $ctest_rc -eq 0 ] && [ $pytest_rc -eq 0 ] && [ $bench_rc -eq 0 ]; then
  echo "gpu_read_check: PASS"
else
  echo "gpu_read_check: FAIL"
  exit 1
fi
