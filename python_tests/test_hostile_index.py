"""Hostile chunk indexes: files whose HDF5 chunk index (a version 1 B-tree) holds two records
for one chunk, read by parz.read, parz verify and parz inspect in SEPARATE PROCESSES so that a
crash fails the test instead of ending the run.

HDF5 finds a chunk in two ways: H5Dread_chunk and H5Dget_chunk_storage_size look it up,
H5Dget_chunk_info_by_coord and H5Dchunk_iter walk the records. Two records for one chunk make
the answers differ; a reader that sizes its buffer by one and fills it by the other writes past
the buffer (plugin/dataset/h5_index.h). Here parz.read of a part must give exactly what h5py's read
gives (both look chunks up), parz.read of the whole dataset (one walk of the index, which finds
the damage) that or a parz: error calling the file damaged, and the parz command must call the
file damaged.

Also here: the index is walked once per read, not once per chunk, so that datasets of many
chunks read and inspect in seconds (each case ran for minutes or hours when it was walked per
chunk; the subprocess timeouts catch a return of that).

With PARZ_HOSTILE_PLUGIN_DIR and PARZ_HOSTILE_PRELOAD set (scripts/sanitize.sh does), the
reading processes load an AddressSanitizer build of the plugin, and the parz command of that
build (beside its plugins directory) runs."""
import json
import os
import struct
import subprocess
import sys

import h5py
import numpy as np
import pytest

import parz
from test_hostile_files import child_env

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data"))
from sparse_chunks import INDEXES, write_sparse  # noqa: E402

CHUNK = (16, 16)


def _leaf(blob):
    """Offset of the first version 1 B-tree leaf of raw-data chunks holding two or more records:
    signature "TREE", node type 1, level 0 (HDF5 file format, "Version 1 B-trees")."""
    k = blob.find(b"TREE")
    while k >= 0:
        if blob[k + 4] == 1 and blob[k + 5] == 0 and struct.unpack_from("<H", blob, k + 6)[0] >= 2:
            return k
        k = blob.find(b"TREE", k + 1)
    raise AssertionError("no B-tree leaf of chunks with two records in the file")


def double_record(path, rank, record=1):
    """Rewrites the key of `record` in the first leaf so that it names the chunk of the record
    before it: the index then holds two records for that chunk. Returns their sizes."""
    blob = bytearray(open(path, "rb").read())
    node = _leaf(blob)
    key_bytes = 8 + 8 * (rank + 1)  # chunk size, filter mask, rank + 1 offsets
    key = lambda i: node + 24 + i * (key_bytes + 8)  # each key is followed by a child address
    sizes = [struct.unpack_from("<I", blob, key(i))[0] for i in (record - 1, record)]
    blob[key(record) + 8:key(record) + key_bytes] = blob[key(record - 1) + 8:key(record - 1) + key_bytes]
    open(path, "wb").write(bytes(blob))
    return sizes


def smooth_then_noisy(path):
    """(16, 32) float32 in two chunks: a smooth one that stores small, a noisy one that stores
    large; then the noisy chunk's record is made to name the smooth chunk's place."""
    x = np.zeros((16, 32), "f4")
    x[:, :16] = np.linspace(0, 1, 256).reshape(CHUNK)
    x[:, 16:] = np.random.default_rng(1).normal(size=CHUNK)
    with h5py.File(path, "w", libver="earliest") as f:
        f.create_dataset("x", data=x, chunks=CHUNK, compression=parz.Parz(accuracy=1e-6))
    small, large = double_record(path, 2)
    assert small < large, (small, large)


def raw_behind_full(path):
    """(16, 32) float32: the chunk at [0,0] stored without the filter, whole (1024 bytes); the
    one at [0,16] stored without the filter in 8 bytes, and its record made to name [0,0]."""
    with h5py.File(path, "w", libver="earliest") as f:
        d = f.create_dataset("x", shape=(16, 32), dtype="f4", chunks=CHUNK,
                             compression=parz.Parz(accuracy=1e-3))
        d.id.write_direct_chunk((0, 0), np.arange(256, dtype="f4").tobytes(), filter_mask=1)
        d.id.write_direct_chunk((0, 16), b"\x01" * 8, filter_mask=1)
    assert double_record(path, 2) == [1024, 8]


def many_then_doubled(path):
    """(160, 160) float32 in 100 chunks (a grid the parz command walks by lookups on HDF5 1.10),
    one record made to name the chunk before it."""
    x = np.sin(np.arange(160 * 160, dtype="f4") * 0.001).reshape(160, 160)
    with h5py.File(path, "w", libver="earliest") as f:
        f.create_dataset("x", data=x, chunks=CHUNK, compression=parz.Parz(accuracy=1e-3))
    double_record(path, 2, record=3)


CRAFTED = {"smooth_then_noisy": smooth_then_noisy, "raw_behind_full": raw_behind_full,
           "many_then_doubled": many_then_doubled}

READER = r"""
import hashlib, json, sys
import h5py
import parz
out = {}
with h5py.File(sys.argv[1], "r") as f:
    d = f["x"]
    part = tuple(slice(0, n - 1) for n in d.shape)  # all but the last place of every axis
    for who, read in (("h5py", lambda: d[...]), ("parz", lambda: parz.read(d)),
                      ("h5py part", lambda: d[part]), ("parz part", lambda: parz.read(d, part))):
        if who.startswith("h5py") and "--without-h5py" in sys.argv:
            continue
        try:
            out[who] = hashlib.sha256(read().tobytes()).hexdigest()
        except OSError as e:
            out[who] = "OSError: " + str(e)
print(json.dumps(out))
"""


