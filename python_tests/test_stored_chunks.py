"""Never bigger than raw: a chunk its encoding would make larger than its values is stored as
they are (codec 2, codec/FORMAT.md "Stored chunks"), in every mode, through h5py's writes and
parz.write, and reads back bit for bit through h5py, parz.read and the parz command.

Before stored chunks, data that is mostly +-Inf stored at 0.32x of its size in every mode
(reversible included), and int32 with the -2147483647 sentinel at 0.37x in precision mode."""
import subprocess

import h5py
import numpy as np
import pytest

import parz

MODES = {"accuracy": dict(accuracy=1e-3), "precision": dict(precision=16),
         "rate": dict(rate=8), "reversible": dict(reversible=True)}


def mostly_inf():
    rng = np.random.default_rng(7)
    x = np.where(rng.random((256, 300)) < 0.5, np.inf, -np.inf).astype("f4")
    x[::9, ::4] = rng.normal(size=x[::9, ::4].shape)
    return x


def sentinel_int32():
    rng = np.random.default_rng(8)
    x = np.full((256, 300), -2147483647, dtype="i4")
    x[::3] = rng.integers(-1000, 1000, size=x[::3].shape)
    return x


def random_bits():
    return np.random.default_rng(9).integers(0, 2**63, (256, 300), dtype=np.int64).view("f8")


ARRAYS = {"mostly_inf": mostly_inf, "sentinel_int32": sentinel_int32, "random_bits": random_bits}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_never_bigger_than_raw(tmp_path, name, mode, parz_tool):
    x = ARRAYS[name]()
    if x.dtype.kind == "i" and mode == "accuracy":
        pytest.skip("accuracy mode takes floating-point values")
    path = tmp_path / "s.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("h5py", data=x, chunks=(128, 300), compression=parz.Parz(**MODES[mode]))
        d = f.create_dataset("parz", shape=x.shape, dtype=x.dtype, chunks=(128, 300),
                             compression=parz.Parz(**MODES[mode]))
        parz.write(d, x)
    head = 136 + 8 * 2  # a stored chunk's head: header, directory, checksums of a partition
    with h5py.File(path, "r") as f:
        for dname in ("h5py", "parz"):
            d = f[dname]
            stored = d.id.get_storage_size()
            assert stored <= x.nbytes + 2 * head, (dname, stored, x.nbytes)
            back, fast = d[...], parz.read(d)
            assert back.tobytes() == fast.tobytes()
            if mode == "reversible" or name != "random_bits":
                # stored chunks (or a lossless mode) give every bit back; random bits in the
                # lossy modes may be encoded smaller than they are, and then are not exact
                assert back.tobytes() == x.tobytes(), dname
        for dname in ("h5py", "parz"):
            assert f[dname].id.read_direct_chunk((0, 0))[1] == \
                f["h5py"].id.read_direct_chunk((0, 0))[1]
    r = subprocess.run([parz_tool, "inspect", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # stored where the encoding would be larger: not the sentinel data in reversible mode
    # (1.25x), nor random bits in precision and rate modes (fewer bits than they have)
    stored = not ((name, mode) == ("sentinel_int32", "reversible") or
                  (name == "random_bits" and mode in ("precision", "rate")))
    assert ("stored chunks (their values as they are)" in r.stdout) == stored, r.stdout
    v = subprocess.run([parz_tool, "verify", str(path)], capture_output=True, text=True)
    assert v.returncode == 0 and "0 bad" in v.stdout, v.stdout + v.stderr
