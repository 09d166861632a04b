"""parz.read and parz.write with arrays whose data is not aligned to their dtype's size (numpy
arrays built from a buffer at an odd offset, views of a uint8 buffer, memory maps, memoryviews;
GPU arrays at a misaligned address). The codec stores and loads whole values, so the C readers
and writers must only ever see aligned arrays: parz.read fills a misaligned out= through an
aligned array, parz.write encodes an aligned copy of a misaligned numpy source, and GPU arrays,
which cannot be copied here, are refused with a message naming the alignment, before any GPU
call. The values read and the chunks written are those of the aligned arrays.

The same reads and writes also run in a child process that, with PARZ_HOSTILE_PLUGIN_DIR and
PARZ_HOSTILE_PRELOAD set (scripts/sanitize.sh), loads the AddressSanitizer and
UndefinedBehaviorSanitizer build of the plugin, where a misaligned store or load in the codec is
a fatal report."""
import itertools
import json
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

import parz
from conftest import DLPackOnly, same

DTYPES = ["f4", "f8", "i4", "i8"]
SHAPE, CHUNKS = (40, 70), (16, 32)  # edge chunks on both axes


def values(dtype):
    i = np.arange(np.prod(SHAPE)).reshape(SHAPE)
    x = np.sin(i * 0.01) * 1000 + (i % 13)
    return x.astype(dtype)


def make_file(path):
    with h5py.File(path, "w") as f:
        for dtype in DTYPES:
            f.create_dataset(dtype, data=values(dtype), chunks=CHUNKS,
                             compression=parz.Parz(reversible=True))
            f.create_dataset("empty_" + dtype, shape=SHAPE, dtype=dtype, chunks=CHUNKS,
                             compression=parz.Parz(reversible=True))


_maps = itertools.count()


def misaligned(dtype, how, offset, fill=None, directory=None):
    """An array of SHAPE and dtype whose data starts `offset` bytes past an aligned address,
    holding `fill` (an array) or zeros; `how` says how it is built."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(SHAPE)) * dtype.itemsize
    raw = bytearray(nbytes + dtype.itemsize)
    base = np.frombuffer(raw, np.uint8)
    start = (-base.ctypes.data) % dtype.itemsize + offset  # the first aligned byte, then offset
    data = b"" if fill is None else np.ascontiguousarray(fill, dtype).tobytes()
    raw[start:start + len(data)] = data
    if how == "uint8 view":
        a = base[start:start + nbytes].view(dtype).reshape(SHAPE)
    elif how == "frombuffer bytes":  # read-only: a source only
        a = np.frombuffer(bytes(raw), np.uint8)
        a = a[(-a.ctypes.data) % dtype.itemsize + offset:][:nbytes].view(dtype).reshape(SHAPE)
    elif how == "frombuffer bytearray":
        a = np.frombuffer(raw, dtype, count=int(np.prod(SHAPE)), offset=start).reshape(SHAPE)
    elif how == "memmap":
        path = os.path.join(directory, "mm%d" % next(_maps))
        a = np.memmap(path, dtype, "w+", offset=offset, shape=SHAPE)  # the map is page-aligned
        if fill is not None:
            a[...] = fill
    elif how == "memoryview":  # a source only (parz.read's out= takes numpy arrays)
        a = memoryview(raw)[start:start + nbytes].cast(dtype.char, SHAPE)
        return a
    else:
        raise AssertionError(how)
    assert a.ctypes.data % dtype.itemsize == offset % dtype.itemsize and offset % dtype.itemsize
    return a


OUTS = ["uint8 view", "frombuffer bytearray", "memmap"]
SOURCES = ["uint8 view", "frombuffer bytes", "frombuffer bytearray", "memmap", "memoryview"]


def offsets(dtype):
    return (1, np.dtype(dtype).itemsize // 2)


@pytest.fixture(scope="module")
def aligned_file(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("align") / "a.h5")
    make_file(path)
    return path


@pytest.fixture
def pointers(monkeypatch):
    """The data pointers and element sizes the plugin's readers and writers are called with."""
    lib = parz._read._functions()  # the module with the argument types set
    seen = []
    for name in ("parz_h5_read", "parz_h5_write"):
        original = getattr(lib, name)

        def spy(dset, space, ptr, nbytes, threads, err, original=original):
            seen.append(ptr)
            return original(dset, space, ptr, nbytes, threads, err)

        spy.argtypes, spy.restype = original.argtypes, original.restype
        monkeypatch.setattr(lib, name, spy)
    return seen