def tool_env():
    """The child processes' environment for the parz command, which a sanitized build has
    instrumented itself (the preloaded runtime would clash with its own)."""
    env = child_env()
    env.pop("LD_PRELOAD", None)
    return env


def tool():
    """The parz command: the sanitized build's under scripts/sanitize.sh, else the build's."""
    plugins = os.environ.get("PARZ_HOSTILE_PLUGIN_DIR") or parz.plugin_dir()
    path = os.path.join(os.path.dirname(plugins or ""), "tools", "parz")
    if not os.path.isfile(path):
        pytest.skip("the parz command is not built")
    return path


@pytest.mark.parametrize("craft", sorted(CRAFTED))
def test_doubled_record_reads_as_h5py_reads(tmp_path, craft):
    path = tmp_path / (craft + ".h5")
    CRAFTED[craft](path)
    # HDF5 1.10.8's own read of the 8-byte chunk reads past HDF5's buffer (AddressSanitizer
    # says so): h5py is left out there
    without = ["--without-h5py"] if craft == "raw_behind_full" else []
    p = subprocess.run([sys.executable, "-c", READER, str(path)] + without, env=child_env(),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, (p.returncode, p.stderr[-3000:])
    got = json.loads(p.stdout.strip().splitlines()[-1])
    if craft == "raw_behind_full":
        # the chunk HDF5's lookup finds holds 8 bytes of a 1024-byte chunk: never values
        for who in ("parz", "parz part"):
            assert got[who].startswith("OSError: parz") and "8 bytes" in got[who], got
    else:
        # a part is read by lookups, as h5py reads; the whole dataset by one walk of the index,
        # which finds the damage
        assert got["parz part"] == got["h5py part"], got
        assert not got["parz part"].startswith("OSError"), got
        assert got["parz"] == got["h5py"] or (got["parz"].startswith("OSError: parz") and
                                              "the file is damaged" in got["parz"]), got


@pytest.mark.parametrize("craft", sorted(CRAFTED))
def test_doubled_record_is_damage_to_the_parz_command(tmp_path, craft):
    path = tmp_path / (craft + ".h5")
    CRAFTED[craft](path)
    v = subprocess.run([tool(), "verify", str(path)], capture_output=True, text=True,
                       env=tool_env(), timeout=300)
    assert v.returncode == 1, (v.returncode, v.stdout, v.stderr[-3000:])
    assert "the file is damaged" in v.stdout and "/x" in v.stdout, v.stdout
    for args in (["inspect"], ["inspect", "--summary"]):
        r = subprocess.run([tool()] + args + [str(path)], capture_output=True, text=True,
                           env=tool_env(), timeout=300)
        assert r.returncode == 1 and "the file is damaged" in r.stdout, (args, r.returncode,
                                                                        r.stdout, r.stderr)


def test_many_chunks_read_and_inspect_in_one_walk(tmp_path):
    """64,000 stored chunks of a 2D dataset: parz.read and parz verify visit each once (a walk
    of the index per chunk took over a minute)."""
    path = tmp_path / "many.h5"
    x = np.cos(np.arange(320 * 3200, dtype="f4") * 0.01).reshape(320, 3200)
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=x, chunks=(4, 4), compression=parz.Parz(accuracy=1e-3))
        want = f["x"][...]
    code = ("import sys, h5py, numpy as np, parz\n"
            "f = h5py.File(sys.argv[1], 'r')\n"
            "assert np.array_equal(parz.read(f['x']), f['x'][...])\n"
            "print('same')\n")
    p = subprocess.run([sys.executable, "-c", code, str(path)], env=child_env(),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "same" in p.stdout, (p.returncode, p.stderr[-3000:])
    v = subprocess.run([tool(), "verify", str(path)], capture_output=True, text=True,
                       env=tool_env(), timeout=60)
    assert v.returncode == 0 and "64000 chunks ok" in v.stdout, (v.stdout, v.stderr[-2000:])
    assert np.abs(want - x).max() <= 1e-3


@pytest.mark.parametrize("index", sorted(INDEXES))
def test_sparse_dataset_inspects_in_one_walk(tmp_path, index):
    """2,000 chunks written into a grid of a million places: the parz command lists what is
    stored (on HDF5 1.10, which has no H5Dchunk_iter, walking the records one call each took 100
    and 200 s with the array indexes, whose every walk visits the whole grid), and parz.read of
    a box reads its places alone."""
    path = tmp_path / "sparse.h5"
    places = write_sparse(h5py, parz, path, index)
    r = subprocess.run([tool(), "inspect", "--summary", str(path)], capture_output=True,
                       text=True, env=tool_env(), timeout=120)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr[-2000:])
    assert "summary: 2000 chunks (0 stored without ParZ, 998000 unwritten" in r.stdout, r.stdout
    i, j = sorted(places)[1]
    code = ("import sys, h5py, numpy as np, parz\n"
            "f = h5py.File(sys.argv[1], 'r')\n"
            "i, j = int(sys.argv[2]), int(sys.argv[3])\n"
            "b = parz.read(f['x'], np.s_[i - 8:i + 12, j:j + 4])\n"
            "assert np.array_equal(b, f['x'][i - 8:i + 12, j:j + 4]), b\n"
            "assert np.array_equal(b[8:12], np.arange(16, dtype='f4').reshape(4, 4))\n"
            "print('same')\n")
    p = subprocess.run([sys.executable, "-c", code, str(path), str(i), str(j)], env=child_env(),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "same" in p.stdout, (p.returncode, p.stderr[-3000:])
