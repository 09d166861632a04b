"""Shared set-up for ParZ's pytest suite.

Run by scripts/test.sh with Debian's python3, HDF5_PLUGIN_PATH = <build>/plugins (plus Debian's
default plugin directory, for H5Z-ZFP) and PYTHONPATH = <build>/python; by scripts/wheel_check.sh
in a venv where the wheel is installed. Run by hand, it finds a build tree next to the sources
(build/ or build-*/) by itself. Importing parz registers the filter in this process; the
plugin path matters for the h5dump / h5repack subprocesses and for H5Z-ZFP.
"""
import contextlib
import glob
import os
import re
import shutil
import struct
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEBIAN_PLUGIN_DIR = "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins"
# The filter's name as HDF5 stores it in each file (plugin/filter/H5Zparz.c; exact in ctest test_version).
FILTER_NAME = r"ParZ-\d+\.\d+\.\d+ \(zfp-1\.0 stream, format \d+\)"


def _find_build_python():
    for d in [os.path.join(ROOT, "build")] + sorted(glob.glob(os.path.join(ROOT, "build-*"))):
        if os.path.isfile(os.path.join(d, "python", "parz", "_plugin_dir.py")):
            return os.path.join(d, "python")
    return None


try:
    import parz  # noqa: F401
except ImportError:
    _py = _find_build_python()
    if _py is None:
        raise
    sys.path.insert(0, _py)
    import parz  # noqa: F401

PLUGIN_DIR = parz.plugin_dir()

# HDF5 reads HDF5_PLUGIN_PATH when it initialises (before h5py is imported here) and so do the
# h5dump / h5repack subprocesses: the build's plugin first, then Debian's directory (H5Z-ZFP).
_paths = [p for p in os.environ.get("HDF5_PLUGIN_PATH", "").split(":") if p]
for _p in (PLUGIN_DIR, DEBIAN_PLUGIN_DIR):
    if _p and _p not in _paths:
        _paths.append(_p)
os.environ["HDF5_PLUGIN_PATH"] = ":".join(_paths)

import h5py  # noqa: E402

# In this process HDF5 may have read HDF5_PLUGIN_PATH already (importing parz imports h5py):
# add Debian's directory (H5Z-ZFP) at run time as well.
if DEBIAN_PLUGIN_DIR not in [os.fsdecode(h5py.h5pl.get(i)) for i in range(h5py.h5pl.size())]:
    h5py.h5pl.append(DEBIAN_PLUGIN_DIR.encode())

DATA_DIR = os.environ.get("PARZ_SHARED_DATA", os.path.join(ROOT, "..", "shared", "data"))


def load(name, shape=None):
    """A real array from the shared data directory (type and shape from its file name)."""
    path = os.path.join(DATA_DIR, name)
    if not os.path.isfile(path):
        pytest.skip("shared data file %s is missing" % path)
    dims = tuple(int(s) for s in name.rsplit("_", 1)[1][:-4].split("x"))
    dtype = np.dtype("<f8" if "_f64le_" in name else "<f4")
    a = np.fromfile(path, dtype=dtype).reshape(dims)
    return a if shape is None else a[tuple(slice(0, s) for s in shape)]


@pytest.fixture(scope="session")
def egm96():
    return load("egm96_geoid_f32le_721x1440.bin")


@pytest.fixture(scope="session")
def vasp():
    return load("vasp_fepo4_chgcar_f64le_72x192x160.bin", (24, 192, 160))


@pytest.fixture(scope="session")
def ccsm():
    return load("ccsm_trefht_ens_f32le_8x110x64x128.bin", (2, 110, 64, 128))


@pytest.fixture(scope="session")
def levitus():
    return load("levitus_temp_f32le_20x180x360.bin")


@pytest.fixture(scope="session")
def etopo():
    return load("etopo5_relief_f32le_2161x4320.bin", (400, 4320))


def fresh_python(code, **env):
    """Runs `code` in a new interpreter (this one's executable) that imports this copy of parz,
    with HDF5_PLUGIN_PATH unset and `env` added; returns the CompletedProcess (text output)."""
    e = {k: v for k, v in os.environ.items() if k != "HDF5_PLUGIN_PATH"}
    here = os.path.dirname(os.path.dirname(os.path.abspath(parz.__file__)))
    e["PYTHONPATH"] = os.pathsep.join([here] + [p for p in [e.get("PYTHONPATH")] if p])
    e.update(env)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True,
                          timeout=300)


def write_read(path, data, chunks, compression, name="x", **kw):
    """Writes data through the filter into a new file, reads it back; returns (back, stored)."""
    with h5py.File(path, "w") as f:
        f.create_dataset(name, data=data, chunks=chunks, compression=compression, **kw)
    with h5py.File(path, "r") as f:
        d = f[name]
        return d[...], d.id.get_storage_size()


