"""PARZ_EXEC=cuda where no GPU can take the work: each path that asks the execution policy (the
filter's decoder and encoder, parz.read and parz.write) does the work on the CPU and says so once
per process, however many chunks or calls follow. Each path runs in a child of its own, with
CUDA_VISIBLE_DEVICES empty, so that no GPU is usable even on a machine that has one and no other
path has printed the warning first."""
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

import parz

SHAPE, CHUNKS, CALLS = (96, 80), (32, 40), 3

CHILD = r"""
import sys
import numpy as np, h5py
import parz
path, action, calls, codec = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
a = np.arange(96 * 80, dtype=np.float32).reshape(96, 80) * 0.25
opts = dict(accuracy=1e-3) if codec == "zfp" else dict(codec=codec)
tol = 1e-3 if codec == "zfp" else 0
for i in range(calls):
    if action == "filter-encode":
        with h5py.File(path, "w") as f:
            f.create_dataset("x", data=a, chunks=(32, 40), **parz.Parz(**opts))
    elif action == "filter-decode":
        with h5py.File(path, "r") as f:
            assert np.allclose(f["x"][...], a, atol=tol, rtol=0)
    elif action == "parz-write":
        with h5py.File(path, "r+") as f:
            parz.write(f["x"], a)
    elif action == "parz-read":
        with h5py.File(path, "r") as f:
            assert np.allclose(parz.read(f["x"]), a, atol=tol, rtol=0)
print("done", calls)
"""


def run_child(path, action, exec_, codec="zfp"):
    env = dict(os.environ, PARZ_EXEC=exec_, CUDA_VISIBLE_DEVICES="",
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(parz.__file__))))
    p = subprocess.run([sys.executable, "-c", CHILD, str(path), action, str(CALLS), codec],
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "done %d" % CALLS in p.stdout, (action, p.stdout, p.stderr)
    return [line for line in p.stderr.splitlines() if line.startswith("parz: ")]


@pytest.fixture(params=["zfp", "lossless"])
def stored(tmp_path, request):
    """The file and its codec: zfp, and the lossless codec (codec 3), whose chunks take the same
    paths: with no usable GPU the CPU does the work, with the same one warning."""
    path = tmp_path / "x.h5"
    a = np.arange(SHAPE[0] * SHAPE[1], dtype=np.float32).reshape(SHAPE) * 0.25
    opts = dict(accuracy=1e-3) if request.param == "zfp" else dict(codec=request.param)
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=a, chunks=CHUNKS, **parz.Parz(**opts))
    return path, request.param


@pytest.mark.parametrize("action, work", [("filter-encode", "encoding"),
                                          ("filter-decode", "decoding"),
                                          ("parz-write", "encoding"),
                                          ("parz-read", "decoding")])
def test_cuda_without_gpu_warns_once(stored, action, work):
    """Several chunks, several calls: one line, naming the policy and the work left to OpenMP."""
    lines = run_child(stored[0], action, "cuda", stored[1])
    assert len(lines) == 1, (action, lines)
    # without CUDA in the build or a usable GPU: "PARZ_EXEC=cuda but ...: <work> with OpenMP";
    # where the CUDA module cannot be loaded: "<why>: <work> on the CPU"
    assert ("%s with OpenMP" % work) in lines[0] or ("%s on the CPU" % work) in lines[0], lines


@pytest.mark.parametrize("action", ["filter-encode", "filter-decode", "parz-write", "parz-read"])
def test_auto_without_gpu_is_silent(stored, action):
    assert run_child(stored[0], action, "auto", stored[1]) == []
