"""Real arrays through the ParZ filter with h5py in every mode: error bounds, exactness,
partial edge chunks, ranks 1-5 with unit chunk dims, integer types, non-finite values, and the
same values whatever the execution policy."""
import os
import re

import h5py
import numpy as np
import pytest

import parz
from conftest import FILTER_NAME, write_read


def max_err(a, b):
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))


@pytest.mark.parametrize("tol,size", [(1e-1, 0.25), (1e-2, 0.35), (1e-4, 0.55)])
def test_accuracy_float32_edge_chunks(tmp_path, egm96, tol, size):
    # 721x1440 in 100x128 chunks: the last chunk row and column are partial.
    back, stored = write_read(tmp_path / "a.h5", egm96, (100, 128), parz.Parz(accuracy=tol))
    assert back.dtype == egm96.dtype and back.shape == egm96.shape
    assert max_err(back, egm96) <= tol
    assert stored < egm96.nbytes * size


def test_accuracy_float64(tmp_path, vasp):
    back, stored = write_read(tmp_path / "a.h5", vasp, (10, 64, 48), parz.Parz(accuracy=1e-6))
    assert max_err(back, vasp) <= 1e-6
    assert stored < vasp.nbytes


@pytest.mark.parametrize("fixture,chunks", [("egm96", (103, 360)), ("vasp", (8, 64, 80)),
                                            ("ccsm", (1, 55, 64, 64)), ("levitus", (5, 90, 90))])
def test_reversible_is_bit_exact(tmp_path, request, fixture, chunks):
    data = request.getfixturevalue(fixture)
    back, stored = write_read(tmp_path / "r.h5", data, chunks, parz.Parz(reversible=True))
    assert back.tobytes() == data.tobytes()
    assert stored < data.nbytes


def test_rate_is_fixed_size(tmp_path, egm96):
    # Fixed rate: every block takes rate * 4^d bits. HDF5 hands the filter whole chunks (edge
    # chunks padded): 8 x 12 chunks of 100x128 values at one byte per value, plus a 112-byte
    # header and 40 bytes of payload checksums (directory entry, section header, 2 partitions)
    # each, and no table.
    back, stored = write_read(tmp_path / "r.h5", egm96, (100, 128), parz.Parz(rate=8))
    assert 96 * 100 * 128 <= stored <= 96 * (100 * 128 + 160)
    assert max_err(back, egm96) < 2.0
    back16, stored16 = write_read(tmp_path / "r16.h5", egm96, (100, 128), parz.Parz(rate=16))
    assert max_err(back16, egm96) < max_err(back, egm96)
    assert stored16 > 1.9 * stored


def test_precision_improves_with_bits(tmp_path, egm96):
    errs = []
    for p in (12, 20, 28):
        back, _ = write_read(tmp_path / ("p%d.h5" % p), egm96, (128, 128),
                             parz.Parz(precision=p))
        errs.append(max_err(back, egm96))
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < 1e-3


def test_expert_matches_accuracy_bound(tmp_path, egm96):
    # minexp -10 with no rate or precision limit bounds the error by 2^-10, like accuracy mode.
    back, _ = write_read(tmp_path / "e.h5", egm96, (128, 128),
                         parz.Parz(expert=(1, 16658, 64, -10)))
    assert max_err(back, egm96) <= 2.0 ** -10


@pytest.mark.parametrize("table", [parz.TABLE_OFFSETS, parz.TABLE_LENGTHS, parz.TABLE_HYBRID])
def test_table_kinds_and_sizes(tmp_path, egm96, table):
    back, _ = write_read(tmp_path / "t.h5", egm96, (256, 256),
                         parz.Parz(accuracy=1e-3, segment_blocks=8, partition_segments=4,
                                   table=table))
    assert max_err(back, egm96) <= 1e-3


def test_fill_values_levitus(tmp_path, levitus):
    # 44% of the points hold -1e10. Where a block holds only ocean values the tolerance holds;
    # blocks mixing them with the fill value share its exponent (zfp's block floating point keeps
    # 30 bits of a float32 block), so there the error is bounded relative to 1e10 instead.
    tol = 1e-2
    back, _ = write_read(tmp_path / "l.h5", levitus, (4, 92, 92), parz.Parz(accuracy=tol))
    err = np.abs(back.astype(np.float64) - levitus.astype(np.float64))
    fill = levitus < -1e9
    blocks = fill.reshape(5, 4, 45, 4, 90, 4).any(axis=(1, 3, 5))
    pure = ~np.repeat(np.repeat(np.repeat(blocks, 4, 0), 4, 1), 4, 2)
    assert pure.sum() > 0.3 * pure.size
    assert err[pure].max() <= tol
    assert err.max() <= 1e10 * 2.0 ** -20


