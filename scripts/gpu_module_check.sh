#!/usr/bin/env bash
# The CUDA module (gpu/cuda_module.h) on the GPU machine: the GPU tests with the decoder loaded
# from build-gpu-machine/plugins/parz_cuda.so, in one command.
#
#   bash scripts/gpu_module_check.sh OUT_DIR
#
# Builds with scripts/gpu_machine.sh (reuses an existing build-gpu-machine), then writes into
# OUT_DIR:
#   sizes.txt    the plugin, libparz_h5.so, the parz command and the module, with what they link
#   ctest.log    the GPU tests: the kernels (gpu_decode, host_pool), the plugin, the readers and
#                the parz command through the module (gpu_module_*, with PARZ_TEST_EXPECT_GPU=1:
#                no GPU is a failure), the filter path under cuda and auto (fork, unload, hdf5)
#   pytest.log   test_parz_read_gpu.py and test_parz_register.py with python3 (pip's h5py), the
#                build tree's parz package, HDF5_PLUGIN_PATH unset
# The last line is "gpu_module_check: PASS" when every test passed, else "... FAIL (...)".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:?usage: $0 OUT_DIR}"
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"

bash "$ROOT/scripts/gpu_machine.sh" setup >"$OUT/setup.log" 2>&1 ||
  { tail -30 "$OUT/setup.log"; echo "gpu_module_check: FAIL (build)"; exit 1; }
eval "$(bash "$ROOT/scripts/gpu_machine.sh" env)"
BUILD="$PARZ_BUILD"
{
  nvidia-smi -L
  for f in plugins/libH5Zparz.so plugin/libparz_h5.so tools/parz plugins/parz_cuda.so; do
    echo "$(stat -c %s "$BUILD/$f") $f: $(objdump -p "$BUILD/$f" | awk '/NEEDED/ {printf "%s ", $2}')"
  done
} >"$OUT/sizes.txt" 2>&1

TESTS="gpu|cuda|host_pool|test_h5_read|test_plugin_(size|symbols|unload|hdf5)"
(cd "$BUILD" && PARZ_TEST_EXPECT_GPU=1 ctest --output-on-failure -R "$TESTS") >"$OUT/ctest.log" 2>&1
ctest_rc=$?
(cd "$ROOT/python_tests" && env -u HDF5_PLUGIN_PATH PYTHONPATH="$BUILD/python" \
  python3 -m pytest -q -rs test_parz_read_gpu.py test_parz_register.py) >"$OUT/pytest.log" 2>&1
pytest_rc=$?

cat "$OUT/sizes.txt"
grep -E "tests passed|tests failed|Skipped|Failed" "$OUT/ctest.log"
tail -3 "$OUT/pytest.log"
failed=()
[ $ctest_rc -eq 0 ] || failed+=(ctest)
[ $pytest_rc -eq 0 ] || failed+=(pytest)
if [ ${#failed[@]} -eq 0 ]; then
  echo "gpu_module_check: PASS"
else
  echo "gpu_module_check: FAIL (${failed[*]})"
  exit 1
fi
