"""Masked values through h5py (codec/FORMAT.md, "Mask"): NaN of any bit pattern, values equal
to the dataset's fill value (h5py's fillvalue=, which netCDF-4's _FillValue also sets) and to an
explicit fill_value= come back bit for bit in every mode, type and rank; every other value keeps
the error bound; every execution policy reads the same bytes; and missing values cost next to
nothing, where before they doubled the file (NaN) or broke the bound (a fill value in a block).

Reads with another policy run in a subprocess with PARZ_EXEC set, since the policy is read from
the environment on every chunk and a test must not leave it changed.
"""
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

import parz

from conftest import load

NAN_PATTERNS = {np.float32: [0x7FC00000, 0xFFC00001, 0x7F812345],
                np.float64: [0x7FF8000000000000, 0xFFF8000000000077, 0x7FF0000000000001]}
UINT = {np.float32: np.uint32, np.float64: np.uint64, np.int32: np.uint32, np.int64: np.uint64}
MODES = [dict(accuracy=1e-3), dict(precision=20), dict(rate=12), dict(reversible=True),
         dict(expert=(8, 900, 30, -20))]


def _field(shape, dtype):
    """Smooth values over a grid, with 'land': a region of about 40% of the values."""
    grids = np.meshgrid(*[np.arange(n, dtype=np.float64) for n in shape], indexing="ij")
    x = sum(np.sin(g * (0.05 + 0.03 * k)) for k, g in enumerate(grids)) * 10.0
    land = np.sin(grids[-1] * 0.31) + np.cos(grids[0] * 0.23 + grids[-1] * 0.07) > 0.5
    if np.issubdtype(dtype, np.integer):
        x = x * 1000
    return x.astype(dtype), land


def _with_nan(a, land):
    """NaN of three bit patterns over the land (bit patterns kept exactly)."""
    t = a.dtype.type
    bits = a.view(UINT[t]).copy()
    pats = np.array(NAN_PATTERNS[t], dtype=UINT[t])
    bits[land] = pats[np.nonzero(land.ravel())[0] % 3]
    return bits.view(a.dtype).reshape(a.shape)


def _write(path, data, chunks, fillvalue=None, **mode):
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=data, chunks=chunks, fillvalue=fillvalue,
                         compression=parz.Parz(**mode))


def _read(path):
    with h5py.File(path, "r") as f:
        return f["x"][...]


def _check(a, back, missing, mode):
    """Missing values bit for bit; the others exact (reversible) or within the tolerance."""
    u = UINT[a.dtype.type]
    assert np.array_equal(a[missing].view(u), back[missing].view(u))
    valid = ~missing
    if "reversible" in mode:
        assert np.array_equal(a[valid].view(u), back[valid].view(u))
    elif "accuracy" in mode:
        err = np.abs(back[valid].astype(np.float64) - a[valid].astype(np.float64))
        assert err.max() <= mode["accuracy"]
    else:
        assert np.all(np.isfinite(back[valid].astype(np.float64)))


@pytest.mark.parametrize("mode", MODES, ids=lambda m: next(iter(m)))
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda t: t.__name__)
@pytest.mark.parametrize("shape,chunks", [((300,), (128,)), ((40, 70), (16, 70)),
                                          ((12, 20, 30), (6, 20, 30)),
                                          ((4, 6, 10, 12), (2, 6, 10, 12))],
                         ids=["1d", "2d", "3d", "4d"])
def test_nan_round_trip(tmp_path, mode, dtype, shape, chunks):
    a, land = _field(shape, dtype)
    a = _with_nan(a, land)
    path = tmp_path / "nan.h5"
    _write(path, a, chunks, **mode)
    _check(a, _read(path), land, mode)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: next(iter(m)))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64],
                         ids=lambda t: t.__name__)
def test_fill_value_round_trip(tmp_path, mode, dtype):
    """The dataset's fill value (h5py fillvalue=) is masked: exact, and the other values of
    blocks holding it keep the bound (a -1e10 in a block of temperatures no longer spoils it)."""
    if "accuracy" in mode and np.issubdtype(dtype, np.integer):
        pytest.skip("accuracy mode needs floating-point data")
    a, land = _field((40, 70), dtype)
    fill = dtype(-1e10) if np.issubdtype(dtype, np.floating) else dtype(-9999)
    a[land] = fill
    path = tmp_path / "fill.h5"
    _write(path, a, (16, 70), fillvalue=fill, **mode)
    _check(a, _read(path), land, mode)


def test_explicit_fill_value(tmp_path):
    """fill_value= masks that value in a dataset without one. Without it, -1e10 beside the
    temperatures would spoil their blocks' accuracy; the accuracy bound's check takes it out into
    the mask all the same, at the same size (docs/modes.md, "What each mode promises")."""
    a, land = _field((64, 64), np.float32)
    a[land] = -1e10
    sizes = {}
    for name, extra in (("explicit", dict(fill_value=-1e10)), ("none", {})):
        path = tmp_path / (name + ".h5")
        _write(path, a, (32, 64), accuracy=1e-2, **extra)
        back = _read(path)
        assert np.array_equal(back[land].view(np.uint32), a[land].view(np.uint32))
        err = np.abs(back[~land] - a[~land]).max()
        sizes[name] = os.path.getsize(path)
        assert err <= 1e-2, name
    assert sizes["explicit"] == sizes["none"]


def test_mask_off_keeps_nan_exact(tmp_path):
    """mask=False stores NaN as exceptions, as before masks: exact, and much larger."""
    a, land = _field((64, 96), np.float32)
    a = _with_nan(a, land)
    sizes = {}
    for name, extra in (("mask", {}), ("off", dict(mask=False))):
        path = tmp_path / (name + ".h5")
        _write(path, a, (32, 96), accuracy=1e-3, **extra)
        _check(a, _read(path), land, dict(accuracy=1e-3))
        sizes[name] = os.path.getsize(path)
    assert sizes["mask"] * 2 < sizes["off"]


