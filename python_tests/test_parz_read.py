"""parz.read on the CPU against h5py's own read of the same datasets: every type, fill values,
chunks at the edges, big-endian data, boxes of every kind of selection, out=, threads, and the
errors (selections it does not read, a wrong out=, datasets that are not ParZ, a corrupt chunk
named by its place, a flipped payload bit caught by the payload checksum). device="cuda" here
only where no GPU is usable: it must fail cleanly (test_parz_read_gpu.py reads into GPU
memory)."""
import numpy as np
import pytest

import h5py
import parz
from conftest import chunk_error, native, same


@pytest.mark.parametrize("name", ["f32", "f64", "i32", "i64", "be", "f4d", "fill"])
def test_whole_dataset(read_file, name):
    with h5py.File(read_file, "r") as f:
        d = f[name]
        got = parz.read(d)
        assert same(got, native(d[...]))
        assert got.dtype.byteorder in "=|" or got.dtype.isnative


SELECTIONS = [
    (), Ellipsis, (slice(None),), 5, -1, (slice(10, 70), slice(100, 600)),
    (slice(-20, None), slice(None, 7)), (3, slice(None)), (slice(None), 999),
    (Ellipsis, slice(5, 6)), (slice(50, 50), slice(None)), (slice(290, 400),),
    (slice(0, 300), slice(0, 1000)),
]


@pytest.mark.parametrize("sel", SELECTIONS, ids=[repr(s) for s in SELECTIONS])
def test_selections(read_file, sel):
    with h5py.File(read_file, "r") as f:
        d = f["f32"]
        assert same(parz.read(d, sel), d[sel] if d[sel].shape else np.asarray(d[sel]))


def test_selections_other_ranks(read_file):
    with h5py.File(read_file, "r") as f:
        for name, sel in [("i32", slice(995, 2005)), ("i32", 10006), ("f64", (1, slice(3, 40))),
                          ("f4d", (Ellipsis, slice(40, 60))), ("f4d", (1, 2, 3)),
                          ("be", (slice(31, 33), slice(63, 129))),
                          ("fill", (slice(40, 80), slice(30, 99)))]:
            d = f[name]
            assert same(parz.read(d, sel), native(np.asarray(d[sel]))), (name, sel)


def test_fill_values(read_file):
    with h5py.File(read_file, "r") as f:
        got = parz.read(f["fill"])
    assert (got[60:, :] == -7.5).all() and (got[:, 64:] == -7.5).all()
    assert not (got[:50, :40] == -7.5).any()


def test_out(read_file):
    with h5py.File(read_file, "r") as f:
        d = f["f64"]
        out = np.full(d.shape, 3.25)
        assert parz.read(d, out=out) is out
        assert same(out, d[...])
        box = np.empty((4, 64, 160))
        assert parz.read(d, (slice(2, 6), slice(0, 64)), out=box) is box
        assert same(box, d[2:6, 0:64])


@pytest.mark.parametrize("bad", [
    np.empty((20, 192, 160), "f4"),              # dtype
    np.empty((20, 192, 161)),                    # shape
    np.empty((20, 160, 192)).T.copy().T,         # not C-contiguous
])
def test_out_refused(read_file, bad):
    with h5py.File(read_file, "r") as f:
        with pytest.raises(ValueError, match="^parz: out="):
            parz.read(f["f64"], out=bad)
        with pytest.raises(TypeError, match="^parz: out=.*list"):  # not an array
            parz.read(f["f64"], out=[0.0])


def test_out_read_only(read_file):
    ro = np.empty((20, 192, 160))
    ro.flags.writeable = False
    with h5py.File(read_file, "r") as f:
        with pytest.raises(ValueError, match="^parz: out=.*read-only"):
            parz.read(f["f64"], out=ro)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_threads(read_file, threads):
    with h5py.File(read_file, "r") as f:
        d = f["f32"]
        assert same(parz.read(d, threads=threads), d[...])


def test_serial_policy(read_file, monkeypatch):
    monkeypatch.setenv("PARZ_EXEC", "serial")
    with h5py.File(read_file, "r") as f:
        d = f["i64"]
        assert same(parz.read(d, (slice(3, 40), slice(7, 69))), d[3:40, 7:69])


@pytest.mark.parametrize("sel, match", [
    ((slice(0, 10, 2),), "step 2"),
    ((slice(None, None, -1),), "step -1"),
    ((1, 2, 3), "3 indices for a dataset of rank 2"),
    ((300,), "index 300 is out of range for axis 0"),
    (([1, 2],), "integers, slices of step 1 and Ellipsis only"),
    ((Ellipsis, Ellipsis), "at most one Ellipsis"),
])
def test_selection_refused(read_file, sel, match):
    with h5py.File(read_file, "r") as f:
        with pytest.raises(ValueError, match="^parz: .*" + match):
            parz.read(f["f32"], sel)


@pytest.mark.parametrize("kw, error, match", [
    (dict(device="tpu"), ValueError, "device must be"),
    (dict(threads=0), ValueError, "threads must be"),
    (dict(threads=1.5), TypeError, "threads must be")])
def test_arguments_refused(read_file, kw, error, match):
    """More in test_parz_arguments.py."""
    with h5py.File(read_file, "r") as f:
        with pytest.raises(error, match="^parz: " + match):
            parz.read(f["f32"], **kw)


@pytest.mark.parametrize("name, match", [("gzip", "not ParZ alone"), ("contiguous", "not chunked")])
def test_not_parz(read_file, name, match):
    with h5py.File(read_file, "r") as f:
        with pytest.raises(ValueError, match="^parz: reading /%s: .*%s" % (name, match)):
            parz.read(f[name])


def test_corrupt_chunk_named(read_file):
    with h5py.File(read_file, "r") as f:
        d = f["corrupt"]
        with pytest.raises(OSError):
            d[...]  # the filter refuses it too
        with pytest.raises(OSError, match=r"^parz: reading /corrupt: .*payload checksum.*"
                                          r"\(the chunk at \[64,0\]\)"):
            parz.read(d)
        # a box clear of it reads, and equals h5py's
        assert same(parz.read(d, (slice(0, 64), slice(None))), d[0:64, :])


@pytest.mark.parametrize("policy, threads", [("serial", None), ("omp", 1), ("omp", 2)])
def test_payload_bit_flip(flipped_file, monkeypatch, capfd, policy, threads):
    """One payload bit flipped: the chunk's payload checksum fails parz.read (serial and OpenMP),
    as it fails h5py's read; reads that leave the chunk out give h5py's values."""
    monkeypatch.setenv("PARZ_EXEC", policy)
    with h5py.File(flipped_file, "r") as f:
        d = f["x"]
        with pytest.raises(OSError, match=r"^parz: reading /x: .*payload checksum.*"
                                          r"\(the chunk at \[128,0\]\)"):
            parz.read(d, threads=threads)
        with chunk_error(capfd, "payload checksum"):
            d[128:, :128]
        for sel in [(slice(0, 128), slice(None)), (slice(None), slice(128, None)),
                    (slice(100, 128), slice(0, 200))]:
            assert same(parz.read(d, sel, threads=threads), d[sel])


def test_cuda_without_gpu(read_file):
    if parz.get_config().gpu:
        pytest.skip("a GPU is usable: test_parz_read_gpu.py reads into GPU memory")
    with h5py.File(read_file, "r") as f:
        with pytest.raises(OSError, match="^parz: "):
            parz.read(f["f32"], device="cuda")
