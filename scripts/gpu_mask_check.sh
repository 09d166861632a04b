#!/usr/bin/env bash
# Masks on the GPU machine (after `bash scripts/gpu_machine.sh setup`; see README.md, "GPU
# machine"): the GPU mask tests and the masked-array benchmark, results under OUT:
#   test_gpu_decode.txt   masked chunks, every scheme, table kind, type and rank, the device API,
#                         the filter path in slices and a batch, against the serial decoder
#   memcheck.txt          compute-sanitizer memcheck of the same, --small
#   bench_mask.md         etopo5 and its masked variants decoded on the GPU and with OpenMP
#   summary.txt           the goals: masked etopo5 (a third of its blocks) decodes at >= 70% of
#                         the unmasked array's throughput on the GPU, >= 80% with OpenMP
# Ends with "gpu_mask_check: PASS" or "gpu_mask_check: FAIL" (exit status 0 or 1).
#
#   bash scripts/gpu_mask_check.sh OUT
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:?usage: $0 OUT_DIR}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
bash "$ROOT/scripts/gpu_machine.sh" setup test_gpu_decode bench_gpu_kernel >"$OUT/build.txt" 2>&1 ||
  { tail -20 "$OUT/build.txt"; echo "gpu_mask_check: FAIL"; exit 1; }
eval "$(bash "$ROOT/scripts/gpu_machine.sh" env)"
cd "$PARZ_BUILD"
status=0
summary="$OUT/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

if tests/test_gpu_decode --masked >"$OUT/test_gpu_decode.txt" 2>&1; then
  note "test_gpu_decode --masked: ok ($(tail -n 1 "$OUT/test_gpu_decode.txt"))"
else
  note "test_gpu_decode --masked: FAILED ($(grep -c FAIL "$OUT/test_gpu_decode.txt") failures)"
  status=1
fi
if timeout 150 compute-sanitizer --tool memcheck --error-exitcode 1 tests/test_gpu_decode --masked \
  --small >"$OUT/memcheck.txt" 2>&1; then
  note "memcheck test_gpu_decode --masked --small: ok"
else
  note "memcheck test_gpu_decode --masked --small: FAILED or timed out (see memcheck.txt)"
  status=1
fi
etopo5="$PARZ_SHARED_DATA/etopo5_relief_f32le_2161x4320.bin"
if examples/bench_gpu_kernel --mask third,land --schemes block --c 0 --rel 1e-3 --modes accuracy \
  --reps 15 "$etopo5" >"$OUT/bench_mask.md" 2>"$OUT/bench_mask.err"; then
  # mask-goal NAME VARIANT MODE gpu RATIO omp RATIO (masked throughput / unmasked throughput)
  while read -r _ name variant _ _ gpu _ omp; do
    ok=PASS
    if [ "$variant" = third ]; then
      awk -v g="$gpu" -v o="$omp" 'BEGIN { exit !(g >= 0.70 && o >= 0.80) }' || { ok=FAIL; status=1; }
      note "$name, a third of its blocks masked: GPU at $gpu of the unmasked throughput (goal 0.70), OpenMP at $omp (goal 0.80): $ok"
    else
      note "$name, $variant masked: GPU at $gpu of the unmasked throughput, OpenMP at $omp"
    fi
  done < <(grep '^mask-goal' "$OUT/bench_mask.err")
  grep -q '^mask-goal .* third ' "$OUT/bench_mask.err" || { note "bench: no row for the third"; status=1; }
else
  note "bench_gpu_kernel --mask: FAILED ($(tail -n 2 "$OUT/bench_mask.err" | tr '\n' ' '))"
  status=1
fi
if [ $status -eq 0 ]; then note "gpu_mask_check: PASS"; else note "gpu_mask_check: FAIL"; fi
exit $status
