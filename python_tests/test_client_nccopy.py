"""docs/clients/netcdf-c.md, run as written: nccopy compresses the data variables of a netCDF
classic file with ParZ, each with its own _FillValue (`parz cd-values --nccopy '*' --from`), and
leaves the coordinate variables alone; ncdump -hs shows the filter and ncdump reads the values
with the plugin on the path. The file is levitus's first depth levels with ferret's fill value
-1e34 on land, written by ncgen. A failing nccopy names ParZ's reason on stderr (netCDF itself
says only "NetCDF: HDF error"); h5py keeps the reason in its exception and prints nothing."""
import os
import re
import shutil
import subprocess

import h5py
import numpy as np
import pytest

import client_recipes
import parz
from client_recipes import ok
from conftest import DEBIAN_PLUGIN_DIR, PLUGIN_DIR, fresh_python, load

PAGE = "netcdf-c.md"
MISSING = [t for t in ("nccopy", "ncdump", "ncgen") if shutil.which(t) is None]
pytestmark = pytest.mark.skipif(bool(MISSING), reason="%s missing: apt-get install netcdf-bin"
                                % ", ".join(MISSING))

FILL = -1e34  # ferret's _FillValue in levitus_climatology.cdf
TOL = 0.01    # the page's --accuracy
DEPTHS = 4


def recipe(name):
    return client_recipes.recipe(PAGE, name)


def tool_dir():
    d = os.path.join(os.path.dirname(PLUGIN_DIR or ""), "tools")
    if not os.path.isfile(os.path.join(d, "parz")):
        pytest.skip("the parz command is not built next to the plugin")
    return d


def plugin_path_block():
    """The page's plugin-path block with this build's plugin directory in its first line."""
    code = recipe("plugin-path")
    first, rest = code.split("\n", 1)
    assert first.startswith("PARZ_PLUGINS="), first
    return "PARZ_PLUGINS=%s\n%s" % (PLUGIN_DIR, rest)


def bash(code, cwd, plugin_path=True):
    """Runs code in bash in cwd, with `parz` on PATH and the page's plugin path (or only
    Debian's plugin directory); returns the CompletedProcess (text)."""
    env = {k: v for k, v in os.environ.items() if k != "HDF5_PLUGIN_PATH"}
    env["PATH"] = os.pathsep.join([tool_dir(), env.get("PATH", "")])
    if plugin_path:
        code = plugin_path_block() + "\n" + code
    else:
        env["HDF5_PLUGIN_PATH"] = DEBIAN_PLUGIN_DIR
    return subprocess.run(["bash", "-c", code], cwd=str(cwd), env=env, capture_output=True,
                          text=True, timeout=300)


def numbers(values, fmt):
    return ", ".join(fmt % v for v in values.ravel())


