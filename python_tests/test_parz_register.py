"""`import parz` registers the filter with h5py's own HDF5 (no HDF5_PLUGIN_PATH, no install),
parz.get_config() reports the plugin's build, and the version agrees everywhere."""
import os
import re
import shutil

import h5py
import numpy as np
import pytest

import parz
from conftest import ROOT, fresh_python


def test_import_registers_in_a_fresh_process(tmp_path):
    """A file written here reads in a process that has no HDF5_PLUGIN_PATH, and that process
    writes one that reads here; its HDF5 plugin search path never names the plugin."""
    a = np.linspace(-1, 1, 96 * 80, dtype="f4").reshape(96, 80)
    with h5py.File(tmp_path / "here.h5", "w") as f:
        f.create_dataset("a", data=a, chunks=(32, 40), compression=parz.Parz(accuracy=1e-3))
    code = """
import os, h5py, numpy as np
assert "HDF5_PLUGIN_PATH" not in os.environ
import parz
assert h5py.h5z.filter_avail(parz.FILTER_ID)
paths = [os.fsdecode(h5py.h5pl.get(i)) for i in range(h5py.h5pl.size())]
assert parz.plugin_dir() not in paths, paths
with h5py.File(%(here)r, "r") as f:
    b = f["a"][...]
    assert np.abs(b - np.linspace(-1, 1, 96 * 80, dtype="f4").reshape(96, 80)).max() <= 1e-3
with h5py.File(%(there)r, "w") as f:
    f.create_dataset("b", data=b, chunks=(48, 80), compression=parz.Parz(reversible=True))
print("fresh process ok")
""" % {"here": str(tmp_path / "here.h5"), "there": str(tmp_path / "there.h5")}
    r = fresh_python(code)
    assert r.returncode == 0 and "fresh process ok" in r.stdout, r.stdout + r.stderr
    assert "Warning" not in r.stderr, r.stderr
    with h5py.File(tmp_path / "here.h5", "r") as f, h5py.File(tmp_path / "there.h5", "r") as g:
        assert np.array_equal(f["a"][...], g["b"][...])


def test_import_without_plugin_warns_but_keeps_settings(tmp_path):
    """A copy of the package with no module anywhere: import parz still gives the settings,
    warns, and register() says what is missing."""
    pkg = tmp_path / "parz"
    pkg.mkdir()
    here = os.path.dirname(os.path.abspath(parz.__file__))
    for name in os.listdir(here):
        if name.endswith(".py") and name != "_plugin_dir.py":
            shutil.copy(os.path.join(here, name), pkg / name)
    # the copy has no _plugin_dir.py, but still looks in HDF5's usual directories
    others = [d for d in parz._lib.HDF5_PLUGIN_DIRS
              if os.path.isfile(os.path.join(d, parz.PLUGIN_NAME))]
    if others:
        pytest.skip("a plugin is installed in %s" % others[0])
    code = """
import warnings, h5py
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    import parz
print("from:", parz.__file__)
print("warned:", " | ".join(str(x.message) for x in w))
print("opts:", parz.Parz(accuracy=0.01).filter_options)
print("avail:", h5py.h5z.filter_avail(parz.FILTER_ID))
try:
    parz.register()
except FileNotFoundError as e:
    print("register:", e)
"""
    r = fresh_python(code, PYTHONPATH=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "from: %s" % (pkg / "__init__.py") in r.stdout, r.stdout
    assert "warned: parz: libH5Zparz.so not found" in r.stdout, r.stdout
    assert "opts: (3, 1065646817, 1202590843)" in r.stdout
    assert "avail: False" in r.stdout
    assert "register: parz: libH5Zparz.so not found" in r.stdout


def test_second_hdf5_library_is_refused():
    """The module serves one HDF5 library per process: registering it with another one loaded
    next to h5py's (Debian's parallel or serial HDF5, whichever h5py does not use) fails with a
    message and leaves h5py's working."""
    code = """
import ctypes, glob, os, h5py, numpy as np, parz
from parz import _lib
mapped = open("/proc/self/maps").read()
other = None
for pattern in ("/usr/lib/x86_64-linux-gnu/libhdf5_openmpi.so.*",
                "/usr/lib/x86_64-linux-gnu/libhdf5_serial.so.*",
                "/opt/h5/usr/lib/x86_64-linux-gnu/libhdf5_serial.so.*"):
    for path in sorted(glob.glob(pattern)):
        if os.path.realpath(path) not in mapped:
            try:
                other = ctypes.CDLL(path, mode=os.RTLD_LOCAL)
                break
            except OSError:
                pass
    if other is not None:
        break
if other is None:
    print("no second HDF5 library")
    raise SystemExit(0)
addr = ctypes.cast(other.H5Zregister, ctypes.c_void_p).value
why = ctypes.create_string_buffer(512)
print("rc", _lib.library().parz_h5_register(addr, why, len(why)), why.value.decode())
a = np.arange(64, dtype="f4").reshape(8, 8)
with h5py.File("second.h5", "w", driver="core", backing_store=False) as f:
    f.create_dataset("a", data=a, chunks=(8, 8), compression=parz.Parz(reversible=True))
    assert np.array_equal(f["a"][...], a)
print("h5py still ok")
"""
    r = fresh_python(code, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    assert r.returncode == 0, r.stdout + r.stderr
    if "no second HDF5 library" in r.stdout:
        pytest.skip("no second HDF5 library to load next to h5py's")
    assert "rc -1 parz: the plugin is bound to the HDF5 library in" in r.stdout, r.stdout
    assert "cannot serve a second one" in r.stdout
    assert "h5py still ok" in r.stdout


def _codec_version():
    with open(os.path.join(ROOT, "codec", "parz.h")) as f:
        text = f.read()
    parts = [re.search(r"#define PARZ_VERSION_%s +(\d+)" % p, text).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def test_version_agrees_with_codec_header():
    assert re.fullmatch(r"\d+\.\d+\.\d+", parz.__version__)
    assert parz.__version__ == _codec_version()
    assert parz.get_config().version == parz.__version__


def test_get_config():
    c = parz.get_config()
    assert c._fields == ("version", "plugin", "openmp", "cuda", "gpu")
    assert os.path.samefile(c.plugin, os.path.join(parz.plugin_dir(), parz.PLUGIN_NAME))
    assert all(isinstance(v, bool) for v in (c.openmp, c.cuda, c.gpu))
    assert c.cuda or not c.gpu
    # openmp: the module needs libgomp, now mapped into this process
    with open("/proc/self/maps") as f:
        assert ("libgomp" in f.read()) == c.openmp
    # cuda: the CUDA module beside the plugin is mapped into this process; the plugin holds no
    # CUDA runtime (the one that opens the driver by name is in the module)
    module = os.path.realpath(os.path.join(os.path.dirname(c.plugin), "parz_cuda.so"))
    with open("/proc/self/maps") as f:
        assert (module in f.read()) == c.cuda
    with open(c.plugin, "rb") as f:
        assert b"libcuda.so" not in f.read()
