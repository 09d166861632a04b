"""docs/clients/dask.md, run as written: h5py writes ETOPO5 through ParZ, dask reduces it on
its threaded scheduler after `import parz` and through the plugin path (every value within the
bound), parz.read per block gives the same values, and the page's measurement runs."""
import os

import numpy as np
import pytest

from client_recipes import assert_parz, ok, recipe, run
from conftest import DATA_DIR

pytest.importorskip("dask.array", reason="dask is not installed (Debian: python3-dask)")
PAGE = "dask.md"
ETOPO = "etopo5_relief_f32le_2161x4320.bin"
TOL = 0.5  # the page's accuracy=


@pytest.fixture(scope="module")
def written(tmp_path_factory, etopo):
    """The write recipe's etopo_parz.h5 from the raw array, and the original values."""
    src = os.path.join(DATA_DIR, ETOPO)
    if not os.path.isfile(src):
        pytest.skip("shared data file %s is missing" % src)
    d = tmp_path_factory.mktemp("dask")
    os.symlink(src, d / ETOPO)
    ok(run(PAGE, recipe(PAGE, "write"), d, "import"))
    assert_parz(str(d / "etopo_parz.h5"), "relief")
    a = np.fromfile(src, "<f4").reshape(2161, 4320)
    assert np.array_equal(a[:400], etopo)
    return d, a


def at(written, tmp_path):
    os.symlink(written[0] / "etopo_parz.h5", tmp_path / "etopo_parz.h5")
    return tmp_path


@pytest.mark.parametrize("way", ["import", "path"])
def test_reduce(written, way, tmp_path):
    """The reduction's inputs are within the bound; its results are those of the values read."""
    _, a = written
    save = ("\nimport numpy as np\nnp.save('back.npy', x.compute(scheduler='threads'))\n"
            "print(repr(float(mean)), repr(float(low)), repr(float(high)))\n")
    out = ok(run(PAGE, recipe(PAGE, "reduce") + save, at(written, tmp_path), way))
    mean, low, high = (float(v) for v in out.split()[-3:])
    back = np.load(tmp_path / "back.npy")
    err = np.abs(back.astype(np.float64) - a)
    assert err.max() <= TOL and err.max() > 0
    assert low == back.min() and high == back.max()
    assert abs(low - a.min()) <= TOL and abs(high - a.max()) <= TOL
    assert mean == pytest.approx(back.mean(dtype=np.float64), rel=1e-5)


def test_without_plugin_fails_at_compute(written, tmp_path):
    r = run(PAGE, recipe(PAGE, "reduce"), at(written, tmp_path), "none")
    assert r.returncode != 0
    assert "OSError: Can't read data (required filter 'ParZ-" in r.stderr, r.stderr
    assert "compute" in r.stderr


def test_parz_read_blocks_same_values(written, tmp_path):
    save = ("\nimport numpy as np\nnp.save('y.npy', y.compute(scheduler='threads'))\n"
            "np.save('h5.npy', dset[...])\nprint(repr(float(mean)))\n")
    out = ok(run(PAGE, recipe(PAGE, "parz-read-blocks") + save, at(written, tmp_path), "import"))
    y, h5 = np.load(tmp_path / "y.npy"), np.load(tmp_path / "h5.npy")
    assert y.tobytes() == h5.tobytes()
    assert float(out.split()[-1]) == pytest.approx(h5.mean(dtype=np.float64), rel=1e-5)


def test_measurement_runs(written, tmp_path):
    """The page's measurement prints four cases, the first as the 1.00x reference."""
    out = ok(run(PAGE, recipe(PAGE, "measure"), at(written, tmp_path), "import"))
    lines = out.strip().splitlines()
    assert [ln.split("  ")[0].strip() for ln in lines] == [
        "h5py, block = chunk", "parz.read, block = chunk", "h5py, block = 4 chunks",
        "parz.read, block = 4 chunks"], out
    assert lines[0].endswith(" 1.00x"), out
