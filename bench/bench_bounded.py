"""The error-bounded codec through the HDF5 filter, side by side in one run with SZ3 and with
ParZ's zfp accuracy mode at the same absolute bound: ratio, max error / eb and the speeds of
writes and reads through h5py with the filter on one thread and on two (PARZ_THREADS).

Every real array of --data, eb = 1e-3 and 1e-5 x its value range (levitus: over its valid
range, its fill value -1e10 given as the dataset's fill value, masked by ParZ; SZ3 gets the
array as it is), chunks of at most about 1 MiB and 4 MiB (the largest extent halved until the
chunk fits); with --segment-codes, one bounded row per segment size C (codes per segment, the
table's segment_blocks) in place of the codec's own. SZ3 runs as its own program on the whole array (it has no chunks), compressing
and decompressing in two runs; its speeds are the times it prints. Every decoded value is
checked: within eb where finite and not the fill value, bit for bit otherwise. Speeds are MB/s
of raw array, the best of --reps runs; on a loaded machine the one-thread columns by CPU time
(this process's for h5py, the child's user and system time for SZ3, its file reading and
writing included) compare the codecs better than the wall clock. The table goes to standard
output and, with --out, to DIR/bench_bounded.

    bench_bounded.py --data DIR --sz3 PATH [--reps N] [--out DIR] [--segment-codes 4096,1024]
                     [--no-zfp]
"""
import os
import re
import resource
import subprocess
import tempfile
import time

import h5py
import numpy as np

import parz
from bench_py import Env, parser, report, timed

MIB = 1 << 20


def load(path):
    name = os.path.basename(path)
    m = re.match(r"(.*)_(f32|f64)le_([0-9x]+)\.bin$", name)
    shape = tuple(int(s) for s in m.group(3).split("x"))
    a = np.fromfile(path, "<f4" if m.group(2) == "f32" else "<f8").reshape(shape)
    return m.group(1), a


def chunk_shape(shape, size, limit):
    cs = list(shape)
    while np.prod(cs) * size > limit:
        big = int(np.argmax(cs))
        if cs[big] == 1:
            break
        cs[big] = (cs[big] + 1) // 2
    return tuple(cs)


def check(a, b, eb, fill):
    """Max error / eb over the values that must be within eb; raises if any is not, or if an
    exact value is not bit for bit."""
    d, e = a.astype(np.float64), b.astype(np.float64)
    exact = ~np.isfinite(d) if fill is None else ~np.isfinite(d) | (d == fill)
    if a[exact].tobytes() != b[exact].tobytes():
        raise SystemExit("exact values differ")
    worst = float(np.abs(d[~exact] - e[~exact]).max()) / eb
    if worst > 1:
        raise SystemExit("bound missed: %g eb" % worst)
    return worst


def through_filter(path, a, chunks, comp, fill, reps):
    """(stored bytes, decoded array, {threads: (write MB/s, read MB/s)}), the best of reps."""
    kw = {} if fill is None else dict(fillvalue=a.dtype.type(fill))

    def write():
        with h5py.File(path, "w") as f:
            f.create_dataset("x", data=a, chunks=chunks, compression=comp, **kw)

    def read():
        with h5py.File(path, "r") as f:
            return f["x"][...]

    speeds = {}
    for threads in ("1", "2"):
        with Env(PARZ_THREADS=threads):
            w = timed(write, reps)[0]
            r, _, back = timed(read, reps)
            if threads == "1":
                wc, rc = cpu_timed(write, reps), cpu_timed(read, reps)
        speeds[threads] = (a.nbytes / w / 1e6, a.nbytes / r / 1e6)
    speeds["cpu"] = (a.nbytes / wc / 1e6, a.nbytes / rc / 1e6)
    with h5py.File(path, "r") as f:
        stored = f["x"].id.get_storage_size()
    return stored, back, speeds


