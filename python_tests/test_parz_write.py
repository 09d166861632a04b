"""parz.write from numpy against h5py's own write through the filter (PARZ_EXEC=omp): every type,
chunks at the edges, fill values, big-endian datasets, boxes of whole chunks; the stored chunks
must be the same bytes, chunk by chunk. Then the refusals (selections that cut chunks, another
dtype or shape, datasets that are not ParZ alone), each before anything is stored
(test_parz_write_gpu.py writes from GPU memory)."""
import numpy as np
import pytest

import h5py
import parz
from conftest import native, same


def chunks_of(d):
    """{chunk offset: (filter mask, bytes)} of every stored chunk."""
    out = {}
    for i in range(d.id.get_num_chunks()):
        info = d.id.get_chunk_info(i)
        out[tuple(info.chunk_offset)] = d.id.read_direct_chunk(info.chunk_offset)
    return out


def both_ways(f, name, data, chunks, compression, selection=None, writer=None, **kw):
    """The same values written into two new datasets: by h5py (the filter under
    PARZ_EXEC=omp) and by `writer` (parz.write); returns the two datasets."""
    shape = kw.pop("shape", data.shape)
    dtype = kw.pop("dtype", data.dtype)
    ref = f.create_dataset(name + "_h5py", shape=shape, dtype=dtype, chunks=chunks,
                           compression=compression, **kw)
    got = f.create_dataset(name + "_parz", shape=shape, dtype=dtype, chunks=chunks,
                           compression=compression, **kw)
    sel = Ellipsis if selection is None else selection
    ref[sel] = data
    (writer or parz.write)(got, data, selection)
    return ref, got


def assert_same_file(ref, got):
    a, b = chunks_of(ref), chunks_of(got)
    assert a.keys() == b.keys()
    differ = [k for k in a if a[k] != b[k]]
    assert not differ, "%d of %d chunks differ, the first at %s" % (len(differ), len(a), differ[0])
    assert same(native(ref[...]), native(got[...]))


@pytest.fixture(autouse=True)
def omp(monkeypatch):
    monkeypatch.setenv("PARZ_EXEC", "omp")


@pytest.mark.parametrize("dtype", ["f4", "f8", "i4", "i8"])
def test_types_and_edges(tmp_path, etopo, dtype):
    data = etopo[:300, :1000]
    if dtype[0] == "i":
        data = (data * 1000).astype(dtype)
    data = data.astype(dtype)
    data[5, 7] = np.nan if dtype[0] == "f" else data[5, 7]
    with h5py.File(tmp_path / "w.h5", "w") as f:
        assert_same_file(*both_ways(f, "x", data, (64, 384), parz.Parz(accuracy=1.0)
                                    if dtype[0] == "f" else parz.Parz(precision=24)))


@pytest.mark.parametrize("compression", [parz.Parz(reversible=True), parz.Parz(rate=12),
                                         parz.Parz(precision=18),
                                         parz.Parz(accuracy=0.5, segment_blocks=4,
                                                   partition_segments=3),
                                         parz.Parz(accuracy=0.5, checksum=False)],
                         ids=["reversible", "rate", "precision", "table", "no checksums"])
def test_modes(tmp_path, vasp, compression):
    with h5py.File(tmp_path / "w.h5", "w") as f:
        assert_same_file(*both_ways(f, "x", vasp[:20], (8, 64, 64), compression))


@pytest.mark.parametrize("sel", [(slice(64, 192), slice(384, 1000)), (slice(256, 300),),
                                 (Ellipsis, slice(0, 384)), (slice(None),)],
                         ids=["box to the edge", "last rows", "ellipsis", "all"])
def test_boxes(tmp_path, etopo, sel):
    data = etopo[:300, :1000]
    with h5py.File(tmp_path / "w.h5", "w") as f:
        ref, got = both_ways(f, "x", data[sel], (64, 384), parz.Parz(accuracy=1.0),
                             selection=sel, shape=data.shape, dtype="f4", fillvalue=-3.5)
        assert_same_file(ref, got)


def test_integer_index(tmp_path, etopo):
    data = etopo[:40, :300].reshape(4, 10, 300)
    with h5py.File(tmp_path / "w.h5", "w") as f:
        ref, got = both_ways(f, "x", data[2], (1, 10, 128), parz.Parz(accuracy=1.0),
                             selection=2, shape=data.shape, dtype="f4")
        assert_same_file(ref, got)
        parz.write(got, data[3][None], (slice(3, 4),))  # the axis kept, of extent 1
        ref[3] = data[3]
        assert_same_file(ref, got)


def test_fill_value_and_big_endian(tmp_path, etopo):
    with h5py.File(tmp_path / "w.h5", "w") as f:
        assert_same_file(*both_ways(f, "fill", etopo[:100, :100], (32, 32),
                                    parz.Parz(accuracy=1e-3), fillvalue=-7.5))
        assert_same_file(*both_ways(f, "be", etopo[:100, :200].astype(">f4"), (32, 64),
                                    parz.Parz(accuracy=1.0), dtype=">f4"))
        # native values into a big-endian dataset: the same file
        ref, got = both_ways(f, "be2", etopo[:100, :200], (32, 64), parz.Parz(accuracy=1.0),
                             dtype=">f4")
        assert_same_file(ref, got)


@pytest.mark.parametrize("exec_", ["serial", "omp"])
def test_policies_and_threads(tmp_path, etopo, monkeypatch, exec_):
    monkeypatch.setenv("PARZ_EXEC", exec_)
    with h5py.File(tmp_path / "w.h5", "w") as f:
        ref, got = both_ways(f, "x", etopo[:300, :1000], (128, 512), parz.Parz(accuracy=1.0),
                             writer=lambda d, a, s: parz.write(d, a, s, threads=2))
        monkeypatch.setenv("PARZ_EXEC", "omp")
        assert_same_file(ref, got)


