"""zfp's limits through h5py (docs/modes.md, "Limits"): values outside the range of zfp's lossy
transform come back exactly, never as Inf or wrapped, and expert parameters that cut the
reversible transform short are refused at dataset creation with a message."""
import h5py
import numpy as np
import pytest

import parz


def _round_trip(path, a, **mode):
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=a, chunks=a.shape, compression=parz.Parz(**mode))
    with h5py.File(path, "r") as f:
        assert f["x"].id.get_chunk_info(0).filter_mask == 0
        return f["x"][...]


@pytest.mark.parametrize("dtype,big", [(np.float32, [np.finfo(np.float32).max, 2.0 ** 126, 1e38]),
                                       (np.float64, [np.finfo(np.float64).max, 2.0 ** 1022])])
@pytest.mark.parametrize("mode", [dict(accuracy=1e-2), dict(precision=12), dict(rate=8)])
def test_huge_floats_stay_finite(tmp_path, dtype, big, mode):
    a = np.linspace(-50, 50, 40 * 40).reshape(40, 40).astype(dtype)
    for i, v in enumerate(big):
        a[3 * i, 5] = v
        a[3 * i + 20, 7] = -v
    b = _round_trip(tmp_path / "f.h5", a, **mode)
    assert np.all(np.isfinite(b))
    huge = np.abs(a) >= (2.0 ** 126 if dtype == np.float32 else 2.0 ** 1022)
    assert np.array_equal(a[huge], b[huge])


@pytest.mark.parametrize("dtype,k", [(np.int32, 30), (np.int64, 62)])
@pytest.mark.parametrize("mode", [dict(precision=24), dict(rate=12), dict(expert=(8, 900, 30, 0))])
def test_integer_extremes_do_not_wrap(tmp_path, dtype, k, mode):
    info = np.iinfo(dtype)
    a = (np.arange(32 * 32) * 1000 - 500000).reshape(32, 32).astype(dtype)
    ext = [info.min, info.max, 2 ** k, -(2 ** k), 2 ** k - 1]
    for i, v in enumerate(ext):
        a[i, 2 * i] = v
    b = _round_trip(tmp_path / "i.h5", a, **mode)
    out = np.abs(a.astype(object)) >= 2 ** k
    assert np.array_equal(a[out], b[out])
    # the rest: no wrap-around (a wrapped value is off by about 2^31 or 2^63)
    err = np.abs(a.astype(object) - b.astype(object))
    assert max(err[~out]) < 2 ** (k - 4)


def test_reversible_transform_cut_short_is_refused(tmp_path):
    a = np.ones((16, 16), np.float32)
    with h5py.File(tmp_path / "e.h5", "w") as f:
        with pytest.raises(Exception, match="reversible transform") as e:
            f.create_dataset("x", data=a, chunks=a.shape,
                             compression=parz.Parz(expert=(64, 64, 64, -1075)))
    assert "maxprec" in str(e.value)
