"""parz.write when memory or the file system runs out, in child processes.

Under an address-space limit (RLIMIT_AS, as `ulimit -v`) parz.write reserves what the data
needs, as the filter does, so that it stores the values wherever h5py's write through the filter
stores them compressed. Under a file-size limit (RLIMIT_FSIZE, as a full file system) HDF5
fails to store a chunk. Either way a write that fails leaves the dataset as it was or says
exactly which chunks it stored (the selection's first ones in C order), the others keeping their
old values.

Each child writes one array over a dataset of old values in a new file again and again, under
limits of its address space (or its file's size) at the write plus a margin, and reads back
which chunks hold new values and which old ones. The children's threads exist before the limit
(a small write first), all of them allocate from one malloc arena (MALLOC_ARENA_MAX), and large
blocks are always mapped and unmapped (MALLOC_MMAP_THRESHOLD_), so that the margin is what the
write itself may take. With more arenas, glibc gives a thread that allocates or frees memory (as
libgomp frees a task where it ran) an arena whose heap reserves 64 MiB of address space before
the limit, and once the caller's arena cannot grow, moves the caller onto it: the write then has
that reserve besides the margin.
"""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import parz

CHUNK = (1024, 2048)  # 8 MiB of float32
NCHUNKS = 4
CHUNK_BYTES = CHUNK[0] * CHUNK[1] * 4
TOLERANCE = 1e-3

LADDER = r"""
import json, os, resource, signal, sys
import numpy as np, h5py
import parz
values, path, how, limit, opts = sys.argv[1:6]
opts = json.loads(opts)
margins = [int(m) for m in sys.argv[6].split(",")]
a = np.load(values)
old = np.full(a.shape, 7.0, a.dtype)
filt = dict(chunks=tuple(opts["chunks"]), compression=opts["compression"],
            compression_opts=tuple(opts["compression_opts"]))
what = resource.RLIMIT_AS if limit == "memory" else resource.RLIMIT_FSIZE
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG

def used():
    if limit != "memory":
        return os.path.getsize(path)
    for line in open("/proc/self/status"):
        if line.startswith("VmSize"):
            return int(line.split()[1]) * 1024

soft, hard = resource.getrlimit(what)
results = []
for margin in margins:
    # a new file each time: HDF5 keeps the space of a chunk it failed to store allocated
    with h5py.File(path, "w") as f:
        d = f.create_dataset("x", data=old, **filt)
        small = f.create_dataset("small", data=old[:64], **dict(filt, chunks=(64, a.shape[1])))
        parz.write(small, a[:64])  # threads and arenas made before the limit
        small[...] = a[:64]
        f.flush()
        error = None
        resource.setrlimit(what, (used() + margin, hard))
        try:
            if how == "parz":
                parz.write(d, a)
            else:
                d[...] = a
                f.flush()
        except Exception as e:
            error = "%s: %s" % (type(e).__name__, e)
        finally:
            resource.setrlimit(what, (soft, hard))
        rows = []
        for i in range(a.shape[0] // filt["chunks"][0]):
            s = slice(i * filt["chunks"][0], (i + 1) * filt["chunks"][0])
            try:
                b = d[s]
            except OSError:
                rows.append("unreadable")
                continue
            rows.append("old" if np.array_equal(b, old[s]) else
                        "new" if np.allclose(b, a[s], atol=opts["tolerance"], rtol=0,
                                             equal_nan=True) else "other")
        masks = [d.id.get_chunk_info(i).filter_mask for i in range(d.id.get_num_chunks())]
        results.append({"margin": margin, "error": error, "rows": rows, "masks": masks})
print(json.dumps(results))
"""


def array(kind):
    rows = np.arange(NCHUNKS * CHUNK[0])[:, None]
    cols = np.arange(CHUNK[1])[None, :]
    a = (np.sin(rows * 0.01) * np.cos(cols * 0.003) * 100).astype(np.float32)
    if kind == "nan":
        # the last chunk needs more memory than the others: without a mask every NaN is an
        # exception, a 16-byte record
        a[(NCHUNKS - 1) * CHUNK[0]:] = np.nan
    return a


