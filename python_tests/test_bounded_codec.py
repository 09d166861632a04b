"""The error-bounded codec (codec 4) through h5py: Parz(codec="bounded", error_bound=eb) writes
chunks whose every finite value reads back within eb, NaN, infinities and fill values bit for
bit; partial reads (hyperslabs) give the whole read's values; parz.read gives h5py's; the
cd_values forms, `parz cd-values --codec bounded` and `parz inspect`; integers and bad bounds
refused at creation with a message."""
import os
import subprocess

import h5py
import numpy as np
import pytest

import parz

FIRST = 65536 * 4 + 1  # cd_values[0]: mode error_bound (1) of codec 4


def within(data, back, eb, fill=None):
    """Every finite value that is not the fill value within eb; the others bit for bit."""
    d = data.astype(np.float64)
    b = back.astype(np.float64)
    exact = ~np.isfinite(d)
    if fill is not None:
        exact |= d == fill
    assert np.array_equal(data[exact].view(np.uint8), back[exact].view(np.uint8))
    err = np.abs(d[~exact] - b[~exact])
    assert err.size == 0 or err.max() <= eb, (err.max(), eb)
    return err.max() if err.size else 0.0


def value_range(a):
    ok = np.isfinite(a) & (np.abs(a) < 1e9)
    return float(a[ok].max() - a[ok].min())


@pytest.mark.parametrize("rel", [1e-3, 1e-5])
@pytest.mark.parametrize("which,chunks", [
    ("egm96", (181, 720)), ("egm96", (64, 1440)), ("vasp", (24, 96, 40)),
    ("ccsm", (1, 55, 64, 128)), ("levitus", (20, 90, 90))])