@pytest.fixture(scope="module")
def levitus_nc(tmp_path_factory):
    """levitus.nc, netCDF classic as ferret's file is: temp(depth, lat, lon) float and
    sst(lat, lon) double with _FillValue -1e34 on land, nobs(lat, lon) int (-99 on land),
    coordinate variables depth, lat, lon. Returns (directory, arrays)."""
    a = load("levitus_temp_f32le_20x180x360.bin")[:DEPTHS].copy()
    land = a == np.float32(-1e10)  # the raw array's own fill value
    a[land] = np.float32(FILL)
    sst = a[0].astype(np.float64)
    sst[land[0]] = FILL
    nobs = np.where(land, 0, 1).sum(axis=0).astype(np.int32)
    nobs[nobs == 0] = -99
    v = {"depth": np.array([0, 10, 20, 30], np.float32), "lat": np.arange(180) - 89.5,
         "lon": np.arange(360) + 20.5, "temp": a, "sst": sst, "nobs": nobs}
    cdl = """netcdf levitus {
dimensions:
  depth = %d ; lat = 180 ; lon = 360 ;
variables:
  float depth(depth) ; depth:units = "m" ; depth:positive = "down" ;
  double lat(lat) ; lat:units = "degrees_north" ;
  double lon(lon) ; lon:units = "degrees_east" ;
  float temp(depth, lat, lon) ; temp:units = "degC" ;
    temp:_FillValue = -1.e+34f ; temp:missing_value = -1.e+34f ;
  double sst(lat, lon) ; sst:units = "degC" ; sst:_FillValue = -1.e+34 ;
  int nobs(lat, lon) ; nobs:_FillValue = -99 ;
data:
  depth = %s ;
  lat = %s ;
  lon = %s ;
  temp = %s ;
  sst = %s ;
  nobs = %s ;
}
""" % (DEPTHS, numbers(v["depth"], "%.9g"), numbers(v["lat"], "%.17g"),
       numbers(v["lon"], "%.17g"), numbers(v["temp"], "%.9g"), numbers(v["sst"], "%.17g"),
       numbers(v["nobs"], "%d"))
    d = tmp_path_factory.mktemp("nccopy")
    (d / "levitus.cdl").write_text(cdl)
    ok(subprocess.run(["ncgen", "-k", "nc3", "-o", "levitus.nc", "levitus.cdl"], cwd=str(d),
                      capture_output=True, text=True))
    return d, v


@pytest.fixture(scope="module")
def compressed(levitus_nc):
    """The page's compress block run as written; returns (directory, arrays, its stderr)."""
    d, v = levitus_nc
    r = bash(recipe("compress"), d)
    ok(r)
    return d, v, r.stderr


def test_filters_list_data_variables_only(compressed):
    d, v, stderr = compressed
    lines = (d / "filters.txt").read_text().splitlines()
    assert [ln.split(",")[0] for ln in lines] == ["temp", "sst"], lines
    f32 = float(np.float32(FILL))
    assert lines[0] == "temp,37050," + ",".join(
        str(x) for x in parz.cd_values(accuracy=TOL, fill_value=f32))
    assert lines[1] == "sst,37050," + ",".join(
        str(x) for x in parz.cd_values(accuracy=TOL, fill_value=FILL))
    for name in ("depth", "lat", "lon", "nobs"):  # each named on stderr with its reason
        assert re.search(r"left out %s: " % name, stderr), stderr


def test_values_within_bound_fill_exact(compressed):
    d, v, _ = compressed
    with h5py.File(d / "levitus_parz.nc", "r") as f:
        for name in ("temp", "sst"):
            ds = f[name]
            assert str(parz.FILTER_ID) in ds._filters, (name, ds._filters)
            assert ds.id.get_storage_size() < ds.size * ds.dtype.itemsize / 3
            orig, back = v[name], ds[...]
            assert back.dtype == orig.dtype
            land = orig == orig.dtype.type(FILL)
            assert land.any() and (~land).any()
            err = np.abs(back[~land].astype(np.float64) - orig[~land])
            assert err.max() <= TOL and err.max() > 0, err.max()
            assert (back[land] == orig.dtype.type(FILL)).all()  # bit for bit: masked
        for name in ("depth", "lat", "lon", "nobs"):  # untouched, unfiltered
            ds = f[name]
            assert not ds._filters, (name, ds._filters)
            assert ds[...].tobytes() == v[name].tobytes(), name


def test_ncdump_shows_filter(compressed):
    d, _, _ = compressed
    out = ok(bash(recipe("check"), d))
    filtered = set(re.findall(r'(\w+):_Filter = "37050,', out))
    assert filtered == {"temp", "sst"}, out
    assert "_Filter" not in re.sub(r"\b(temp|sst):_Filter[^\n]*", "", out), out


