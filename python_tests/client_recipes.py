"""What the tests of docs/clients/*.md share: a page's code blocks, run exactly as written in a
fresh interpreter or shell, one of three ways (after `import parz`, through the page's plugin
path, or with neither); the netCDF-4 file the recipes start from; the checks of values against
the bound and of the filter in a dataset's pipeline.

A block to run follows a line `<!-- recipe: NAME -->` on its page. The plugin-path way runs the
page's `plugin-path` block in bash and the block without its `import parz` line (as the pages
say to use it); the import way hides every plugin directory (HDF5_PLUGIN_PATH names an empty
one), so only the registration by `import parz` can supply the filter."""
import ast
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest

import parz
from conftest import DEBIAN_PLUGIN_DIR, ROOT, load

PAGES = os.path.join(ROOT, "docs", "clients")
LEVITUS = "levitus_temp_f32le_20x180x360.bin"
LEVITUS_FILL = np.float32(-1e10)  # the data's own fill value (../shared/data/README.md)
LEVITUS_DEPTHS = 4                # the first depth levels, enough for every recipe
TOL = 0.01                        # the recipes' accuracy= (degrees C)


def recipe(page, name):
    """The code of the block that follows `<!-- recipe: name -->` on docs/clients/page."""
    with open(os.path.join(PAGES, page), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"<!-- recipe: %s -->\s*```[a-z]*\n(.*?)```" % re.escape(name), text, re.S)
    assert m, "%s has no block after <!-- recipe: %s -->" % (page, name)
    return m.group(1)