def ladder(tmp_path, kind, how, limit, margins, exec_="omp"):
    """The child's results, one per margin (bytes)."""
    np.save(tmp_path / "a.npy", array(kind))
    opts = dict(parz.Parz(accuracy=TOLERANCE, mask=False), chunks=CHUNK, tolerance=TOLERANCE)
    env = dict(os.environ, PARZ_EXEC=exec_, PARZ_THREADS="2", MALLOC_ARENA_MAX="1",
               MALLOC_MMAP_THRESHOLD_="131072")
    p = subprocess.run([sys.executable, "-c", LADDER, str(tmp_path / "a.npy"),
                        str(tmp_path / ("%s-%s.h5" % (how, limit))), how, limit, json.dumps(opts),
                        ",".join(str(int(m)) for m in margins)],
                       env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, "%s writer died (exit status %d)\n%s" % (how, p.returncode,
                                                                     p.stderr[-3000:])
    return json.loads(p.stdout.splitlines()[-1])


def written(error):
    """How many chunks a failed parz.write says it stored, and whether HDF5 failed storing the
    next (which it may leave unreadable), from its message."""
    if "no chunk written, the dataset is as it was" in error:
        return 0, False
    if re.search(r"no chunk written, the chunk at \[0,0\] as HDF5 left it, the others as they "
                 r"were", error):
        return 0, True
    m = re.search(r"(\d+) of the selection's (\d+) chunks written \(C order, through \[([\d,]+)\]"
                  r"\), the chunk at \[([\d,]+)\]( \(as HDF5 left it\))? and the (\d+) after it "
                  r"not", error)
    assert m, "the message does not say which chunks were written: " + error
    k, n, last, first, rest = (int(m.group(1)), int(m.group(2)), m.group(3), m.group(4),
                               int(m.group(6)))
    assert (n, last, first, rest) == (NCHUNKS, "%d,0" % ((k - 1) * CHUNK[0]),
                                      "%d,0" % (k * CHUNK[0]), n - k - 1), error
    return k, m.group(5) is not None


def check_reports(runs):
    """Every run stored all chunks, or failed saying which it stored: those hold the new values,
    the others the old ones, but for one HDF5 failed to store, which holds whatever HDF5 left.
    Returns the margins at which some but not all were stored."""
    partial = []
    for r in runs:
        assert all(m == 0 for m in r["masks"]), r
        if r["error"] is None:
            assert r["rows"] == ["new"] * NCHUNKS, r
            continue
        k, torn = written(r["error"])
        rows = list(r["rows"])
        if torn:
            rows[k] = "old"
        assert rows == ["new"] * k + ["old"] * (NCHUNKS - k), r
        if 0 < k < NCHUNKS:
            partial.append(r["margin"])
    return partial


@pytest.mark.parametrize("kind", ["smooth", "nan"])
def test_write_under_memory_limits(tmp_path, kind):
    margins = [CHUNK_BYTES * i / 2 for i in range(9)]  # 0 to 4 chunks
    parz_runs = ladder(tmp_path, kind, "parz", "memory", margins)
    h5py_runs = ladder(tmp_path, kind, "h5py", "memory", margins)
    partial = check_reports(parz_runs)
    if kind == "nan":
        assert partial, "no limit made the write fail after its first chunks"
    # h5py marks the filter optional: a chunk it could not encode is stored raw, no success
    h5py_ok = [r["error"] is None and not any(r["masks"]) for r in h5py_runs]
    assert any(h5py_ok) or kind == "nan"  # the exceptions need more than 4 chunks
    for ok, p in zip(h5py_ok, parz_runs):
        assert p["error"] is None or not ok, (
            "h5py's write succeeded under a margin of %g chunks, parz.write failed: %s"
            % (p["margin"] / CHUNK_BYTES, p["error"]))


# cuda: the chunks encoded on the GPU where there is one (stored as each round comes down), else
# one warning and OpenMP
@pytest.mark.parametrize("exec_", ["omp", "cuda"])
def test_write_under_file_size_limits(tmp_path, exec_):
    # the stored chunks take 0.1 to 2 MiB: the limits fall before, between and after them
    margins = [i << 19 for i in range(12)]
    runs = ladder(tmp_path, "smooth", "parz", "fsize", margins, exec_)
    partial = check_reports(runs)
    assert runs[0]["error"] is not None and runs[-1]["error"] is None
    assert len(partial) >= 3, [(r["margin"], r["error"]) for r in runs]
