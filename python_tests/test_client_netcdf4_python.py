"""docs/clients/netcdf4-python.md, run as written: netCDF-C's nc_def_var_filter through ctypes
writes ParZ, netCDF4-python reads it after `import parz` and through the plugin path, and its own
compression= cannot name the filter."""
import os

import numpy as np
import pytest

import parz
from client_recipes import (LEVITUS_FILL, TOL, assert_levitus_copy, assert_ncdump_check,
                            assert_one_hdf5, assert_within, filters, ok, recipe, run,
                            write_recipe)

netCDF4 = pytest.importorskip("netCDF4", reason="netCDF4-python is not installed (Debian: "
                              "python3-netcdf4)")
PAGE = "netcdf4-python.md"
SAVE = ("\nimport numpy as np\nnp.save('back.npy', temp.filled(np.nan))\n"
        "np.save('mask.npy', np.ma.getmaskarray(temp))\n")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    return write_recipe(PAGE, tmp_path_factory)


def test_write_puts_parz_on_temp_alone(written):
    assert_levitus_copy(*written)


def test_check_shows_the_filter(written):
    assert_ncdump_check(PAGE, written[0])


@pytest.mark.parametrize("way", ["import", "path"])
def test_read(written, way):
    """A masked array: within the bound, masked exactly at the fill value."""
    d, a = written
    out = d / way
    os.makedirs(out)
    os.symlink(d / "levitus_parz.nc", out / "levitus_parz.nc")
    ok(run(PAGE, recipe(PAGE, "read") + SAVE, out, way))
    assert np.array_equal(np.load(out / "mask.npy"), a == LEVITUS_FILL)
    assert_within(np.load(out / "back.npy"), a, TOL, missing=np.nan)


def test_read_without_plugin_fails_as_the_page_says(written):
    d, _ = written
    r = run(PAGE, recipe(PAGE, "read"), d, "none")
    assert r.returncode != 0, r.stdout
    assert "RuntimeError: NetCDF: Filter error: undefined filter encountered" in r.stderr, r.stderr


def test_compression_cannot_name_parz(tmp_path):
    with netCDF4.Dataset(str(tmp_path / "x.nc"), "w") as ds:
        ds.createDimension("x", 10)
        for c in ("parz", parz.FILTER_ID, parz.Parz(accuracy=0.01)):
            with pytest.raises(ValueError, match="Unsupported value for compression kwarg"):
                ds.createVariable("v", "f4", ("x",), compression=c)


def test_def_var_parz_refusals_are_the_pages(tmp_path):
    """The page's def_var_parz raises netCDF-C's reason when the filter is unknown to HDF5 and
    when the variable already holds values, and writes nothing wrong."""
    helper = recipe(PAGE, "write").split("\nwith netCDF4.Dataset(")[0]
    code = helper + """
import h5py
with netCDF4.Dataset("late.nc", "w") as ds:
    ds.createDimension("x", 100)
    v = ds.createVariable("v", "f4", ("x",), chunksizes=(50,))
    v[:] = 1.0
    try:
        def_var_parz(v, parz.Parz(accuracy=0.01))
    except RuntimeError as e:
        print("late:", e)
    h5py.h5z.unregister_filter(parz.FILTER_ID)
    w = ds.createVariable("w", "f4", ("x",), chunksizes=(50,))
    try:
        def_var_parz(w, parz.Parz(accuracy=0.01))
    except RuntimeError as e:
        print("unknown:", e)
"""
    out = ok(run(PAGE, code, tmp_path, "import"))
    assert "late: nc_def_var_filter: NetCDF: Operation not allowed in define mode" in out, out
    assert "unknown: nc_def_var_filter: NetCDF: Filter error: undefined filter encountered" in out
    p = str(tmp_path / "late.nc")
    assert filters(p, "v") == [] and filters(p, "w") == []


def test_import_parz_reaches_netcdf_c(tmp_path):
    """Why `import parz` works for netCDF-C: one HDF5 library in the process (the page's check)."""
    assert_one_hdf5(PAGE, tmp_path)


def test_refused_settings_fail_at_the_write_with_parz_reason(tmp_path):
    """What the page says of settings ParZ refuses: def_var_parz passes, the write fails with
    netCDF's "HDF error", and ParZ's reason is on stderr."""
    helper = recipe(PAGE, "write").split("\nwith netCDF4.Dataset(")[0]
    code = helper + """
import numpy as np
with netCDF4.Dataset("int.nc", "w") as ds:
    ds.createDimension("x", 100)
    v = ds.createVariable("n", "i4", ("x",), chunksizes=(50,))
    def_var_parz(v, parz.Parz(accuracy=0.01))
    print("defined")
    v[:] = np.arange(100)
"""
    r = run(PAGE, code, tmp_path, "import")
    assert r.returncode != 0 and r.stdout == "defined\n", r.stdout
    assert "RuntimeError: NetCDF: HDF error" in r.stderr, r.stderr
    assert ("HDF5 filter ParZ: parz: accuracy mode needs floating-point data; for int32 datasets"
            in r.stderr), r.stderr


def test_filters_do_not_show_parz(written):
    """What the page says: netCDF4-python's filters() reports no compression for ParZ."""
    d, _ = written
    with netCDF4.Dataset(str(d / "levitus_parz.nc")) as ds:
        shown = ds["temp"].filters()
    assert not any(shown.values()), shown
    assert parz.FILTER_ID in filters(str(d / "levitus_parz.nc"), "temp")
