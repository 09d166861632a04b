#!/usr/bin/env python3
"""Datasets of many small chunks and sparse datasets, side by side in one process: parz.read
against h5py's read of the same dataset, and `parz inspect --summary` (the cost of walking
HDF5's chunk index, plugin/dataset/h5_index.h).

Dense: a float32 array of --rows x (--chunks / (--rows / 4)) * 4 values in 4 x 4 chunks, for each
count in --chunks, at accuracy 1e-3; both reads are timed --reps times (best and median), and
must give the same values. Sparse: 2,000 chunks written at random places of a grid of 1000 x 1000
chunks, under each of HDF5's chunk indexes (version 1 B-tree, fixed array, extensible array,
version 2 B-tree); `parz inspect --summary` timed once, and parz.read of a 400 x 400 box against
h5py's.

Usage: bench_index.py [--out DIR] [--file scratch.h5] [--chunks 8000,32000,64000] [--reps 3]
                      [--tool build/tools/parz]
Writes DIR/bench_index.md when --out is given. Needs h5py and the parz package
(PYTHONPATH=<build>/python).
"""
import os
import platform
import subprocess
import sys
import time

import numpy as np

from bench_py import Env, parser, report, timed

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data"))
from sparse_chunks import write_sparse  # noqa: E402

INDEXES = (("v1 B-tree", "btree1"), ("fixed array", "fixed_array"),
           ("extensible array", "extensible_array"), ("v2 B-tree", "btree2"))


def parse_args():
    p = parser(__doc__, "bench_index.h5")
    p.add_argument("--chunks", default="8000,32000,64000")
    p.add_argument("--rows", type=int, default=320)
    p.add_argument("--reps", type=int, default=3)
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--tool", default=os.path.join(here, "..", "build", "tools", "parz"))
    return p.parse_args()


def main():
    args = parse_args()
    import h5py
    import parz
    lines = ["# Many small chunks and sparse datasets: parz.read against h5py", "",
             "%s, %d cores, HDF5 %s, h5py %s, numpy %s; PARZ_EXEC=omp; best (median) of %d" %
             (platform.node(), os.cpu_count() or 1, h5py.version.hdf5_version,
              h5py.version.version, np.__version__, args.reps), "",
             "| dense, 4 x 4 chunks | h5py read s | parz.read s | parz / h5py |",
             "|---|---:|---:|---:|"]
    with Env(PARZ_EXEC="omp"):
        for n in [int(c) for c in args.chunks.split(",")]:
            cols = n // (args.rows // 4) * 4
            x = np.cos(np.arange(args.rows * cols, dtype="f4") * 0.01).reshape(args.rows, cols)
            with h5py.File(args.file, "w") as f:
                f.create_dataset("x", data=x, chunks=(4, 4), compression=parz.Parz(accuracy=1e-3))
            with h5py.File(args.file, "r") as f:
                d = f["x"]
                hb, hm, want = timed(lambda: d[...], args.reps)
                pb, pm, got = timed(lambda: parz.read(d), args.reps)
                assert np.array_equal(want, got)
            lines.append("| %d chunks (%d x %d) | %.3f (%.3f) | %.3f (%.3f) | %.2f |" %
                         (n, args.rows, cols, hb, hm, pb, pm, pb / hb))
        lines += ["", "| sparse, 2000 of 10^6 chunks | `parz inspect --summary` s | h5py read of "
                  "a box s | parz.read of the box s |", "|---|---:|---:|---:|"]
        for name, index in INDEXES:
            write_sparse(h5py, parz, args.file, index)
            t0 = time.perf_counter()
            r = subprocess.run([args.tool, "inspect", "--summary", args.file],
                               capture_output=True, text=True)
            inspect_s = time.perf_counter() - t0
            assert r.returncode == 0 and "summary: 2000 chunks" in r.stdout, r.stdout + r.stderr
            with h5py.File(args.file, "r") as f:
                d = f["x"]
                box = np.s_[1000:1400, 1000:1400]
                hb, _, want = timed(lambda: d[box], args.reps)
                pb, _, got = timed(lambda: parz.read(d, box), args.reps)
                assert np.array_equal(want, got)
            lines.append("| %s | %.2f | %.4f | %.4f |" % (name, inspect_s, hb, pb))
    os.remove(args.file)
    report(lines, args.out, "bench_index.md")


if __name__ == "__main__":
    main()
