"""The lossless codec through the HDF5 filter, side by side in one run with HDF5's own lossless
filter as h5py writes it (gzip level 6 after byte shuffle) and ParZ's zfp codec in reversible
mode: ratio and the speeds of writes and reads through h5py, ParZ on one thread and on two
(PARZ_THREADS), gzip on HDF5's one; and fpzip (lossless, Debian's libfpzip through ctypes) on the
same chunks, each chunk one fpzip stream, ratio only (raw bytes over the streams' bytes: no HDF5
head is counted for it; --no-fpzip leaves it out).

Every real array of --data, and of --series when given, in chunks of at most about 1 MiB and
4 MiB (the largest extent halved until the chunk fits); every value read back is checked bit for
bit for both. The geomeans are over the grids (--data) and over every array (--series too). The ratio counts the dataset's stored bytes (h5py's get_storage_size), chunks and
their heads. Speeds are MB/s of raw array, the best of --reps runs of a whole write (file
created, dataset written, closed) or read.

    bench_lossless.py [--data DIR] [--series DIR] [--reps N] [--out DIR] [--no-fpzip]
"""
import ctypes
import ctypes.util
import os

import h5py
import numpy as np

import parz
from bench_bounded import chunk_shape, load
from bench_py import Env, parser, report, timed

MIB = 1 << 20


def through_h5py(path, a, chunks, opts, threads, reps):
    """(stored bytes, {threads: (write MB/s, read MB/s)}); raises unless every bit comes back."""

    def write():
        with h5py.File(path, "w") as f:
            f.create_dataset("x", data=a, chunks=chunks, **opts)

    def read():
        with h5py.File(path, "r") as f:
            return f["x"][...]

    speeds = {}
    for t in threads:
        with Env(PARZ_THREADS=t):
            w = timed(write, reps)[0]
            r, _, back = timed(read, reps)
        if back.tobytes() != a.tobytes():
            raise SystemExit("%s: values differ" % path)
        speeds[t] = (a.nbytes / w / 1e6, a.nbytes / r / 1e6)
    with h5py.File(path, "r") as f:
        stored = f["x"].id.get_storage_size()
    return stored, speeds


class FPZ(ctypes.Structure):
    """fpzip.h's stream head: its type (0 float32, 1 float64), precision (0: lossless) and shape
    (x fastest, nf fields)."""
    _fields_ = [(n, ctypes.c_int) for n in ("type", "prec", "nx", "ny", "nz", "nf")]


def fpzip_library():
    path = ctypes.util.find_library("fpzip")
    if not path:
        raise SystemExit("libfpzip not found (Debian: libfpzip1), or pass --no-fpzip")
    lib = ctypes.CDLL(path)
    lib.fpzip_write_to_buffer.restype = ctypes.POINTER(FPZ)
    lib.fpzip_write_to_buffer.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    lib.fpzip_write_header.argtypes = [ctypes.POINTER(FPZ)]
    lib.fpzip_write.restype = ctypes.c_size_t
    lib.fpzip_write.argtypes = [ctypes.POINTER(FPZ), ctypes.c_void_p]
    lib.fpzip_write_close.argtypes = [ctypes.POINTER(FPZ)]
    lib.fpzip_read_from_buffer.restype = ctypes.POINTER(FPZ)
    lib.fpzip_read_from_buffer.argtypes = [ctypes.c_void_p]
    lib.fpzip_read_header.argtypes = [ctypes.POINTER(FPZ)]
    lib.fpzip_read.restype = ctypes.c_size_t
    lib.fpzip_read.argtypes = [ctypes.POINTER(FPZ), ctypes.c_void_p]
    lib.fpzip_read_close.argtypes = [ctypes.POINTER(FPZ)]
    return lib


