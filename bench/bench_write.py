#!/usr/bin/env python3
"""Python writes of a ParZ dataset through h5py, every way side by side in one process: the
filter inside H5Dwrite (PARZ_EXEC=omp and cuda), parz.write of a host and of a GPU array, and the
uncompressed write; on the HDF5 library h5py brings (bench_h5write measures the same in C on
Debian's HDF5).

The array is etopo5 (../shared/data) tiled along its slowest axis to at least --min-mib MiB, with
--nan-above V turning the values above V into NaN (the dataset's default mask stores them). For
each chunk size of --chunk-mib (slabs of whole rows) a write is timed from h5py.File(path, "w")
to its close: create the dataset (ParZ at accuracy --accuracy x the value range, or no filter),
write the whole array, close; the file lands in the page cache (--file). Every way is written
once untimed (the GPU context and the page cache warm up), then --reps times, the ways taking
turns; best and median are reported. After timing, the stored chunks of every ParZ file are
compared raw with those of the OpenMP H5Dwrite: whoever encodes, the file must hold the same
bytes.

Ways: h5py uncompressed in the same chunks; h5py ParZ PARZ_EXEC=omp (--threads) and cuda;
parz.write of the numpy array, PARZ_EXEC=omp (--threads) and auto (the GPU where usable);
checkpoints from GPU memory (the array resident in a CuPy array): parz.write of the CuPy array,
against cupy.asnumpy + h5py ParZ omp and cupy.asnumpy + h5py uncompressed. Then the ratios that
the GPU encoder's goals name (H5Dwrite cuda / omp >= 3; writes from GPU memory >= 5 and >= 2).

Usage: bench_write.py [--data DIR] [--out DIR] [--file scratch.h5] [--min-mib 150]
                      [--chunk-mib 4,16,64] [--accuracy 1e-2] [--nan-above V] [--threads 16]
                      [--reps 3]
Writes DIR/bench_write.md when --out is given. Needs h5py and the parz package
(PYTHONPATH=<build>/python, or the wheel installed); CuPy for the GPU rows.
"""
import os
import platform
import sys

import numpy as np

from bench_py import Env, etopo5, gpu_modules, parser, report, timed


def parse_args():
    p = parser(__doc__, "bench_write.h5")
    p.add_argument("--min-mib", type=float, default=150)
    p.add_argument("--chunk-mib", default="4,16,64")
    p.add_argument("--accuracy", type=float, default=1e-2)
    p.add_argument("--nan-above", type=float, default=None)
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--reps", type=int, default=3)
    return p.parse_args()


def stored_chunks(path):
    """The raw bytes of every stored chunk of dataset "a", by chunk offset."""
    import h5py
    with h5py.File(path, "r") as f:
        d = f["a"]
        out = {}
        for i in range(d.id.get_num_chunks()):
            info = d.id.get_chunk_info(i)
            out[info.chunk_offset] = d.id.read_direct_chunk(info.chunk_offset)[1]
        return out


