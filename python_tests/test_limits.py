"""docs/limits-and-pitfalls.md, claim by claim: a tolerance finer than the data can resolve,
what h5py's optional filters do when ParZ fails on a chunk, and h5repack's silent fallback (with
the `parz` command finding both)."""
import os
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest

import parz
from conftest import CHUNK_ERRORS_ON_STDERR


def round_trip(path, data, **mode):
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=data, chunks=data.shape, compression=parz.Parz(**mode))
    with h5py.File(path, "r") as f:
        return f["x"][...], f["x"].id.get_storage_size()


# zfp keeps 30 (float32) or 62 (float64) bits below a block's largest magnitude, so beside 1000.0
# a tolerance of 1e-7 (1e-15) is out of its reach; ParZ stores the 1000.0 exactly (one mask
# value), every other value keeps the tolerance, and the chunk is the one of 1000.0 named as the
# fill value (docs/modes.md, "What each mode promises").
@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-7), (np.float64, 1e-15)])
def test_tolerance_below_the_blocks_resolution_holds(tmp_path, dtype, tol):
    rng = np.random.default_rng(2)
    a = rng.uniform(0.001, 0.002, (256, 256)).astype(dtype)
    a[::4, ::4] = 1000.0  # one large value in every 4x4 block
    b, size = round_trip(tmp_path / "t.h5", a, accuracy=tol)
    err = np.abs(b.astype(np.float64) - a.astype(np.float64)).max()
    assert err <= tol, err
    assert np.array_equal(a[::4, ::4], b[::4, ::4])
    _, named = round_trip(tmp_path / "n.h5", a, accuracy=tol, fill_value=1000.0)
    assert size == named


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-6), (np.float64, 1e-14)])
def test_tolerance_below_every_ulp_is_exact_but_larger_than_reversible(tmp_path, dtype, tol):
    rng = np.random.default_rng(1)
    a = (1000.0 + rng.standard_normal((256, 256))).astype(dtype)
    assert tol < np.spacing(dtype(999.0))
    b, size = round_trip(tmp_path / "a.h5", a, accuracy=tol)
    c, reversible_size = round_trip(tmp_path / "r.h5", a, reversible=True)
    assert np.array_equal(a, b) and np.array_equal(a, c)
    assert size > reversible_size


# A process that writes one 32 MiB chunk with only 1.2x its size of address space left: HDF5
# still gets its chunk buffer, ParZ cannot get the compressed chunk's.
WRITE_UNDER_LIMIT = textwrap.dedent("""
    import os, resource, sys
    import h5py, numpy as np
    import parz
    path, flag = sys.argv[1], sys.argv[2]
    n = 8 << 20
    a = np.arange(n, dtype=np.float32) * np.float32(1e-3)
    f = h5py.File(path, "w")
    if flag == "optional":
        d = f.create_dataset("x", shape=(n,), dtype="f4", chunks=(n,),
                             compression=parz.Parz(accuracy=1e-3))
    else:
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((n,))
        dcpl.set_filter(parz.FILTER_ID, h5py.h5z.FLAG_MANDATORY, parz.cd_values(accuracy=1e-3))
        h5py.h5d.create(f.id, b"x", h5py.h5t.IEEE_F32LE, h5py.h5s.create_simple((n,)), dcpl=dcpl)
        d = f["x"]
    vm = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    limit = vm + int(1.2 * a.nbytes)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        d[...] = a
        f.close()
    except OSError as e:
        print("write failed:", e)
        sys.exit(3)
    print("write ok")
""")


def write_under_limit(path, flag):
    env = dict(os.environ, PARZ_EXEC="serial")  # one thread: no thread to create under the limit
    return subprocess.run([sys.executable, "-c", WRITE_UNDER_LIMIT, str(path), flag], env=env,
                          capture_output=True, text=True, timeout=300)


def test_optional_filter_failure_stores_the_chunk_raw(tmp_path, parz_tool):
    path = tmp_path / "optional.h5"
    r = write_under_limit(path, "optional")
    assert r.returncode == 0 and "write ok" in r.stdout, r.stdout + r.stderr
    with h5py.File(path, "r") as f:
        d = f["x"]
        assert d.id.get_chunk_info(0).filter_mask == 1  # ParZ skipped for this chunk
        assert d.id.get_storage_size() == d.size * 4
        assert np.array_equal(d[...], np.arange(d.size, dtype=np.float32) * np.float32(1e-3))
    out = subprocess.run([parz_tool, "inspect", str(path)], capture_output=True, text=True)
    assert out.returncode == 0 and "stored without ParZ" in out.stdout, out.stdout + out.stderr


def test_mandatory_filter_failure_fails_the_write(tmp_path):
    r = write_under_limit(tmp_path / "mandatory.h5", "mandatory")
    told = r.stdout + (r.stderr if CHUNK_ERRORS_ON_STDERR else "")
    assert r.returncode == 3 and "parz: cannot allocate" in told, r.stdout + r.stderr


@pytest.mark.parametrize("cd,plugin_path", [
    ((parz.MODE_PRECISION, 99), None),               # invalid: precision is 1..64
    ((parz.MODE_REVERSIBLE,), "/nonexistent"),       # valid, but no plugin to load
])
def test_h5repack_falls_back_silently_and_parz_verify_notices(tmp_path, egm96, parz_tool, cd,
                                                              plugin_path):
    raw = tmp_path / "raw.h5"
    with h5py.File(raw, "w") as f:
        f.create_dataset("x", data=egm96[:64, :64])
    out = tmp_path / "out.h5"
    env = dict(os.environ)
    if plugin_path:
        env["HDF5_PLUGIN_PATH"] = plugin_path
    r = subprocess.run(["h5repack", "-l", "x:CHUNK=32x32", "-f",
                        "x:UD=%d,0,%d,%s" % (parz.FILTER_ID, len(cd), ",".join(map(str, cd))),
                        str(raw), str(out)], capture_output=True, text=True, env=env)
    assert r.returncode == 0  # h5repack's fallback: the dataset copied without the filter
    v = subprocess.run([parz_tool, "verify", str(out)], capture_output=True, text=True)
    assert v.returncode == 4 and "no ParZ dataset" in v.stderr, v.stdout + v.stderr
