#!/usr/bin/env bash
# Builds the parz wheel (python3 -m build --wheel --no-isolation), installs it with pip into a new
# virtual environment that sees the building Python's packages (h5py, numpy, pytest), and checks
# it there with HDF5_PLUGIN_PATH and PYTHONPATH unset: import parz registers the filter with that
# h5py's HDF5, a fresh process reads what another wrote, then pytest. Prints a verdict line;
# exits non-zero on any failure.
#
#   scripts/wheel_check.sh [options] OUT_DIR
#     --python PY         the interpreter that builds and whose packages the venv sees
#                         (default: the one that imports h5py, scripts/common.sh)
#     --from-build DIR    take the plugin from this built CMake tree (PARZ_WHEEL_BUILD_DIR)
#                         instead of letting the build backend run CMake
#     --cmake-args ARGS   extra CMake configure arguments for the backend (PARZ_CMAKE_ARGS)
#     --tests quick|all|none   pytest files run in the venv (default quick: the helper,
#                         registration and error tests; all: python_tests/)
#     --expect-gpu        fail unless parz.get_config() reports the CUDA decoder and a GPU
#                         (the CUDA decoder alone is expected wherever the wheel holds its module)
#     --work DIR          where the wheel (dist/), the venv (venv/) and the build trees go
#                         (default OUT_DIR/work)
# OUT_DIR receives the logs.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PY="" FROM_BUILD="" CMAKE_ARGS="" TESTS=quick EXPECT_GPU=0 OUT="" WORK=""
while [ $# -gt 0 ]; do
  case "$1" in
    --python) PY="$2"; shift 2 ;;
    --from-build) FROM_BUILD="$(cd "$2" && pwd)" || exit 2; shift 2 ;;
    --cmake-args) CMAKE_ARGS="$2"; shift 2 ;;
    --tests) TESTS="$2"; shift 2 ;;
    --expect-gpu) EXPECT_GPU=1; shift ;;
    --work) WORK="$2"; shift 2 ;;
    -*) echo "wheel_check: unknown option $1" >&2; exit 2 ;;
    *) OUT="$1"; shift ;;
  esac
done
[ -n "$OUT" ] || { echo "usage: $0 [options] OUT_DIR" >&2; exit 2; }
[ -n "$PY" ] || PY="$(parz_python)" || exit 2
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
WORK="${WORK:-$OUT/work}"
mkdir -p "$WORK" && WORK="$(cd "$WORK" && pwd)"
rm -rf "$WORK/dist" "$WORK/venv"

fail() { echo "wheel_check: FAIL: $*" >&2; exit 1; }

# ---- build -------------------------------------------------------------------------------------
if [ -n "$FROM_BUILD" ]; then how="the plugin of $FROM_BUILD"; else how="CMake building the plugin"; fi
echo "wheel_check: building the wheel with $PY, $how"
PARZ_WHEEL_WORK_DIR="$WORK/build" PARZ_WHEEL_BUILD_DIR="$FROM_BUILD" PARZ_CMAKE_ARGS="$CMAKE_ARGS" \
  "$PY" -m build --wheel --no-isolation --outdir "$WORK/dist" "$PARZ_ROOT" >"$OUT/build.log" 2>&1 ||
  { tail -40 "$OUT/build.log"; fail "python -m build (log: $OUT/build.log)"; }
WHEEL="$(ls "$WORK"/dist/*.whl 2>/dev/null)"
[ "$(echo "$WHEEL" | wc -w)" = 1 ] || fail "expected one wheel in $WORK/dist, found: $WHEEL"
EXPECT_CUDA="$EXPECT_GPU"
if [ -n "$FROM_BUILD" ] && [ -f "$FROM_BUILD/plugins/parz_cuda.so" ]; then EXPECT_CUDA=1; fi
"$PY" - "$WHEEL" "$PARZ_ROOT/codec/parz.h" "$EXPECT_CUDA" <<'EOF' || fail "wheel contents"
import os, re, sys, zipfile
wheel, header, expect_cuda = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
text = open(header).read()
version = ".".join(re.search(r"#define PARZ_VERSION_%s +(\d+)" % p, text).group(1)
                   for p in ("MAJOR", "MINOR", "PATCH"))
want = "parz-%s-py3-none-linux_x86_64.whl" % version
assert os.path.basename(wheel) == want, "wheel %s, expected %s" % (os.path.basename(wheel), want)
names = zipfile.ZipFile(wheel).namelist()
for f in ("parz/__init__.py", "parz/_lib.py", "parz/_filter.py", "parz/libH5Zparz.so") + (
        ("parz/parz_cuda.so",) if expect_cuda else ()):
    assert f in names, "%s missing from the wheel: %s" % (f, names)
