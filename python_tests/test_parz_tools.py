"""HDF5's command-line tools with the plugin, as subprocesses: h5dump and h5ls show the filter,
h5repack compresses with UD=37050,..., re-applies stored settings, and converts H5Z-ZFP files
(filter 32013) to ParZ and back with the values within the bound."""
import os
import re
import subprocess

import h5py
import numpy as np
import pytest

import parz
from conftest import FILTER_NAME, write_read

ZFP_ID = 32013


def run(*args):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=os.environ)
    assert r.returncode == 0, "%s failed:\n%s\n%s" % (args, r.stdout, r.stderr)
    return r.stdout


def ud(cd):
    return "UD=%d,0,%d,%s" % (parz.FILTER_ID, len(cd), ",".join(str(v) for v in cd))


def read(path, name="x"):
    with h5py.File(path, "r") as f:
        return f[name][...]


def filter_values(path, fid, name="x"):
    with h5py.File(path, "r") as f:
        plist = f[name].id.get_create_plist()
        for i in range(plist.get_nfilters()):
            code, flags, values, fname = plist.get_filter(i)
            if code == fid:
                return values, fname
    return None, None


@pytest.fixture
def parz_file(tmp_path, egm96):
    path = tmp_path / "parz.h5"
    write_read(path, egm96, (100, 128), parz.Parz(accuracy=1e-2))
    return path


def test_h5dump_shows_filter_and_data(parz_file, egm96):
    out = run("h5dump", "-p", "-H", parz_file)
    assert "FILTER_ID 37050" in out
    assert re.search("COMMENT %s\n" % FILTER_NAME, out)
    assert "PARAMS { 1001 3 " in out  # internal form v1, accuracy mode
    data = run("h5dump", "-d", "/x", "-s", "0,0", "-c", "1,4", "-m", "%.9g", parz_file)
    body = re.sub(r"\(\d+,\d+\):", " ", data.split("DATA {")[1].split("}")[0])
    values = [float(v) for v in body.replace(",", " ").split()]
    assert np.allclose(values, egm96[0, :4], atol=1e-2, rtol=0)


def test_h5ls_shows_filter(parz_file):
    out = run("h5ls", "-v", parz_file)
    assert re.search("Filter-0: +%s-37050 " % FILTER_NAME, out)


@pytest.mark.parametrize("cd,check", [
    ((3, 0x3F847AE1, 0x47AE147B), lambda a, b: np.max(np.abs(a - b)) <= 0.01),
    ((5,), lambda a, b: a.tobytes() == b.tobytes()),
    ((2, 24), lambda a, b: np.max(np.abs(a - b)) < 1e-2),
    ((1, 0x40200000, 0), lambda a, b: np.max(np.abs(a - b)) < 2.0),
])
def test_h5repack_compresses(tmp_path, egm96, cd, check):
    raw = tmp_path / "raw.h5"
    with h5py.File(raw, "w") as f:
        f.create_dataset("x", data=egm96)
    out = tmp_path / "out.h5"
    run("h5repack", "-l", "x:CHUNK=100x256", "-f", "x:" + ud(cd), raw, out)
    values, name = filter_values(out, parz.FILTER_ID)
    assert re.fullmatch(FILTER_NAME, name.decode()) and values[0] == 1001 and values[1] == cd[0]
    assert check(read(out).astype(np.float64), egm96.astype(np.float64))
    assert os.path.getsize(out) < os.path.getsize(raw) or cd[0] == 5


def test_h5repack_reapplies_stored_settings(tmp_path, parz_file, egm96):
    # Same filter kept (stored internal form re-applied by set_local) with a new chunk shape:
    # the internal form is recognised and the chunk shape in it follows the new chunks.
    out = tmp_path / "rechunked.h5"
    run("h5repack", "-l", "x:CHUNK=1x1440", parz_file, out)
    values, _ = filter_values(out, parz.FILTER_ID)
    assert values[0] == 1001 and values[8] == 1440 and values[9] == 0  # squeezed to rank 1
    assert np.max(np.abs(read(out) - egm96)) <= 1e-2 + 1e-2  # decoded, re-encoded once more
    # Removing the filter gives the plain decoded values.
    plain = tmp_path / "plain.h5"
    run("h5repack", "-f", "NONE", parz_file, plain)
    assert filter_values(plain, parz.FILTER_ID)[0] is None
    assert np.array_equal(read(plain), read(parz_file))


@pytest.mark.skipif(not os.path.isfile("/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins/libh5zzfp.so"),
                    reason="H5Z-ZFP (hdf5-filter-plugin-zfp-serial) not installed")
