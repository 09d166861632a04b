#!/usr/bin/env bash
# The wheel on the GPU machine (pip's h5py 3.16 with its own HDF5 2.0, numpy 2, CuPy, torch, nvcc;
# no HDF5 C library): unpacks Debian's HDF5 headers and tools and the arrays (gpu_machine.sh), builds
# the wheel with `python3 -m build --wheel --no-isolation` (CMake builds the plugin with the CUDA
# decoder for this GPU), installs it with pip into a new venv that sees python3's packages, and
# runs all of python_tests there with HDF5_PLUGIN_PATH unset, requiring the CUDA decoder and a GPU.
#
#   bash scripts/gpu_wheel_check.sh OUT_DIR [--from-build build-gpu-machine]
#
# --from-build packs the plugin of a tree gpu_machine.sh already built instead of compiling it
# again. OUT_DIR gets machine.txt, wheel_check.log (everything printed), build.log, pytest.log;
# the build trees, the wheel and the venv stay in /tmp/parz-wheel-work.
# The last line is the verdict: "gpu_wheel_check: PASS" or "gpu_wheel_check: FAIL".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:?usage: $0 OUT_DIR [--from-build DIR]}"
shift
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"

bash "$ROOT/scripts/gpu_machine.sh" unpack || { echo "gpu_wheel_check: FAIL (unpack)"; exit 1; }
eval "$(bash "$ROOT/scripts/gpu_machine.sh" env)"
unset HDF5_PLUGIN_PATH  # the point: the wheel needs none
CMAKE_ARGS="$(bash "$ROOT/scripts/gpu_machine.sh" cmake-args)"

{
  nvidia-smi -L 2>&1 | head -4
  python3 - <<'EOF'
import importlib, sys
print("python3", sys.executable, sys.version.split()[0])
for name in ("h5py", "numpy", "cupy", "torch", "setuptools", "wheel", "build", "pytest"):
    try:
        m = importlib.import_module(name)
        extra = " (HDF5 %s)" % m.version.hdf5_version if name == "h5py" else ""
        print(" ", name, getattr(m, "__version__", "?") + extra)
    except Exception as e:
        print(" ", name, "MISSING:", e)
EOF
} 2>&1 | tee "$OUT/machine.txt"

bash "$ROOT/scripts/wheel_check.sh" --python python3 --cmake-args "$CMAKE_ARGS" --tests all \
  --expect-gpu --work /tmp/parz-wheel-work "$@" "$OUT" 2>&1 | tee "$OUT/wheel_check.log"
if [ "${PIPESTATUS[0]}" -eq 0 ]; then
  echo "gpu_wheel_check: PASS"
else
  echo "gpu_wheel_check: FAIL (see $OUT/wheel_check.log)"
  exit 1
fi
