"""What the Python benchmarks of the parz package share (bench_read.py, bench_write.py): their
common options, the GPU modules where usable, etopo5 and its tolerance, the printed and written
table, environment variables set for a block, and timing."""
import argparse
import atexit
import os
import shutil
import statistics
import tempfile
import time

import numpy as np


def parser(doc, default_file):
    """An argument parser with --data (the real arrays), --out (where the table goes) and --file
    (the scratch HDF5 file). The default scratch file is default_file's name in a directory of
    this process's own, removed at exit, so that runs side by side never share one."""
    here = os.path.dirname(os.path.abspath(__file__))
    scratch = tempfile.mkdtemp(prefix="parz-bench-")
    atexit.register(shutil.rmtree, scratch, True)
    default_file = os.path.join(scratch, os.path.basename(default_file))
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    shared = os.path.join(here, "..", "..", "shared", "data")
    p.add_argument("--data", default=os.environ.get("PARZ_SHARED_DATA", shared))
    p.add_argument("--out", default=None)
    p.add_argument("--file", default=default_file)
    return p


def gpu_modules(parz):
    """(cupy, whether parz finds a usable GPU); (None, False) without CuPy."""
    try:
        import cupy
        return cupy, parz.get_config().gpu
    except ImportError:
        return None, False


def etopo5(data_dir, accuracy):
    """etopo5 (2161x4320 float32) and the tolerance accuracy x its value range (the fill values
    of magnitude >= 1e9 left out)."""
    src = os.path.join(data_dir, "etopo5_relief_f32le_2161x4320.bin")
    a = np.fromfile(src, "<f4").reshape(2161, 4320)
    finite = a[np.isfinite(a) & (np.abs(a) < 1e9)]
    return a, accuracy * float(finite.max() - finite.min())


def report(lines, out, name):
    """Prints the table's lines and writes them to out/name when out is given; the text."""
    text = "\n".join(lines) + "\n"
    print(text)
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, name), "w") as f:
            f.write(text)
    return text


class Env:
    """Sets environment variables for a block (the policy is read on every call)."""

    def __init__(self, **kv):
        self.kv = kv

    def __enter__(self):
        self.old = {k: os.environ.get(k) for k in self.kv}
        for k, v in self.kv.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = str(v)

    def __exit__(self, *exc):
        for k, v in self.old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def timed(fn, reps, sync=None):
    """(best, median, last result) of reps calls of fn (after sync, when given)."""
    times, result = [], None
    for _ in range(reps):
        result = None  # the previous result is freed before the next call, as a loop would
        t0 = time.perf_counter()
        result = fn()
        if sync:
            sync()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times), result
