"""Hostile files: ParZ datasets whose chunks were damaged on disk through h5py's raw
chunk I/O, read by h5py and h5dump in SEPARATE PROCESSES so that a crash is a test failure and
not the end of the test run.

Every damaged chunk must either fail its read with OSError naming ParZ, or return data; the
undamaged chunks of the same dataset must still read the exact values they had. Damage covers:
bit flips in header (checksum left stale, and recomputed), table, mask and payload; truncated,
zero-length and over-long chunks; header sizes that overflow when multiplied or added; chunks
copied from datasets of another type or chunk shape; garbage; and dataset cd_values patched in
the file so that they disagree with the chunks.

With PARZ_HOSTILE_PLUGIN_DIR and PARZ_HOSTILE_PRELOAD set (scripts/sanitize.sh does), the reader
processes load an AddressSanitizer build of the plugin, so a write or read outside a buffer in
the plugin or the codec is reported and fails the test.
"""
import hashlib
import json
import os
import struct
import subprocess
import sys

import h5py
import numpy as np
import pytest

import parz
from conftest import CHUNK_ERRORS_ON_STDERR

HEADER = 112
CHUNK = (16, 16)
NCHUNKS_MAX = 1024


# ---- CRC-32C, to forge headers that pass the checksum (codec/FORMAT.md "Checksum") ----------
def _crc_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_CRC = _crc_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def fix_checksum(chunk):
    """Recomputes the header/table/exceptions CRC when the header's sizes fit in the chunk."""
    c = bytearray(chunk)
    if len(c) < HEADER:
        return bytes(c)
    table, nexc = struct.unpack_from("<QQ", c, 72)
    end = HEADER + table + 16 * nexc
    if end <= len(c):
        struct.pack_into("<I", c, 108, crc32c(bytes(c[:108]) + bytes(c[HEADER:end])))
    return bytes(c)


def fix_head_checksum(chunk):
    """Recomputes the CRC over everything in front of the payload (format version 2's head:
    directory, table, exceptions, sections)."""
    c = bytearray(chunk)
    payload = struct.unpack_from("<Q", c, 88)[0]
    struct.pack_into("<I", c, 108, crc32c(bytes(c[:108]) + bytes(c[HEADER:len(c) - payload])))
    return bytes(c)


def mask_section(raw):
    """(start, end) of a chunk's mask section (directory kind 2), or None."""
    if struct.unpack_from("<H", raw, 4)[0] < 2:
        return None
    table, nexc = struct.unpack_from("<QQ", raw, 72)
    nsections = struct.unpack_from("<I", raw, 104)[0]
    at = HEADER + 16 * nsections + table + 16 * nexc
    for i in range(nsections):
        kind, _, _, size = struct.unpack_from("<HHIQ", raw, HEADER + 16 * i)
        if kind == 2:
            return at, at + size
        at += size
    return None


def test_crc32c_check_value():
    assert crc32c(b"123456789") == 0xE3069283


# ---- reading in a child process ------------------------------------------------------------
READER = r"""
import hashlib, json, sys
import h5py
path, name = sys.argv[1], sys.argv[2]
with h5py.File(path, "r") as f:
    d = f[name]
    c = d.chunks
    n0 = d.shape[0] // c[0]
    for i in range(n0):
        sl = (slice(i * c[0], (i + 1) * c[0]),) + tuple(slice(0, s) for s in d.shape[1:])
        print(json.dumps({"chunk": i, "start": True}), flush=True)
        try:
            a = d[sl]
            r = {"chunk": i, "ok": hashlib.sha256(a.tobytes()).hexdigest()}
        except OSError as e:
            r = {"chunk": i, "error": str(e)}
        print(json.dumps(r), flush=True)
print(json.dumps({"done": True}), flush=True)
"""


