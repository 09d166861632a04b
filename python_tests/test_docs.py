"""The user guide's claims about the first minutes with ParZ: the README's h5py example runs as
written and prints what its comment says, with no HDF5_PLUGIN_PATH; an HDF5_PLUGIN_PATH that
replaces Debian's plugin directory hides Debian's plugins (docs/tools.md, "The plugin path");
h5dump without the plugin prints an empty DATA section (the same page)."""
import os
import re
import subprocess

import h5py
import numpy as np
import parz
import pytest

from conftest import DEBIAN_PLUGIN_DIR, PLUGIN_DIR, ROOT, fresh_python


def _readme_example():
    """The first python block after the README's "A first example" heading."""
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    m = re.search(r"^## A first example.*?^```python\n(.*?)^```", text, re.S | re.M)
    assert m, "README.md has no python block under 'A first example'"
    return m.group(1)


def test_readme_example_runs_as_written_without_a_plugin_path(tmp_path):
    code = _readme_example()
    assert len(code.strip().splitlines()) <= 10
    printed = re.search(r"print\(.*#\s*([0-9.e+-]+)\s*$", code, re.M)
    assert printed, "the example's print line states its output in a comment"
    os.symlink(os.path.join(ROOT, "data"), tmp_path / "data")
    out = fresh_python("import os; os.chdir(%r)\n%s" % (str(tmp_path), code))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == printed.group(1)
    assert float(out.stdout) <= 1e-3
    raw = 721 * 1440 * 4
    assert os.path.getsize(tmp_path / "geoid.h5") < raw / 2  # compressed, not stored plain


def _h5dump_version():
    out = subprocess.run(["h5dump", "--version"], capture_output=True, text=True)
    m = re.search(r"Version (\d+)\.(\d+)", out.stdout)
    return (int(m.group(1)), int(m.group(2))) if m else None


@pytest.mark.skipif(_h5dump_version() != (1, 10), reason="docs/tools.md quotes h5dump 1.10")
def test_h5dump_without_the_plugin_prints_empty_data(tmp_path):
    path = str(tmp_path / "geoid.h5")
    a = np.arange(721 * 1440, dtype=np.float32).reshape(721, 1440)
    with h5py.File(path, "w") as f:
        f.create_dataset("geoid", data=a, chunks=(256, 1440),
                         compression=parz.Parz(accuracy=1e-3))
    empty = tmp_path / "no-plugins"
    empty.mkdir()
    env = dict(os.environ, HDF5_PLUGIN_PATH=str(empty))
    part = subprocess.run(["h5dump", "-d", "/geoid", "-s", "0,0", "-c", "2,4", path], env=env,
                          capture_output=True, text=True)
    assert part.returncode == 0
    assert part.stderr == ""
    assert re.search(r"DATA \{\n\s*\}", part.stdout)
    whole = subprocess.run(["h5dump", "-d", "/geoid", path], env=env, capture_output=True,
                           text=True)
    assert whole.returncode == 1
    assert "unable to print data" in whole.stderr
    assert re.search(r"DATA \{\n\s*\}", whole.stdout)
    env["HDF5_PLUGIN_PATH"] = PLUGIN_DIR
    found = subprocess.run(["h5dump", "-d", "/geoid", "-s", "0,0", "-c", "2,4", path], env=env,
                           capture_output=True, text=True)
    assert found.returncode == 0 and "(0,0): 0, 1, 2, 3," in found.stdout


@pytest.mark.skipif(not os.path.exists(os.path.join(DEBIAN_PLUGIN_DIR, "libh5zzfp.so")),
                    reason="needs Debian's H5Z-ZFP plugin (hdf5-filter-plugin-zfp-serial)")
def test_a_plugin_path_that_replaces_debians_hides_its_plugins(tmp_path):
    path = str(tmp_path / "zfp.h5")
    a = np.linspace(0, 1, 64 * 64, dtype=np.float32).reshape(64, 64)
    with h5py.File(path, "w") as f:  # H5Z-ZFP, reversible (its cd_values: mode 5, then 0)
        f.create_dataset("x", data=a, chunks=(64, 64), compression=32013, compression_opts=(5, 0))
    read = "import h5py; print(h5py.File(%r)['x'][...].sum())" % path
    alone = fresh_python(read, HDF5_PLUGIN_PATH=PLUGIN_DIR)
    assert alone.returncode != 0 and "is not registered" in alone.stderr
    appended = fresh_python(read, HDF5_PLUGIN_PATH=PLUGIN_DIR + ":" + DEBIAN_PLUGIN_DIR)
    assert appended.returncode == 0, appended.stderr
    assert abs(float(appended.stdout) - a.sum()) < 1e-3
