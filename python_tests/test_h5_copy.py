"""HDF5's copies of ParZ datasets: h5py's Group.copy (H5Ocopy) of a dataset that is open, its
chunks in its chunk cache (written and not yet flushed, or read), into the same file and into
another; h5copy; h5repack, keeping the chunks or encoding them again.

H5Ocopy runs the filter on every chunk it finds in the open dataset's chunk cache, and copies
the next cached chunk at its decoded size into the buffer the filter returned for the one before
(plugin/filter/H5Zparz.c says why every buffer the filter returns holds a whole decoded chunk). Each
copy runs in a child process, so that a heap overrun that aborts is a failed test; the children
run with glibc's checking allocator, or, with PARZ_HOSTILE_PLUGIN_DIR and PARZ_HOSTILE_PRELOAD
set (scripts/sanitize.sh sets them), the Group.copy children on the AddressSanitizer build of
the plugin, so that an overrun fails the test where it happens rather than only when it
corrupts the heap.
"""
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest

import parz
from test_hostile_files import child_env

CHUNK = (64, 1024)  # 256 KiB of float32: OpenMP encodes it on several threads
NCHUNKS = 12
MALLOC_DEBUG = "/lib/x86_64-linux-gnu/libc_malloc_debug.so.0"

MODES = {
    "accuracy-f32": ("<f4", dict(accuracy=1e-3)),
    "accuracy-f64": ("<f8", dict(accuracy=1e-6)),
    "reversible-f32": ("<f4", dict(reversible=True)),
    "reversible-i32": ("<i4", dict(reversible=True)),
    "rate-f32": ("<f4", dict(rate=8)),
    "precision-f64": ("<f8", dict(precision=14)),
}

# Writes the array (a .npy file) with the filter (compression, compression_opts), then copies the
# open dataset six ways: its chunks in the cache dirty (never stored: HDF5 copies them from the
# cache alone), flushed (stored and still cached) and read into it, each into the same file and
# into another. Prints what it read back from every copy, as JSON.
# It imports no parz: HDF5 loads the filter from HDF5_PLUGIN_PATH, the sanitized one under ASan.
COPIER = r"""
import json, sys
import numpy as np, h5py
values, src, other, opts = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
a = np.load(values)
cache = dict(rdcc_nbytes=64 << 20, rdcc_nslots=10007)

with h5py.File(src, "w", **cache) as f, h5py.File(other, "w") as g:
    d = f.create_dataset("a", shape=a.shape, dtype=a.dtype, chunks=tuple(opts["chunks"]),
                         compression=opts["compression"],
                         compression_opts=tuple(opts["compression_opts"]))
    d[...] = a                         # chunks dirty in the cache
    f.copy("a", "dirty")
    f.copy("a", g, "dirty")
    f.flush()                          # chunks stored, still in the cache
    f.copy("a", "flushed")
    f.copy("a", g, "flushed")
with h5py.File(src, "r+", **cache) as f, h5py.File(other, "a") as g:
    d = f["a"]
    d[...]                             # chunks read into the cache of the open dataset
    f.copy("a", "read")
    f.copy("a", g, "read")

# The copy encodes what the cache holds: the values written (the chunks stored from them are
# the same bytes), or the values read (stored once more with H5Dwrite, they give the expected).
with h5py.File(src, "r") as f:
    stored = f["a"][...]
with h5py.File(src + ".again", "w") as f:
    f.create_dataset("a", data=stored, chunks=tuple(opts["chunks"]),
                     compression=opts["compression"],
                     compression_opts=tuple(opts["compression_opts"]))
    again = f["a"][...]
out = {}
with h5py.File(src, "r") as f, h5py.File(other, "r") as g:
    for name, h in (("same", f), ("other", g)):
        for how in ("dirty", "flushed", "read"):
            d = h[how]
            masks = [d.id.get_chunk_info(i).filter_mask for i in range(d.id.get_num_chunks())]
            copy = d[...]
            out[name + "-" + how] = {
                "chunks": len(masks), "unfiltered": sum(1 for m in masks if m),
                "different": int(np.count_nonzero(copy != (again if how == "read" else stored)))}
print(json.dumps(out))
"""


def array(dtype):
    """Chunks of very different compressed sizes: smooth ones, constant ones, noisy ones."""
    rows = np.arange(NCHUNKS * CHUNK[0])[:, None]
    cols = np.arange(CHUNK[1])[None, :]
    a = np.sin(rows * 0.01) * np.cos(cols * 0.003) * 100.0
    noise = np.random.default_rng(7).standard_normal(a.shape) * 50.0
    for i in range(NCHUNKS):
        part = slice(i * CHUNK[0], (i + 1) * CHUNK[0])
        if i % 3 == 1:
            a[part] = 3.0
        elif i % 3 == 2:
            a[part] += noise[part]
    return a.astype(dtype)


