"""The codec chosen end to end: Parz(codec=...), cd_values(codec=...), the filter's cd_values
and the chunk header. zfp stays the default, with every cd_values tuple as it was; a codec this
build does not know is refused naming it and the known ones, at creation through HDF5's error
stack and at a read of a chunk that names one. A second codec travels the whole path with the
test-only build of the plugin and of the parz command that hold the raw copy codec
(tests/codec_raw.cmake), in a process of its own."""
import os
import re
import struct
import subprocess
import sys

import h5py
import numpy as np
import pytest

import parz
from conftest import PLUGIN_DIR, chunk_error
from parz import _codecs, _lib

RAW_DIR = os.path.join(os.path.dirname(PLUGIN_DIR or ""), "tests", "codec_raw")
RAW_ID = 200


def test_zfp_is_the_default():
    for kw in (dict(accuracy=1e-3), dict(rate=8), dict(precision=20), dict(reversible=True),
               dict(expert=(1, 100, 30, -20)), dict(accuracy=0.5, segment_blocks=8, mask=False)):
        assert parz.Parz(codec="zfp", **kw) == parz.Parz(**kw)
        assert parz.cd_values(codec="zfp", **kw) == parz.cd_values(**kw)
    assert parz.cd_values(codec="zfp", accuracy=0.01) == (3, 0x3F847AE1, 0x47AE147B)
    assert "zfp" in parz.codecs()
    assert parz.codecs()["zfp"] == ("rate", "precision", "accuracy", "expert", "reversible")


def test_zfp_table_is_the_modules():
    """The package's copy of zfp's modes (for the settings before a module is loaded) is the
    module's own table."""
    text = _codecs.module_table(_lib.library())
    assert [l for l in text.splitlines() if l.startswith("zfp ")] == _codecs._ZFP.splitlines()


@pytest.mark.parametrize("codec", ["foo", "stored", "ZFP", ""])
def test_unknown_codec_name_refused(codec):
    for f in (parz.Parz, parz.cd_values):
        with pytest.raises(ValueError, match="parz: codec %r is unknown .* it knows zfp"
                           % re.escape(codec)):
            f(codec=codec, accuracy=1e-3)


def test_mode_of_another_codec_refused():
    with pytest.raises(TypeError, match="parz: cd_values got unknown argument copy"):
        parz.cd_values(copy=True)


@pytest.mark.parametrize("first,needle", [
    (65536 * 77 + 1, "cd_values\\[0\\] names codec 77, unknown to this plugin \\(it knows zfp "
                     "\\(1\\), lossless \\(3\\), bounded \\(4\\)\\)"),
    (65536 * 2 + 1, "names codec 2, unknown"),  # stored: no encoder is asked for it
    (65536 * 1 + 9, "unknown mode 9 in cd_values\\[0\\]"),
])
def test_unknown_codec_id_refused_by_the_filter(tmp_path, first, needle):
    """Through set_local and HDF5's error stack, nothing written."""
    with pytest.raises(Exception, match=needle):
        with h5py.File(tmp_path / "bad.h5", "w") as f:
            f.create_dataset("x", shape=(64, 64), dtype="f4", chunks=(32, 32),
                             compression=parz.FILTER_ID, compression_opts=(first, 0, 0))
    with h5py.File(tmp_path / "bad.h5", "r") as f:
        assert "x" not in f


def test_zfp_named_by_its_id(tmp_path):
    """cd[0] = 65536 * 1 + mode names zfp too, and writes what the short form writes."""
    data = np.linspace(0, 1, 64 * 64, dtype="f4").reshape(64, 64)
    stored = []
    for first in (3, 65536 + 3):
        with h5py.File(tmp_path / "z.h5", "w") as f:
            d = f.create_dataset("x", data=data, chunks=(32, 32), compression=parz.FILTER_ID,
                                 compression_opts=(first,) + parz.double_words(1e-3))
            stored.append((d.id.read_direct_chunk((0, 0))[1],
                           d.id.get_create_plist().get_filter(0)[2]))
    assert stored[0] == stored[1] and stored[0][1][0] == 1001


def test_chunk_of_unknown_codec_refused(tmp_path, capfd):
    """A chunk whose header names a codec this reader does not know fails its read, the message
    naming the id; the other chunks read."""
    data = np.arange(64 * 64, dtype="f4").reshape(64, 64)
    path = tmp_path / "c.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=data, chunks=(32, 32), compression=parz.Parz(accuracy=1e-3))
    with h5py.File(path, "r+") as f:
        info = f["x"].id.get_chunk_info_by_coord((0, 32))
    with open(path, "r+b") as fh:  # the header's codec id: u16 at byte 6 (codec/FORMAT.md)
        fh.seek(info.byte_offset + 6)
        fh.write(struct.pack("<H", 77))
    with h5py.File(path, "r") as f:
        with chunk_error(capfd, "codec 77 .*this reader knows codecs 1 \\(zfp\\), 2 \\(stored\\)"):
            f["x"][0:32, 32:64]
        assert np.allclose(f["x"][32:64, :], data[32:64, :], atol=1e-3)