def test_h5repack_converts_zfp_to_parz_and_back(tmp_path, egm96):
    tol = 1e-3
    # H5Z-ZFP generic cd_values: mode, unused, then the double in native (little-endian) word
    # order: low word first.
    hi, lo = parz.double_words(tol)
    zfp_cd = (3, 0, lo, hi)
    src = tmp_path / "zfp.h5"
    with h5py.File(src, "w") as f:
        f.create_dataset("x", data=egm96, chunks=(100, 256), compression=ZFP_ID,
                         compression_opts=zfp_cd)
    assert filter_values(src, ZFP_ID)[0] is not None
    zfp_values = read(src)
    assert np.max(np.abs(zfp_values - egm96)) <= tol

    to_parz = tmp_path / "parz.h5"
    run("h5repack", "-f", "x:" + ud((3, hi, lo)), src, to_parz)
    assert filter_values(to_parz, ZFP_ID)[0] is None
    assert re.fullmatch(FILTER_NAME, filter_values(to_parz, parz.FILTER_ID)[1].decode())
    parz_values = read(to_parz)
    assert np.max(np.abs(parz_values - zfp_values)) <= tol
    assert np.max(np.abs(parz_values - egm96)) <= 2 * tol

    back = tmp_path / "zfp_again.h5"
    run("h5repack", "-f", "x:UD=%d,0,4,%s" % (ZFP_ID, ",".join(map(str, zfp_cd))), to_parz, back)
    assert filter_values(back, parz.FILTER_ID)[0] is None
    assert filter_values(back, ZFP_ID)[0] is not None
    assert np.max(np.abs(read(back) - egm96)) <= 3 * tol


def test_h5repack_reversible_round_trip_is_exact(tmp_path, vasp):
    raw = tmp_path / "raw.h5"
    with h5py.File(raw, "w") as f:
        f.create_dataset("x", data=vasp, chunks=(8, 64, 64))
    packed, unpacked = tmp_path / "p.h5", tmp_path / "u.h5"
    run("h5repack", "-f", "x:" + ud((5,)), raw, packed)
    run("h5repack", "-f", "NONE", packed, unpacked)
    assert read(unpacked).tobytes() == vasp.tobytes()
    assert os.path.getsize(packed) < os.path.getsize(raw)


def test_h5repack_refuses_bad_parameters(tmp_path, egm96):
    # set_local refuses precision 99: h5repack then copies the dataset without the filter (its
    # documented fallback), so nothing is ever encoded with invalid parameters.
    raw = tmp_path / "raw.h5"
    with h5py.File(raw, "w") as f:
        f.create_dataset("x", data=egm96[:64, :64])
    out = tmp_path / "bad.h5"
    r = subprocess.run(["h5repack", "-l", "x:CHUNK=32x32", "-f", "x:" + ud((2, 99)), str(raw),
                        str(out)], capture_output=True, text=True)
    if r.returncode == 0:
        assert filter_values(out, parz.FILTER_ID)[0] is None
        assert np.array_equal(read(out), egm96[:64, :64])


def test_h5repack_shuffle_before_parz(tmp_path, egm96):
    """h5repack applies -f filters in the order given. SHUF before ParZ is refused at creation
    (it would compress shuffled bytes as values: errors of 1e36 at accuracy 1e-2). h5repack then
    copies the dataset with its original settings and still exits 0 (h5repack -v says "could not
    create dataset"); the output holds the exact values and no ParZ. ParZ first, then SHUF or
    FLET, is accepted."""
    raw = tmp_path / "raw.h5"
    a = egm96[:64, :64]
    with h5py.File(raw, "w") as f:
        f.create_dataset("x", data=a)
    acc = (3, 0x3F847AE1, 0x47AE147B)
    out = tmp_path / "shuf_first.h5"
    r = subprocess.run(["h5repack", "-v", "-l", "x:CHUNK=32x32", "-f", "x:SHUF", "-f",
                        "x:" + ud(acc), str(raw), str(out)], capture_output=True, text=True)
    if r.returncode == 0:
        assert "could not create dataset" in r.stdout + r.stderr
        assert filter_values(out, parz.FILTER_ID)[0] is None
        assert np.array_equal(read(out), a)
    for second in ("SHUF", "FLET"):
        out = tmp_path / ("parz_then_%s.h5" % second)
        run("h5repack", "-l", "x:CHUNK=32x32", "-f", "x:" + ud(acc), "-f", "x:" + second, raw, out)
        assert filter_values(out, parz.FILTER_ID)[0] is not None
        assert np.max(np.abs(read(out).astype("f8") - a)) <= 0.01


def test_h5repack_failure_caught_by_documented_check(tmp_path, egm96):
    """h5repack hides a filter it cannot apply: it exits 0 and writes the dataset with its
    original settings. The check docs/cd_values.md gives next to every recipe catches it: `h5repack -v`
    prints "could not create dataset", and `h5ls -v` lists no filter 37050 for the output; with
    valid parameters there is no warning and h5ls lists the filter."""
    raw = tmp_path / "raw.h5"
    with h5py.File(raw, "w") as f:
        f.create_dataset("data", data=egm96[:64, :64])
    bad, good = tmp_path / "bad.h5", tmp_path / "good.h5"
    r = subprocess.run(["h5repack", "-v", "-l", "CHUNK=32x32", "-f", ud((2, 99)), str(raw),
                        str(bad)], capture_output=True, text=True)
    assert r.returncode == 0  # what h5repack does: no error status
    assert "could not create dataset </data>" in r.stdout
    assert ")-37050" not in run("h5ls", "-v", "%s/data" % bad)
    out = run("h5repack", "-v", "-l", "CHUNK=32x32", "-f", ud((5,)), raw, good)
    assert "could not" not in out
    assert ")-37050" in run("h5ls", "-v", "%s/data" % good)
    assert np.array_equal(read(good, "data"), egm96[:64, :64])