v = zipfile.ZipFile(wheel).read("parz/_version.py").decode()
assert '__version__ = "%s"' % version in v, v
print("wheel_check: %s holds %s" % (want, ", ".join(n for n in names if n.startswith("parz/"))))
EOF

# ---- install into a fresh virtual environment --------------------------------------------------
"$PY" -m venv --system-site-packages --without-pip "$WORK/venv" || fail "venv"
VPY="$WORK/venv/bin/python"
SITE="$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
# A builder that itself runs in a virtual environment (the GPU machine's python3) keeps h5py,
# torch and CuPy in that environment, not among the system's packages: add its site-packages
# (after the venv's own, with their .pth files) at start-up.
"$PY" - >"$SITE/parent-environment.pth" <<'EOF' || rm -f "$SITE/parent-environment.pth"
import sys, sysconfig
if sys.prefix == sys.base_prefix:
    sys.exit(1)
paths = sysconfig.get_paths()
for d in sorted({paths["purelib"], paths["platlib"]}):
    print("import site; site.addsitedir(%r)" % d)
EOF
if "$VPY" -m pip --version >/dev/null 2>&1; then
  PIP=("$VPY" -m pip)
else
  PIP=("$PY" -m pip --python "$VPY")
fi
"${PIP[@]}" install --no-deps --no-index --no-cache-dir --disable-pip-version-check -q "$WHEEL" \
  >"$OUT/pip.log" 2>&1 || { cat "$OUT/pip.log"; fail "pip install"; }

# ---- use it: HDF5_PLUGIN_PATH and PYTHONPATH unset, run from outside the source tree -----------
cd "$OUT"
run_venv() { env -u HDF5_PLUGIN_PATH -u PYTHONPATH "$VPY" "$@"; }
run_venv - "$WORK/venv" "$WORK/fresh.h5" "$EXPECT_GPU" "$EXPECT_CUDA" <<'EOF' || fail "import, write and read in the venv"
import os, sys
venv, path = sys.argv[1], sys.argv[2]
expect_gpu, expect_cuda = sys.argv[3] == "1", sys.argv[4] == "1"
import h5py, numpy as np, parz
assert parz.__file__.startswith(venv), "parz imported from %s, not the venv" % parz.__file__
c = parz.get_config()
assert c.plugin.startswith(venv) and c.version == parz.__version__, c
assert not expect_gpu or (c.cuda and c.gpu), "no CUDA decoder or no GPU: %s" % (c,)
assert not expect_cuda or c.cuda, "the wheel's CUDA module does not load: %s" % (c,)
a = np.random.default_rng(7).standard_normal((300, 257)).astype("f4")
with h5py.File(path, "w") as f:
    f.create_dataset("a", data=a, chunks=(128, 128), compression=parz.Parz(accuracy=1e-3))
    f.create_dataset("b", data=a.astype("f8"), chunks=(300, 257),
                     compression=parz.Parz(reversible=True))
print("wheel_check: python %s, h5py %s, HDF5 %s, numpy %s" % (
    sys.version.split()[0], h5py.__version__, h5py.version.hdf5_version, np.__version__))
print("wheel_check: %s" % (c,))
EOF
run_venv - "$WORK/fresh.h5" <<'EOF' || fail "read in a fresh process"
import sys, h5py, numpy as np, parz
a = np.random.default_rng(7).standard_normal((300, 257)).astype("f4")
with h5py.File(sys.argv[1], "r") as f:
    err = float(np.abs(f["a"][...] - a).max())
    assert err <= 1e-3, err
    assert np.array_equal(f["b"][...], a.astype("f8"))
print("wheel_check: a fresh process read it back (max error %.3g, reversible exact)" % err)
EOF

case "$TESTS" in
  none) TEST_FILES=() ;;
  quick) TEST_FILES=("$PARZ_ROOT"/python_tests/test_parz_{helper,register,errors}.py) ;;
  all) TEST_FILES=("$PARZ_ROOT/python_tests") ;;
  *) fail "--tests quick|all|none, got $TESTS" ;;
esac
if [ ${#TEST_FILES[@]} -gt 0 ]; then
  run_venv -m pytest -q -p no:cacheprovider "${TEST_FILES[@]}" 2>&1 | tee "$OUT/pytest.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "pytest in the venv (log: $OUT/pytest.log)"
fi
echo "wheel_check: PASS ($(basename "$WHEEL"), $(du -k "$WHEEL" | cut -f1) KiB, installed with pip into $WORK/venv; tests: $TESTS)"
