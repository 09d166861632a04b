"""Bad input: refused dataset creation with a clear ParZ message and nothing written; corrupt,
truncated or foreign chunks fail only their own read with OSError."""
import h5py
import numpy as np
import pytest

import parz
from conftest import chunk_error

H5Z = parz.FILTER_ID


def create(path, compression_opts=None, dtype="f4", shape=(64, 64), chunks=(32, 32),
           compression=None, **kw):
    with h5py.File(path, "w") as f:
        f.create_dataset("x", shape=shape, dtype=dtype, chunks=chunks,
                         compression=compression or H5Z, compression_opts=compression_opts,
                         **kw)


@pytest.mark.parametrize("opts,needle", [
    ((9,), "unknown mode 9"),
    ((3, 1), "accuracy mode needs 2 values"),
    ((3,) + parz.double_words(-1.0), "parz"),
    ((2, 0), "parz"),
    ((2, 65), "parz"),
    ((1, 0, 0), "parz"),
    ((5, 0, 0, 9), "table kind 9"),
    ((5, 0, 0, 1), "fixed-rate"),
    ((5, 0, 0, 0, 3), "payload checksum setting 3"),
    ((5, 0, 0, 0, 0, 0, 0), "at most"),
    ((5, 0, 0, 0, 0, 4), "mask setting 4"),
    ((5, 0, 0, 0, 0, 3), "fill value after it"),
    ((3, 0, 3539053052, 1062232653), "H5Z-ZFP.*accuracy 0.001 is 3,1062232653,3539053052"),
    ((1, 0, 0, 1075838976), "H5Z-ZFP.*rate 8 is 1,1075838976,0"),
    ((2, 0, 20), "H5Z-ZFP.*precision 20 is 2,20"),
])
def test_invalid_parameters(tmp_path, opts, needle):
    with pytest.raises(Exception, match=needle) as e:
        create(tmp_path / "bad.h5", opts)
    assert "parz" in str(e.value)
    with h5py.File(tmp_path / "bad.h5", "r") as f:
        assert "x" not in f


@pytest.mark.parametrize("dtype,needle", [
    ("S8", "string"),
    (np.dtype([("a", "f4"), ("b", "f4")]), "compound"),
    ("u4", "unsigned"),
    ("i2", "not supported"),
    ("f2", "not supported"),
])
def test_unsupported_types(tmp_path, dtype, needle):
    with pytest.raises(Exception, match=needle):
        create(tmp_path / "bad.h5", parz.Parz(reversible=True).filter_options, dtype=dtype)
    with h5py.File(tmp_path / "bad.h5", "r") as f:
        assert "x" not in f


@pytest.mark.parametrize("kind", ["strings", "ragged"])
def test_variable_length_data_is_stored_unfiltered(tmp_path, kind):
    """HDF5 skips optional filters (h5py adds every filter as optional) on variable-length
    types without asking the filter: the dataset is created, its chunks are stored without ParZ
    (filter mask bit set) and read back unchanged. Fixed-length strings are refused above."""
    if kind == "strings":
        data, dtype = np.array(["a", "bb", "ccc", "dddd"] * 4, dtype=object), h5py.string_dtype()
    else:
        data = np.empty(16, dtype=object)
        data[:] = [np.arange(i % 5, dtype="f4") for i in range(16)]
        dtype = h5py.vlen_dtype(np.float32)
    with h5py.File(tmp_path / "vlen.h5", "w") as f:
        d = f.create_dataset("v", data=data, dtype=dtype, chunks=(8,),
                             compression=parz.Parz(reversible=True))
        assert [d.id.get_chunk_info(i).filter_mask & 1 for i in range(2)] == [1, 1]
    with h5py.File(tmp_path / "vlen.h5", "r") as f:
        d = f["v"]
        back = d.asstr()[...] if kind == "strings" else d[...]
        assert all(np.array_equal(a, b) for a, b in zip(back, data))


def test_variable_length_with_mandatory_filter_refused(tmp_path):
    """As a mandatory filter (H5Pset_filter from C), HDF5 refuses variable-length data itself."""
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((4,))
    dcpl.set_filter(parz.FILTER_ID, 0, parz.Parz(reversible=True).filter_options)
    tid = h5py.h5t.py_create(h5py.string_dtype(), logical=1)
    with h5py.File(tmp_path / "vlen.h5", "w") as f:
        with pytest.raises(ValueError, match="not suitable for filters"):
            h5py.h5d.create(f.id, b"v", tid, h5py.h5s.create_simple((8,)), dcpl=dcpl)
        assert "v" not in f