def fpzip_bytes(lib, a, chunks):
    """Bytes of a's chunks (of shape chunks, cut at the edges) as fpzip streams, lossless; raises
    unless every chunk decodes bit for bit."""
    total = 0
    steps = [range(0, n, c) for n, c in zip(a.shape, chunks)]
    for origin in np.stack(np.meshgrid(*steps, indexing="ij"), -1).reshape(-1, a.ndim):
        part = np.ascontiguousarray(a[tuple(slice(o, o + c) for o, c in zip(origin, chunks))])
        dims = [1] * (4 - part.ndim) + list(part.shape)  # fpzip: nf, nz, ny, nx
        cap = part.nbytes * 2 + 1024
        out = ctypes.create_string_buffer(cap)
        f = lib.fpzip_write_to_buffer(out, cap)
        f.contents.type, f.contents.prec = (1 if part.dtype == np.float64 else 0), 0
        f.contents.nf, f.contents.nz, f.contents.ny, f.contents.nx = dims
        n = lib.fpzip_write(f, part.ctypes.data) if lib.fpzip_write_header(f) else 0
        lib.fpzip_write_close(f)
        back = np.empty_like(part)
        r = lib.fpzip_read_from_buffer(out)
        ok = n and lib.fpzip_read_header(r) and lib.fpzip_read(r, back.ctypes.data)
        lib.fpzip_read_close(r)
        if not ok or back.tobytes() != part.tobytes():
            raise SystemExit("fpzip: a chunk does not decode bit for bit")
        total += n
    return total


def main():
    p = parser(__doc__, "bench_lossless.h5")
    p.add_argument("--series", default=None)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--no-fpzip", action="store_true")
    args = p.parse_args()
    fpzip = None if args.no_fpzip else fpzip_library()
    # (path, whether it is a series): the series are --series' arrays, whatever their rank (eeg
    # is 4 channels x 800), and too small for 1 or 4 MiB chunks
    paths = [(os.path.join(d, f), d == args.series) for d in (args.data, args.series) if d
             for f in sorted(os.listdir(d)) if f.endswith(".bin")]
    codecs = (("lossless", dict(parz.Parz(codec="lossless")), ("1", "2")),
              ("zfp reversible", dict(parz.Parz(reversible=True)), ("1",)),
              ("gzip-6+shuffle", dict(compression="gzip", compression_opts=6, shuffle=True),
               ("1",)))
    rows, geo = [], {}
    for src, series in paths:
        short, a = load(src)
        for limit in (MIB, 4 * MIB):
            cs = chunk_shape(a.shape, a.itemsize, limit)
            for label, opts, threads in codecs:
                stored, sp = through_h5py(args.file, a, cs, opts, threads, args.reps)
                ratio = a.nbytes / stored
                key = "%s %d MiB" % (label, limit // MIB)
                geo.setdefault(("every array", key), []).append(ratio)
                if not series:
                    geo.setdefault(("the grids", key), []).append(ratio)
                two = sp.get("2", (float("nan"),) * 2)
                rows.append("| %s | %s | %s | %.3f | %.0f | %.0f | %.0f | %.0f |" % (
                    short, "x".join(map(str, cs)), key, ratio, sp["1"][0], two[0], sp["1"][1],
                    two[1]))
            if fpzip:
                ratio = a.nbytes / fpzip_bytes(fpzip, a, cs)
                key = "fpzip %d MiB" % (limit // MIB)
                geo.setdefault(("every array", key), []).append(ratio)
                if not series:
                    geo.setdefault(("the grids", key), []).append(ratio)
                rows.append("| %s | %s | %s | %.3f | | | | |" % (short, "x".join(map(str, cs)),
                                                                 key, ratio))
    lines = ["| array | chunk | codec | ratio | write 1T | write 2T | read 1T | read 2T |",
             "|---|---|---|---:|---:|---:|---:|---:|"] + rows
    keys = sorted({k for _, k in geo})
    lines += ["", "| geomean ratio | " + " | ".join(keys) + " |", "|---|" + "---:|" * len(keys)]
    for over in sorted({o for o, _ in geo}, reverse=True):
        lines.append("| %s (%d) | " % (over, len(geo[(over, keys[0])])) + " | ".join(
            "%.3f" % float(np.exp(np.mean(np.log(geo[(over, k)])))) for k in keys) + " |")
    report(lines, args.out, "bench_lossless")


if __name__ == "__main__":
    main()
