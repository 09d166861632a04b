"""The lossless codec (codec 3) through h5py, the filter's cd_values, h5repack, h5dump and the parz
command: every bit pattern of float32/64 and int32/64 in ranks 1 to 4 comes back bit for bit,
parz.read gives the same, and a chunk that would grow is stored."""
import os
import subprocess

import h5py
import numpy as np
import pytest

import parz

FILTER_ID = 37050
LOSSLESS = 3
CODEC_UNIT = 65536

F32 = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC12345, 0x7F800001,
       0x00000001, 0x807FFFFF, 0x7F7FFFFF]
F64 = [0x0, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
       0xFFF8000000000001, 0x7FF0000000000001, 0x0000000000000001, 0x800FFFFFFFFFFFFF,
       0x7FEFFFFFFFFFFFFF]
SHAPES = {1: ((5000,), (1500,)), 2: ((70, 90), (40, 64)), 3: ((20, 18, 33), (10, 18, 16)),
          4: ((3, 9, 17, 8), (2, 9, 8, 8))}


def special_array(dtype, shape, seed):
    """A smooth array with every special bit pattern of the type sprinkled in (for floats: NaN
    payloads, -0.0, subnormals, infinities); integers over their whole range."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype in (np.int32, np.int64):
        a = (np.arange(n, dtype=np.int64) * 3).astype(dtype)
        picks = rng.random(n) < 0.2
        info = np.iinfo(dtype)
        a[picks] = rng.integers(info.min, info.max, picks.sum(), dtype=dtype, endpoint=True)
        a[:2] = [info.min, info.max]
        return a.reshape(shape)
    a = (1000.0 + np.arange(n) % 97 * 0.25 + np.arange(n) // 97).astype(dtype)
    bits = a.view(np.uint32 if dtype == np.float32 else np.uint64)
    specials = np.array(F32 if dtype == np.float32 else F64, dtype=bits.dtype)
    picks = rng.random(n) < 0.2
    bits[picks] = specials[rng.integers(0, len(specials), picks.sum())]
    bits[:len(specials)] = specials[:n]
    return a.reshape(shape)


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def test_cd_values():
    assert parz.cd_values(codec="lossless") == (LOSSLESS * CODEC_UNIT + 1,)
    assert parz.cd_values(codec="lossless", lorenzo=True) == (LOSSLESS * CODEC_UNIT + 1,)
    assert parz.cd_values(codec="lossless", stack=True) == (LOSSLESS * CODEC_UNIT + 2,)
    assert parz.cd_values(codec="lossless", segment_blocks=8) == (LOSSLESS * CODEC_UNIT + 1, 8)
    with pytest.raises(ValueError, match="exactly one"):
        parz.cd_values(codec="lossless", lorenzo=True, stack=True)
    with pytest.raises(ValueError, match="no mode accuracy"):
        parz.cd_values(codec="lossless", accuracy=1e-3)
    with pytest.raises(ValueError, match="exactly one"):  # zfp still needs its mode named
        parz.cd_values()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("rank", [1, 2, 3, 4])
def test_round_trip(tmp_path, dtype, rank):
    shape, chunks = SHAPES[rank]
    a = special_array(dtype, shape, rank)
    path = tmp_path / "x.h5"
    modes = [{}] + ([{"stack": True}] if rank == 4 else [])
    with h5py.File(path, "w") as f:
        for i, mode in enumerate(modes):
            f.create_dataset("x%d" % i, data=a, chunks=chunks,
                             **parz.Parz(codec="lossless", **mode))
    with h5py.File(path, "r") as f:
        for i in range(len(modes)):
            assert same_bits(f["x%d" % i][...], a)
            assert same_bits(parz.read(f["x%d" % i]), a)
            part = tuple(slice(s // 3, s // 3 + max(1, s // 2)) for s in shape)
            assert same_bits(f["x%d" % i][part], a[part])
            assert same_bits(parz.read(f["x%d" % i], part), a[part])


def test_smaller_than_gzip_on_smooth_data(tmp_path):
    """A smooth field: the lossless chunks are exact and smaller than the values."""
    y, x = np.mgrid[0:256, 0:512]
    a = (np.sin(y / 17.0) * np.cos(x / 23.0) * 1000).astype(np.float32)
    path = tmp_path / "x.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=a, chunks=(128, 512), **parz.Parz(codec="lossless"))
    with h5py.File(path, "r") as f:
        assert same_bits(f["x"][...], a)
        stored = f["x"].id.get_storage_size()
    assert stored < a.nbytes / 1.2, stored


def test_random_bits_are_stored(tmp_path):
    a = np.random.default_rng(5).integers(-2**63, 2**63 - 1, (64, 512), dtype=np.int64)
    path = tmp_path / "x.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=a, chunks=(64, 512), **parz.Parz(codec="lossless"))
    with h5py.File(path, "r") as f:
        assert same_bits(f["x"][...], a)
        assert f["x"].id.get_storage_size() <= a.nbytes + 256
    out = parz_command("inspect", str(path))
    assert " stored " in out


def test_write_and_read(tmp_path):
    """parz.write encodes lossless chunks as the dataset's filter says."""
    a = special_array(np.float64, (40, 50), 9)
    path = tmp_path / "x.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", shape=a.shape, dtype=a.dtype, chunks=(20, 25),
                         **parz.Parz(codec="lossless"))
        parz.write(f["x"], a)
    with h5py.File(path, "r") as f:
        assert same_bits(f["x"][...], a)


