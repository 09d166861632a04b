#!/usr/bin/env python3
"""h5py read benchmark: ParZ (filter 37050) vs H5Z-ZFP (filter 32013) on the same data.

Each real array of --data (raw little-endian, type and shape in the file name) is tiled along
its slowest axis to at least --min-mib MiB, written twice into one scratch HDF5 file with the
same chunks and the same fixed accuracy (--accuracy times the value range, fill values of
magnitude >= 1e9 left out), then read back side by side with ``ds[...]``: H5Z-ZFP once, ParZ at
each PARZ_THREADS count (the filter reads the policy on every chunk, so one process sweeps
them). Prints MB/s and the ParZ / H5Z-ZFP speed ratio, and checks that both reads give the same
array (both filters write the same zfp stream for the same tolerance).

4D arrays are stored as 3D (two slowest axes merged, same bytes): H5Z-ZFP takes at most 3
non-unit chunk dimensions. The C program bench_h5read (bench/bench_h5read.c) measures the
same thing without h5py, for hosts where h5py's HDF5 cannot load the plugins.

Usage: bench_h5read.py --plugin-dir BUILD/plugins [--data DIR] [--only NAME] [--accuracy REL]
                       [--min-mib 16] [--chunk-mib 0] [--threads 1,2,4,8,16] [--reps 3]
                       [--exec omp] [--file scratch.h5]
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import time

DEBIAN_PLUGINS = "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins"


def reexec_with_h5py():
    """Debian's /usr/bin/python3 has h5py; a pyenv python3 first on PATH may not."""
    try:
        import h5py  # noqa: F401
        return
    except ImportError:
        pass
    for py in ("/usr/bin/python3",):
        if os.path.exists(py) and os.path.realpath(py) != os.path.realpath(sys.executable):
            if subprocess.call([py, "-c", "import h5py"], stderr=subprocess.DEVNULL) == 0:
                os.execv(py, [py] + sys.argv)
    sys.exit("bench_h5read.py: no Python with h5py found; use the C program bench_h5read")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                  "shared", "data"))
    p.add_argument("--only", default=None, help="substring of the array names to run")
    p.add_argument("--plugin-dir", action="append", default=[],
                   help="directory holding libH5Zparz.so (repeatable); H5Z-ZFP's Debian "
                        "directory is added when present")
    p.add_argument("--accuracy", type=float, default=1e-4)
    p.add_argument("--min-mib", type=float, default=16)
    p.add_argument("--chunk-mib", type=float, default=0, help="0 = one chunk per dataset")
    p.add_argument("--threads", default="1,2,4,8,16")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--exec", default="omp", help="PARZ_EXEC for the ParZ reads")
    p.add_argument("--file", default="bench_h5read_py.h5")
    return p.parse_args()


def load_arrays(data_dir, only):
    import numpy as np
    pat = re.compile(r"^(.*)_(f32|f64)le_([0-9x]+)\.bin$")
    out = []
    for name in sorted(os.listdir(data_dir)):
        m = pat.match(name)
        if not m or (only and only not in m.group(1)):
            continue
        shape = tuple(int(n) for n in m.group(3).split("x"))
        dtype = np.dtype("<f4" if m.group(2) == "f32" else "<f8")
        out.append((m.group(1), np.fromfile(os.path.join(data_dir, name), dtype).reshape(shape)))
    return out


def value_range(a):
    import numpy as np
    v = a[np.isfinite(a) & (np.abs(a) < 1e9)]
    return float(v.max() - v.min()) if v.size and v.max() > v.min() else 1.0


def parz_cd(tol):
    bits = struct.unpack("<Q", struct.pack("<d", tol))[0]
    return (3, bits >> 32, bits & 0xFFFFFFFF)


def zfp_cd(tol):
    lo, hi = struct.unpack("=II", struct.pack("=d", tol))   # native words, as H5Z-ZFP stores
    return (3, 0, lo, hi)


def best_read(ds, reps):
    best, arr = float("inf"), None
    for _ in range(reps):
        t0 = time.perf_counter()
        arr = ds[...]
        best = min(best, time.perf_counter() - t0)
    return best, arr


def bench(name, a, args, threads):
    import h5py
    import numpy as np
    copies = 1
    while copies * a.nbytes < args.min_mib * 1048576:
        copies += 1
    data = np.concatenate([a] * copies, axis=0) if copies > 1 else a
    if data.ndim == 4:
        data = data.reshape((data.shape[0] * data.shape[1],) + data.shape[2:])
    chunks = list(data.shape)
    if args.chunk_mib > 0:
        rows = int(args.chunk_mib * 1048576 / (data.nbytes / data.shape[0]))
        chunks[0] = max(1, min(rows, data.shape[0]))
    tol = args.accuracy * value_range(a)
    os.environ["PARZ_EXEC"] = "omp"
    os.environ.pop("PARZ_THREADS", None)
    with h5py.File(args.file, "w") as f:
        f.create_dataset("parz", data=data, chunks=tuple(chunks), compression=37050,
                         compression_opts=parz_cd(tol))
        f.create_dataset("zfp", data=data, chunks=tuple(chunks), compression=32013,
                         compression_opts=zfp_cd(tol))
    mib = data.nbytes / 1048576
    print(f"{name}: {mib:.1f} MiB, chunk {'x'.join(map(str, chunks))}, accuracy {tol:.3g} "
          f"({args.accuracy:g} x range)")
    with h5py.File(args.file, "r") as f:
        t_zfp, ref = best_read(f["zfp"], args.reps)
        print(f"  H5Z-ZFP  (32013)       : {data.nbytes / t_zfp / 1e6:8.1f} MB/s "
              f"{1e3 * t_zfp:8.2f} ms  stored {f['zfp'].id.get_storage_size() / 1048576:.2f} MiB")
        os.environ["PARZ_EXEC"] = args.exec
        for n in threads:
            os.environ["PARZ_THREADS"] = str(n)
            t, arr = best_read(f["parz"], args.reps)
            same = arr.tobytes() == ref.tobytes()
            print(f"  ParZ {args.exec:<5} {n:3d} threads : {data.nbytes / t / 1e6:8.1f} MB/s "
                  f"{1e3 * t:8.2f} ms  stored {f['parz'].id.get_storage_size() / 1048576:.2f} "
                  f"MiB  ParZ/H5Z-ZFP speed {t_zfp / t:.2f}x{'' if same else '  ARRAYS DIFFER'}")
    os.environ.pop("PARZ_THREADS", None)


def main():
    args = parse_args()
    # HDF5 reads HDF5_PLUGIN_PATH when it first looks for a plugin: set it before h5py loads one
    dirs = [os.path.abspath(d) for d in args.plugin_dir]
    dirs += [d for d in os.environ.get("HDF5_PLUGIN_PATH", "").split(":") if d]
    if os.path.isdir(DEBIAN_PLUGINS):
        dirs.append(DEBIAN_PLUGINS)
    os.environ["HDF5_PLUGIN_PATH"] = ":".join(dirs)
    reexec_with_h5py()
    threads = [int(n) for n in args.threads.split(",") if n]
    arrays = load_arrays(args.data, args.only)
    if not arrays:
        sys.exit(f"bench_h5read.py: no arrays in {args.data}")
    try:
        for name, a in arrays:
            bench(name, a, args, threads)
    finally:
        if os.path.exists(args.file):
            os.remove(args.file)


if __name__ == "__main__":
    main()