def _child_env(hdf5_plugin_path):
    """This environment with this copy of parz importable, `python3` the interpreter running the
    tests (the pages' commands call it) and HDF5_PLUGIN_PATH as given."""
    env = {k: v for k, v in os.environ.items() if k != "HDF5_PLUGIN_PATH"}
    here = os.path.dirname(os.path.dirname(os.path.abspath(parz.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([here] + [p for p in [env.get("PYTHONPATH")] if p])
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    env["HDF5_PLUGIN_PATH"] = hdf5_plugin_path
    return env


def without_import_parz(code):
    """code less its `import parz` lines (the plugin-path way: "the same code, without it")."""
    lines = [ln for ln in code.splitlines() if ln.split("#")[0].strip() != "import parz"]
    assert len(lines) < len(code.splitlines()), "the block has no `import parz` line:\n" + code
    return "\n".join(lines) + "\n"


def run(page, code, cwd, way, shell=False):
    """Runs code (Python, or bash with shell=True) in cwd in a fresh process, `way` being
    "import" (HDF5_PLUGIN_PATH an empty directory: only `import parz` in the code supplies the
    filter), "path" (the page's plugin-path block first; `import parz` lines dropped, and parz
    must stay unimported) or "none" (only Debian's plugin directory). Returns the
    CompletedProcess (text)."""
    empty = os.path.join(str(cwd), "no-plugins")
    os.makedirs(empty, exist_ok=True)
    if way == "import":
        assert shell or "import parz" in code
        env, prologue = _child_env(empty), ""
    elif way in ("path", "none"):
        if not shell and "import parz" in code:
            code = without_import_parz(code)
        if not shell:
            code += "\nimport sys\nassert 'parz' not in sys.modules, 'a client imported parz'\n"
        env = _child_env(DEBIAN_PLUGIN_DIR)
        prologue = recipe(page, "plugin-path") if way == "path" else ""
    else:
        raise ValueError(way)
    if shell:
        script = "set -e\n" + prologue + "\n" + code
    else:
        script = prologue + '\nexec "%s" - <<\'PARZ_RECIPE\'\n%sPARZ_RECIPE\n' % (sys.executable,
                                                                                  code)
    return subprocess.run(["bash", "-c", script], cwd=str(cwd), env=env, capture_output=True,
                          text=True, timeout=300)


def ok(r):
    """Asserts that a run succeeded; returns its stdout."""
    assert r.returncode == 0, "exit %d\nstdout:\n%s\nstderr:\n%s" % (r.returncode, r.stdout,
                                                                     r.stderr)
    return r.stdout


def assert_one_hdf5(page, cwd):
    """The page's one-hdf5 block (`import parz`, the client's import, the HDF5 libraries mapped
    in the process) names one HDF5 library, besides its high-level part: the one h5py and
    therefore `import parz` use."""
    out = ok(run(page, recipe(page, "one-hdf5"), cwd, "import"))
    libs = ast.literal_eval(out.strip().splitlines()[-1])
    core = [lib for lib in libs if not os.path.basename(lib).startswith(("libhdf5_hl",
                                                                          "libhdf5_serial_hl"))]
    assert len(core) == 1 and "libhdf5" in core[0], libs


def levitus():
    """The Levitus temperature climatology's first depth levels (fill value -1e10)."""
    return load(LEVITUS)[:LEVITUS_DEPTHS]


def write_levitus_nc(path, parz_settings=None):
    """levitus.nc, where the recipes start: an uncompressed netCDF-4 file with temp(depth, lat,
    lon), _FillValue -1e10 (the data's own), and its coordinate variables. Written with h5netcdf
    (xarray's engine), or netCDF4-python when h5netcdf is missing. With parz_settings (a
    parz.Parz), temp is compressed by them in chunks of (1, 90, 180): the file the recipes of
    readers start from (h5netcdf needed)."""
    a = levitus()
    coords = {"depth": np.array([0.0, 10.0, 20.0, 30.0]), "lat": np.arange(180) - 89.5,
              "lon": np.arange(360) + 20.5}
    try:
        import h5netcdf
        with h5netcdf.File(str(path), "w") as f:
            f.dimensions = {k: len(v) for k, v in coords.items()}
            for k, v in coords.items():
                f.create_variable(k, (k,), "f8", data=v)
            compressed = {} if parz_settings is None else {"compression": parz_settings,
                                                           "chunks": (1, 90, 180)}
            t = f.create_variable("temp", ("depth", "lat", "lon"), "f4", data=a,
                                  fillvalue=LEVITUS_FILL, **compressed)
            t.attrs["units"] = "degC"
    except ImportError:
        if parz_settings is not None:
            pytest.skip("h5netcdf is not installed (Debian: python3-h5netcdf)")
        netCDF4 = pytest.importorskip(
            "netCDF4", reason="neither python3-h5netcdf nor python3-netcdf4 is installed")
        with netCDF4.Dataset(str(path), "w") as f:
            for k, v in coords.items():
                f.createDimension(k, len(v))
                f.createVariable(k, "f8", (k,))[:] = v
            t = f.createVariable("temp", "f4", ("depth", "lat", "lon"), fill_value=LEVITUS_FILL)
            t.set_auto_mask(False)
            t[:] = a
            t.units = "degC"
    return a


def filters(path, name):
    """The ids of the filters in dataset name's pipeline."""
    with h5py.File(path, "r") as f:
        plist = f[name].id.get_create_plist()
        return [plist.get_filter(i)[0] for i in range(plist.get_nfilters())]


def assert_parz(path, name, fill=None):
    """name in path went through ParZ: the filter is in its pipeline, its stored chunks are
    smaller than its values, and its HDF5 fill value is `fill` (when given)."""
    assert parz.FILTER_ID in filters(path, name), (path, name, filters(path, name))
    with h5py.File(path, "r") as f:
        d = f[name]
        assert d.id.get_storage_size() < d.size * d.dtype.itemsize
        if fill is not None:
            assert d.fillvalue == fill, d.fillvalue


def assert_within(back, orig, tol, missing, fill=LEVITUS_FILL):
    """back holds orig within tol (0: bit for bit) where orig is a value, and exactly `missing`
    (NaN: a NaN) where orig is the fill value or NaN."""
    back = np.asarray(back)
    assert back.shape == orig.shape, (back.shape, orig.shape)
    gone = np.isnan(orig) | (orig == fill)
    kept = ~gone
    assert kept.any()
    if tol == 0:
        assert back[kept].tobytes() == orig[kept].tobytes()
    else:
        err = np.abs(back[kept].astype(np.float64) - orig[kept])
        assert np.isfinite(err).all() and err.max() <= tol, err.max()
        assert err.max() > 0  # lossy: the values really were decoded, not copied
    if np.isnan(missing):
        assert np.isnan(back[gone]).all()
    else:
        assert (back[gone] == missing).all()


def write_recipe(page, tmp_path_factory):
    """levitus.nc and, from it, the page's write recipe's levitus_parz.nc, in a new directory;
    returns (the directory, the original values)."""
    d = tmp_path_factory.mktemp(os.path.splitext(page)[0])
    a = write_levitus_nc(d / "levitus.nc")
    ok(run(page, recipe(page, "write"), d, "import"))
    return d, a


def assert_levitus_copy(d, a):
    """levitus_parz.nc in d is levitus.nc with temp through ParZ (in chunks of (1, 90, 180), the
    fill value kept, the values within the bound) and the coordinates unfiltered, unchanged."""
    p = str(d / "levitus_parz.nc")
    assert_parz(p, "temp", fill=LEVITUS_FILL)
    with h5py.File(p, "r") as f, h5py.File(str(d / "levitus.nc"), "r") as g:
        for coordinate in ("depth", "lat", "lon"):
            assert filters(p, coordinate) == []
            assert np.array_equal(f[coordinate][...], g[coordinate][...])
        assert f["temp"].chunks == (1, 90, 180)
        assert f["temp"].attrs["units"] in ("degC", b"degC")
        # the file holds the fill value itself where the data did: masked, not NaN
        assert_within(f["temp"][...], a, TOL, missing=LEVITUS_FILL)


def assert_ncdump_check(page, d):
    """The page's ncdump check, on levitus_parz.nc in d, names ParZ on temp alone and the fill
    value -1e10."""
    if shutil.which("ncdump") is None:
        pytest.skip("ncdump is not installed (Debian: netcdf-bin)")
    out = ok(run(page, recipe(page, "check"), d, "none", shell=True))
    assert '\ttemp:_Filter = "37050,' in out and out.count("_Filter") == 1, out
    assert "temp:_FillValue = -1.e+10f ;" in out, out