def raw_tool():
    return os.path.join(RAW_DIR, "parz")


needs_raw = pytest.mark.skipif(
    not os.path.isfile(os.path.join(RAW_DIR, "libH5Zparz.so")),
    reason="the test-only plugin with the raw codec is built in the build tree only")

# Run in a process of its own: registering the raw plugin replaces the filter in this process.
# A raw chunk is as large as the stored chunk of its values only without checksums, mask and
# partial blocks; otherwise the filter writes the stored chunk ("n").
RAW_WRITER = r"""
import sys
import h5py, numpy as np, parz
parz.register(sys.argv[1])
assert parz.codecs() == {"zfp": ("rate", "precision", "accuracy", "expert", "reversible"),
                         "raw": ("copy",)}, parz.codecs()
a = np.linspace(-100, 100, 37 * 53, dtype="f4").reshape(37, 53)
n = a.copy()
n[3, 3] = np.nan
n[10, 10:20] = -9999.0
b = (np.arange(50 * 40, dtype="i8") * 7919 - 10**12).reshape(50, 40)
raw = parz.Parz(codec="raw", copy=True, checksum=False, mask=False)
assert raw.filter_options == (65536 * 200 + 1, 0, 0, 0, 2, 2), raw.filter_options
try:
    parz.Parz(codec="raw", accuracy=1e-3)
    sys.exit("accuracy taken for raw")
except ValueError as e:
    assert "codec raw has no mode accuracy; its modes: copy" in str(e), e
with h5py.File(sys.argv[2], "w") as f:
    f.create_dataset("a", data=a, chunks=(16, 32), compression=raw)
    f.create_dataset("n", data=n, chunks=(16, 32), fillvalue=-9999.0,
                     compression=parz.Parz(codec="raw", copy=True))
    # through H5Pset_filter (h5py's low-level property list)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((20, 40))
    dcpl.set_filter(parz.FILTER_ID, h5py.h5z.FLAG_MANDATORY, (65536 * 200 + 1, 0, 0, 0, 2, 2))
    d = h5py.h5d.create(f.id, b"b", h5py.h5t.NATIVE_INT64, h5py.h5s.create_simple(b.shape),
                        dcpl=dcpl)
    d.write(h5py.h5s.ALL, h5py.h5s.ALL, b)
    f.create_dataset("z", data=a, chunks=(16, 32), compression=parz.Parz(reversible=True))
with h5py.File(sys.argv[2], "r") as f:
    for name, want in (("a", a), ("n", n), ("b", b), ("z", a)):
        assert f[name][...].tobytes() == want.tobytes(), name
        assert parz.read(f[name]).tobytes() == want.tobytes(), name
    cd = f["a"].id.get_create_plist().get_filter(0)[2]
    assert cd[0] == 1003 and cd[1] >> 16 == 200 and (cd[1] >> 8) & 15 == 1, cd
    assert f["z"].id.get_create_plist().get_filter(0)[2][0] == 1001
print("ok")
"""


@needs_raw
def test_raw_codec_end_to_end(tmp_path):
    path = str(tmp_path / "raw.h5")
    r = subprocess.run([sys.executable, "-c", RAW_WRITER, RAW_DIR, path], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    # the test-only parz command names the codec of every chunk and of the dataset
    out = subprocess.run([raw_tool(), "inspect", path], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r"^/a  float32 [^\n]*\n  ParZ raw copy, table none, C auto, mask off\n",
                     out.stdout, re.M), out.stdout
    sections = re.split(r"^/", out.stdout, flags=re.M)[1:]
    codecs = {s.split()[0]: re.findall(r"^  \[[0-9,]+\] +[0-9]+ +[0-9.]+  (\S+) +\S+", s, re.M)
              for s in sections}
    assert codecs["a"] == ["raw"] * 6 and codecs["b"] == ["raw"] * 3, out.stdout
    assert codecs["z"] == ["zfp"] * 6 and " reversible " in sections[3], out.stdout
    # n's chunks with a mask outgrow their values: stored, and named so
    assert "stored" in codecs["n"] and set(codecs["n"]) <= {"raw", "stored"}, out.stdout
    # the product's plugin (this process's) and parz command do not know codec 200
    with h5py.File(path, "r") as f:
        with pytest.raises(OSError):
            f["a"][...]
        assert f["z"][...].tobytes() == f["z"][...].tobytes()
    out = subprocess.run([os.path.join(os.path.dirname(PLUGIN_DIR), "tools", "parz"), "inspect",
                          path + ":/a"], capture_output=True, text=True)
    want = "codec 200, unknown to this plugin (it knows zfp (1), lossless (3), bounded (4))"
    assert want in out.stdout + out.stderr, out.stdout + out.stderr
