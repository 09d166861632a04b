"""The `parz` command on the damaged files of test_hostile_files.py: `parz verify` names every
chunk that a read must refuse and none of the untouched ones, `parz inspect` and `parz verify`
end with an exit status (never a signal), whatever the bytes."""
import re
import subprocess

import h5py
import numpy as np
import pytest

import parz

from test_hostile_files import CHUNK, DATASETS, write_damaged


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_parz_verify_names_the_damaged_chunks(tmp_path, name, parz_tool):
    path = tmp_path / (name + ".h5")
    cases, _ = write_damaged(path, name)
    v = subprocess.run([parz_tool, "verify", "%s:/%s" % (path, name)], capture_output=True,
                       text=True, timeout=600)
    assert v.returncode == 1, (v.returncode, v.stderr[-2000:])
    bad = {int(m) // CHUNK[0] for m in re.findall(r"chunk \[(\d+),0\]: ", v.stdout)}
    problems = []
    for k, (label, _, must_fail) in enumerate(cases):
        if must_fail and 2 * k + 1 not in bad:
            problems.append("chunk %d (%s) not reported" % (2 * k + 1, label))
    problems += ["untouched chunk %d reported" % i for i in sorted(bad) if i % 2 == 0]
    assert not problems, "\n".join(problems[:40])
    for args in (["inspect"], ["inspect", "--summary"]):
        r = subprocess.run([parz_tool] + args + [str(path)], capture_output=True, text=True,
                           timeout=600)
        assert r.returncode in (0, 1), (args, r.returncode, r.stderr[-2000:])


def _damaged_copy(f, name, source):
    """Writes `name` as a copy of dataset `source` of f with its first chunk's payload flipped."""
    d = f.create_dataset(name, data=f[source][...], chunks=f[source].chunks,
                         compression=parz.Parz(accuracy=1e-3))
    mask, chunk = d.id.read_direct_chunk((0,) * d.ndim)
    chunk = bytearray(chunk)
    for i in range(len(chunk) - 8, len(chunk)):
        chunk[i] ^= 0xA5
    d.id.write_direct_chunk((0,) * d.ndim, bytes(chunk), mask)


@pytest.fixture
def long_paths(tmp_path):
    """Intact /NNN...N (1023 bytes of path) beside damaged /NNN...Nz (one byte longer, so that a
    path cut at 1023 bytes names the intact one), and damaged datasets deep in groups (a path of
    6 KiB) and in a group named "grp:" (FILE:/grp:/inner holds ':/' twice)."""
    path = tmp_path / "paths.h5"
    x = np.linspace(0, 1, 32 * 32, dtype="f4").reshape(32, 32)
    intact = "/" + "N" * 1022
    deep = "/" + "/".join(["g%03d" % i + "G" * 60 for i in range(96)]) + "/deep"
    with h5py.File(path, "w") as f:
        f.create_dataset(intact, data=x, chunks=(16, 16), compression=parz.Parz(accuracy=1e-3))
        _damaged_copy(f, intact + "z", intact)
        _damaged_copy(f, deep, intact)
        f.create_group("grp:")
        f.create_dataset("/grp:/inner", data=x, chunks=(16, 16),
                         compression=parz.Parz(accuracy=1e-3))
    return path, intact, deep


def test_parz_verify_checks_every_path_whole(long_paths, parz_tool):
    path, intact, deep = long_paths
    v = subprocess.run([parz_tool, "verify", str(path)], capture_output=True, text=True,
                       timeout=600)
    assert v.returncode == 1, (v.returncode, v.stdout[-3000:], v.stderr[-3000:])
    assert "4 ParZ datasets, 16 chunks, 2 bad" in v.stdout, v.stdout[-3000:]
    assert "%s: 4 chunks ok" % intact in v.stdout.splitlines(), v.stdout[-3000:]
    for damaged in (intact + "z", deep):
        assert "%s chunk [0,0]: " % damaged in v.stdout, (damaged[-40:], v.stdout[-3000:])
    for args in (["inspect"], ["inspect", "--summary"]):
        r = subprocess.run([parz_tool] + args + [str(path)], capture_output=True, text=True,
                           timeout=600)
        assert r.returncode in (0, 1) and deep in r.stdout, (args, r.returncode, r.stderr)


def test_parz_verify_file_and_path_with_colon_slash(long_paths, parz_tool):
    path, _, deep = long_paths
    v = subprocess.run([parz_tool, "verify", "%s:/grp:/inner" % path], capture_output=True,
                       text=True, timeout=600)
    assert v.returncode == 0 and "/grp:/inner: 4 chunks ok" in v.stdout, (v.stdout, v.stderr)
    v = subprocess.run([parz_tool, "verify", "%s:%s" % (path, deep)], capture_output=True,
                       text=True, timeout=600)
    assert v.returncode == 1 and "%s chunk [0,0]: " % deep in v.stdout, (v.stdout, v.stderr)
    v = subprocess.run([parz_tool, "verify", "%s:/grp:/none" % path], capture_output=True,
                       text=True, timeout=600)
    assert v.returncode == 3 and "/grp:/none" in v.stderr, (v.returncode, v.stdout, v.stderr)