def env_for_children(sanitized=True):
    """The environment of a child: the sanitized plugin and runtime where the test run names
    them, else glibc's checking allocator. HDF5's tools take the checking allocator always:
    under the preloaded AddressSanitizer runtime they hang at exit (libp11-kit's destructor
    waits on glibc's locale lock)."""
    env = child_env() if sanitized else dict(os.environ)
    if "LD_PRELOAD" not in env and os.path.isfile(MALLOC_DEBUG):
        # glibc's checking allocator: a write past a block is caught when the block is freed
        env["LD_PRELOAD"] = MALLOC_DEBUG
        env["MALLOC_CHECK_"] = "3"
    return env


def run_child(args, env, what):
    p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)
    text = p.stdout + p.stderr
    assert p.returncode == 0, "%s: exit status %d (negative: signal)\n%s" % (
        what, p.returncode, text if len(text) < 6000 else text[:3000] + "\n...\n" + text[-3000:])
    return p.stdout


# cuda: the GPU encoder where there is one (every chunk size), else one warning and OpenMP: there
# one mode checks that fallback, and the omp cases check every mode on that same OpenMP path.
GPU = parz.get_config().gpu
CUDA_FALLBACK_MODE = "accuracy-f32"


@pytest.mark.parametrize("exec_", ["serial", "omp", "cuda"])
@pytest.mark.parametrize("mode", sorted(MODES))
def test_group_copy_of_open_cached_dataset(tmp_path, mode, exec_):
    if exec_ == "cuda" and not GPU and mode != CUDA_FALLBACK_MODE:
        pytest.skip("no usable CUDA GPU: cuda runs OpenMP, as the omp case of this mode does")
    dtype, kw = MODES[mode]
    np.save(tmp_path / "a.npy", array(dtype))
    opts = dict(parz.Parz(**kw), chunks=CHUNK)
    env = env_for_children()
    env.update(PARZ_EXEC=exec_, PARZ_THREADS="2")
    out = json.loads(run_child(
        [sys.executable, "-c", COPIER, str(tmp_path / "a.npy"), str(tmp_path / "src.h5"),
         str(tmp_path / "dst.h5"), json.dumps(opts)],
        env, "Group.copy (PARZ_EXEC=%s, %s)" % (exec_, mode)).splitlines()[-1])
    for key in ("%s-%s" % (t, h) for t in ("same", "other") for h in ("dirty", "flushed", "read")):
        c = out[key]
        assert c["chunks"] == NCHUNKS, (key, c)
        assert c["unfiltered"] == 0, "%s: %d chunks stored without the filter" % (
            key, c["unfiltered"])
        assert c["different"] == 0, "%s: %d values differ from those expected" % (
            key, c["different"])


def _stored_file(tmp_path, mode):
    dtype, kw = MODES[mode]
    a = array(dtype)
    path = tmp_path / "src.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("a", data=a, chunks=CHUNK, compression=parz.Parz(**kw))
    with h5py.File(path, "r") as f:
        return path, f["a"][...], kw.get("accuracy", 0.0)


def _read(path, name="a"):
    with h5py.File(path, "r") as f:
        d = f[name]
        masks = [d.id.get_chunk_info(i).filter_mask for i in range(d.id.get_num_chunks())]
        return d[...], masks


@pytest.mark.skipif(shutil.which("h5copy") is None, reason="h5copy (hdf5-tools) not installed")
@pytest.mark.parametrize("mode", ["accuracy-f32", "reversible-i32"])
def test_h5copy(tmp_path, mode):
    path, stored, _ = _stored_file(tmp_path, mode)
    out = tmp_path / "copy.h5"
    run_child(["h5copy", "-i", str(path), "-o", str(out), "-s", "a", "-d", "a"],
              env_for_children(sanitized=False), "h5copy")
    copy, masks = _read(out)
    assert np.array_equal(copy, stored) and len(masks) == NCHUNKS and not any(masks)


@pytest.mark.skipif(shutil.which("h5repack") is None, reason="h5repack (hdf5-tools) not installed")
@pytest.mark.parametrize("exec_", ["serial", "omp"])
@pytest.mark.parametrize("mode", ["accuracy-f32", "reversible-f32"])
@pytest.mark.parametrize("layout", [[], ["-l", "a:CHUNK=32x1024"], ["-l", "a:CHUNK=128x512"]])
def test_h5repack(tmp_path, mode, exec_, layout):
    # without options the chunks are copied as stored; a new chunk shape decodes every chunk
    # and encodes the new ones through the chunk cache
    path, stored, tol = _stored_file(tmp_path, mode)
    out = tmp_path / "repacked.h5"
    env = env_for_children(sanitized=False)
    env.update(PARZ_EXEC=exec_, PARZ_THREADS="2")
    run_child(["h5repack"] + layout + [str(path), str(out)], env, "h5repack %s" % layout)
    copy, masks = _read(out)
    assert masks and not any(masks), "chunks stored without the filter"
    if layout:
        assert np.max(np.abs(copy.astype(np.float64) - stored)) <= tol
    else:
        assert np.array_equal(copy, stored)
