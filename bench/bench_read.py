#!/usr/bin/env python3
"""Python reads of one ParZ dataset against its peers, side by side in one process: the goals of
parz.read (docs/python.md, "Reading at the decoders' speed").

The array is etopo5 (../shared/data) tiled to --tile copies along its slowest axis (2: 75 MB of
float32), stored three times in one scratch file: ParZ at accuracy --accuracy x its value range in
chunks of --chunk-rows rows, uncompressed contiguous, and uncompressed in the same chunks. The file
is read once before timing (in the page cache); every read is timed --reps times (best and median
reported), and every read must give the same values as h5py's read of the ParZ dataset.

Reads: h5py of the uncompressed datasets (and + cupy.asarray, into GPU memory); h5py of the ParZ
dataset with PARZ_EXEC = serial, omp (--threads) and cuda; parz.read into numpy with PARZ_EXEC
unset (auto: the GPU where usable), = cuda and = omp (--threads), each into a fresh array and into
out=; parz.read(device="cuda") (fresh, and out= a CuPy array). Then the goals as ratios, and where
the time of parz.read with PARZ_EXEC=omp goes: the stored chunks read (h5py's read_direct_chunk
over every chunk: HDF5's share), the same parz.read into a warm out= array (no page faults), and
into a fresh array (the faults of its first touch).

Usage: bench_read.py [--data DIR] [--out DIR] [--file scratch.h5] [--tile 2] [--chunk-rows 512]
                     [--accuracy 1e-3] [--threads 16] [--reps 5]
Writes DIR/bench_read.md (the table) when --out is given. Needs h5py and the parz package
(PYTHONPATH=<build>/python, or the wheel installed); CuPy for the GPU rows.
"""
import os
import platform
import sys

import numpy as np

from bench_py import Env, etopo5, gpu_modules, parser, report, timed


def parse_args():
    p = parser(__doc__, "bench_read.h5")
    p.add_argument("--tile", type=int, default=2)
    p.add_argument("--chunk-rows", type=int, default=512)
    p.add_argument("--accuracy", type=float, default=1e-3)
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--reps", type=int, default=5)
    return p.parse_args()