def main():
    args = parse_args()
    import h5py
    import parz
    cupy, gpu = gpu_modules(parz)
    a, tol = etopo5(args.data, args.accuracy)
    tile = max(1, -(-int(args.min_mib * 2**20) // a.nbytes))
    data = np.ascontiguousarray(np.concatenate([a] * tile, axis=0))
    if args.nan_above is not None:
        data[data > args.nan_above] = np.nan
    masked = float(np.isnan(data).mean())
    d_data = cupy.asarray(data) if gpu else None
    sync = cupy.cuda.runtime.deviceSynchronize if gpu else None
    row_bytes = data.shape[1] * data.itemsize
    T = args.threads
    scratch = args.file + ".%s.h5"

    def h5py_write(path, compressed, array_fn):
        def run():
            with h5py.File(path, "w") as f:
                d = f.create_dataset("a", data.shape, data.dtype, chunks=chunks,
                                     compression=parz.Parz(accuracy=tol) if compressed else None)
                d[...] = array_fn()
        return run

    def parz_write(path, array):
        def run():
            with h5py.File(path, "w") as f:
                d = f.create_dataset("a", data.shape, data.dtype, chunks=chunks,
                                     compression=parz.Parz(accuracy=tol))
                parz.write(d, array, threads=T if os.environ.get("PARZ_EXEC") == "omp" else None)
        return run

    lines = ["# Writes through h5py: the filter inside H5Dwrite and parz.write", "",
             "%s, %s, %d CPUs, Python %s, h5py %s (HDF5 %s), numpy %s%s; %d threads" % (
                 platform.node(), platform.machine(), os.cpu_count(), platform.python_version(),
                 h5py.__version__, h5py.version.hdf5_version, np.__version__,
                 ", CuPy %s, GPU usable" % cupy.__version__ if gpu else ", no GPU rows", T),
             "etopo5 tiled %dx1: %s float32, %.1f MB%s; ParZ at accuracy %g x range (%.4g). A "
             "write: file create, dataset create, whole array written, close; file in %s. Best "
             "and median of %d writes, the ways taking turns." % (
                 tile, "x".join(map(str, data.shape)), data.nbytes / 1e6,
                 ", values above %g made NaN (%.1f%%)" % (args.nan_above, 100 * masked)
                 if args.nan_above is not None else "", args.accuracy, tol,
                 os.path.dirname(os.path.abspath(args.file)), args.reps), ""]
    goal_lines = []
    for mib in [float(x) for x in args.chunk_mib.split(",")]:
        rows = max(1, min(data.shape[0], round(mib * 2**20 / row_bytes)))
        chunks = (rows, data.shape[1])
        ways = [  # name, file tag, PARZ_EXEC, PARZ_THREADS, write, sync after
            ("h5py uncompressed", "plain", None, None, h5py_write(scratch % "plain", False,
                                                                  lambda: data), None),
            ("h5py ParZ, PARZ_EXEC=omp", "omp", "omp", T,
             h5py_write(scratch % "omp", True, lambda: data), None),
            ("parz.write, PARZ_EXEC=omp", "pw_omp", "omp", T, parz_write(scratch % "pw_omp", data),
             None),
        ]
        if gpu:
            ways += [
                ("h5py ParZ, PARZ_EXEC=cuda", "cuda", "cuda", None,
                 h5py_write(scratch % "cuda", True, lambda: data), None),
                ("parz.write, PARZ_EXEC=auto", "pw_auto", None, None,
                 parz_write(scratch % "pw_auto", data), None),
                ("GPU array: parz.write(cupy array)", "pw_dev", None, None,
                 parz_write(scratch % "pw_dev", d_data), sync),
                ("GPU array: cupy.asnumpy + h5py ParZ omp", "copy_omp", "omp", T,
                 h5py_write(scratch % "copy_omp", True, lambda: cupy.asnumpy(d_data)), None),
                ("GPU array: cupy.asnumpy + h5py uncompressed", "copy_plain", None, None,
                 h5py_write(scratch % "copy_plain", False, lambda: cupy.asnumpy(d_data)), None),
            ]
        times = {w[0]: [] for w in ways}
        for rep in range(args.reps + 1):
            for name, _, ex, threads, fn, after in ways:
                with Env(PARZ_EXEC=ex, PARZ_THREADS=threads):
                    best, _, _ = timed(fn, 1, after)
                if rep:  # the first round warms up
                    times[name].append(best)
        ref = stored_chunks(scratch % "omp")
        stored = sum(len(v) for v in ref.values())
        same = {}
        for name, tag, *_ in ways:
            if tag not in ("plain", "copy_plain", "omp"):
                same[name] = "yes" if stored_chunks(scratch % tag) == ref else "NO"
        lines += ["## chunks of %d rows (%.2f MiB), %d chunks, ParZ stored %.1f MB (ratio %.2f)" % (
            rows, rows * row_bytes / 2**20, -(-data.shape[0] // rows), stored / 1e6,
            data.nbytes / stored), "",
            "| write | best ms | median ms | MB/s (best) | chunks as omp's |",
            "|---|---:|---:|---:|---|"]
        best = {}
        for name, *_ in ways:
            t = sorted(times[name])
            best[name] = t[0]
            lines.append("| %s | %.1f | %.1f | %.0f | %s |" % (
                name, 1e3 * t[0], 1e3 * t[len(t) // 2], data.nbytes / 1e6 / t[0],
                same.get(name, "-")))
        lines.append("")

        def goal(what, num, den, need):
            if num in best and den in best:
                r = best[den] / best[num]
                goal_lines.append("| %.2f | %s | %.2f | %s | %s |" % (
                    rows * row_bytes / 2**20, what, r, "%.0f" % need if need else "-",
                    ("yes" if r >= need else "no") if need else "-"))
        goal("H5Dwrite, PARZ_EXEC=cuda / omp", "h5py ParZ, PARZ_EXEC=cuda",
             "h5py ParZ, PARZ_EXEC=omp", 3)
        goal("parz.write(cupy array) / (cupy.asnumpy + h5py ParZ omp)",
             "GPU array: parz.write(cupy array)", "GPU array: cupy.asnumpy + h5py ParZ omp", 5)
        goal("parz.write(cupy array) / (cupy.asnumpy + h5py uncompressed)",
             "GPU array: parz.write(cupy array)", "GPU array: cupy.asnumpy + h5py uncompressed",
             2)
        goal("parz.write(numpy), auto / h5py ParZ omp", "parz.write, PARZ_EXEC=auto",
             "h5py ParZ, PARZ_EXEC=omp", None)
        if any(v == "NO" for v in same.values()):
            lines.append("CHUNKS DIFFER from the OpenMP H5Dwrite's")
    for tag in ("plain", "omp", "pw_omp", "cuda", "pw_auto", "pw_dev", "copy_omp", "copy_plain"):
        if os.path.exists(scratch % tag):
            os.remove(scratch % tag)
    lines += ["## ratios (best / best)", "",
              "| chunk MiB | ratio | measured | needed | met |", "|---:|---|---:|---:|---|"]
    lines += goal_lines
    text = report(lines, args.out, "bench_write.md")
    return 1 if "CHUNKS DIFFER" in text else 0


if __name__ == "__main__":
    sys.exit(main())