def test_non_finite_values_survive(tmp_path, egm96):
    data = egm96[:200, :300].copy()
    data[3, 5] = np.nan
    data[100, 0] = np.inf
    data[199, 299] = -np.inf
    data[50, 50] = np.float32(np.frombuffer(np.uint32(0x7fc00123).tobytes(), np.float32)[0])
    for comp in (parz.Parz(accuracy=1e-2), parz.Parz(reversible=True),
                 parz.Parz(precision=16), parz.Parz(rate=12)):
        back, _ = write_read(tmp_path / "n.h5", data, (64, 64), comp)
        finite = np.isfinite(data)
        assert np.array_equal(back[~finite].view(np.uint32), data[~finite].view(np.uint32))
        assert np.isfinite(back[finite]).all()


@pytest.mark.parametrize("shape,chunks", [
    ((100000,), (30000,)),
    ((220, 8192), (1, 1000)),
    ((220, 64, 128), (7, 64, 50)),
    ((2, 110, 64, 128), (1, 10, 64, 64)),
    ((2, 110, 1, 64, 128), (1, 11, 1, 64, 50)),
    ((2, 10, 11, 64, 128), (2, 1, 11, 30, 128)),
])
def test_ranks_with_unit_chunk_dims(tmp_path, ccsm, shape, chunks):
    data = ccsm.reshape(-1)[:int(np.prod(shape))].reshape(shape)
    back, _ = write_read(tmp_path / "k.h5", data, chunks, parz.Parz(accuracy=1e-2))
    assert back.shape == shape
    assert max_err(back, data) <= 1e-2


@pytest.mark.parametrize("dtype", [np.int32, np.int64, ">i4", ">f8", ">f4"])
def test_integer_and_big_endian_types(tmp_path, etopo, dtype):
    data = etopo.astype(dtype)
    back, _ = write_read(tmp_path / "i.h5", data, (64, 200), parz.Parz(reversible=True))
    assert back.dtype == np.dtype(dtype)
    assert np.array_equal(back, data)


def test_integer_precision(tmp_path, etopo):
    data = etopo.astype(np.int32)
    back, _ = write_read(tmp_path / "i.h5", data, (64, 200), parz.Parz(precision=28))
    # 28 of 32 bit planes: errors of a few times 2^4 after the inverse transform.
    err = np.max(np.abs(back.astype(np.int64) - data))
    assert 0 < err <= 256


def test_mapping_interface_and_plain_ids(tmp_path, egm96):
    data = egm96[:128, :128]
    with h5py.File(tmp_path / "m.h5", "w") as f:
        f.create_dataset("a", data=data, chunks=(64, 64), **parz.Parz(accuracy=1e-3))
        f.create_dataset("b", data=data, chunks=(64, 64), compression=parz.FILTER_ID,
                         compression_opts=parz.cd_values(accuracy=1e-3))
    with h5py.File(tmp_path / "m.h5", "r") as f:
        assert max_err(f["a"][...], data) <= 1e-3
        assert np.array_equal(f["a"][...], f["b"][...])
        flags, values, name = f["a"].id.get_create_plist().get_filter_by_id(parz.FILTER_ID)
        assert re.fullmatch(FILTER_NAME, name.decode())
        assert values[0] == 1001 and values[1] == parz.MODE_ACCURACY  # internal form v1


@pytest.mark.parametrize("policy", ["serial", "omp", "cuda", "auto", "bogus"])
def test_policies_decode_identically(tmp_path, egm96, policy, monkeypatch):
    path = tmp_path / "p.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=egm96, chunks=(360, 720), compression=parz.Parz(accuracy=1e-3))
    monkeypatch.setenv("PARZ_EXEC", "serial")
    with h5py.File(path, "r") as f:
        ref = f["x"][...]
    monkeypatch.setenv("PARZ_EXEC", policy)
    monkeypatch.setenv("PARZ_THREADS", "2")
    with h5py.File(path, "r") as f:
        assert f["x"][...].tobytes() == ref.tobytes()
