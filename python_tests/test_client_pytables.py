"""docs/clients/pytables.md, run as written: PyTables reads ParZ datasets of files it did not
write (netCDF-4 from h5netcdf, plain HDF5 from h5py) after `import parz` and through the plugin
path: within the bound and the fill value exact, or bit for bit when reversible."""
import os

import h5py
import numpy as np
import pytest

import parz
from client_recipes import (LEVITUS_FILL, TOL, assert_one_hdf5, assert_parz, assert_within,
                            filters, ok, recipe, run, write_levitus_nc)

pytest.importorskip("tables", reason="PyTables is not installed (Debian: python3-tables)")
PAGE = "pytables.md"


@pytest.fixture(scope="module")
def written(tmp_path_factory, vasp):
    """levitus_parz.nc as the xarray recipe writes it, vasp_parz.h5 (reversible, by h5py), and
    the original values of both."""
    d = tmp_path_factory.mktemp("pytables")
    a = write_levitus_nc(d / "levitus_parz.nc", parz.Parz(accuracy=TOL))
    with h5py.File(d / "vasp_parz.h5", "w") as f:
        f.create_dataset("rho", data=vasp, chunks=(8, 64, 64),
                         compression=parz.Parz(reversible=True))
    assert_parz(str(d / "vasp_parz.h5"), "rho")
    return d, a, vasp


def here(written, tmp_path):
    d = written[0]
    for name in ("levitus_parz.nc", "vasp_parz.h5"):
        os.symlink(d / name, tmp_path / name)
    return tmp_path


@pytest.mark.parametrize("way", ["import", "path"])
def test_read_lossy_netcdf4_file(written, way, tmp_path):
    _, a, _ = written
    save = "\nimport numpy as np\nnp.save('back.npy', temp)\nnp.save('surface.npy', surface)\n"
    ok(run(PAGE, recipe(PAGE, "read") + save, here(written, tmp_path), way))
    back = np.load(tmp_path / "back.npy")
    assert_within(back, a, TOL, missing=LEVITUS_FILL)
    assert np.array_equal(np.load(tmp_path / "surface.npy"), back[0])


@pytest.mark.parametrize("way", ["import", "path"])
def test_read_reversible_h5py_file(written, way, tmp_path):
    _, _, rho = written
    save = "\nimport numpy as np\nnp.save('back.npy', rho)\n"
    ok(run(PAGE, recipe(PAGE, "read-reversible") + save, here(written, tmp_path), way))
    back = np.load(tmp_path / "back.npy")
    assert back.dtype == rho.dtype and back.tobytes() == rho.tobytes()


def test_without_plugin_fails_as_the_page_says(written, tmp_path):
    r = run(PAGE, recipe(PAGE, "read"), here(written, tmp_path), "none")
    assert r.returncode != 0
    assert "HDF5ExtError" in r.stderr and "Problems reading the array data." in r.stderr, r.stderr


def test_what_the_page_says_of_pytables_itself(written):
    """A chunked ParZ dataset is a CArray whose filters say complevel 0, and Filters cannot name
    ParZ."""
    import tables
    d = written[0]
    with tables.open_file(str(d / "vasp_parz.h5")) as f:
        assert isinstance(f.root.rho, tables.CArray)
        assert f.root.rho.filters.complevel == 0
    with pytest.raises(ValueError, match="compression library ``parz`` is not supported"):
        tables.Filters(complevel=5, complib="parz")
    assert parz.FILTER_ID in filters(str(d / "vasp_parz.h5"), "rho")


def test_import_parz_reaches_pytables(tmp_path):
    """Why `import parz` works for PyTables: one HDF5 library in the process."""
    assert_one_hdf5(PAGE, tmp_path)