def test_bound_on_real_arrays(tmp_path, request, which, chunks, rel):
    data = request.getfixturevalue(which)
    fill = -1e10 if which == "levitus" else None
    eb = rel * value_range(data)
    kw = dict(fillvalue=np.float32(fill)) if fill is not None else {}
    path = tmp_path / "b.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=data, chunks=chunks,
                         compression=parz.Parz(codec="bounded", error_bound=eb), **kw)
    with h5py.File(path, "r") as f:
        d = f["x"]
        back = d[...]
        within(data, back, eb, fill)
        assert d.id.get_storage_size() < data.nbytes / (3 if rel == 1e-3 else 1.5)
        # hyperslabs across chunk edges give the whole read's values
        sl = tuple(slice(s // 5, s - s // 7) for s in data.shape)
        assert np.array_equal(d[sl].view(np.uint8), back[sl].view(np.uint8))
        step = tuple(slice(1, None, 3) for _ in data.shape)
        assert d[step].tobytes() == back[step].tobytes()
        assert np.array_equal(parz.read(d).view(np.uint8), back.view(np.uint8))


@pytest.mark.parametrize("dtype", ["f4", "f8"])
@pytest.mark.parametrize("shape,chunks", [
    ((5000,), (1024,)), ((1,), (1,)), ((37, 1), (16, 1)), ((3, 5, 7, 11), (2, 3, 7, 5)),
    ((1, 1, 1, 70), (1, 1, 1, 33)), ((130, 70), (64, 64))])
def test_special_values_and_shapes(tmp_path, dtype, shape, chunks):
    """NaN, infinities, huge and tiny values and the fill value in every rank, extents of 1,
    partial edge chunks."""
    rng = np.random.default_rng(7)
    n = int(np.prod(shape))
    a = (50 * np.sin(0.03 * np.arange(n)) + rng.random(n)).astype(dtype)
    pick = rng.integers(0, 30, n)
    a[pick == 0] = np.nan
    a[pick == 1] = np.inf
    a[pick == 2] = -np.inf
    a[pick == 3] = np.finfo(dtype).max
    a[pick == 4] = np.finfo(dtype).tiny / 4
    a[pick == 5] = -9999
    a = a.reshape(shape)
    eb = 1e-2
    path = tmp_path / "s.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=a, chunks=chunks, fillvalue=np.dtype(dtype).type(-9999),
                         compression=parz.Parz(codec="bounded", error_bound=eb))
    with h5py.File(path, "r") as f:
        back = f["x"][...]
        within(a, back, eb, -9999)
        assert np.array_equal(parz.read(f["x"]).view(np.uint8), back.view(np.uint8))


@pytest.mark.parametrize("dtype", ["i4", "i8"])
def test_integers_refused(tmp_path, dtype):
    with pytest.raises(Exception, match="bounded codec bounds the error of float and double"):
        with h5py.File(tmp_path / "i.h5", "w") as f:
            f.create_dataset("x", data=np.arange(100, dtype=dtype), chunks=(50,),
                             compression=parz.Parz(codec="bounded", error_bound=1.0))
    with h5py.File(tmp_path / "i.h5", "r") as f:
        assert "x" not in f


@pytest.mark.parametrize("eb", [0.0, -1.0, float("nan"), float("inf"), 1.7e308])
def test_bad_bounds_refused(tmp_path, eb):
    with pytest.raises(Exception, match="error bound|finite number > 0"):
        opts = parz.Parz(codec="bounded", error_bound=eb)
        with h5py.File(tmp_path / "e.h5", "w") as f:
            f.create_dataset("x", data=np.zeros(10, "f4"), chunks=(10,), compression=opts)


def test_cd_values_forms(tmp_path):
    """The user form is mode + 65536 x 4 and the bound's two words, through Parz, cd_values and
    H5Pset_filter alike; the file keeps the internal form of codec 4."""
    words = parz.double_words(0.01)
    assert parz.cd_values(codec="bounded", error_bound=0.01)[:3] == (FIRST,) + words
    assert parz.codecs()["bounded"] == ("error_bound",)
    a = np.linspace(0, 1, 4096, dtype="f4").reshape(64, 64)
    stored = []
    for opts in (parz.Parz(codec="bounded", error_bound=0.01).filter_options,
                 (FIRST,) + words):
        with h5py.File(tmp_path / "c.h5", "w") as f:
            d = f.create_dataset("x", data=a, chunks=(32, 32), compression=parz.FILTER_ID,
                                 compression_opts=opts)
            cd = d.id.get_create_plist().get_filter(0)[2]
            stored.append(d.id.read_direct_chunk((0, 0))[1])
        assert cd[0] == 1003 and cd[1] >> 16 == 4, cd
        with h5py.File(tmp_path / "c.h5", "r") as f:
            within(a, f["x"][...], 0.01)
    assert stored[0] == stored[1]
    assert stored[0][:4] == b"PARZ" and stored[0][6] == 4  # the header's codec id


def test_command(tmp_path, parz_tool):
    out = subprocess.run([parz_tool, "cd-values", "--codec", "bounded", "--error_bound", "0.01"],
                         capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[0].split()[1:] == [str(w) for w in (FIRST,) + parz.double_words(0.01)]
    path = tmp_path / "i.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=np.linspace(0, 1, 4096, dtype="f4"), chunks=(1024,),
                         compression=parz.Parz(codec="bounded", error_bound=1e-3))
    out = subprocess.run([parz_tool, "inspect", str(path)], capture_output=True, text=True,
                         check=True).stdout
    assert "bounded error_bound 0.001" in out, out
    assert out.count(" bounded ") >= 4, out
    assert subprocess.run([parz_tool, "verify", str(path)], capture_output=True).returncode == 0


@pytest.mark.parametrize("policy", ["cuda", "auto"])
def test_gpu_policy_reads_the_same_values(tmp_path, policy):
    """Under PARZ_EXEC=cuda|auto the filter's writes come from the CPU (the GPU has no encoder of
    this codec and refuses it before any CUDA call) and its reads and parz.read give the same
    values whoever decodes them: the GPU where there is one (test_parz_read_gpu.py compares it
    with the serial decoder bit for bit), else the CPU."""
    a = np.cos(np.linspace(0, 30, 200 * 300)).astype("f4").reshape(200, 300)
    path = tmp_path / "g.h5"
    old = os.environ.get("PARZ_EXEC")
    os.environ["PARZ_EXEC"] = policy
    try:
        with h5py.File(path, "w") as f:
            f.create_dataset("x", data=a, chunks=(100, 150),
                             compression=parz.Parz(codec="bounded", error_bound=1e-4))
        with h5py.File(path, "r") as f:
            back = f["x"][...]
            within(a, back, 1e-4)
            assert parz.read(f["x"]).tobytes() == back.tobytes()
    finally:
        if old is None:
            os.environ.pop("PARZ_EXEC", None)
        else:
            os.environ["PARZ_EXEC"] = old