def test_accuracy_on_integers_refused(tmp_path):
    with pytest.raises(Exception, match="floating-point"):
        create(tmp_path / "bad.h5", parz.Parz(accuracy=1e-3).filter_options, dtype="i4")


def test_too_many_chunk_dims(tmp_path):
    with pytest.raises(Exception, match="more than 4 dimensions"):
        create(tmp_path / "bad.h5", (5,), shape=(4,) * 5, chunks=(2,) * 5)


def test_python_helper_objects_give_the_same_errors(tmp_path):
    with h5py.File(tmp_path / "bad.h5", "w") as f:
        with pytest.raises(Exception, match="parz"):
            f.create_dataset("x", shape=(8, 8), dtype="S4", chunks=(4, 4),
                             compression=parz.Parz(reversible=True))
        assert "x" not in f


@pytest.fixture
def four_chunks(tmp_path):
    rng = np.random.default_rng(7)
    data = (np.cumsum(rng.standard_normal((128, 128)), axis=1)).astype("f4")
    path = tmp_path / "c.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=data, chunks=(64, 64), compression=parz.Parz(accuracy=1e-3))
        f.create_dataset("other", data=data[:32, :32], chunks=(32, 32),
                         compression=parz.Parz(accuracy=1e-3))
    with h5py.File(path, "r") as f:
        good = f["x"][...]
    return path, good


def damage_chunk(path, how):
    with h5py.File(path, "r+") as f:
        d = f["x"]
        info = d.id.get_chunk_info_by_coord((0, 64))
        mask, raw = d.id.read_direct_chunk((0, 64))
        if how == "header":
            # patch bytes of the chunk in the file itself, at its address
            raw = bytearray(raw)
            with open(path, "r+b") as fh:
                fh.seek(info.byte_offset + 12)
                fh.write(bytes(b ^ 0xA5 for b in raw[12:16]))
            return
        if how == "truncated":
            d.id.write_direct_chunk((0, 64), raw[:len(raw) // 2], mask)
        elif how == "foreign":
            m2, other = f["other"].id.read_direct_chunk((0, 0))
            d.id.write_direct_chunk((0, 64), other, m2)
        elif how == "garbage":
            d.id.write_direct_chunk((0, 64), bytes(range(256)) * 4, mask)
        elif how == "empty-ish":
            d.id.write_direct_chunk((0, 64), b"\0" * 8, mask)


@pytest.mark.parametrize("how", ["header", "truncated", "foreign", "garbage", "empty-ish"])
def test_bad_chunk_fails_only_its_read(four_chunks, how, capfd):
    path, good = four_chunks
    damage_chunk(path, how)
    with h5py.File(path, "r") as f:
        d = f["x"]
        with chunk_error(capfd, "parz: "):
            d[...]
        with pytest.raises(OSError):
            d[0:64, 64:128]
        assert np.array_equal(d[0:64, 0:64], good[0:64, 0:64])
        assert np.array_equal(d[64:128, :], good[64:128, :])


@pytest.mark.parametrize("kw,name", [
    (dict(shuffle=True), "shuffle"),
    (dict(scaleoffset=3), "scaleoffset"),
])
def test_filter_before_parz_refused(tmp_path, kw, name):
    """h5py sets shuffle and scaleoffset before the compression filter: ParZ would compress
    shuffled bytes as values (errors of 1e38 at accuracy 1e-3) or, after scaleoffset, drop out
    silently. Dataset creation must fail with ParZ's message and write nothing."""
    with pytest.raises(Exception, match="comes before ParZ") as e:
        create(tmp_path / "bad.h5", parz.Parz(accuracy=1e-3).filter_options, **kw)
    assert "parz:" in str(e.value) and name in str(e.value)
    with h5py.File(tmp_path / "bad.h5", "r") as f:
        assert "x" not in f


def test_checksum_after_parz(tmp_path):
    """fletcher32 goes after the compression filter in h5py: allowed, and the values hold."""
    a = (np.sin(np.arange(64 * 64) * 0.01) * 100).astype("f4").reshape(64, 64)
    path = tmp_path / "flet.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=a, chunks=(32, 32), fletcher32=True,
                         compression=parz.Parz(accuracy=1e-3))
    with h5py.File(path, "r") as f:
        plist = f["x"].id.get_create_plist()
        ids = [plist.get_filter(i)[0] for i in range(plist.get_nfilters())]
        back = f["x"][...]
    assert ids == [parz.FILTER_ID, h5py.h5z.FILTER_FLETCHER32]
    assert np.max(np.abs(back.astype("f8") - a)) <= 1e-3
