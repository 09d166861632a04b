"""The Python helper itself: cd_values layout, argument checks, plugin registration."""
import os

import h5py
import pytest

import parz


def test_filter_id_and_layout():
    assert parz.FILTER_ID == 37050
    # README example: accuracy 0.01 = 0x3F847AE147AE147B.
    assert parz.Parz(accuracy=0.01).filter_options == (3, 0x3F847AE1, 0x47AE147B)
    assert parz.Parz(rate=8).filter_options == (1, 0x40200000, 0)
    assert parz.Parz(precision=20).filter_options == (2, 20)
    assert parz.Parz(reversible=True).filter_options == (5,)
    assert parz.Parz(expert=(1, 100, 30, -20)).filter_options == (4, 1, 100, 30, 2**32 - 20)
    assert parz.Parz(reversible=True, segment_blocks=16).filter_options == (5, 16)
    assert parz.Parz(reversible=True, table=parz.TABLE_LENGTHS).filter_options == (5, 0, 0, 3)
    assert isinstance(parz.Parz(reversible=True), h5py.filters.FilterRefBase)
    assert parz.Parz(precision=3) == parz.Parz(precision=3)
    assert dict(parz.Parz(precision=3)) == {"compression": 37050, "compression_opts": (2, 3)}


@pytest.mark.parametrize("kwargs", [
    {}, {"accuracy": 1e-3, "rate": 4}, {"accuracy": 0}, {"accuracy": -1},
    {"accuracy": float("nan")}, {"rate": float("inf")}, {"precision": 0}, {"precision": 65},
    {"precision": 2.5}, {"expert": (1, 2, 3)}, {"reversible": True, "segment_blocks": -1},
])
def test_invalid_arguments(kwargs):
    with pytest.raises(ValueError, match="parz"):
        parz.Parz(**kwargs)


def test_register(tmp_path):
    d = parz.register()
    assert os.path.isfile(os.path.join(d, "libH5Zparz.so"))
    n = h5py.h5pl.size()
    assert parz.register() == d and h5py.h5pl.size() == n  # idempotent
    assert h5py.h5z.filter_avail(parz.FILTER_ID)
    with pytest.raises(FileNotFoundError):
        parz.register(str(tmp_path))
