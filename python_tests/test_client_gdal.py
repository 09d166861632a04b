"""docs/clients/gdal.md, run as written: gdalinfo and gdal_translate through the plugin path,
osgeo.gdal after `import parz` and through the plugin path (a 3-D variable as bands), the netCDF
driver's flipped rows, and what the tools do without the plugin."""
import os
import shutil

import numpy as np
import pytest

import parz
from client_recipes import (LEVITUS_FILL, TOL, assert_one_hdf5, assert_parz, assert_within, ok,
                            recipe, run, write_levitus_nc)

PAGE = "gdal.md"


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """levitus_parz.nc as the xarray recipe writes it, and the original values."""
    d = tmp_path_factory.mktemp("gdal")
    a = write_levitus_nc(d / "levitus_parz.nc", parz.Parz(accuracy=TOL))
    assert_parz(str(d / "levitus_parz.nc"), "temp", fill=LEVITUS_FILL)
    return d, a


def gdal_tools():
    if shutil.which("gdal_translate") is None or shutil.which("gdalinfo") is None:
        pytest.skip("GDAL's tools are not installed (Debian: gdal-bin)")


def osgeo_gdal():
    return pytest.importorskip("osgeo.gdal", reason="GDAL's Python bindings are not installed "
                               "(Debian: python3-gdal)")


def test_cli_reads_every_band(written):
    gdal_tools()
    d, a = written
    out = ok(run(PAGE, recipe(PAGE, "cli"), d, "path", shell=True))
    sums = [line.split("=")[1] for line in out.split() if line.startswith("Checksum=")]
    assert len(sums) == 4 and "-1" not in sums, out
    assert out.count("NoData Value=-1e+10") == 4, out
    gdal = osgeo_gdal()
    tif = gdal.Open(str(d / "temp.tif"))
    assert tif.GetDriver().ShortName == "GTiff" and tif.RasterCount == 4
    assert_within(tif.ReadAsArray(), a, TOL, missing=LEVITUS_FILL)


def test_cli_without_plugin_as_the_page_says(written, tmp_path):
    """gdalinfo alone reads no values and succeeds; with -checksum it succeeds with checksums of
    -1; gdal_translate fails, writing nothing."""
    gdal_tools()
    d, _ = written
    os.symlink(d / "levitus_parz.nc", tmp_path / "levitus_parz.nc")
    r = run(PAGE, recipe(PAGE, "cli"), tmp_path, "none", shell=True)
    assert r.returncode != 0
    assert r.stdout.count("Checksum=-1") == 4, r.stdout
    assert "H5Dread() failed for block" in r.stderr, r.stderr
    assert not os.path.exists(tmp_path / "temp.tif")
    first = recipe(PAGE, "cli").splitlines()[0].split(" | ")[0]
    r = run(PAGE, first, tmp_path, "none", shell=True)
    assert r.returncode == 0 and r.stdout.count("Checksum=-1") == 4, r.stdout + r.stderr
    r = run(PAGE, first.replace(" -checksum", ""), tmp_path, "none", shell=True)
    assert r.returncode == 0 and "Band 4 " in r.stdout and "HDF5-DIAG" not in r.stderr, r.stderr


@pytest.mark.parametrize("way", ["import", "path"])
def test_python_reads_bands(written, way, tmp_path):
    osgeo_gdal()
    d, a = written
    os.symlink(d / "levitus_parz.nc", tmp_path / "levitus_parz.nc")
    save = "\nimport numpy as np\nnp.save('back.npy', temp)\nprint(nodata)\n"
    out = ok(run(PAGE, recipe(PAGE, "read") + save, tmp_path, way))
    assert float(out.split()[-1]) == LEVITUS_FILL
    back = np.load(tmp_path / "back.npy")
    assert back.dtype == np.float32
    assert_within(back, a, TOL, missing=LEVITUS_FILL)


def test_netcdf_driver_flips_rows(written, tmp_path):
    osgeo_gdal()
    d, a = written
    os.symlink(d / "levitus_parz.nc", tmp_path / "levitus_parz.nc")
    save = "\nimport numpy as np\nnp.save('back.npy', temp_north_up)\n"
    ok(run(PAGE, recipe(PAGE, "netcdf-driver") + save, tmp_path, "import"))
    assert_within(np.load(tmp_path / "back.npy")[:, ::-1, :], a, TOL, missing=LEVITUS_FILL)


def test_import_parz_reaches_gdal(tmp_path):
    """Why `import parz` works for osgeo.gdal: one HDF5 library in the process."""
    osgeo_gdal()
    assert_one_hdf5(PAGE, tmp_path)
