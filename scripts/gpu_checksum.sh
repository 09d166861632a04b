#!/usr/bin/env bash
# The payload checksum's checks and costs on the GPU machine, in one command:
#
#   bash scripts/gpu_checksum.sh OUT_DIR
#
# Builds with scripts/gpu_machine.sh (unpacks Debian's HDF5 and the arrays first; reuses an
# existing build-gpu-machine), then writes into OUT_DIR:
#   setup.log             the build
#   test_gpu_decode.txt   every GPU path against the serial decoder, payload bit flips included
#   ctest.txt             the readers' and decoders' checksum tests: test_h5_read_device and
#                         test_h5_read (a flipped payload bit fails the read with the checksum
#                         error), omp_assemble, chunk_dest, gpu_parse_host, payload_checksum
#   pytest.txt            python_tests: parz.read's and h5py's payload bit flips (CPU and GPU)
#   memcheck.txt          compute-sanitizer memcheck of test_gpu_decode --small
#   bench_omp.txt         OpenMP decode at 16 threads with and without checksums, side by side
#                         (each real array tiled to 16 MiB, one chunk, accuracy 1e-4 x range and
#                         precision 16), and the serial verification against the serial decode
#   bench_gpu_kernel.md   GPU kernel decode with and without checksums (table at the end): every
#                         real array as one chunk, accuracy 1e-2 and 1e-3 x range, precision 16,
#                         reversible; auto C and P (the defaults)
#   summary.txt           the ratios against the goals (at most 3% of OpenMP decode at 16
#                         threads, at most 10% of GPU decode) and the test verdicts
# The last line is "gpu_checksum: PASS" when every test passed and both goals are met, else
# "gpu_checksum: FAIL"; summary.txt says which. The steps after the build end within 285 s.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/gpu_check_common.sh"
gpu_check_prepare gpu_checksum "${1:?usage: $0 OUT_DIR}"
cd "$BUILD" || exit 1

# Every step has its own time limit, cut short so that all of them end within 285 s; a step
# that finds no time left is skipped (a failure, said so).
deadline=$((SECONDS + 285))
verdicts=()
failed=0
step() { gpu_check_step "$@"; } # its output in $OUT/FILE, its verdict in verdicts
start=$SECONDS
step test_gpu_decode.txt 90 tests/test_gpu_decode "$PARZ_SHARED_DATA"
step ctest.txt 75 ctest --output-on-failure \
  -R "test_h5_read_device|test_h5_read$|omp_assemble|chunk_dest|gpu_parse_host|payload_checksum"
step pytest.txt 60 env -C "$ROOT/python_tests" -u HDF5_PLUGIN_PATH PYTHONPATH="$BUILD/python" \
  python3 -m pytest -q -rs \
  -p no:cacheprovider "$ROOT/python_tests/test_payload_checksum.py" \
  "$ROOT/python_tests/test_parz_read.py" "$ROOT/python_tests/test_parz_read_gpu.py" \
  -k "bit_flip or corrupt or checksum"
step bench_omp.txt 75 bench/bench_omp --data "$PARZ_SHARED_DATA" --checksum \
  --threads "$THREADS" --reps 7
arrays=("$PARZ_SHARED_DATA"/*.bin)
step bench_gpu_kernel.md 60 bench/bench_gpu_kernel --checksum --shapes auto \
  --c 0 --rel 1e-2,1e-3 --reps 9 "${arrays[@]}"
step memcheck.txt 45 compute-sanitizer --tool memcheck --error-exitcode 1 \
  tests/test_gpu_decode --small
elapsed=$((SECONDS - start))

# OpenMP: the rows "16 threads: with checksums A ms, without B ms: ..." of every array and mode;
# the goal is judged on their sum (all real arrays), the worst single chunk shown beside it
omp=$(awk -v th="$THREADS" '$1 == th && $2 == "threads:" && $3 == "with" {
        on += $5; off += $8; n++; r = $5 / $8; if (r > worst) worst = r }
      END { if (n) printf "%d %.4f %.4f %.3f %.3f", n, on / off, worst, on, off }' \
      "$OUT/bench_omp.txt")
# GPU: the checksum table's rows (| array | mode | C | shape | partitions | with GiB/s | without
# GiB/s | cost | bytes more | with ms | without ms |); the goal is judged on the sum over every
# array and mode
gpu=$(awk -F'|' '/^Payload checksums/ { on_table = 1; next }
      on_table && NF >= 13 && $2 !~ /array|---/ {
        on += $11; off += $12; n++
        if ($11 / $12 > worst) worst = $11 / $12
      }
      END { printf "%d %.4f %.4f", n, n ? on / off : 0, worst }' \
      "$OUT/bench_gpu_kernel.md")

goal_omp=0
goal_gpu=0
{
  cat "$OUT/machine.txt"
  echo
  read -r n ratio worst on off <<<"${omp:-0 0 0 0 0}"
  if [ "${n:-0}" -gt 0 ]; then
    echo "OpenMP decode at $THREADS threads, with / without payload checksums, side by side"
    echo "  all $n chunks (real arrays, 2 modes): $on ms / $off ms = $ratio" \
      "(goal <= 1.03); worst single chunk $worst"
    goal_omp=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.03) ? 1 : 0 }')
    echo "  per chunk: with / without at $THREADS threads; the serial verification's time as a" \
      "share of the serial decode's"
    awk -v th="$THREADS" '/^[a-z]/ { name = $1 } /^  [a-z]/ { mode = $1 }
        /verification alone/ { serial = $NF }
        $1 == th && $2 == "threads:" && $3 == "with" {
          printf "    %-23s %-9s %.4f   serial %s\n", name, mode, $5 / $8, serial }' \
      "$OUT/bench_omp.txt"
  else
    echo "OpenMP: no measurement (see bench_omp.txt)"
  fi
  echo
  read -r nb rb wb <<<"${gpu:-0 0 0}"
  if [ "${nb:-0}" -gt 0 ]; then
    echo "GPU kernel decode, with / without payload checksums (GPU time, median of 9)"
    echo "  $nb chunks: $rb (goal <= 1.10); worst single chunk $wb"
    goal_gpu=$(awk -v r="$rb" 'BEGIN { print (r <= 1.10) ? 1 : 0 }')
  else
    echo "GPU: no measurement (see bench_gpu_kernel.md)"
  fi
  echo
  printf '%s\n' "${verdicts[@]}"
  echo "steps took ${elapsed} s after the build"
  echo "goal OpenMP (<= 3%): $([ "$goal_omp" = 1 ] && echo met || echo NOT MET)"
  echo "goal GPU (<= 10%): $([ "$goal_gpu" = 1 ] && echo met || echo NOT MET)"
} >"$OUT/summary.txt"
cat "$OUT/summary.txt"
if [ $failed -eq 0 ] && [ "$goal_omp" = 1 ] && [ "$goal_gpu" = 1 ]; then
  echo "gpu_checksum: PASS"
else
  echo "gpu_checksum: FAIL"
  exit 1
fi
