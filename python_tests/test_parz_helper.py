"""The Python helper itself: cd_values layout, argument checks, plugin registration."""
import os
import sys

import h5py
import numpy as np
import pytest

import parz
from conftest import fresh_python


def test_filter_id_and_layout():
    assert parz.FILTER_ID == 37050
    # The example of docs/cd_values.md: accuracy 0.01 = 0x3F847AE147AE147B.
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
    {"reversible": True, "segment_blocks": float("nan")},
    {"reversible": True, "partition_segments": float("inf")},
    {"reversible": True, "table": "hybird"}, {"reversible": True, "table": 2.5},
    {"reversible": True, "table": None, "segment_blocks": 2**32},
])
def test_invalid_arguments(kwargs):
    """Wrong values; wrong types (TypeError) in test_parz_arguments.py."""
    with pytest.raises(ValueError) as e:
        parz.Parz(**kwargs)
    assert str(e.value).startswith("parz: ")
    with pytest.raises(ValueError) as e:
        parz.cd_values(**kwargs)
    assert str(e.value).startswith("parz: ")


@pytest.mark.parametrize("call", [
    lambda: parz.Parz(1e-3), lambda: parz.Parz(None, 8), lambda: parz.cd_values(1e-3),
    lambda: parz.Parz(acuracy=1e-3), lambda: parz.cd_values(reversible=True, checksm=1),
])
def test_keyword_only_arguments(call):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value).startswith("parz: ")


@pytest.mark.parametrize("name,kind", [
    ("auto", parz.TABLE_AUTO), ("none", parz.TABLE_NONE), ("offsets", parz.TABLE_OFFSETS),
    ("lengths", parz.TABLE_LENGTHS), ("hybrid", parz.TABLE_HYBRID), (" Hybrid ", 4),
])
def test_table_by_name(name, kind):
    assert parz.Parz(reversible=True, table=name) == parz.Parz(reversible=True, table=kind)
    assert parz.cd_values(reversible=True, table=name) == (parz.MODE_REVERSIBLE, 0, 0, kind)


def _h5py_filter_ref_base():
    """The class h5py's create_dataset tests compression= against."""
    return sys.modules[h5py.Dataset.__module__].filters.FilterRefBase


def test_parz_is_the_filter_ref_base_h5py_uses(tmp_path):
    p = parz.Parz(accuracy=1e-2)
    assert isinstance(p, _h5py_filter_ref_base())
    a = np.linspace(0, 1, 64 * 64, dtype="f4").reshape(64, 64)
    with h5py.File(tmp_path / "a.h5", "w") as f:
        d = f.create_dataset("a", data=a, chunks=(32, 32), compression=p)
        code, _, values, _ = d.id.get_create_plist().get_filter(0)
        assert code == parz.FILTER_ID and values[0] == 1001  # set_local's stored form
        assert np.abs(d[...] - a).max() <= 1e-2


def test_filter_ref_base_without_h5py_filters_module(tmp_path):
    """pip's h5py has no importable h5py.filters module (only an attribute of h5py); the class
    must still be h5py's FilterRefBase there."""
    r = fresh_python(
        "import sys, h5py\n"
        "sys.modules.pop('h5py.filters', None)\n"
        "import numpy as np, parz\n"
        "with h5py.File(%r, 'w') as f:\n"
        "    f.create_dataset('a', data=np.ones((8, 8), 'f4'), chunks=(8, 8),\n"
        "                     compression=parz.Parz(reversible=True))\n"
        "print('ok', type(parz.Parz(reversible=True)).__mro__[1])\n" % str(tmp_path / "a.h5"))
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr


def test_register(tmp_path):
    d = parz.register()
    assert d == parz.plugin_dir()
    assert os.path.isfile(os.path.join(d, "libH5Zparz.so"))
    n = h5py.h5pl.size()
    assert parz.register() == d and h5py.h5pl.size() == n  # idempotent
    assert parz.register(os.path.join(d, "libH5Zparz.so")) == d  # the file itself
    assert h5py.h5z.filter_avail(parz.FILTER_ID)
    with pytest.raises(FileNotFoundError, match="^parz: "):
        parz.register(str(tmp_path))
    (tmp_path / "libH5Zparz.so").write_bytes(b"not a shared object")
    with pytest.raises(OSError, match="^parz: "):
        parz.register(str(tmp_path))
    # the registered module is still the good one
    a = np.arange(256, dtype="f4").reshape(16, 16)
    with h5py.File(tmp_path / "a.h5", "w") as f:
        f.create_dataset("a", data=a, chunks=(8, 8), compression=parz.Parz(reversible=True))
    with h5py.File(tmp_path / "a.h5", "r") as f:
        assert np.array_equal(f["a"][...], a)
