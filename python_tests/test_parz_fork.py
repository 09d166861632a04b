"""ParZ in processes forked after it has run OpenMP: Python's multiprocessing Pool with the fork
start method reads ParZ datasets in its workers. libgomp's thread pool does not survive fork(),
so a worker that ran a parallel region would wait forever; ParZ must decode there serially.

The Pool runs in a child interpreter with PARZ_EXEC=omp and PARZ_THREADS=2 (set before HDF5
loads the plugin), which reads the dataset itself first so that OpenMP's threads exist before the
fork; a time limit turns a hang into a failure."""
import os
import subprocess
import sys

import h5py
import numpy as np

import parz

SCRIPT = r"""
import multiprocessing as mp, sys
import h5py, numpy as np
import parz
parz.register()
path = sys.argv[1]

def read(i):
    with h5py.File(path, "r") as f:
        return float(np.asarray(f["x"][i * 64:(i + 1) * 64], dtype=np.float64).sum())

with h5py.File(path, "r") as f:       # OpenMP decodes in this process before the fork
    whole = f["x"][...]
want = [float(whole[i * 64:(i + 1) * 64].astype(np.float64).sum()) for i in range(8)]
with mp.get_context("fork").Pool(2) as pool:
    try:
        got = pool.map_async(read, range(8)).get(timeout=60)
    except mp.TimeoutError:
        sys.exit("the Pool's workers did not finish within 60 s (hung after fork)")
print("ok" if got == want else "mismatch %r %r" % (got, want))
"""


def test_multiprocessing_pool_fork(tmp_path):
    path = tmp_path / "fork.h5"
    a = (np.sin(np.arange(512 * 1024) * 1e-3) * 100).astype("f4").reshape(512, 1024)
    with h5py.File(path, "w") as f:
        # 64 rows of 1024 floats per chunk: 256 KiB, above the OpenMP drivers' serial threshold
        f.create_dataset("x", data=a, chunks=(64, 1024), compression=parz.Parz(reversible=True))
    env = dict(os.environ, PARZ_EXEC="omp", PARZ_THREADS="2")
    try:
        p = subprocess.run([sys.executable, "-c", SCRIPT, str(path)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=120)
    except subprocess.TimeoutExpired as e:
        raise AssertionError("the Pool never returned (workers hung after fork)\n%s"
                             % (e.stderr or "")[-2000:])
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.strip() == "ok", p.stdout + p.stderr[-2000:]
