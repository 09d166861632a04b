#!/usr/bin/env bash
# All of ParZ's tests: packages, build, C tests (ctest), Python tests (pytest with Debian's
# python3), then the sanitizer run when scripts/sanitize.sh exists. Exits non-zero if any fails.
#
# Everything is built in $PARZ_BUILD_DIR (default build/): tests, examples, benchmarks and, where
# nvcc is, the CUDA code, whether or not a GPU is present. The CUDA code is compiled for the GPU
# present (native) or else for one architecture, $PARZ_CUDA_ARCHITECTURES (default 90: SASS for
# sm_90 and PTX for compute_90, every device code path, including those for 9.0 and up).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$PARZ_ROOT"

# Seconds each step took, printed at the end.
times=()
t=$SECONDS
took() { times+=("$1 $((SECONDS - t)) s"); t=$SECONDS; }

"$PARZ_ROOT/scripts/deps.sh" || exit 1
took packages
arch="${PARZ_CUDA_ARCHITECTURES:-90}"
if parz_gpu_present; then arch="${PARZ_CUDA_ARCHITECTURES:-native}"; fi
parz_build -DPARZ_TESTS=ON -DPARZ_EXAMPLES=ON -DPARZ_BENCH=ON -DPARZ_CUDA=ON \
  "-DCMAKE_CUDA_ARCHITECTURES=$arch" || { echo "test.sh: build FAILED" >&2; exit 1; }
took build
PY="$(parz_python)" || exit 1

failed=()
# Two at a time: most tests are one thread; the MPI tests reserve their ranks (PROCESSORS).
(cd "$PARZ_BUILD_DIR" && ctest -j2 --output-on-failure) || failed+=(ctest)
took ctest

parz_env
"$PY" -m pytest -q -p no:cacheprovider "$PARZ_ROOT/python_tests" || failed+=(pytest)
took pytest

if [ -f "$PARZ_ROOT/scripts/sanitize.sh" ]; then
  bash "$PARZ_ROOT/scripts/sanitize.sh" || failed+=(sanitize)
  took sanitizer
fi
echo "test.sh: times: ${times[*]/%/;} total $SECONDS s"

if [ ${#failed[@]} -ne 0 ]; then
  echo "test.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "test.sh: all tests passed"
