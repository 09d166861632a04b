"""Encoding memory: one large float32 chunk written through h5py under an address-space limit
(ulimit -v) must still be compressed. h5py marks filters optional, so an encode that runs out of
memory makes HDF5 store the chunk raw without an error: the test reads the chunk's filter mask.

The limit is what the same process needs to write the dataset uncompressed plus 2.5 times the
chunk: the filter's output buffer (the chunk's size plus its table; the exceptions are counted
before it is reserved) and, with OpenMP, the joined payload. Reserving a 16-byte exception
record for every value, as the filter once did, needs 5 times the chunk for the buffer alone.
"""
import os
import subprocess
import sys

import pytest

CHUNK_MIB = 64

WRITER = r"""
import os, resource, sys
import numpy as np, h5py, parz
mib, mode, limit = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
n = mib * (1 << 20) // 4
a = (np.sin(np.arange(n, dtype=np.float32) * 1e-3) * 100).reshape(1024, n // 1024)
a[5, 7] = np.nan   # one exception
def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmPeak"):
            return int(line.split()[1]) * 1024
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
kw = dict(compression=parz.Parz(accuracy=1e-3)) if mode == "parz" else {}
with h5py.File(sys.argv[4], "w") as f:
    d = f.create_dataset("a", data=a, chunks=a.shape, **kw)
    mask = d.id.get_chunk_info(0).filter_mask
with h5py.File(sys.argv[4], "r") as f:
    b = f["a"][...]
ok = np.isnan(b[5, 7]) and np.nanmax(np.abs(b - a)) <= 1e-3
print(peak(), mask, int(ok))
"""


def _run(tmp_path, mode, limit, threads):
    env = dict(os.environ, PARZ_THREADS=str(threads), PARZ_EXEC="omp", MALLOC_ARENA_MAX="2")
    out = subprocess.run([sys.executable, "-c", WRITER, str(CHUNK_MIB), mode, str(limit),
                          str(tmp_path / ("%s.h5" % mode))],
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    peak, mask, ok = (int(x) for x in out.stdout.split())
    return peak, mask, ok


@pytest.mark.parametrize("threads", [1, 2])
def test_large_chunk_encodes_under_a_memory_limit(tmp_path, threads):
    plain, _, _ = _run(tmp_path, "none", 0, threads)
    limit = plain + int(2.5 * CHUNK_MIB * (1 << 20))
    peak, mask, ok = _run(tmp_path, "parz", limit, threads)
    assert mask == 0, "the chunk was stored without the filter (encoding failed under %d MB)" % (
        limit >> 20)
    assert ok
    print("threads %d: uncompressed write peak %d MB, ParZ write peak %d MB under a limit of %d MB"
          % (threads, plain >> 20, peak >> 20, limit >> 20))