@pytest.mark.parametrize("exec_", ["cuda", "auto"])
@pytest.mark.parametrize("kind", ["nan", "fill"])
def test_masked_every_policy(tmp_path, etopo, monkeypatch, exec_, kind):
    """Datasets whose chunks hold a mask (NaN under the default mask, a fill value masked) get
    the CPU's chunks under cuda and auto, by the filter and by parz.write alike: on the GPU where
    one is usable, whose encoder writes the same masks. 4 MiB chunks, so that auto picks the
    GPU."""
    data = np.tile(etopo[:, :1024], (3, 2))[:1100].copy()  # a chunk of 4 MiB and an edge one
    data[100:300, 200:700] = np.nan if kind == "nan" else -1e10
    data[1050, 3] = np.nan
    kw = {} if kind == "nan" else {"fillvalue": -1e10}
    with h5py.File(tmp_path / "w.h5", "w") as f:
        ref = f.create_dataset("ref", shape=data.shape, dtype="f4", chunks=(1024, 1024),
                               compression=parz.Parz(accuracy=1.0), **kw)
        ref[...] = data  # PARZ_EXEC=omp
        monkeypatch.setenv("PARZ_EXEC", exec_)
        filt = f.create_dataset("filter", shape=data.shape, dtype="f4", chunks=(1024, 1024),
                                compression=parz.Parz(accuracy=1.0), **kw)
        filt[...] = data
        got = f.create_dataset("write", shape=data.shape, dtype="f4", chunks=(1024, 1024),
                               compression=parz.Parz(accuracy=1.0), **kw)
        parz.write(got, data)
        monkeypatch.setenv("PARZ_EXEC", "omp")
        assert_same_file(ref, filt)
        assert_same_file(ref, got)
        # the masked values did go to a mask: without it the chunks are larger
        plain = f.create_dataset("plain", shape=data.shape, dtype="f4", chunks=(1024, 1024),
                                 compression=parz.Parz(accuracy=1.0, mask=False), **kw)
        plain[...] = data
        assert ref.id.get_storage_size() < plain.id.get_storage_size()


def test_read_back_and_non_contiguous(tmp_path, etopo):
    data = np.asfortranarray(etopo[:128, :256])
    with h5py.File(tmp_path / "w.h5", "w") as f:
        d = f.create_dataset("x", shape=data.shape, dtype="f4", chunks=(64, 64),
                             compression=parz.Parz(reversible=True))
        parz.write(d, data)
        assert same(parz.read(d), np.ascontiguousarray(data))


REFUSALS = [
    ("cuts", (slice(10, 74),), "cuts its chunks"),
    ("ends inside", (slice(0, 64), slice(0, 100)), "cuts its chunks"),
    ("step", (slice(0, 128, 2),), "step"),
]


@pytest.mark.parametrize("name, sel, match", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_selection_refused(tmp_path, etopo, name, sel, match):
    with h5py.File(tmp_path / "w.h5", "w") as f:
        d = f.create_dataset("x", shape=(128, 256), dtype="f4", chunks=(64, 64),
                             compression=parz.Parz(accuracy=1.0))
        with pytest.raises(ValueError, match=match):
            parz.write(d, etopo[:128, :256][sel], sel)
        assert d.id.get_storage_size() == 0


def test_array_refused(tmp_path, etopo):
    with h5py.File(tmp_path / "w.h5", "w") as f:
        d = f.create_dataset("x", shape=(128, 256), dtype="f4", chunks=(64, 64),
                             compression=parz.Parz(accuracy=1.0))
        with pytest.raises(ValueError, match="float64 values, the dataset float32"):
            parz.write(d, etopo[:128, :256].astype("f8"))
        with pytest.raises(ValueError, match="shape"):
            parz.write(d, etopo[:128, :255])
        with pytest.raises(ValueError, match="threads"):
            parz.write(d, etopo[:128, :256], threads=0)
        assert d.id.get_storage_size() == 0


@pytest.mark.parametrize("kind, match", [("gzip", "not ParZ alone"), ("contiguous", "not chunked"),
                                         ("uint8", "uint8")])
def test_dataset_refused(tmp_path, etopo, kind, match):
    with h5py.File(tmp_path / "w.h5", "w") as f:
        if kind == "gzip":
            d = f.create_dataset("x", shape=(64, 64), dtype="f4", chunks=(32, 32),
                                 compression="gzip")
        elif kind == "contiguous":
            d = f.create_dataset("x", shape=(64, 64), dtype="f4")
        else:
            d = f.create_dataset("x", shape=(64, 64), dtype="u1", chunks=(32, 32))
        with pytest.raises(ValueError, match=match):
            parz.write(d, etopo[:64, :64].astype(d.dtype))
        assert d.id.get_storage_size() == 0


def test_no_gpu_device_array_refused(tmp_path):
    """Without a GPU build a device array cannot be written; with one and no GPU it must fail
    cleanly (test_parz_write_gpu.py covers a present GPU)."""
    if parz.get_config().gpu:
        pytest.skip("a GPU is usable here")

    class FakeDevice:  # GPU memory at a made-up address
        __cuda_array_interface__ = {"shape": (64, 64), "typestr": "<f4", "data": (4096, False),
                                    "version": 3}

    with h5py.File(tmp_path / "w.h5", "w") as f:
        d = f.create_dataset("x", shape=(64, 64), dtype="f4", chunks=(32, 32),
                             compression=parz.Parz(accuracy=1.0))
        with pytest.raises((OSError, ValueError)):
            parz.write(d, FakeDevice())
        assert d.id.get_storage_size() == 0
