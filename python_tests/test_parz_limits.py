"""PARZ_THREADS far above the CPUs under a memory limit (ulimit -v): a read and a write through
h5py must give the right values and the process must exit 0. GCC's libgomp ends the process
when it cannot start a thread, so ParZ bounds the team to the CPUs this process may use and to
the thread stacks that fit under the limit.

The child interpreter imports h5py and numpy, then lowers its address-space limit to its
current size plus a margin (64 MiB: a few thread stacks fit; 8 MiB: none does, so ParZ must
decode on the calling thread), then writes and reads with PARZ_THREADS=4096."""
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

import parz

SCRIPT = r"""
import resource, sys
import h5py, numpy as np
import parz
parz.register()
path, margin = sys.argv[1], int(sys.argv[2]) << 20
a = (np.sin(np.arange(256 * 1024) * 1e-3) * 100).astype("f4").reshape(256, 1024)
with h5py.File(path, "r") as f:
    d = f["x"]
    back = np.empty(d.shape, d.dtype)
mapped = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (mapped + margin, mapped + margin))
with h5py.File(path, "r") as f:
    f["x"].read_direct(back)
ok = np.array_equal(back, a)
with h5py.File(path, "a") as f:
    f["y"] = f["x"]
    f.create_dataset("z", data=a, chunks=(128, 1024), compression=parz.Parz(reversible=True))
    ok = ok and np.array_equal(f["z"][...], a)
print("ok" if ok else "wrong values")
"""


@pytest.mark.parametrize("margin_mib", [64, 8])
def test_many_threads_under_memory_limit(tmp_path, margin_mib):
    path = tmp_path / "limits.h5"
    a = (np.sin(np.arange(256 * 1024) * 1e-3) * 100).astype("f4").reshape(256, 1024)
    with h5py.File(path, "w") as f:
        # chunks of 512 KiB: above the OpenMP drivers' serial threshold
        f.create_dataset("x", data=a, chunks=(128, 1024), compression=parz.Parz(reversible=True))
    env = dict(os.environ, PARZ_EXEC="omp", PARZ_THREADS="4096")
    p = subprocess.run([sys.executable, "-c", SCRIPT, str(path), str(margin_mib)], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    assert p.returncode == 0, "exit status %d\n%s" % (p.returncode, p.stderr[-3000:])
    assert p.stdout.strip() == "ok", p.stdout + p.stderr[-2000:]