@pytest.fixture
def parz_tool():
    """The `parz` command: the build tree's next to its plugin, else an installed one."""
    build_tool = os.path.join(os.path.dirname(PLUGIN_DIR or ""), "tools", "parz")
    tool = build_tool if os.path.isfile(build_tool) else shutil.which("parz")
    if tool is None:
        pytest.skip("the parz command is not built")
    return tool


@pytest.fixture(scope="session")
def read_file(tmp_path_factory, etopo, vasp):
    """A file of datasets for parz.read: every type, edge chunks, big-endian values, fill values,
    datasets that are not ParZ, and a corrupt chunk at (64, 0) of /corrupt."""
    p = str(tmp_path_factory.mktemp("read") / "read.h5")
    rng = np.random.default_rng(5)
    with h5py.File(p, "w") as f:
        f.create_dataset("f32", data=etopo[:300, :1000], chunks=(64, 384),
                         compression=parz.Parz(accuracy=1.0))
        f.create_dataset("f64", data=vasp[:20], chunks=(8, 64, 64),
                         compression=parz.Parz(reversible=True))
        f.create_dataset("i32", data=rng.integers(-2**30, 2**30, 10007).astype(np.int32),
                         chunks=(1000,), compression=parz.Parz(precision=20))
        f.create_dataset("i64", data=rng.integers(-2**60, 2**60, (50, 70)), chunks=(16, 16),
                         compression=parz.Parz(rate=16))
        f.create_dataset("be", data=etopo[:100, :200].astype(">f4"), chunks=(32, 64),
                         compression=parz.Parz(accuracy=1.0))
        f.create_dataset("f4d", data=etopo[:120, :210].reshape(4, 5, 6, 210), chunks=(2, 3, 4, 50),
                         compression=parz.Parz(accuracy=1.0))
        d = f.create_dataset("fill", shape=(100, 100), dtype="f4", chunks=(32, 32),
                             fillvalue=-7.5, compression=parz.Parz(accuracy=1e-3))
        d[:50, :40] = etopo[:50, :40]
        f.create_dataset("gzip", data=etopo[:64, :64], chunks=(32, 32), compression="gzip")
        f.create_dataset("contiguous", data=etopo[:64, :64])
        d = f.create_dataset("corrupt", data=etopo[:128, :128], chunks=(64, 64),
                             compression=parz.Parz(accuracy=1e-2))
    with h5py.File(p, "r+") as f:
        d = f["corrupt"]
        mask, chunk = d.id.read_direct_chunk((64, 0))
        chunk = bytearray(chunk)
        for i in range(len(chunk) - len(chunk) // 4, len(chunk)):  # the payload's end
            chunk[i] ^= 0x5A
        d.id.write_direct_chunk((64, 0), bytes(chunk), mask)
    return p


@pytest.fixture(scope="session")
def flipped_file(tmp_path_factory, etopo):
    """A file whose /x (256 x 256 float32 in four 128 x 128 chunks, 64 KiB each: parallel reads)
    has one payload bit flipped in the chunk at (128, 0); the other chunks are intact."""
    p = str(tmp_path_factory.mktemp("flipped") / "flipped.h5")
    with h5py.File(p, "w") as f:
        f.create_dataset("x", data=etopo[:256, :256], chunks=(128, 128),
                         compression=parz.Parz(accuracy=1e-2))
    flip_payload_bit(p, "x", (128, 0))
    return p


def flip_payload_bit(path, name, at):
    """Flips one bit in the middle of the payload of dataset name's chunk at `at` in the file."""
    with h5py.File(path, "r+") as f:
        d = f[name]
        mask, chunk = d.id.read_direct_chunk(at)
        chunk = bytearray(chunk)
        payload_bytes = struct.unpack_from("<Q", chunk, 88)[0]  # the payload closes the chunk
        bit = 8 * (len(chunk) - payload_bytes) + 4 * payload_bytes + 3
        chunk[bit // 8] ^= 1 << (bit % 8)
        d.id.write_direct_chunk(at, bytes(chunk), mask)


def native(a):
    """a in native byte order (parz.read's values)."""
    return a.astype(a.dtype.newbyteorder("="))


def same(a, b):
    """Equal values, NaN included, same dtype and shape."""
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


# HDF5 1.14.5 and later restore the error stack after the filter function returns, dropping
# what ParZ pushed while encoding or decoding a chunk (docs/format.md, "Chunk format"); there the plugin prints
# its message to stderr as well, and h5py's exception holds only HDF5's own words.
CHUNK_ERRORS_ON_STDERR = h5py.version.hdf5_version_tuple >= (1, 14, 5)


@contextlib.contextmanager
def chunk_error(capfd, pattern):
    """Expects OSError from a read or write through the filter, with ParZ's message matching
    pattern where the user sees it: in the exception, or on stderr where HDF5 drops it."""
    with pytest.raises(OSError) as e:
        yield
    seen = str(e.value)
    if CHUNK_ERRORS_ON_STDERR:
        seen += "\n" + capfd.readouterr().err
    assert re.search(pattern, seen), seen


class DLPackOnly:
    """A GPU array that offers DLPack and nothing else (as JAX arrays do)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()
