#!/usr/bin/env bash
# Masks (missing values, codec/FORMAT.md "Mask") on the GPU machine, in one command:
#
#   bash scripts/gpu_mask_check.sh OUT_DIR
#
# Builds with scripts/gpu_machine.sh (unpacks Debian's HDF5 and the arrays first; reuses an
# existing build-gpu-machine), then writes into OUT_DIR:
#   setup.log             the build
#   test_gpu_decode.txt   masked chunks on the GPU against the serial decoder: every type, rank,
#                         parse shape and table kind, the device API and the filter path (a
#                         9.6 MB chunk in slices), a batch of masked and unmasked chunks
#                         (test_gpu_decode --masked)
#   ctest.txt             the CPU mask tests (chunk_mask, hostile_mask, chunk_dest, omp_equal)
#   pytest.txt            python_tests/test_mask.py: h5py round trips with NaN and fill values,
#                         serial = OpenMP = CUDA reads, parz.read into host and GPU memory
#   memcheck.txt          compute-sanitizer memcheck of test_gpu_decode --masked --small
#   bench_mask.md, .err   etopo5 (accuracy 1e-3 x range, one chunk, auto C) and its masked
#                         variants, decoded alternately with it on the GPU (kernel time) and with
#                         OpenMP on every core: "third" a third of its blocks NaN, "land" its
#                         values above 0 NaN (bench_gpu_kernel --mask)
#   summary.txt           the verdicts and the goals: etopo5 with a third of its blocks masked
#                         decodes at >= 70% of the unmasked array's throughput on the GPU and at
#                         >= 80% with OpenMP
# The last line is "gpu_mask_check: PASS" when every step passed and both goals are met, else
# "gpu_mask_check: FAIL". The steps after the build end within 230 s.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/gpu_check_common.sh"
gpu_check_prepare gpu_mask_check "${1:?usage: $0 OUT_DIR}"
cd "$BUILD" || exit 1

deadline=$((SECONDS + 230))
verdicts=()
failed=0
start=$SECONDS
gpu_check_step test_gpu_decode.txt 60 tests/test_gpu_decode --masked
gpu_check_step ctest.txt 45 ctest --output-on-failure \
  -R "chunk_mask|hostile_mask|chunk_dest|omp_equal"
gpu_check_step pytest.txt 45 env -C "$ROOT/python_tests" -u HDF5_PLUGIN_PATH \
  PYTHONPATH="$BUILD/python" python3 -m pytest -q -rs -p no:cacheprovider \
  "$ROOT/python_tests/test_mask.py"
gpu_check_step memcheck.txt 40 compute-sanitizer --tool memcheck --error-exitcode 1 \
  tests/test_gpu_decode --masked --small
gpu_check_step bench_mask.md 40 sh -c 'err="$1"; shift; exec "$@" 2>"$err"' sh \
  "$OUT/bench_mask.err" bench/bench_gpu_kernel --mask third,land --shapes auto --c 0 \
  --rel 1e-3 --modes accuracy --reps 15 "$PARZ_SHARED_DATA/etopo5_relief_f32le_2161x4320.bin"
elapsed=$((SECONDS - start))

# bench_gpu_kernel's stderr: "mask-goal NAME VARIANT MODE gpu G omp O", G and O the masked
# array's throughput over the unmasked one's
goals=0
{
  cat "$OUT/machine.txt"
  echo
  echo "Masked etopo5 against etopo5 (throughput masked / unmasked, medians of 15, alternately):"
  while read -r _ name variant _ _ gpu _ omp; do
    line="  $name, $variant: GPU $gpu, OpenMP $omp"
    if [ "$variant" = third ]; then
      ok=$(awk -v g="$gpu" -v o="$omp" 'BEGIN { print (g >= 0.70 && o >= 0.80) ? 1 : 0 }')
      goals=$ok
      line="$line (goals: GPU >= 0.70, OpenMP >= 0.80: $([ "$ok" = 1 ] && echo met || echo NOT MET))"
    fi
    echo "$line"
  done < <(grep '^mask-goal' "$OUT/bench_mask.err" 2>/dev/null)
  echo
  printf '%s\n' "${verdicts[@]}"
  echo "steps took ${elapsed} s after the build"
} >"$OUT/summary.txt"
cat "$OUT/summary.txt"
if [ $failed -eq 0 ] && [ "$goals" = 1 ]; then
  echo "gpu_mask_check: PASS" | tee -a "$OUT/summary.txt"
else
  echo "gpu_mask_check: FAIL" | tee -a "$OUT/summary.txt"
  exit 1
fi
