"""docs/clients/xarray.md, run as written: the h5netcdf engine writes ParZ, both engines read it
after `import parz` and through the plugin path, and the netcdf4 engine drops the setting."""
import os

import h5py
import numpy as np
import pytest

from client_recipes import (LEVITUS_FILL, TOL, assert_levitus_copy, assert_ncdump_check,
                            assert_one_hdf5, assert_parz, assert_within, filters, ok, recipe,
                            run, write_levitus_nc, write_recipe)

pytest.importorskip("xarray", reason="xarray is not installed (Debian: python3-xarray)")
PAGE = "xarray.md"
SAVE = "\nimport numpy as np\nnp.save('back.npy', temp)\n"


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    pytest.importorskip("h5netcdf", reason="the h5netcdf engine is not installed (Debian: "
                        "python3-h5netcdf)")
    return write_recipe(PAGE, tmp_path_factory)


def test_h5netcdf_engine_writes_parz(written):
    assert_levitus_copy(*written)


def test_check_shows_the_filter(written):
    assert_ncdump_check(PAGE, written[0])


@pytest.mark.parametrize("way", ["import", "path"])
@pytest.mark.parametrize("engine", ["h5netcdf", "netcdf4"])
def test_engine_reads(written, engine, way):
    """Each engine reads the values within the bound, fill values as NaN, either way."""
    pytest.importorskip("netCDF4" if engine == "netcdf4" else "h5netcdf",
                        reason="the %s engine is not installed (Debian: python3-%s)"
                        % (engine, engine))
    d, a = written
    out = d / engine / way
    os.makedirs(out)
    os.symlink(d / "levitus_parz.nc", out / "levitus_parz.nc")
    ok(run(PAGE, recipe(PAGE, "read-" + engine) + SAVE, out, way))
    assert_within(np.load(out / "back.npy"), a, TOL, missing=np.nan)


@pytest.mark.parametrize("engine,message", [
    ("h5netcdf", "required filter 'ParZ-"),
    ("netcdf4", "NetCDF: Filter error: undefined filter encountered")])
def test_engine_without_plugin_fails_as_the_page_says(written, engine, message):
    pytest.importorskip("netCDF4" if engine == "netcdf4" else "h5netcdf",
                        reason="the %s engine is not installed" % engine)
    d, _ = written
    r = run(PAGE, recipe(PAGE, "read-" + engine), d, "none")
    assert r.returncode != 0 and message in r.stderr, r.stderr


def test_netcdf4_engine_drops_parz_silently(tmp_path):
    """What the page warns of: to_netcdf without engine= (netcdf4) takes parz.Parz in encoding,
    says nothing, and stores temp uncompressed. If this fails, xarray changed: update the page."""
    pytest.importorskip("netCDF4", reason="the netcdf4 engine is not installed (Debian: "
                        "python3-netcdf4)")
    a = write_levitus_nc(tmp_path / "levitus.nc")
    r = ok(run(PAGE, recipe(PAGE, "netcdf4-engine"), tmp_path, "import"))
    assert r == ""
    p = str(tmp_path / "levitus_nc4.nc")
    assert filters(p, "temp") == []
    with h5py.File(p, "r") as f:
        assert f["temp"].id.get_storage_size() == a.nbytes == 1036800


def test_import_parz_reaches_both_engines(tmp_path):
    """Why `import parz` works for both engines: one HDF5 library in the process."""
    pytest.importorskip("netCDF4", reason="python3-netcdf4 is not installed")
    pytest.importorskip("h5netcdf", reason="python3-h5netcdf is not installed")
    assert_one_hdf5(PAGE, tmp_path)


def test_netcdf4_engine_refuses_the_spread_form(tmp_path):
    """The page's form, **parz.Parz(...), makes the netcdf4 engine fail aloud; the file it leaves
    holds the coordinates only, as the page says."""
    pytest.importorskip("netCDF4", reason="the netcdf4 engine is not installed (Debian: "
                        "python3-netcdf4)")
    write_levitus_nc(tmp_path / "levitus.nc")
    r = run(PAGE, recipe(PAGE, "netcdf4-engine-refuses"), tmp_path, "import")
    assert r.returncode != 0
    assert ("ValueError: unexpected encoding parameters for 'netCDF4' backend: "
            "['compression_opts']") in r.stderr, r.stderr
    with h5py.File(str(tmp_path / "levitus_nc4.nc"), "r") as f:
        assert sorted(f) == ["depth", "lat", "lon"]


def test_h5netcdf_engine_takes_the_object_form(tmp_path):
    """What the page says of "compression": parz.Parz(...): h5netcdf writes ParZ with it too."""
    pytest.importorskip("h5netcdf", reason="the h5netcdf engine is not installed (Debian: "
                        "python3-h5netcdf)")
    a = write_levitus_nc(tmp_path / "levitus.nc")
    code = recipe(PAGE, "write").replace("{**parz.Parz(accuracy=0.01),",
                                         '{"compression": parz.Parz(accuracy=0.01),')
    assert '"compression": parz.Parz' in code
    ok(run(PAGE, code, tmp_path, "import"))
    p = str(tmp_path / "levitus_parz.nc")
    assert_parz(p, "temp", fill=LEVITUS_FILL)
    with h5py.File(p, "r") as f:
        assert_within(f["temp"][...], a, TOL, missing=LEVITUS_FILL)


@pytest.mark.parametrize("engine", ["h5netcdf", "netcdf4"])
def test_lazy_reads_in_dask_threads(written, engine, tmp_path):
    """What the page says of chunks= in open_dataset: dask's threads decode, `import parz`
    covers them."""
    pytest.importorskip("dask.array", reason="dask is not installed (Debian: python3-dask)")
    pytest.importorskip("netCDF4" if engine == "netcdf4" else "h5netcdf",
                        reason="the %s engine is not installed (Debian: python3-%s)"
                        % (engine, engine))
    d, a = written
    os.symlink(d / "levitus_parz.nc", tmp_path / "levitus_parz.nc")
    opened = 'xr.open_dataset("levitus_parz.nc", engine="%s")' % engine
    code = recipe(PAGE, "read-" + engine)
    assert opened in code
    code = code.replace(opened, opened[:-1] + ', chunks={"depth": 1})')
    code = code.replace('temp = ds["temp"].values',
                        'assert ds["temp"].chunks is not None\n'
                        '    temp = ds["temp"].compute(scheduler="threads").values')
    ok(run(PAGE, code + SAVE, tmp_path, "import"))
    assert_within(np.load(tmp_path / "back.npy"), a, TOL, missing=np.nan)
