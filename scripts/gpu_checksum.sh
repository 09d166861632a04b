#!/usr/bin/env bash
# The payload checksum's checks and costs on the GPU machine (after scripts/gpu_machine.sh's
# preparation; see README.md, "GPU machine"), results under OUT:
#   test_gpu_decode.txt   every GPU path against the serial decoder, payload bit flips included
#   ctest.txt             test_h5_read_device, gpu_parse_host, payload_checksum
#   memcheck.txt          compute-sanitizer memcheck of test_gpu_decode --small
#   bench_gpu_kernel.md   kernel decode with and without checksums (--checksum table at the end)
#   bench_omp.txt         OpenMP decode with and without checksums at 1 and 16 threads
#
#   bash scripts/gpu_checksum.sh OUT
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:?usage: $0 OUT_DIR}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
bash "$ROOT/scripts/gpu_machine.sh" setup test_gpu_decode test_h5_read_device test_gpu_parse_host \
  test_payload_checksum bench_gpu_kernel bench_omp H5Zparz
eval "$(bash "$ROOT/scripts/gpu_machine.sh" env)"
cd "$PARZ_BUILD"
status=0
tests/test_gpu_decode "$PARZ_SHARED_DATA" >"$OUT/test_gpu_decode.txt" 2>&1 || status=1
ctest -R "test_h5_read_device|gpu_parse_host|payload_checksum" --output-on-failure \
  >"$OUT/ctest.txt" 2>&1 || status=1
compute-sanitizer --tool memcheck --error-exitcode 1 tests/test_gpu_decode --small \
  >"$OUT/memcheck.txt" 2>&1 || status=1
arrays=("$PARZ_SHARED_DATA"/*.bin)
examples/bench_gpu_kernel --checksum --schemes block,thread --c 0,1,32 --rel 1e-2,1e-3 --reps 9 \
  "${arrays[@]}" >"$OUT/bench_gpu_kernel.md" 2>&1 || status=1
examples/bench_omp --data "$PARZ_SHARED_DATA" --checksum --threads 1,16 --reps 7 \
  >"$OUT/bench_omp.txt" 2>&1 || status=1
tail -n 3 "$OUT"/test_gpu_decode.txt "$OUT"/memcheck.txt
exit $status