def test_ncdump_reads_values(compressed):
    d, _, _ = compressed
    out = ok(bash(recipe("read"), d))
    body = out.split("temp =", 1)[1].split(";", 1)[0]
    words = body.replace(",", " ").split()
    with h5py.File(d / "levitus_parz.nc", "r") as f:
        back = f["temp"][...].ravel()
    assert len(words) == back.size
    land = back == np.float32(FILL)
    assert all(w == "_" for w in np.asarray(words)[land])  # ncdump's mark for the fill value
    got = np.array([float(w) for w in np.asarray(words)[~land]])
    assert np.allclose(got, back[~land], rtol=1e-6, atol=1e-5)
    # without the plugin ncdump cannot decode temp and says so
    r = bash(recipe("read"), d, plugin_path=False)
    assert r.returncode != 0 or "temp =" not in r.stdout
    assert "NetCDF: Filter error" in r.stderr or "HDF error" in r.stderr, r.stderr


def test_deflated_input(levitus_nc, tmp_path):
    """nccopy keeps an input's deflate and ignores -F for that variable (exit 0): parz cd-values
    refuses it, and the page's two steps compress it."""
    src, v = levitus_nc
    d = tmp_path
    ok(bash("nccopy -d 4 -s '%s' levitus_deflated.nc" % (src / "levitus.nc"), d))
    r = bash("parz cd-values --nccopy '*' --from levitus_deflated.nc --accuracy 0.01", d)
    assert r.returncode == 2 and not r.stdout, r
    assert "nccopy -d 0 levitus_deflated.nc plain.nc" in r.stderr, r.stderr
    ok(bash(recipe("deflated"), d))
    with h5py.File(d / "levitus_parz2.nc", "r") as f:
        for name in ("temp", "sst"):
            assert list(f[name]._filters) == [str(parz.FILTER_ID)], f[name]._filters
        back = f["temp"][...]
    land = v["temp"] == np.float32(FILL)
    assert (back[land] == np.float32(FILL)).all()
    assert np.abs(back[~land].astype(np.float64) - v["temp"][~land]).max() <= TOL


def test_failure_names_reason_and_leaves_partial_file(levitus_nc):
    """The page's failure example: an integer variable given a fill value that is no integer.
    nccopy exits 1, ParZ's reason is on stderr, and a partial output file stays behind."""
    d, _ = levitus_nc
    r = bash(recipe("failure"), d)
    assert r.returncode != 0, r
    assert "HDF5 filter ParZ: parz: fill value 0.5 is not a value of the dataset's type int32" \
        in r.stderr, r.stderr
    assert "NetCDF: HDF error" in r.stderr
    # what it leaves behind opens as netCDF, without the variable that failed
    header = ok(subprocess.run(["ncdump", "-h", "bad.nc"], cwd=str(d), capture_output=True,
                               text=True))
    assert "float temp(depth, lat, lon)" in header and "nobs" not in header, header


def test_failure_accuracy_on_int(levitus_nc):
    d, _ = levitus_nc
    cd = ",".join(str(x) for x in parz.cd_values(accuracy=TOL))
    r = bash("nccopy -F 'nobs,37050,%s' levitus.nc bad_int.nc" % cd, d)
    assert r.returncode != 0
    assert re.search(r"HDF5 filter ParZ: parz: accuracy mode needs floating-point", r.stderr), \
        r.stderr


def test_h5py_keeps_reason_in_exception_not_stderr():
    """The same refusal under h5py: the message is in the exception, nothing on stderr (netCDF
    is not loaded in that process)."""
    r = fresh_python("""
import h5py, parz
with h5py.File("mem.h5", "w", driver="core", backing_store=False) as f:
    try:
        f.create_dataset("x", shape=(64, 64), dtype="i4", chunks=(32, 32),
                         compression=parz.Parz(precision=16, fill_value=0.5))
    except Exception as e:
        print("raised:", e)
""")
    assert "raised:" in r.stdout and "fill value 0.5 is not a value" in r.stdout, r
    assert "HDF5 filter ParZ" not in r.stderr, r.stderr