def parz_command(*args):
    """The build's parz command (beside its plugins folder), its output."""
    tool = os.path.join(os.path.dirname(parz.plugin_dir() or ""), "tools", "parz")
    if not os.path.exists(tool):
        pytest.skip("no parz command beside the Python package")
    p = subprocess.run([tool] + list(args), capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_parz_command(tmp_path):
    assert parz_command("cd-values", "--codec", "lossless").split()[1] == str(
        LOSSLESS * CODEC_UNIT + 1)
    assert parz_command("cd-values", "--codec", "lossless", "--stack").split()[1] == str(
        LOSSLESS * CODEC_UNIT + 2)
    a = special_array(np.float32, (60, 70), 3)
    path = tmp_path / "x.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=a, chunks=(30, 70), **parz.Parz(codec="lossless"))
    out = parz_command("inspect", str(path))
    assert "ParZ lossless lorenzo" in out and " lossless lorenzo " in out, out
    assert "  images, lorenzo\n" in out, out  # the codec's parameters, not "-"
    parz_command("verify", str(path))


def tool(name):
    from shutil import which
    path = which(name)
    if path is None:
        pytest.skip("%s not installed" % name)
    return path


def test_h5repack_and_h5dump(tmp_path):
    """h5repack applies the user cd_values (-f UD=37050,0,1,196609) and removes them; h5dump
    prints the exact values through the plugin."""
    a = special_array(np.int32, (30, 40), 4)
    src, packed, plain = tmp_path / "in.h5", tmp_path / "lossless.h5", tmp_path / "plain.h5"
    with h5py.File(src, "w") as f:
        f.create_dataset("x", data=a, chunks=(15, 40))
    env = dict(os.environ)
    subprocess.run([tool("h5repack"), "-f", "UD=%d,0,1,%d" % (FILTER_ID, LOSSLESS * CODEC_UNIT + 1),
                    str(src), str(packed)], check=True, env=env, timeout=120)
    with h5py.File(packed, "r") as f:
        assert f["x"].id.get_create_plist().get_filter(0)[0] == FILTER_ID
        assert same_bits(f["x"][...], a)
    out = subprocess.run([tool("h5dump"), "-d", "x", "-p", str(packed)], check=True, env=env,
                         capture_output=True, text=True, timeout=120).stdout
    assert "FILTER_ID 37050" in out
    values = out[out.index("DATA {"):]
    assert ("%d, %d" % (a[0, 0], a[0, 1])) in values.replace("(0,0): ", "")
    subprocess.run([tool("h5repack"), "-f", "NONE", str(packed), str(plain)], check=True,
                   env=env, timeout=120)
    with h5py.File(plain, "r") as f:
        assert f["x"].compression is None and same_bits(f["x"][...], a)


def chunk_params(path):
    """The codec parameter bytes (transform, predictor, Holt's gains) of the dataset's first
    chunk, as stored."""
    with h5py.File(path, "r") as f:
        _, raw = f["x"].id.read_direct_chunk((0,) * f["x"].ndim)
    assert raw[:4] == b"PARZ" and raw[6] == LOSSLESS
    return tuple(raw[48:52])


@pytest.mark.parametrize("chunks", [(20000,), (4096,)])
def test_series_choices(tmp_path, chunks):
    """The encoder's own choices for series, through the filter: Holt's predictor for a trend,
    the value dictionary for a record of few levels, the delta for a random walk; all exact."""
    i = np.arange(20000)
    rng = np.random.default_rng(4)
    trend = 250.0 + 0.37 * i + 0.05 * (i % 400 - 200) + 1e-6 * rng.integers(0, 5, i.size)
    levels = np.array([-2.2014e-4, -2.1537e-4, -2.106e-4, -0.0, 1e300])[
        (i // 7 + i // 13 + rng.integers(0, 2, i.size)) % 5]
    walk = np.cumsum(rng.integers(-1000, 1001, i.size)).astype(np.int64)
    for name, a, want in (("trend", trend, (0, 2)), ("levels", levels, (128, None)),
                          ("walk", walk, (0, 0))):
        path = tmp_path / (name + ".h5")
        with h5py.File(path, "w") as f:
            f.create_dataset("x", data=a, chunks=chunks, **parz.Parz(codec="lossless"))
        with h5py.File(path, "r") as f:
            assert same_bits(f["x"][...], a), name
            assert same_bits(f["x"][123:4567:3], a[123:4567:3]), name
            stored = f["x"].id.get_storage_size()
        got = chunk_params(path)
        assert got[0] == want[0] and (want[1] is None or got[1] == want[1]), (name, got)
        if name == "levels":
            assert stored < a.nbytes / 3, stored
        out = parz_command("inspect", str(path))
        said = {"trend": "images, holt %d/8 %d/8" % got[2:4], "levels": "  dictionary of 5, ",
                "walk": "  images, lorenzo\n"}[name]
        assert said in out, out


EEG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "series",
                   "eeg_f64le_4x800.bin")


def test_row_choice(tmp_path):
    """The encoder's choice for more dimensions, through the filter: each row along itself for
    independent records (random walks far apart, channels of a recording), Lorenzo for a smooth
    field; exact, windows too, and parz inspect says which. The EEG record (4 channels, a row
    each) stores less than gzip-6 + shuffle."""
    rng = np.random.default_rng(9)
    walks = (np.cumsum(rng.integers(-1000, 1001, (6, 5000)), axis=1) * 1e-3 +
             1e4 * np.arange(6)[:, None])
    y, x = np.mgrid[0:90, 0:130]
    smooth = 3.0 * x + 0.25 * y * y
    eeg = np.fromfile(EEG, "<f8").reshape(4, 800)
    for name, a, want in (("walks", walks, 3), ("smooth", smooth, 0), ("eeg", eeg, 3)):
        path = tmp_path / (name + ".h5")
        with h5py.File(path, "w") as f:
            f.create_dataset("x", data=a, chunks=a.shape, **parz.Parz(codec="lossless"))
            f.create_dataset("g", data=a, chunks=a.shape, compression="gzip",
                             compression_opts=6, shuffle=True)
        with h5py.File(path, "r") as f:
            assert same_bits(f["x"][...], a), name
            assert same_bits(f["x"][1:3, 17:700:7], a[1:3, 17:700:7]), name
            stored, gzip = f["x"].id.get_storage_size(), f["g"].id.get_storage_size()
        assert chunk_params(path)[1] == want, (name, chunk_params(path))
        if name == "eeg":
            assert stored < gzip, (stored, gzip)
        out = parz_command("inspect", str(path))
        assert (", rows\n" if want else ", lorenzo\n") in out, out