@pytest.mark.parametrize("how", OUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_read_into_misaligned_out(aligned_file, tmp_path, pointers, dtype, how):
    with h5py.File(aligned_file, "r") as f:
        d = f[dtype]
        for offset in offsets(dtype):
            out = misaligned(dtype, how, offset, directory=tmp_path)
            assert parz.read(d, out=out) is out
            assert same(np.asarray(out), values(dtype))
            box = (slice(3, 37), slice(20, 61))
            out = misaligned(dtype, how, offset, directory=tmp_path).reshape(-1)[:34 * 41]
            out = out.reshape(34, 41)
            assert parz.read(d, box, out=out) is out
            assert same(np.asarray(out), values(dtype)[box])
    assert pointers and all(p % np.dtype(dtype).itemsize == 0 for p in pointers), pointers


@pytest.mark.parametrize("how", SOURCES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_write_from_misaligned_source(aligned_file, tmp_path, pointers, dtype, how):
    with h5py.File(aligned_file, "r") as f:
        want = {tuple(f[dtype].id.get_chunk_info(i).chunk_offset):
                f[dtype].id.read_direct_chunk(f[dtype].id.get_chunk_info(i).chunk_offset)
                for i in range(f[dtype].id.get_num_chunks())}
    for offset in offsets(dtype):
        src = misaligned(dtype, how, offset, fill=values(dtype), directory=tmp_path)
        with h5py.File(tmp_path / "w.h5", "w") as f:
            d = f.create_dataset("x", shape=SHAPE, dtype=dtype, chunks=CHUNKS,
                                 compression=parz.Parz(reversible=True))
            parz.write(d, src)
            got = {tuple(d.id.get_chunk_info(i).chunk_offset):
                   d.id.read_direct_chunk(d.id.get_chunk_info(i).chunk_offset)
                   for i in range(d.id.get_num_chunks())}
            assert got == want
            assert same(parz.read(d), values(dtype))
    assert pointers and all(p % np.dtype(dtype).itemsize == 0 for p in pointers), pointers


def test_memoryview_out_refused(aligned_file):
    """out= takes numpy arrays only: a memoryview (aligned or not) is a wrong type."""
    raw = bytearray(int(np.prod(SHAPE)) * 4 + 1)
    with h5py.File(aligned_file, "r") as f:
        for view in (memoryview(raw)[:-1].cast("f", SHAPE), memoryview(raw)[1:].cast("f", SHAPE)):
            with pytest.raises(TypeError, match="^parz: out= must be a .*numpy array.*memoryview"):
                parz.read(f["f4"], out=view)
    assert not any(raw)


# ---- the same in a child process, under the sanitizers where scripts/sanitize.sh sets them ----
CHILD = r"""
import json, os, sys
sys.path.insert(0, sys.argv[1])
import numpy as np, h5py, parz
import test_parz_alignment as t
if os.environ.get("PARZ_HOSTILE_PLUGIN_DIR"):
    parz.register(os.environ["PARZ_HOSTILE_PLUGIN_DIR"])
results = []
with h5py.File(sys.argv[2], "r") as f:
    for dtype in t.DTYPES:
        for offset in t.offsets(dtype):
            for how in t.OUTS:
                out = t.misaligned(dtype, how, offset, directory=sys.argv[3])
                parz.read(f[dtype], out=out)
                results.append(["read", dtype, how, offset,
                                bool(np.array_equal(out, t.values(dtype)))])
with h5py.File(sys.argv[4], "w") as f:
    for dtype in t.DTYPES:
        for offset in t.offsets(dtype):
            for how in t.SOURCES:
                d = f.create_dataset("%s_%d_%s" % (dtype, offset, how), shape=t.SHAPE,
                                     dtype=dtype, chunks=t.CHUNKS,
                                     compression=parz.Parz(reversible=True))
                parz.write(d, t.misaligned(dtype, how, offset, fill=t.values(dtype),
                                           directory=sys.argv[3]))
                results.append(["write", dtype, how, offset,
                                bool(np.array_equal(d[...], t.values(dtype)))])
print(json.dumps(results))
"""


def test_misaligned_in_child(aligned_file, tmp_path):
    env = dict(os.environ)
    preload = os.environ.get("PARZ_HOSTILE_PRELOAD")
    if preload:
        env["LD_PRELOAD"] = preload
        # Python itself is not instrumented: its allocations are not ours to check for leaks.
        env["ASAN_OPTIONS"] = "detect_leaks=0:halt_on_error=1:abort_on_error=1"
        env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    p = subprocess.run([sys.executable, "-c", CHILD, os.path.dirname(os.path.abspath(__file__)),
                        aligned_file, str(tmp_path), str(tmp_path / "child.h5")], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    assert p.returncode == 0, "child exited with %d:\n%s" % (p.returncode, p.stdout[-6000:])
    results = json.loads(p.stdout.strip().splitlines()[-1])
    assert len(results) == 2 * 3 * 4 + 2 * 5 * 4
    assert all(r[-1] for r in results), [r for r in results if not r[-1]]


# ---- GPU arrays: refused before any GPU call, so the check runs without a GPU too ----------
class FakeDeviceArray:
    """GPU memory at a made-up address (never touched: the call must refuse it first)."""

    def __init__(self, ptr, typestr, shape=SHAPE):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr,
                                         "data": (ptr, False), "version": 3}


@pytest.mark.parametrize("dtype", DTYPES)
def test_misaligned_device_pointer_refused(aligned_file, tmp_path, dtype):
    size = np.dtype(dtype).itemsize
    for offset in offsets(dtype):
        fake = FakeDeviceArray(0x10000 + offset, np.dtype(dtype).str)
        pointer = "data pointer 0x%x is not aligned to %d bytes" % (0x10000 + offset, size)
        with h5py.File(aligned_file, "r") as f:
            with pytest.raises(ValueError, match="^parz: out='s " + pointer):
                parz.read(f[dtype], out=fake, device="cuda")
        with h5py.File(tmp_path / "w.h5", "w") as f:
            d = f.create_dataset("x", shape=SHAPE, dtype=dtype, chunks=CHUNKS,
                                 compression=parz.Parz(reversible=True))
            with pytest.raises(ValueError, match="^parz: the GPU array's " + pointer):
                parz.write(d, fake)
            assert d.id.get_storage_size() == 0


gpu = pytest.mark.skipif(not parz.get_config().gpu, reason="no usable CUDA GPU")


def cupy_misaligned(cupy, dtype, offset, fill=None):
    """(a CuPy array of SHAPE and dtype `offset` bytes past an aligned address, its uint8 buffer).
    Only the buffer is touched: a kernel loading or storing the misaligned values would fail
    with a CUDA misaligned-address error, which spoils the context for the tests after it."""
    nbytes = int(np.prod(SHAPE)) * np.dtype(dtype).itemsize
    raw = cupy.zeros(nbytes + 8, dtype=cupy.uint8)
    if fill is not None:
        raw[offset:offset + nbytes] = cupy.asarray(np.frombuffer(
            np.ascontiguousarray(fill, dtype).tobytes(), np.uint8))
    try:
        return cupy.ndarray(SHAPE, dtype, memptr=raw.data + offset), raw
    except (ValueError, RuntimeError) as e:
        pytest.skip("CuPy makes no misaligned array: %s" % e)


# A GPU array at a misaligned address: refused by its pointer, or by its own DLPack export.
REFUSED = "not aligned to %d bytes|__dlpack__ failed"


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy_misaligned(aligned_file, tmp_path, dtype):
    cupy = pytest.importorskip("cupy")
    size = np.dtype(dtype).itemsize
    for offset in offsets(dtype):
        out, raw = cupy_misaligned(cupy, dtype, offset)
        with h5py.File(aligned_file, "r") as f:
            with pytest.raises(ValueError, match="^parz: out='s data pointer .* not aligned to "
                                                 "%d bytes" % size):
                parz.read(f[dtype], out=out, device="cuda")
        assert not bool(cupy.any(raw))  # left as it was
        src, raw = cupy_misaligned(cupy, dtype, offset, fill=values(dtype))
        with h5py.File(tmp_path / "w.h5", "w") as f:
            d = f.create_dataset("x", shape=SHAPE, dtype=dtype, chunks=CHUNKS,
                                 compression=parz.Parz(reversible=True))
            with pytest.raises(ValueError, match="^parz: the GPU array's data pointer .* not "
                                                 "aligned to %d bytes" % size):
                parz.write(d, src)
            with pytest.raises(ValueError, match=REFUSED % size):
                parz.write(d, DLPackOnly(src))
            assert d.id.get_storage_size() == 0
            parz.write(d, cupy.asarray(values(dtype)))  # aligned: written
            assert same(parz.read(d), values(dtype))


@gpu
def test_torch_misaligned(aligned_file, tmp_path):
    """A CUDA tensor over misaligned memory (torch.as_tensor of a misaligned CuPy array, where
    torch takes one without a copy) is refused alike."""
    cupy = pytest.importorskip("cupy")
    torch = pytest.importorskip("torch")
    src, raw = cupy_misaligned(cupy, "f4", 2, fill=values("f4"))
    try:
        t = torch.as_tensor(src, device="cuda")
    except (RuntimeError, ValueError, TypeError, BufferError) as e:
        pytest.skip("torch refuses a misaligned CuPy array itself: %s" % e)
    if t.data_ptr() != src.data.ptr:
        pytest.skip("torch copied the misaligned CuPy array")
    with h5py.File(tmp_path / "w.h5", "w") as f:
        d = f.create_dataset("x", shape=SHAPE, dtype="f4", chunks=CHUNKS,
                             compression=parz.Parz(reversible=True))
        with pytest.raises(ValueError, match=REFUSED % 4):
            parz.write(d, t)
        with pytest.raises(ValueError, match="^parz: out='s .* not aligned to 4 bytes"):
            parz.read(d, out=t, device="cuda")
        assert d.id.get_storage_size() == 0