def child_env():
    env = dict(os.environ)
    plugin = os.environ.get("PARZ_HOSTILE_PLUGIN_DIR")
    preload = os.environ.get("PARZ_HOSTILE_PRELOAD")
    if plugin:
        env["HDF5_PLUGIN_PATH"] = plugin
    if preload:
        env["LD_PRELOAD"] = preload
        # Python itself is not instrumented: its allocations are not ours to check for leaks.
        env["ASAN_OPTIONS"] = "detect_leaks=0:halt_on_error=1:abort_on_error=1"
        env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    return env


def read_chunks(path, name):
    """Reads every chunk row of a dataset in a child; returns {chunk: ('ok', hash) | ('error',
    message)}. A child killed by a signal, or one that exits early, fails the test and names the
    chunk it was reading. The child's stderr shares its stdout, so that what the plugin prints
    while a chunk fails (HDF5 1.14.5 and later, conftest.CHUNK_ERRORS_ON_STDERR) joins that
    chunk's message."""
    p = subprocess.run([sys.executable, "-c", READER, str(path), name], env=child_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    results, current, done, printed, other = {}, None, False, "", []
    for line in p.stdout.splitlines():
        if not line.startswith("{"):
            other.append(line)
            if CHUNK_ERRORS_ON_STDERR and line.startswith("HDF5 filter ParZ: "):
                printed += " " + line
            continue
        r = json.loads(line)
        if r.get("done"):
            done = True
        elif r.get("start"):
            current, printed = r["chunk"], ""
        elif "ok" in r:
            results[r["chunk"]] = ("ok", r["ok"])
        else:
            results[r["chunk"]] = ("error", r["error"] + printed)
    assert p.returncode == 0 and done, (
        "reader process died (exit status %d, signal = negative) while reading chunk %s\n%s"
        % (p.returncode, current, "\n".join(other)[-4000:]))
    return results


# ---- the damaged datasets ---------------------------------------------------------------
def _data(dtype, n0):
    i = np.arange(n0 * CHUNK[0] * CHUNK[1]).reshape(n0 * CHUNK[0], CHUNK[1])
    x = np.sin(i * 0.01) * 100 + (i % 7) * 0.25
    if np.dtype(dtype).kind == "f":
        x = x.astype(dtype)
        x.flat[5::97] = np.nan
        x.flat[11::131] = np.inf
        return x
    return (x * 1000).astype(dtype)


# Datasets covering the modes, types and table kinds whose chunks get damaged.
DATASETS = {
    "f32_accuracy_hybrid": ("f4", parz.Parz(accuracy=1e-3, segment_blocks=2,
                                              partition_segments=2)),
    "f64_reversible_lengths": ("f8", parz.Parz(reversible=True, segment_blocks=3,
                                                 table=parz.TABLE_LENGTHS)),
    "i32_precision_offsets": ("i4", parz.Parz(precision=20, segment_blocks=1,
                                                table=parz.TABLE_OFFSETS)),
    "i64_rate_none": ("i8", parz.Parz(rate=16)),
}


def donors(f):
    """Valid chunks of other datasets: another type, another chunk shape of the same size, and
    another rank; all 256 values like the target's chunks."""
    out = {}
    for name, dtype, shape, chunks in [("d_f64", "f8", (32, 16), (16, 16)),
                                       ("d_f32_8x32", "f4", (16, 64), (8, 32)),
                                       ("d_i32", "i4", (32, 16), (16, 16)),
                                       ("d_f32_3d", "f4", (4, 4, 32), (4, 4, 16))]:
        a = np.linspace(-5, 5, int(np.prod(shape))).reshape(shape).astype(dtype)
        d = f.create_dataset(name, data=a, chunks=chunks, compression=parz.Parz(precision=16))
        same = chunks == CHUNK  # same chunk shape: foreign only when the type differs too
        out[name] = (np.dtype(dtype), same, d.id.read_direct_chunk((0,) * len(shape))[1])
    return out


def damages(raw, foreign, dtype):
    """(label, bytes or None = leave the chunk alone, must_fail) for one valid chunk `raw`."""
    table, nexc, payload = struct.unpack_from("<QQQ", raw, 72)
    table_end = HEADER + table + 16 * nexc
    out = []
    # header bit flips with the stale checksum: all caught (checksum or the checks before it)
    for byte in range(HEADER):
        c = bytearray(raw)
        c[byte] ^= 1 << (byte % 8)
        out.append(("header byte %d flipped, stale checksum" % byte, bytes(c), True))
    # header bit flips behind a recomputed checksum: validation alone must hold
    for byte in range(HEADER - 4):
        c = bytearray(raw)
        c[byte] ^= 1 << ((byte * 3) % 8)
        out.append(("header byte %d flipped, checksum fixed" % byte, fix_checksum(c), False))
    # table and exception bytes, checksum fixed
    for byte in range(HEADER, table_end):
        c = bytearray(raw)
        c[byte] ^= 1 << (byte % 8)
        out.append(("table/exceptions byte %d flipped, checksum fixed" % byte, fix_checksum(c),
                    False))
    # payload flips (any outcome but a crash)
    for k, byte in enumerate(range(table_end, len(raw), max(1, (len(raw) - table_end) // 24))):
        c = bytearray(raw)
        c[byte] ^= 0x81 >> (k % 2)
        out.append(("payload byte %d flipped" % byte, bytes(c), False))
    # mask section bytes (missing values), checksum fixed: validation alone must hold
    where = mask_section(raw)
    for byte in range(*where) if where else ():
        c = bytearray(raw)
        c[byte] ^= 1 << ((byte * 5) % 8)
        out.append(("mask byte %d flipped, checksum fixed" % byte, fix_head_checksum(c), False))
    # truncations and extension
    for n in sorted({1, 4, 6, 8, 111, 112, table_end, len(raw) - 8, len(raw) - 1}):
        if 0 < n < len(raw):
            out.append(("truncated to %d bytes" % n, raw[:n], True))
    out.append(("8 bytes appended", raw + b"\0" * 8, True))
    # sizes that overflow when multiplied or added, each behind a valid checksum
    for label, off, fmt, value in [
            ("shape[0] = 2^62", 16, "<Q", 1 << 62),
            ("shape[0] = 2^64-1", 16, "<Q", 2**64 - 1),
            ("shape[0] = 2^31 (more values than payload bits)", 16, "<Q", 1 << 31),
            ("table_bytes = 2^64-8", 72, "<Q", 2**64 - 8),
            ("nexceptions = 2^60 (x16 overflows)", 80, "<Q", 1 << 60),
            ("payload_bytes = 2^64-8", 88, "<Q", 2**64 - 8),
            ("payload_bits = 2^64-1", 96, "<Q", 2**64 - 1),
            ("segment_blocks = 2^32-1", 64, "<I", 2**32 - 1),
            ("partition_segments = 2^32-1", 68, "<I", 2**32 - 1)]:
        c = bytearray(raw)
        struct.pack_into(fmt, c, off, value)
        out.append((label, fix_checksum(c), True))
    c = bytearray(raw)
    struct.pack_into("<QQ", c, 16, 1 << 40, 1 << 40)
    out.append(("shape 2^40 x 2^40 (product overflows)", fix_checksum(c), True))
    # foreign chunks and garbage
    for name, (ftype, same_shape, chunk) in foreign.items():
        out.append(("chunk of dataset %s" % name, chunk,
                    not (same_shape and ftype == np.dtype(dtype))))
    out.append(("zeros", b"\0" * len(raw), True))
    out.append(("0xFF bytes", b"\xff" * len(raw), True))
    out.append(("random bytes", np.random.default_rng(3).bytes(len(raw)), True))
    # a chunk whose own (valid) header says another shape of the same size
    c = bytearray(raw)
    struct.pack_into("<QQ", c, 16, 8, 32)
    out.append(("header shape 8x32 in a 16x16 dataset", fix_checksum(c), True))
    return out


def write_damaged(path, name):
    """A file whose dataset `name` has one damaged chunk per damage and one untouched chunk
    between each two; returns (cases, pristine results)."""
    dtype, comp = DATASETS[name]
    with h5py.File(path, "w") as f:
        foreign = donors(f)
    # size the dataset from the number of damages of a first valid chunk
    with h5py.File(path, "a") as f:
        probe = f.create_dataset("probe", data=_data(dtype, 1), chunks=CHUNK, compression=comp)
        raw = probe.id.read_direct_chunk((0, 0))[1]
        cases = damages(raw, foreign, dtype)
        n0 = 2 * len(cases) + 1
        assert n0 <= NCHUNKS_MAX
        d = f.create_dataset(name, data=_data(dtype, n0), chunks=CHUNK, compression=comp)
    pristine = read_chunks(path, name)
    assert all(v[0] == "ok" for v in pristine.values()), pristine
    with h5py.File(path, "a") as f:
        d = f[name]
        for k, (label, chunk, _) in enumerate(cases):
            i = 2 * k + 1
            # damaged copies of the probe's chunk: same type, shape and parameters as row i
            mask = d.id.read_direct_chunk((i * CHUNK[0], 0))[0]
            d.id.write_direct_chunk((i * CHUNK[0], 0), chunk, mask)
    return cases, pristine


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_damaged_chunks_fail_alone(tmp_path, name):
    path = tmp_path / (name + ".h5")
    cases, pristine = write_damaged(path, name)
    got = read_chunks(path, name)
    problems = []
    for k, (label, _, must_fail) in enumerate(cases):
        i = 2 * k + 1
        r = got.get(i)
        if r is None:
            problems.append("chunk %d (%s): no result" % (i, label))
        elif r[0] == "error":
            if "parz" not in r[1].lower():
                problems.append("chunk %d (%s): error without ParZ's message: %s" % (i, label,
                                                                                    r[1]))
        elif must_fail:
            problems.append("chunk %d (%s): read returned data" % (i, label))
    for i in range(0, 2 * len(cases) + 1, 2):
        if got.get(i) != pristine[i]:
            problems.append("undamaged chunk %d reads %s, was %s" % (i, got.get(i), pristine[i]))
    assert not problems, "\n".join(problems[:40])
    refused = sum(1 for k in range(len(cases)) if got[2 * k + 1][0] == "error")
    print("%s: %d damaged chunks, %d refused, %d returned data" % (name, len(cases), refused,
                                                                   len(cases) - refused))


def test_zero_length_chunk(tmp_path):
    path = tmp_path / "z.h5"
    with h5py.File(path, "w") as f:
        d = f.create_dataset("x", data=_data("f4", 3), chunks=CHUNK,
                             compression=parz.Parz(accuracy=1e-2))
        try:
            d.id.write_direct_chunk((16, 0), b"", 0)
        except (ValueError, OSError, TypeError) as e:
            pytest.skip("this HDF5 refuses to store a zero-length chunk: %s" % e)
    got = read_chunks(path, "x")
    assert got[1][0] == "error" and "parz" in got[1][1].lower(), got[1]
    assert got[0][0] == "ok" and got[2][0] == "ok"


# ---- cd_values stored in the file that disagree with the chunks ----------------------------
def _patch_cd(path, index, value):
    """Rewrites internal cd_values[index] of the single ParZ dataset in the file's bytes (the
    pipeline message of a v1 object header has no checksum). The internal form starts with 1001
    and holds the type at [7] and the chunk shape at [8..11]."""
    blob = bytearray(open(path, "rb").read())
    hits = []
    start = 0
    marker = struct.pack("<I", 1001)
    while True:
        k = blob.find(marker, start)
        if k < 0:
            break
        cd = struct.unpack_from("<16I", blob, k)
        if 1 <= cd[1] <= 5 and 1 <= (cd[7] & 15) <= 4 and cd[8] == CHUNK[0] and cd[9] == CHUNK[1]:
            hits.append(k)
        start = k + 1
    assert len(hits) == 1, "expected one ParZ pipeline message, found %d" % len(hits)
    struct.pack_into("<I", blob, hits[0] + 4 * index, value)
    open(path, "wb").write(bytes(blob))


@pytest.mark.parametrize("index,value,why", [
    (0, 1002, "internal form version newer than the plugin"),
    (7, 9, "unknown scalar type"),
    (7, 4, "type float64 for float32 chunks"),
    (8, 8, "chunk shape 8x16 (header says 16x16)"),
    (9, 0xFFFFFFFF, "chunk extent 2^32-1"),
    (10, 3, "a third dimension the chunks do not have"),
    (13, 0, "maxbits 0"),
    (5, 0xFFFFFFFF, "segment_blocks 2^32-1"),
])
def test_cd_values_disagree_with_chunks(tmp_path, index, value, why):
    path = tmp_path / "cd.h5"
    with h5py.File(path, "w", libver="earliest") as f:
        f.create_dataset("x", data=_data("f4", 4), chunks=CHUNK,
                         compression=parz.Parz(accuracy=1e-3))
    _patch_cd(path, index, value)
    got = read_chunks(path, "x")
    for i in range(4):
        # The message is the plugin's; some (codec parameter checks) do not name ParZ yet.
        assert got[i][0] == "error" and got[i][1], (why, got[i])


def test_cd_values_other_mode_still_reads(tmp_path):
    """Chunks describe themselves: a dataset whose cd_values name another mode (same type and
    shape) still decodes every chunk exactly as written."""
    path = tmp_path / "mode.h5"
    a = _data("f4", 3)
    with h5py.File(path, "w") as f:
        src = f.create_dataset("src", data=a, chunks=CHUNK, compression=parz.Parz(accuracy=1e-3))
        dst = f.create_dataset("x", shape=a.shape, dtype="f4", chunks=CHUNK,
                               compression=parz.Parz(precision=12))
        for i in range(3):
            m, c = src.id.read_direct_chunk((16 * i, 0))
            dst.id.write_direct_chunk((16 * i, 0), c, m)
        expected = src[...]
    with h5py.File(path, "r") as f:
        back = f["x"][...]
    assert np.array_equal(back, expected, equal_nan=True)


# ---- h5dump --------------------------------------------------------------------------------
def test_h5dump_exits_cleanly_on_damaged_file(tmp_path):
    path = tmp_path / "dump.h5"
    cases, _ = write_damaged(path, "f32_accuracy_hybrid")
    p = subprocess.run(["h5dump", "--enable-error-stack", "-d", "/f32_accuracy_hybrid", str(path)], env=child_env(),
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300)
    assert p.returncode > 0, "h5dump exit status %d (negative = killed by a signal)\n%s" % (
        p.returncode, p.stderr[-2000:])
    # h5dump prints HDF5's error stack: ParZ's own message is on it
    assert "parz" in p.stderr.lower(), p.stderr[-2000:]


# ---- cd_values that agree with the chunks but not with the dataset --------------------------
def _patch_cd_where(path, shape, index, value):
    """Rewrites internal cd_values[index] of the one ParZ dataset whose stored chunk shape
    (words 8 and 9) is `shape`."""
    blob = bytearray(open(path, "rb").read())
    hits = [k for k in range(0, len(blob) - 63, 4)
            if struct.unpack_from("<I", blob, k)[0] == 1001
            and 1 <= struct.unpack_from("<I", blob, k + 4)[0] <= 5
            and struct.unpack_from("<2I", blob, k + 32) == tuple(shape)]
    assert len(hits) == 1, "expected one ParZ pipeline message, found %d" % len(hits)
    struct.pack_into("<I", blob, hits[0] + 4 * index, value)
    open(path, "wb").write(bytes(blob))


def _craft(path, attack):
    """A dataset "x" whose stored cd_values and chunk agree with each other, not with its type
    or layout, next to an honest dataset "honest"; returns the honest values."""
    rev = parz.Parz(reversible=True)
    a = (np.arange(64 * 64) % 1000).reshape(64, 64)
    with h5py.File(path, "w") as f:
        donor = f.create_dataset("donor", data=a[:16, :16].astype("f4"), chunks=(16, 16),
                                 compression=rev)
        small = f.create_dataset("small", data=a[:4, :4].astype("f4"), chunks=(4, 4),
                                 compression=rev)
        chunk16 = donor.id.read_direct_chunk((0, 0))[1]
        chunk4 = small.id.read_direct_chunk((0, 0))[1]
        del f["donor"], f["small"]
        honest = f.create_dataset("honest", data=a[:32, :8].astype("f4"), chunks=(32, 8),
                                  compression=rev)
        if attack == "shape":      # cd_values and chunk say 4x4, the dataset has 64x64 chunks
            x = f.create_dataset("x", data=a.astype("f4"), chunks=(64, 64), compression=rev)
            x.id.write_direct_chunk((0, 0), chunk4, 0)
        elif attack == "type":     # cd_values and chunk say float32, the dataset is float64
            x = f.create_dataset("x", data=a[:16, :16].astype("f8"), chunks=(16, 16),
                                 compression=rev)
            x.id.write_direct_chunk((0, 0), chunk16, 0)
        else:                      # cd_values say big-endian, the dataset is little-endian
            f.create_dataset("x", data=a[:16, :16].astype("f4"), chunks=(16, 16),
                             compression=rev)
        want = honest[...]
    if attack == "shape":
        _patch_cd_where(path, (64, 64), 8, 4)
        _patch_cd_where(path, (4, 64), 9, 4)
    elif attack == "type":
        _patch_cd_where(path, (16, 16), 7, 3)
    else:
        _patch_cd_where(path, (16, 16), 7, 3 + 16)
    return want


@pytest.mark.parametrize("attack", ["shape", "type", "endian"])
def test_cd_values_disagree_with_dataset(tmp_path, attack):
    """HDF5 copies a whole chunk of the dataset out of the buffer the filter returns: a chunk that
    decodes to what crafted cd_values say, not to what the dataset holds, must be refused (under
    scripts/sanitize.sh the reader runs with ASan, which catches a read outside the buffer)."""
    path = tmp_path / ("crafted_%s.h5" % attack)
    want = _craft(path, attack)
    got = read_chunks(path, "x")
    assert all(r[0] == "error" and "cd_values describe" in r[1] for r in got.values()), got
    honest = read_chunks(path, "honest")
    assert honest[0] == ("ok", hashlib.sha256(want.tobytes()).hexdigest())
    p = subprocess.run(["h5dump", "--enable-error-stack", "-d", "/x", str(path)],
                       env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, timeout=120)
    assert p.returncode > 0, "h5dump exit status %d\n%s" % (p.returncode, p.stderr[-2000:])
    assert "cd_values describe" in p.stderr, p.stderr[-2000:]


def test_cd_values_disagree_partial_write(tmp_path):
    """A partial write makes HDF5 decode the chunk and write into the filter's buffer: refused
    too, in a child process (a write outside the buffer would corrupt the heap)."""
    path = tmp_path / "crafted_write.h5"
    _craft(path, "shape")
    code = ("import sys, h5py, numpy as np\n"
            "f = h5py.File(sys.argv[1], 'r+')\n"
            "try:\n"
            "    f['x'][1, 1] = 5.0\n"
            "    print('written')\n"
            "except OSError as e:\n"
            "    print('error', e)\n")
    p = subprocess.run([sys.executable, "-c", code, str(path)], env=child_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    told = p.stdout + (p.stderr if CHUNK_ERRORS_ON_STDERR else "")
    assert p.stdout.startswith("error") and "cd_values describe" in told, p.stdout + p.stderr