def test_cd_values_internal_form(tmp_path):
    """The stored cd_values: version 1 as before without a fill value, version 2 with one."""
    a, land = _field((32, 32), np.float32)
    for fill, form in ((None, 1001), (np.float32(-1e10), 1002)):
        path = tmp_path / "cd.h5"
        _write(path, a, (32, 32), fillvalue=fill, accuracy=1e-3)
        with h5py.File(path, "r") as f:
            cd = f["x"].id.get_create_plist().get_filter_by_id(parz.FILTER_ID)[1]
        assert cd[0] == form and len(cd) == 16
        if form == 1002:
            assert (cd[4] << 32 | cd[5]) == int(np.float32(-1e10).view(np.uint32))


def test_bad_settings():
    with pytest.raises(ValueError, match="fill_value needs the mask"):
        parz.Parz(accuracy=1e-3, mask=False, fill_value=0.0)
    with pytest.raises(TypeError, match="mask must be True or False"):
        parz.Parz(accuracy=1e-3, mask=1)
    with pytest.raises(TypeError, match="fill_value must be a number"):
        parz.Parz(accuracy=1e-3, fill_value="x")


def test_integer_fill_value_must_fit(tmp_path):
    with h5py.File(tmp_path / "bad.h5", "w") as f:
        with pytest.raises((OSError, ValueError), match="not a value of the dataset's type"):
            f.create_dataset("x", shape=(64,), dtype=np.int32, chunks=(64,),
                             compression=parz.Parz(reversible=True, fill_value=1.5))


READER = r"""
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    np.save(sys.argv[2], f["x"][...])
"""


@pytest.mark.parametrize("mode", [dict(accuracy=1e-3), dict(reversible=True)],
                         ids=["accuracy", "reversible"])
def test_policies_read_the_same(tmp_path, mode):
    """Serial and OpenMP reads (and CUDA where there is a GPU) give the same bytes."""
    a, land = _field((256, 512), np.float32)
    a = _with_nan(a, land)
    a[(~land) & (np.arange(a.size).reshape(a.shape) % 97 == 3)] = -9999.0
    path = tmp_path / "big.h5"
    _write(path, a, (256, 512), fillvalue=np.float32(-9999.0), **mode)
    outs = []
    for policy in ("serial", "omp", "cuda"):
        env = dict(os.environ, PARZ_EXEC=policy, PARZ_THREADS="3")
        out = str(tmp_path / (policy + ".npy"))
        run = subprocess.run([sys.executable, "-c", READER, str(path), out], env=env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        outs.append(np.load(out))
    _check(a, outs[0], land | (a == -9999.0), mode)
    for o in outs[1:]:
        assert np.array_equal(o.view(np.uint32), outs[0].view(np.uint32))


def test_levitus_with_nan_and_fill_value(tmp_path):
    """levitus (44.5% land): NaN land and -1e10 as the dataset's fill value, accuracy
    1e-3 x range, chunks 10x180x360: ratio above 6 (goal), land exact, ocean within the bound."""
    a = load("levitus_temp_f32le_20x180x360.bin", (20, 180, 360))
    if a is None:
        pytest.skip("levitus not in ../shared/data")
    land = a == np.float32(-1e10)
    ocean = a[~land]
    tol = 1e-3 * float(ocean.max() - ocean.min())
    for name, data, fill in (("nan", np.where(land, np.float32(np.nan), a), None),
                             ("fill", a, np.float32(-1e10))):
        path = tmp_path / (name + ".h5")
        _write(path, data, (10, 180, 360), fillvalue=fill, accuracy=tol)
        back = _read(path)
        assert np.array_equal(back[land].view(np.uint32), data[land].view(np.uint32))
        assert np.abs(back[~land] - ocean).max() <= tol
        with h5py.File(path, "r") as f:
            ratio = a.nbytes / f["x"].id.get_storage_size()
        assert ratio >= 6.0, "%s: ratio %.2f" % (name, ratio)


def _masked_file(tmp_path):
    """Two datasets of 4 chunks with masked values: NaN land (float32) and a fill value (int32)."""
    a, land = _field((300, 1000), np.float32)
    a = _with_nan(a, land)
    i, iland = _field((300, 1000), np.int32)
    i[iland] = -9999
    path = tmp_path / "masked.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("nan", data=a, chunks=(150, 500), compression=parz.Parz(accuracy=1e-3))
        f.create_dataset("fill", data=i, chunks=(150, 500), fillvalue=np.int32(-9999),
                         compression=parz.Parz(precision=24))
    return path


SELECTIONS = [Ellipsis, (slice(10, 170), slice(400, 900)), (149, slice(None)),
              (slice(None), 503), (slice(140, 160), slice(490, 510))]


@pytest.mark.parametrize("sel", SELECTIONS, ids=[repr(s) for s in SELECTIONS])
def test_parz_read_masked(tmp_path, sel):
    """parz.read decodes into place (boxes across chunks): masked values where h5py puts them."""
    path = _masked_file(tmp_path)
    with h5py.File(path, "r") as f:
        for name in ("nan", "fill"):
            want = np.asarray(f[name][sel])
            got = parz.read(f[name], sel)
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
            if parz.get_config().gpu:
                import cupy
                dev = cupy.asnumpy(cupy.asarray(parz.read(f[name], sel, device="cuda")))
                assert np.array_equal(dev.view(np.uint32), want.view(np.uint32))
