"""The accuracy bound (codec/FORMAT.md, "The accuracy bound"; docs/modes.md, "What each mode promises"):
accuracy=tol keeps every finite value within tol whatever the data, through the filter (h5py,
serial and OpenMP encoders) and parz.write: values so large beside the tolerance that zfp cannot
code their blocks to it (a netCDF fill value no HDF5 fill value names) are stored exactly, at the
cost of naming them as the fill value. Real data: the COADS sea surface temperature excerpt in
data/ (Debian's ferret-datasets), -1e34 over land."""
import os

import h5py
import numpy as np
import pytest

import parz
from conftest import ROOT

SST = os.path.join(ROOT, "data", "coads_sst_f32le_3x90x180.bin")


def sst():
    return np.fromfile(SST, dtype="<f4").reshape(3, 90, 180)


def worst(a, b):
    """The largest |a - b| over the finite values of a (exact in float64 for these values); the
    others must come back bit for bit."""
    finite = np.isfinite(a)
    assert a[~finite].tobytes() == b[~finite].tobytes()
    return float(np.abs(a[finite].astype(np.float64) - b[finite].astype(np.float64)).max())


def write_filter(path, a, chunks, **mode):
    with h5py.File(path, "w") as f:
        d = f.create_dataset("x", data=a, chunks=chunks, compression=parz.Parz(**mode))
        size = d.id.get_storage_size()
    with h5py.File(path, "r") as f:
        return f["x"][...], size


def write_parz(path, a, chunks, **mode):
    with h5py.File(path, "w") as f:
        d = f.create_dataset("x", shape=a.shape, dtype=a.dtype, chunks=chunks,
                             compression=parz.Parz(**mode))
        parz.write(d, a)
        size = d.id.get_storage_size()
    with h5py.File(path, "r") as f:
        return f["x"][...], size


@pytest.mark.parametrize("exec_", ["serial", "omp"])
@pytest.mark.parametrize("chunks", [(1, 90, 180), (3, 90, 180), (3, 45, 60)])
def test_sst_within_tolerance(tmp_path, monkeypatch, exec_, chunks):
    monkeypatch.setenv("PARZ_EXEC", exec_)
    a = sst()
    assert (a == np.float32(-1e34)).sum() > 10000
    tol = 0.037
    b, size = write_filter(tmp_path / "f.h5", a, chunks, accuracy=tol)
    assert worst(a, b) <= tol
    assert np.array_equal(a == np.float32(-1e34), b == np.float32(-1e34))
    c, size_w = write_parz(tmp_path / "w.h5", a, chunks, accuracy=tol)
    assert worst(a, c) <= tol and size_w == size
    # the cost: that of naming -1e34 as the fill value, byte for byte
    _, named = write_filter(tmp_path / "n.h5", a, chunks, accuracy=tol, fill_value=-1e34)
    assert size == named


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(203,), (22, 37), (9, 10, 13), (5, 6, 7, 9)])
def test_huge_beside_small_in_every_block(tmp_path, dtype, shape):
    rng = np.random.default_rng(len(shape))
    a = rng.uniform(-30.0, 30.0, shape).astype(dtype)
    corner = tuple(slice(None, None, 4) for _ in shape)
    a[corner] = dtype(-1e34)  # one in every block
    flat = a.reshape(-1)
    flat[5::97] = dtype(3e30) * (1 + np.arange(flat[5::97].size) % 7)
    flat[11::89] = np.nan
    tol = 1e-3
    for write in (write_filter, write_parz):
        b, _ = write(tmp_path / "x.h5", a, shape, accuracy=tol)
        assert worst(a, b) <= tol, write.__name__


def test_mask_off_still_holds(tmp_path):
    a = sst()
    b, size = write_filter(tmp_path / "m.h5", a, a.shape, accuracy=0.037, mask=False)
    assert worst(a, b) <= 0.037
