"""Payload checksums through HDF5: a single payload bit flipped in the file makes h5py's read of
that chunk raise OSError in every mode and execution policy (serial, OpenMP, and CUDA where a
GPU is usable; never wrong values), while the dataset's other chunks still read;
checksum=False writes version 1 chunks without them.

Each read runs in a subprocess with PARZ_EXEC set, since the policy is read from the
environment on every chunk and a test must not leave it changed.
"""
import os
import shutil
import struct
import subprocess
import sys

import h5py
import numpy as np
import pytest

import parz

SHAPE = (64, 96)
CHUNKS = (32, 96)
MODES = [dict(accuracy=1e-3), dict(precision=18), dict(rate=10), dict(reversible=True),
         dict(expert=(8, 900, 30, -20))]
POLICIES = ("serial", "omp") + (("cuda",) if parz.get_config().gpu else ())

READER = r"""
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    d = f["x"]
    try:
        d[:32]
        print("READ")
    except OSError as e:
        print("OSError", str(e).replace("\n", " "))
    np.save(sys.argv[2], d[32:])
"""


def _array():
    y, x = np.mgrid[0:SHAPE[0], 0:SHAPE[1]]
    return (np.sin(x * 0.07) * np.cos(y * 0.05) * 50 + x * 0.01).astype(np.float32)


def _write(path, mode, **extra):
    a = _array()
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=a, chunks=CHUNKS, compression=parz.Parz(**mode, **extra))
    with h5py.File(path, "r") as f:
        info = f["x"].id.get_chunk_info(0)
        raw = f["x"].id.read_direct_chunk((0, 0))[1]
    return a, info.byte_offset, raw


def _read(path, policy, tmp_path):
    env = dict(os.environ, PARZ_EXEC=policy, PARZ_THREADS="2")
    rest = str(tmp_path / "rest.npy")
    out = subprocess.run([sys.executable, "-c", READER, str(path), rest], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    # ParZ's reason: in the exception, or on stderr where HDF5 1.14.5 and later drop it
    return out.stdout.strip() + "\n" + out.stderr, np.load(rest)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: next(iter(m)))
def test_payload_bit_flip_fails_the_read(tmp_path, mode):
    path = tmp_path / "clean.h5"
    a, offset, raw = _write(path, mode)
    assert raw[4] == 2, "payload checksums make a version 2 chunk"
    payload_bytes = struct.unpack_from("<Q", raw, 88)[0]
    start = offset + len(raw) - payload_bytes   # the payload closes the chunk
    rng = np.random.default_rng(len(raw))
    bits = sorted(rng.choice(8 * payload_bytes, size=6, replace=False))
    for i, bit in enumerate(bits):
        bad = tmp_path / ("bad%d.h5" % i)
        shutil.copy(path, bad)
        with open(bad, "r+b") as fh:
            fh.seek(start + bit // 8)
            b = fh.read(1)[0]
            fh.seek(start + bit // 8)
            fh.write(bytes([b ^ (1 << (bit % 8))]))
        for policy in POLICIES:
            status, rest = _read(bad, policy, tmp_path)
            assert status.startswith("OSError"), (bit, policy, status)
            assert "payload checksum" in status, status
            with h5py.File(path, "r") as f:
                assert np.array_equal(rest, f["x"][32:]), "the other chunk reads unchanged"


def test_checksum_off_writes_version_1(tmp_path):
    a, _, raw_on = _write(tmp_path / "on.h5", MODES[0])
    b, _, raw_off = _write(tmp_path / "off.h5", MODES[0], checksum=False)
    assert raw_on[4] == 2 and raw_off[4] == 1
    payload = struct.unpack_from("<Q", raw_on, 88)[0]
    assert raw_on[-payload:] == raw_off[-payload:], "the same payload either way"
    with h5py.File(tmp_path / "off.h5", "r") as f:
        assert np.max(np.abs(f["x"][...] - a)) <= 1e-3
    with pytest.raises(TypeError, match="checksum must be True or False"):
        parz.Parz(accuracy=1e-3, checksum=2)