def cpu_timed(fn, reps):
    """The least CPU time of this process over reps calls of fn."""
    best = float("inf")
    for _ in range(reps):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def sz3(tool, src, a, eb, tmp, reps):
    """(bytes, decoded array, MB/s of compression and decompression by the times SZ3 prints, and
    by its CPU time), the best of reps runs of each."""
    z, o = os.path.join(tmp, "a.sz"), os.path.join(tmp, "a.out")
    flag = "-f" if a.dtype == np.float32 else "-d"
    args = ["-M", "ABS", repr(eb), "-%d" % a.ndim] + [str(n) for n in reversed(a.shape)]
    best = [float("inf")] * 4
    for _ in range(reps):
        c0 = children_cpu()
        out = subprocess.run([tool, flag, "-i", src, "-z", z] + args, capture_output=True,
                             text=True, check=True).stdout
        c1 = children_cpu()
        out += subprocess.run([tool, flag, "-z", z, "-o", o] + args, capture_output=True,
                              text=True, check=True).stdout
        c2 = children_cpu()
        ct = float(re.search(r"compression time = ([0-9.e-]+)", out).group(1))
        dt = float(re.search(r"decompression time = ([0-9.e-]+)", out).group(1))
        best = [min(x, y) for x, y in zip(best, (ct, dt, c1 - c0, c2 - c1))]
    back = np.fromfile(o, a.dtype).reshape(a.shape)
    return os.path.getsize(z), back, [a.nbytes / t / 1e6 for t in best]


def main():
    p = parser(__doc__, "bench_bounded.h5")
    p.add_argument("--sz3", required=True)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--segment-codes", default="",
                   help="comma-separated segment sizes C of the bounded rows (default: the codec's)")
    p.add_argument("--no-zfp", action="store_true", help="leave out zfp's accuracy rows")
    args = p.parse_args()
    files = sorted(f for f in os.listdir(args.data) if f.endswith(".bin"))
    sizes = [int(c) for c in args.segment_codes.split(",")] if args.segment_codes else [None]
    rows, geo = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in files:
            src = os.path.join(args.data, name)
            short, a = load(src)
            valid = a[np.isfinite(a) & (np.abs(a) < 1e9)]
            fill = -1e10 if (np.abs(a[np.isfinite(a)]) >= 1e9).any() else None
            vrange = float(valid.max() - valid.min())
            for rel in (1e-3, 1e-5):
                eb = rel * vrange
                zb, zback, (zc, zd, zcc, zdc) = sz3(args.sz3, src, a, eb, tmp, args.reps)
                cells = {"SZ3": (a.nbytes / zb, check(a, zback, eb, fill), zc, zc, zd, zd, zcc,
                                 zdc)}
                for limit in (MIB, 4 * MIB):
                    cs = chunk_shape(a.shape, a.itemsize, limit)
                    codecs = [("bounded" if c is None else "bounded C=%d" % c,
                               parz.Parz(codec="bounded", error_bound=eb, segment_blocks=c))
                              for c in sizes]
                    if not args.no_zfp:
                        codecs.append(("zfp", parz.Parz(accuracy=eb)))
                    for label, comp in codecs:
                        stored, back, sp = through_filter(args.file, a, cs, comp, fill, args.reps)
                        worst = check(a, back, eb, fill) if label != "zfp" else float(
                            np.abs(a.astype(np.float64) - back)[np.isfinite(a) & (
                                np.abs(a) < 1e9)].max()) / eb
                        key = "%s %d MiB" % (label, limit // MIB)
                        cells[key] = (a.nbytes / stored, worst, sp["1"][0], sp["2"][0],
                                      sp["1"][1], sp["2"][1], sp["cpu"][0], sp["cpu"][1])
                for key, c in cells.items():
                    geo.setdefault((rel, key), []).append(c[0])
                    rows.append("| %s | %g | %s | %.2f | %.4f | %.0f | %.0f | %.0f | %.0f | %.0f | "
                                "%.0f |" % ((short, rel, key) + c))
    lines = ["| array | eb / range | codec | ratio | max err / eb | write 1T | write 2T | "
             "read 1T | read 2T | write 1T, CPU | read 1T, CPU |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"] + rows
    lines += ["", "| geomean ratio | " + " | ".join(
        sorted({k for _, k in geo})) + " |", "|---|" + "---:|" * len({k for _, k in geo})]
    for rel in (1e-3, 1e-5):
        lines.append("| %g | " % rel + " | ".join(
            "%.2f" % float(np.exp(np.mean(np.log(geo[(rel, k)]))))
            for k in sorted({k for _, k in geo})) + " |")
    lines.append("")
    lines.append("(SZ3's write and read columns: its own compression and decompression times, one "
                 "thread, the same number in both; its CPU columns: the user and system time of its "
                 "process.)")
    report(lines, args.out, "bench_bounded")


if __name__ == "__main__":
    main()