def main():
    args = parse_args()
    import h5py
    import parz
    cupy, gpu = gpu_modules(parz)
    a, tol = etopo5(args.data, args.accuracy)
    data = np.concatenate([a] * args.tile, axis=0) if args.tile > 1 else a
    chunks = (min(args.chunk_rows, data.shape[0]), data.shape[1])
    with Env(PARZ_EXEC="omp", PARZ_THREADS=None), h5py.File(args.file, "w") as f:
        f.create_dataset("parz", data=data, chunks=chunks, compression=parz.Parz(accuracy=tol))
        f.create_dataset("plain", data=data)
        f.create_dataset("chunked", data=data, chunks=chunks)
    mb = data.nbytes / 1e6
    rows, notes = [], []
    sync = cupy.cuda.runtime.deviceSynchronize if cupy is not None else None

    def row(name, best, median, ref=None):
        rows.append((name, best, median))
        if ref is not None and ref.tobytes() != want:
            notes.append("%s: VALUES DIFFER from h5py's read of the ParZ dataset" % name)

    T = args.threads
    with h5py.File(args.file, "r") as f:
        d = f["parz"]
        stored = d.id.get_storage_size()
        want = d[...].tobytes()  # also brings the file into the page cache
        f["plain"][...], f["chunked"][...]
        b, m, _ = timed(lambda: f["plain"][...], args.reps)
        row("h5py, uncompressed (contiguous)", b, m)
        b, m, _ = timed(lambda: f["chunked"][...], args.reps)
        row("h5py, uncompressed (same chunks)", b, m)
        if gpu:
            b, m, _ = timed(lambda: cupy.asarray(f["plain"][...]), args.reps, sync)
            row("h5py, uncompressed + cupy.asarray", b, m)
        for ex in ("serial", "omp", "cuda") if gpu else ("serial", "omp"):
            with Env(PARZ_EXEC=ex, PARZ_THREADS=T if ex == "omp" else None):
                b, m, r = timed(lambda: d[...], args.reps if ex != "serial" else 2)
            row("h5py, ParZ, PARZ_EXEC=%s%s" % (ex, " (%d threads)" % T if ex == "omp" else ""),
                b, m, r)
        out = np.zeros(d.shape, d.dtype)
        for ex, threads in ((None, None), ("cuda", None), ("omp", T)) if gpu else (
                (None, None), ("omp", T)):
            label = "auto" if ex is None else ex
            label += " (%d threads)" % T if threads else ""
            with Env(PARZ_EXEC=ex):
                b, m, r = timed(lambda: parz.read(d, threads=threads), args.reps)
                row("parz.read, PARZ_EXEC=%s" % label, b, m, r)
                b, m, r = timed(lambda: parz.read(d, out=out, threads=threads), args.reps)
                row("parz.read, PARZ_EXEC=%s, out=" % label, b, m, r)
        if gpu:
            b, m, r = timed(lambda: parz.read(d, device="cuda"), args.reps, sync)
            row("parz.read(device='cuda')", b, m, cupy.asnumpy(cupy.asarray(r)))
            c = cupy.empty(d.shape, d.dtype)
            b, m, r = timed(lambda: parz.read(d, device="cuda", out=c), args.reps, sync)
            row("parz.read(device='cuda', out=cupy array)", b, m, cupy.asnumpy(r))
        # where parz.read's time goes (PARZ_EXEC=omp): HDF5's share, then decode and faults
        offsets = [(r0, 0) for r0 in range(0, d.shape[0], chunks[0])]
        b, m, _ = timed(lambda: [d.id.read_direct_chunk(o) for o in offsets], args.reps)
        rows.append(("  stored chunks read (h5py read_direct_chunk, %d chunks)" % len(offsets), b,
                     m))
    by = {name: best for name, best, _ in rows}

    def ratio(num, den):
        return by[den] / by[num] if num in by and den in by else None

    goals = [
        ("parz.read(device='cuda') / (uncompressed h5py + cupy.asarray)", 5.0,
         ratio("parz.read(device='cuda')", "h5py, uncompressed + cupy.asarray")),
        ("parz.read() (auto) / uncompressed h5py", 2.0,
         ratio("parz.read, PARZ_EXEC=auto", "h5py, uncompressed (contiguous)")),
        ("parz.read() PARZ_EXEC=omp / h5py ParZ PARZ_EXEC=omp (%d threads)" % T, 1.5,
         ratio("parz.read, PARZ_EXEC=omp (%d threads)" % T,
               "h5py, ParZ, PARZ_EXEC=omp (%d threads)" % T)),
    ]
    omp_fresh = by.get("parz.read, PARZ_EXEC=omp (%d threads)" % T)
    omp_out = by.get("parz.read, PARZ_EXEC=omp (%d threads), out=" % T)
    chunks_read = rows[-1][1]

    lines = ["# parz.read against its peers", "",
             "%s, %s, Python %s, h5py %s (HDF5 %s), numpy %s%s; %d threads" % (
                 platform.node(), platform.machine(), platform.python_version(), h5py.__version__,
                 h5py.version.hdf5_version, np.__version__,
                 ", CuPy %s, GPU usable" % cupy.__version__ if gpu else ", no GPU rows", T),
             "etopo5 tiled %dx1: %s float32, %.1f MB; ParZ at accuracy %g x range (%.4g), chunks "
             "%dx%d, stored %.1f MB (ratio %.2f). Best and median of %d reads, file in the page "
             "cache." % (args.tile, "x".join(map(str, data.shape)), mb, args.accuracy, tol,
                         chunks[0], chunks[1], stored / 1e6, data.nbytes / stored, args.reps), "",
             "| read | best ms | median ms | GB/s (best) |", "|---|---:|---:|---:|"]
    for name, best, median in rows:
        whole = not name.startswith(" ")  # the indented row reads compressed bytes only
        lines.append("| %s | %.2f | %.2f | %s |" % (name.strip(), 1e3 * best, 1e3 * median,
                                                    "%.2f" % (mb / 1e3 / best) if whole else "-"))
    lines += ["", "| goal | ratio (best / best) | needed | met |", "|---|---:|---:|---|"]
    for name, need, got in goals:
        lines.append("| %s | %s | %.1f | %s |" % (name, "%.2f" % got if got else "n/a", need,
                                                  "yes" if got and got >= need else
                                                  "no" if got else "not measured"))
    if omp_fresh and omp_out:
        lines += ["", "parz.read with PARZ_EXEC=omp, %d threads, %.2f ms (best): stored chunks "
                  "read %.2f ms (HDF5, through h5py), decode in place into a warm array %.2f ms, "
                  "page faults of a fresh array %.2f ms (bench_h5read --breakdown "
                  "splits it further, in C)." % (T, 1e3 * omp_fresh, 1e3 * chunks_read,
                                                 1e3 * (omp_out - chunks_read),
                                                 1e3 * (omp_fresh - omp_out))]
    lines += [""] + notes
    report(lines, args.out, "bench_read.md")
    os.remove(args.file)
    return 1 if notes else 0


if __name__ == "__main__":
    sys.exit(main())
