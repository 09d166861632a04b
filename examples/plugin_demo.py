#!/usr/bin/env python3
"""Writes a raw array (shape and type from its file name, as in ../shared/data) into a ParZ
compressed HDF5 file with h5py, reads it back, and prints ratio, max error and timings.

    plugin_demo.py egm96_geoid_f32le_721x1440.bin out.h5 --accuracy 1e-3 [--reads 5]

The read under each execution policy is timed --reads times after one untimed read, the
policies taking turns; it prints the median and the spread (fastest to slowest).
"""
import argparse
import os
import re
import statistics
import sys
import time

import h5py
import numpy as np

import parz  # registers the ParZ filter with h5py's HDF5


def array_from_name(path):
    m = re.search(r"_(f32|f64)le_([0-9x]+)\.bin$", os.path.basename(path))
    if not m:
        sys.exit("cannot read type and shape from %s (expected ..._f32le_AxB.bin)" % path)
    dtype = np.dtype("<f4" if m.group(1) == "f32" else "<f8")
    shape = tuple(int(s) for s in m.group(2).split("x"))
    return np.fromfile(path, dtype=dtype).reshape(shape)


def chunk_shape(shape, values=1 << 18):
    """Whole trailing dimensions, enough leading rows for about `values` values per chunk."""
    rest = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    rows = max(1, min(shape[0], values // rest))
    return (rows,) + tuple(shape[1:])


def time_reads(read, policies, reads):
    """Seconds of `reads` calls of read(policy) per policy, after one untimed call each. The first
    read of a file pays for what later ones find ready (the file in the page cache, the threads
    of OpenMP's pool), so one cold read can put any policy behind; the policies take turns, so a
    change of the machine's load hits all of them alike."""
    times = {p: [] for p in policies}
    for round_ in range(reads + 1):
        for p in policies:
            seconds = read(p)
            if round_ > 0:
                times[p].append(seconds)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("array")
    ap.add_argument("output")
    ap.add_argument("--accuracy", type=float, default=1e-3)
    ap.add_argument("--reads", type=int, default=5, help="timed reads per policy (default 5)")
    args = ap.parse_args()

    data = array_from_name(args.array)
    chunks = chunk_shape(data.shape)
    print("array   %s  %s %s, %.1f MB, chunks %s" % (os.path.basename(args.array), data.dtype,
                                                    data.shape, data.nbytes / 1e6, chunks))
    print("policy  PARZ_EXEC=%s PARZ_THREADS=%s" % (os.environ.get("PARZ_EXEC", "auto"),
                                                   os.environ.get("PARZ_THREADS", "default")))

    t0 = time.perf_counter()
    with h5py.File(args.output, "w") as f:
        f.create_dataset("data", data=data, chunks=chunks,
                         compression=parz.Parz(accuracy=args.accuracy))
    t_write = time.perf_counter() - t0

    t0 = time.perf_counter()
    with h5py.File(args.output, "r") as f:
        back = f["data"][...]
        stored = f["data"].id.get_storage_size()
    t_read = time.perf_counter() - t0

    # The same file read under each execution policy (read per chunk from the environment).
    differ = set()

    def read(policy):
        os.environ["PARZ_EXEC"] = policy
        t0 = time.perf_counter()
        with h5py.File(args.output, "r") as f:
            same = np.array_equal(f["data"][...], back)
        seconds = time.perf_counter() - t0
        if not same:
            differ.add(policy)
        return seconds

    saved = os.environ.get("PARZ_EXEC")
    policy_times = time_reads(read, ("serial", "omp"), max(1, args.reads))
    if saved is None:
        del os.environ["PARZ_EXEC"]
    else:
        os.environ["PARZ_EXEC"] = saved

    err = float(np.max(np.abs(back.astype(np.float64) - data.astype(np.float64))))
    mb = data.nbytes / 1e6
    print("written %s: %d bytes" % (args.output, stored))
    print("ratio   %.2f  (raw %d / stored %d bytes)" % (data.nbytes / stored, data.nbytes, stored))
    print("error   max |x - x'| = %.3g  (tolerance %g: %s)"
          % (err, args.accuracy, "within bound" if err <= args.accuracy else "EXCEEDED"))
    print("time    write %.3f s (%.0f MB/s), first read %.3f s (%.0f MB/s)"
          % (t_write, mb / t_write, t_read, mb / t_read))
    for policy, ts in policy_times.items():
        mid = statistics.median(ts)
        print("read    PARZ_EXEC=%-6s median %.3f s (%.0f MB/s), spread %.3f-%.3f s over %d "
              "reads after a warm-up read%s" % (policy, mid, mb / mid, min(ts), max(ts), len(ts),
                                                "  VALUES DIFFER" if policy in differ else ""))
    ok = err <= args.accuracy and not differ
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
