#!/usr/bin/env python3
"""Report of a parz_bench run: results.md and three PNG plots, from results.csv and meta.txt
alone (all measuring is done in C; this only reads the CSV and draws).

Usage: bench_report.py RUN_DIR [REPORT_DIR]     (REPORT_DIR defaults to RUN_DIR)

Needs only the standard library; the plots need matplotlib (without it, results.md alone is
written, and the plots can be drawn later anywhere from the two files).
"""
import csv
import math
import os
import re
import sys
from collections import defaultdict

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:  # the Markdown report needs none of it
    plt = None

MODES = ("accuracy", "precision", "rate", "reversible")
MODE_MARKERS = {"accuracy": "o", "precision": "s", "rate": "^", "reversible": "*"}


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return math.nan


def finite(x):
    return x is not None and not math.isnan(x) and not math.isinf(x)


def load(out_dir):
    with open(os.path.join(out_dir, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("raw_bytes", "value", "threads", "segment_blocks", "ratio", "bits_per_value",
                  "table_overhead", "max_err", "rms_err", "psnr", "gbps_median", "gbps_min",
                  "gbps_max"):
            r[k] = num(r[k])
        r["threads"] = int(r["threads"]) if finite(r["threads"]) else 0
        r["segment_blocks"] = int(r["segment_blocks"]) if finite(r["segment_blocks"]) else 0
    meta = []
    path = os.path.join(out_dir, "meta.txt")
    if os.path.exists(path):
        with open(path) as f:
            meta = [line.rstrip("\n") for line in f if line.strip()]
    return rows, meta


def parse_meta(meta):
    """What the report reads from meta.txt: the line describing the default table, and per
    dataset its value range, fill values and the C that auto C picks at the table-size sweep's
    setting (the last two only in runs that record them)."""
    info = {"table": "", "datasets": {}}
    for line in meta:
        key, _, rest = line.partition(": ")
        if key == "table":
            info["table"] = rest
        elif key == "dataset":
            words = rest.split()
            d = {"range": None, "fill_values": None, "auto_c": None}
            for k, v in zip(words[1:], words[2:]):
                if k == "range":
                    d["range"] = num(v)
                elif k == "fill_values":
                    d["fill_values"] = int(v)
                elif k == "auto_c":
                    d["auto_c"] = int(v) or None
            info["datasets"][words[0]] = d
    return info


def table_policy(info):
    """(auto, fixed_c): auto is True when the run's default table was auto C (C picked per chunk);
    fixed_c is the C of a run whose default was one fixed C (versions before auto C)."""
    if "auto C" in info["table"]:
        return True, None
    m = re.search(r"default C=(\d+)", info["table"])
    return False, (int(m.group(1)) if m else None)


class Cases:
    """Rows indexed by case (dataset, mode, setting) and probe (codec, op, exec, threads)."""

    def __init__(self, rows):
        self.datasets = []
        self.cases = []
        self.probe = {}
        self.sweep = defaultdict(list)
        self.rd = []  # untimed rate-distortion points
        for r in rows:
            if r["dataset"] not in self.datasets:
                self.datasets.append(r["dataset"])
            if r["mode"] == "sweep":
                self.sweep[r["dataset"]].append(r)
                continue
            if r["op"] == "quality":
                if r["status"] == "ok":
                    self.rd.append(r)
                continue
            case = (r["dataset"], r["mode"], r["setting"])
            if case not in self.cases:
                self.cases.append(case)
            self.probe[case + (r["codec"], r["op"], r["exec"], r["threads"])] = r
        # the driver runs setting by setting across datasets; tables read dataset by dataset
        seen = {}
        for case in self.cases:
            seen.setdefault(case[1:], len(seen))
        self.cases.sort(key=lambda x: (self.datasets.index(x[0]),
                                       MODES.index(x[1]) if x[1] in MODES else len(MODES),
                                       seen[x[1:]]))
        self.threads = sorted({r["threads"] for r in rows
                               if r["exec"] == "omp" and r["mode"] != "sweep"})
        self.write_threads = sorted({r["threads"] for r in rows
                                     if r["op"] == "write" and r["codec"] == "parz"})
        self.max_threads = self.threads[-1] if self.threads else 1
        self.has_gpu = any(r["exec"].startswith("cuda") for r in rows)

    def get(self, case, codec, op, exec_, threads):
        r = self.probe.get(case + (codec, op, exec_, threads))
        return r if r is not None and r["status"] == "ok" else None

    def gbps(self, case, codec, op, exec_, threads):
        r = self.get(case, codec, op, exec_, threads)
        return r["gbps_median"] if r is not None and finite(r["gbps_median"]) else None

    def parz(self, case):
        return self.get(case, "parz", "decode", "serial", 1)


def fmt_spread(r, digits=3):
    if r is None or not finite(r["gbps_median"]):
        return "-"
    return "%.*g (%.*g-%.*g)" % (digits, r["gbps_median"], 2, r["gbps_min"], 2, r["gbps_max"])


def fmt(x, spec="%.3g"):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return spec % x


def geomean(xs):
    xs = [x for x in xs if finite(x) and x > 0]
    if not xs:
        return None
    return math.exp(sum(math.log(x) for x in xs) / len(xs)), min(xs), max(xs), len(xs)


def headline(c):
    """Speed and size ratios of ParZ against each peer, over all cases (geometric mean)."""
    T = c.max_threads
    defs = [
        ("ParZ decode, OpenMP %d threads / libzfp decode (serial)" % T,
         ("parz", "decode", "omp", T), ("zfp", "decode", "serial", 1)),
        ("ParZ decode, serial / libzfp decode (serial)",
         ("parz", "decode", "serial", 1), ("zfp", "decode", "serial", 1)),
        ("ParZ encode, serial / libzfp encode (serial)",
         ("parz", "encode", "serial", 1), ("zfp", "encode", "serial", 1)),
        ("ParZ encode, OpenMP %d threads / libzfp encode (serial)" % T,
         ("parz", "encode", "omp", T), ("zfp", "encode", "serial", 1)),
        ("ParZ HDF5 read, %d threads / H5Z-ZFP HDF5 read" % T,
         ("parz", "read", "hdf5-omp", T), ("h5z-zfp", "read", "hdf5", 1)),
        ("ParZ HDF5 read, 1 thread / H5Z-ZFP HDF5 read",
         ("parz", "read", "hdf5-omp", 1), ("h5z-zfp", "read", "hdf5", 1)),
        ("ParZ HDF5 read, %d threads / uncompressed HDF5 read" % T,
         ("parz", "read", "hdf5-omp", T), ("hdf5-none", "read", "hdf5", 1)),
        ("ParZ HDF5 write, %d threads / H5Z-ZFP HDF5 write" % T,
         ("parz", "write", "hdf5-omp", T), ("h5z-zfp", "write", "hdf5", 1)),
        ("ParZ HDF5 write, 1 thread / H5Z-ZFP HDF5 write",
         ("parz", "write", "hdf5-omp", 1), ("h5z-zfp", "write", "hdf5", 1)),
        ("ParZ HDF5 write, %d threads / uncompressed HDF5 write" % T,
         ("parz", "write", "hdf5-omp", T), ("hdf5-none", "write", "hdf5", 1)),
    ]
    if c.has_gpu:
        defs += [
            ("ParZ CUDA kernel / libzfp decode (serial)",
             ("parz", "decode", "cuda-kernel", 0), ("zfp", "decode", "serial", 1)),
            ("ParZ CUDA end-to-end / ParZ OpenMP %d threads" % T,
             ("parz", "decode", "cuda-e2e", 0), ("parz", "decode", "omp", T)),
            ("ParZ CUDA kernel / device-to-device copy",
             ("parz", "decode", "cuda-kernel", 0), ("cuda-copy", "copy", "cuda-d2d", 0)),
            ("ParZ HDF5 read, CUDA / H5Z-ZFP HDF5 read",
             ("parz", "read", "hdf5-cuda", 0), ("h5z-zfp", "read", "hdf5", 1)),
            ("ParZ HDF5 read, CUDA / ParZ HDF5 read, %d threads" % T,
             ("parz", "read", "hdf5-cuda", 0), ("parz", "read", "hdf5-omp", T)),
        ]
    out = []
    for label, a, b in defs:
        for modes, tag in ((("accuracy", "precision", "reversible"), "variable-rate"),
                           (("rate",), "fixed-rate")):
            xs = []
            for case in c.cases:
                if case[1] not in modes:
                    continue
                x, y = c.gbps(case, *a), c.gbps(case, *b)
                if x and y:
                    xs.append(x / y)
            g = geomean(xs)
            if g:
                out.append((label + " (speed)", tag) + g)
    # sizes: ParZ chunk bytes against libzfp's bare stream and H5Z-ZFP's stored chunk
    for peer, label in (("zfp", "libzfp stream"), ("h5z-zfp", "H5Z-ZFP stored dataset")):
        for modes, tag in ((("accuracy", "precision", "reversible"), "variable-rate"),
                           (("rate",), "fixed-rate")):
            xs = []
            for case in c.cases:
                if case[1] not in modes:
                    continue
                # the same layout on both sides: library chunk against libzfp's stream,
                # HDF5 storage against HDF5 storage (rank-4 arrays are stored as rank 3)
                if peer == "zfp":
                    p = c.parz(case)
                    q = c.get(case, "zfp", "decode", "serial", 1)
                else:
                    p = c.get(case, "parz", "read", "hdf5-omp", c.max_threads)
                    q = c.get(case, "h5z-zfp", "read", "hdf5", 1)
                if p and q and finite(p["ratio"]) and finite(q["ratio"]):
                    xs.append(q["ratio"] / p["ratio"])  # = ParZ bytes / peer bytes
            g = geomean(xs)
            if g:
                out.append(("ParZ %s / %s (size)" % ("chunk" if peer == "zfp" else "stored dataset", label), tag) + g)
    return out


def ratio(c, case, a, b):
    x, y = c.gbps(case, *a), c.gbps(case, *b)
    return fmt(x / y, "%.2fx") if x and y else "-"


GIB = 1.073741824  # GB per GiB


def scaling(c):
    """Parallel efficiency of the OpenMP decoder and read on large chunks, table size, and the GPU
    decode against the device's copy bandwidth."""
    T = c.max_threads
    md = ["## Parallel scaling and GPU decode", "", "### OpenMP, chunks of 16 MiB and more", ""]
    rows = []
    for case in c.cases:
        p = c.parz(case)
        if case[1] not in ("accuracy", "precision") or not p or p["raw_bytes"] < 16 * 2**20:
            continue
        eff = []
        for codec, op, ex in (("parz", "decode", "omp"), ("parz", "read", "hdf5-omp")):
            a, b = c.gbps(case, codec, op, ex, T), c.gbps(case, codec, op, ex, 1)
            eff.append(fmt(100 * a / (T * b), "%.0f%%") if a and b else "-")
        rows.append(list(case) + ["%.1f" % (p["raw_bytes"] / 2**20)] + eff +
                    [ratio(c, case, ("parz", "read", "hdf5-omp", T),
                           ("h5z-zfp", "read", "hdf5", 1))])
    md += ["Parallel efficiency at %d threads = throughput at %d threads / (%d x throughput at 1 "
           "thread); 100%% is perfect scaling. ParZ aims at 85%% or more at 16 threads on such "
           "chunks. The last column is the ParZ HDF5 read at %d threads against the H5Z-ZFP read "
           "of the same data at the same setting (ParZ aims at 10x or more at 16 threads)."
           % (T, T, T, T), ""]
    if rows:
        md += [md_table(("dataset", "mode", "setting", "MiB", "decode efficiency",
                         "HDF5 read efficiency", "read / H5Z-ZFP read"), rows), ""]
    else:
        md += ["(no chunk of 16 MiB or more in this run)", ""]
    ov = [(c.parz(case)["table_overhead"], case) for case in c.cases
          if c.parz(case) and case[1] != "rate" and finite(c.parz(case)["table_overhead"])]
    if ov:
        ov.sort()
        md += ["The offset table, which lets threads and the GPU start decoding inside a chunk, "
               "took a median %.3f%% and at most %.3f%% (%s %s %s) of the payload over the %d "
               "variable-rate cases (fixed-rate chunks need none)."
               % (100 * ov[len(ov) // 2][0], 100 * ov[-1][0], *ov[-1][1], len(ov)), ""]
    md += ["### GPU", ""]
    if not c.has_gpu:
        md += ["No GPU in this run.", ""]
        return md
    rows = []
    for case in c.cases:
        p = c.parz(case)
        k = c.get(case, "parz", "decode", "cuda-kernel", 0)
        if not p or not k:
            continue
        cp = c.gbps(case, "cuda-copy", "copy", "cuda-d2d", 0)
        e2e = c.gbps(case, "parz", "decode", "cuda-e2e", 0)
        omp = c.gbps(case, "parz", "decode", "omp", T)
        rows.append(list(case) + [p["dtype"], str(p["shape"].count("x") + 1), fmt(p["ratio"]),
                                  fmt(100 * p["table_overhead"], "%.3f%%"),
                                  fmt(k["gbps_median"] / GIB, "%.1f"),
                                  fmt(cp / GIB, "%.0f") if cp else "-",
                                  fmt(e2e / GIB, "%.2f") if e2e else "-",
                                  fmt(e2e / omp, "%.2fx") if e2e and omp else "-"])
    md += ["Kernel decode throughput in GiB/s of decoded data (CUDA events, the chunk already in "
           "GPU memory) beside a device-to-device copy of the same bytes, the memory bandwidth "
           "that bounds it; end to end, the chunk goes from host memory to a decoded array in "
           "host memory, against OpenMP at %d threads. ParZ aims at 500 GiB/s or more for float32 "
           "2D fixed accuracy at a ratio near 10, with the table at most 2%% of the payload." % T,
           ""]
    md += [md_table(("dataset", "mode", "setting", "type", "dims", "ratio", "table/payload",
                     "kernel GiB/s", "D2D copy GiB/s", "end-to-end GiB/s",
                     "end-to-end / OMP %d" % T), rows), ""]
    return md


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


def dataset_range(info, p):
    """The value range of p's dataset: from meta.txt, else from the row's RMS error and PSNR."""
    r = info["datasets"].get(p["dataset"], {}).get("range")
    if r:
        return r
    if finite(p["psnr"]) and finite(p["rms_err"]) and p["rms_err"] > 0:
        return p["rms_err"] * 10 ** (p["psnr"] / 20)
    return None


def bound_broken(case, p):
    """Fixed accuracy whose largest error is above the tolerance asked for."""
    return case[1] == "accuracy" and finite(p["max_err"]) and p["max_err"] > p["value"] * 1.000001


def psnr_meaningless(info, p):
    """Some value came back further off than the data's whole value range: PSNR, an average over
    the array, then mixes a few wrecked values with the rest and describes neither."""
    rng = dataset_range(info, p)
    return rng is not None and not (p["max_err"] <= rng)


def table_text(info):
    auto, fixed_c = table_policy(info)
    if auto:
        return ("ParZ uses its default table: auto C, the smallest power of two C (blocks per "
                "segment) whose table takes at most 2% of the chunk's payload, up to C = 32; the C "
                "column gives what each case got.")
    if fixed_c:
        return ("This run used the default table of the ParZ version it measured: a fixed "
                "C = %d blocks per segment in every chunk. ParZ now picks C per chunk (auto C, "
                "the smallest power of two whose table takes at most 2%% of the payload, up to "
                "C = 32; codec/FORMAT.md), so its tables are at least as large as here."
                % fixed_c)
    return "ParZ uses its default table (meta.txt's table line)."


def error_notes(c, info, over, wrecked):
    """Footnotes to the compression table: what the flags mean and why they occur."""
    md = []
    if over:
        md += ["(!) **Error bound not met**: the largest error is above the tolerance asked for "
               "(%s)." % ", ".join("%s %s %s" % x for x in over), ""]
    if wrecked:
        md += ["(*) **PSNR meaningless**: some values came back with an error larger than the "
               "data's whole value range (%s). PSNR averages the error over the array, so one "
               "number mixes those values with the rest and describes neither; it can even go "
               "negative." % ", ".join("%s %s %s" % x for x in wrecked), ""]
    if over or wrecked:
        names = sorted({x[0] for x in over + wrecked})
        known = [(n, info["datasets"].get(n, {}).get("fill_values")) for n in names]
        counts = ["%s holds %d fill values" % (n, k) for n, k in known if k]
        md += ["Why: zfp, and with it ParZ, libzfp and H5Z-ZFP (which write the same stream), "
               "codes each block of 4^d values relative to the largest magnitude in it. Values of "
               "magnitude 1e9 or more count as fill values (such as -1e10 marking land in an "
               "ocean field) and are left out of the value range and of the errors, but the "
               "values that share a block with one keep only the precision left relative to it: "
               "errors far above the tolerance, up to a fraction of the fill value itself, while "
               "the blocks without a fill value keep the bound. " +
               ("Here " + ", ".join(counts) + "." if counts else
                "(This run did not record how many fill values each array holds.)"), ""]
    return md


def default_marks(info, ds):
    """C -> what it is to the default table, for the table-size sweep of dataset ds."""
    auto, fixed_c = table_policy(info)
    marks = {}
    if auto:
        marks[32] = "largest auto C"
        a = info["datasets"].get(ds, {}).get("auto_c")
        if a:
            marks[a] = "auto C" + (" (largest)" if a == 32 else "")
    elif fixed_c:
        marks[fixed_c] = "this run's default"
    return marks


def write_markdown(c, meta, out_dir, plots):
    T = c.max_threads
    info = parse_meta(meta)
    auto, fixed_c = table_policy(info)
    md = ["# ParZ benchmark report", ""]
    md += ["Machine and run (from meta.txt):", ""]
    md += ["    " + m for m in meta if not m.startswith("table:")] + [""]
    skipped = [m for m in meta if "steps skipped:" in m and not m.endswith("skipped: 0")]
    if skipped:
        md += ["**Incomplete run**: %s (the time limit cut it short; the missing steps are "
               "absent from every table)." % skipped[0], ""]
    md += ["Throughput is GB/s (10^9 bytes per second) of **uncompressed** data: median over the "
           "timed rounds, with (min-max) in brackets. All probes of one case (dataset, mode, "
           "setting) run round-robin in the same rounds, so ParZ and its peers see the same "
           "machine noise. Each array is ONE chunk; HDF5 datasets use the whole array as one "
           "chunk (rank-4 arrays stored as rank 3 for H5Z-ZFP, the same for every filter). " +
           table_text(info) + " Accuracy tolerances are relative to the value range (values of "
           "magnitude 1e9 or more are fill values and left out of the range and of the errors); "
           "PSNR = 20 log10(range / RMS error). Ratio = raw bytes / compressed bytes (ParZ: whole "
           "chunk, header and table included). Table size = table bytes / payload bytes.", ""]
    md += ["## Headline ratios (ParZ against its peers, same run)", ""]
    rows = [(label, tag, "%.3g" % g, "%.3g-%.3g" % (lo, hi), n)
            for label, tag, g, lo, hi, n in headline(c)]
    md += [md_table(("ratio", "modes", "geometric mean", "min-max", "cases"), rows), ""]
    md += ["Speed ratios > 1: ParZ is faster. Size ratios > 1: ParZ is larger.", ""]

    md += ["## Compression: ratio, table size and error", ""]
    rows = []
    over, wrecked = [], []
    for case in c.cases:
        p = c.parz(case)
        if not p:
            continue
        if bound_broken(case, p):
            over.append(case)
        if psnr_meaningless(info, p):
            wrecked.append(case)
        z = c.get(case, "zfp", "decode", "serial", 1)
        h = c.get(case, "h5z-zfp", "read", "hdf5", 1)
        cb = p["segment_blocks"] or fixed_c
        rows.append(case + (str(cb) if cb else "-", fmt(p["ratio"]),
                            fmt(z["ratio"]) if z else "-",
                            fmt(h["ratio"]) if h else "-", fmt(p["bits_per_value"]),
                            fmt(100 * p["table_overhead"], "%.3f%%")
                            if finite(p["table_overhead"]) else "-",
                            fmt(p["max_err"]) + (" (!)" if case in over else ""),
                            fmt(p["rms_err"]),
                            fmt(p["psnr"], "%.1f") + (" (*)" if case in wrecked else "")))
    md += [md_table(("dataset", "mode", "setting", "C", "ParZ ratio", "libzfp ratio",
                     "H5Z-ZFP ratio", "ParZ bits/value", "table/payload", "max error",
                     "RMS error", "PSNR dB"), rows), ""]
    md += error_notes(c, info, over, wrecked)

    md += ["## ParZ throughput (GB/s): library calls", ""]
    head = ["dataset", "mode", "setting", "encode serial"]
    head += ["encode OMP %d" % t for t in c.threads]
    head += ["decode serial"] + ["decode OMP %d" % t for t in c.threads]
    if c.has_gpu:
        head += ["decode CUDA kernel", "decode CUDA end-to-end", "D2D copy"]
    rows = []
    for case in c.cases:
        r = list(case) + [fmt_spread(c.get(case, "parz", "encode", "serial", 1))]
        r += [fmt_spread(c.get(case, "parz", "encode", "omp", t)) for t in c.threads]
        r += [fmt_spread(c.get(case, "parz", "decode", "serial", 1))]
        r += [fmt_spread(c.get(case, "parz", "decode", "omp", t)) for t in c.threads]
        if c.has_gpu:
            r += [fmt_spread(c.get(case, "parz", "decode", e, 0))
                  for e in ("cuda-kernel", "cuda-e2e")]
            r += [fmt_spread(c.get(case, "cuda-copy", "copy", "cuda-d2d", 0))]
        rows.append(r)
    md += [md_table(head, rows), ""]

    md += ["## Peers in the same run: reads and decodes (GB/s), ParZ's speed ratio against them",
           ""]
    head = ["dataset", "mode", "setting", "libzfp decode", "H5Z-ZFP read",
            "HDF5 read, no filter", "ParZ HDF5 read 1 thread", "ParZ HDF5 read %d threads" % T]
    if c.has_gpu:
        head += ["ParZ HDF5 read CUDA"]
    head += ["ParZ OMP %d / libzfp decode" % T, "ParZ read %d / H5Z-ZFP read" % T,
             "ParZ read %d / no-filter read" % T]
    rows = []
    for case in c.cases:
        r = list(case)
        r += [fmt_spread(c.get(case, "zfp", "decode", "serial", 1)),
              fmt_spread(c.get(case, "h5z-zfp", "read", "hdf5", 1)),
              fmt_spread(c.get(case, "hdf5-none", "read", "hdf5", 1)),
              fmt_spread(c.get(case, "parz", "read", "hdf5-omp", 1)),
              fmt_spread(c.get(case, "parz", "read", "hdf5-omp", T))]
        if c.has_gpu:
            r += [fmt_spread(c.get(case, "parz", "read", "hdf5-cuda", 0))]
        r.append(ratio(c, case, ("parz", "decode", "omp", T), ("zfp", "decode", "serial", 1)))
        r.append(ratio(c, case, ("parz", "read", "hdf5-omp", T), ("h5z-zfp", "read", "hdf5", 1)))
        r.append(ratio(c, case, ("parz", "read", "hdf5-omp", T),
                       ("hdf5-none", "read", "hdf5", 1)))
        rows.append(r)
    md += [md_table(head, rows), ""]

    md += ["## Peers in the same run: writes and encodes (GB/s), ParZ's speed ratio against them",
           "", "HDF5 writes go to a file in memory (core driver): the filter and HDF5 are timed, "
           "not the disk.", ""]
    WT = c.write_threads[-1] if c.write_threads else 1
    head = ["dataset", "mode", "setting", "libzfp encode", "H5Z-ZFP write",
            "HDF5 write, no filter"] + ["ParZ HDF5 write %d thread%s" % (t, "s" * (t > 1))
                                        for t in c.write_threads]
    head += ["ParZ encode OMP %d / libzfp encode" % T, "ParZ write %d / H5Z-ZFP write" % WT]
    rows = []
    for case in c.cases:
        r = list(case)
        r += [fmt_spread(c.get(case, "zfp", "encode", "serial", 1)),
              fmt_spread(c.get(case, "h5z-zfp", "write", "hdf5", 1)),
              fmt_spread(c.get(case, "hdf5-none", "write", "hdf5", 1))]
        r += [fmt_spread(c.get(case, "parz", "write", "hdf5-omp", t)) for t in c.write_threads]
        r.append(ratio(c, case, ("parz", "encode", "omp", T), ("zfp", "encode", "serial", 1)))
        r.append(ratio(c, case, ("parz", "write", "hdf5-omp", WT),
                       ("h5z-zfp", "write", "hdf5", 1)))
        rows.append(r)
    md += [md_table(head, rows), ""]
    md += scaling(c)

    if c.sweep:
        md += ["## Table size: decode GB/s against C (blocks per segment)", ""]
        rows = []
        for ds in c.datasets:
            by_c = defaultdict(dict)
            for r in c.sweep.get(ds, []):
                by_c[r["segment_blocks"]][r["exec"]] = r
            marks = default_marks(info, ds)
            for cb in sorted(by_c):
                rs = by_c[cb]
                any_r = next(iter(rs.values()))
                omp = next((v for k, v in rs.items() if k == "omp"), None)
                rows.append((ds, any_r["setting"], cb, marks.get(cb, ""),
                             fmt(100 * any_r["table_overhead"], "%.3f%%"), fmt(any_r["ratio"]),
                             fmt_spread(omp), fmt_spread(rs.get("cuda-kernel"))))
        md += [md_table(("dataset", "accuracy", "C", "default", "table/payload", "ratio",
                         "OMP %d threads" % T, "CUDA kernel"), rows), ""]
        md += ["A smaller C gives threads and the GPU more places to start, for a larger table. "
               + ("'auto C' marks the C the default table picks for that array; C = 32 is the "
                  "largest it picks." if auto else
                  "C = %d was this run's default table." % fixed_c if fixed_c else ""), ""]

    md += ["## Plots", ""]
    for title, name in plots:
        md += ["### " + title, "", "![%s](%s)" % (title, name), ""]
    with open(os.path.join(out_dir, "results.md"), "w") as f:
        f.write("\n".join(md))


def grid(n):
    cols = min(3, max(1, n))
    rows = (n + cols - 1) // cols
    # at least 11 inches wide: the shared legend and the title need the room
    fig, axes = plt.subplots(rows, cols, figsize=(max(5.2 * cols, 11), 3.9 * rows + 0.8),
                             squeeze=False)
    flat = [a for row in axes for a in row]
    for a in flat[n:]:
        a.set_visible(False)
    return fig, flat[:n]


def log_ticks(lo, hi, base=10):
    """Tick values to label on a log axis from lo to hi: the powers of two for base 2; for base
    10 the decades, else the 1-2-5 steps, else finer steps, whichever first gives three ticks
    (two on a very short axis), at most about eight."""
    if not (0 < lo < hi):
        return []
    if base == 2:
        k0, k1 = math.ceil(math.log2(lo) - 1e-9), math.floor(math.log2(hi) + 1e-9)
        ticks = [2.0 ** k for k in range(k0, k1 + 1)]
    else:
        ticks = []
        for leads in ((1,), (1, 2, 5), (1, 1.5, 2, 3, 5, 7), (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7,
                                                                8, 9)):
            ticks = [float("%.6g" % (m * 10.0 ** k))
                     for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
                     for m in leads if lo <= m * 10.0 ** k <= hi]
            if len(ticks) >= 3:
                break
        if len(ticks) < 2:
            ticks = [float("%.2g" % lo), float("%.2g" % hi)]
    step = max(1, math.ceil(len(ticks) / 8))
    return ticks[::step]


def label_log_axis(ax, which="y", base=10):
    """Labels ax's log axis at log_ticks of its current limits, in plain numbers, whatever
    matplotlib's own log locator would do with the panel's size (it drops minor ticks when it
    skips decades, which left panels without a label). Call once the data are drawn."""
    from matplotlib import ticker
    lo, hi = sorted(ax.get_ylim() if which == "y" else ax.get_xlim())
    axis = ax.yaxis if which == "y" else ax.xaxis
    axis.set_major_locator(ticker.FixedLocator(log_ticks(lo, hi, base)))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _pos: "%g" % v))
    axis.set_minor_formatter(ticker.NullFormatter())


def legend_below(fig, handles, labels, ncol):
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=8, frameon=False)


RD_CODECS = (  # codec, the row that holds its quality, style
    ("parz", ("decode", "serial"), dict(ls="-", mfc=None, ms=6), "ParZ"),
    ("zfp", ("decode", "serial"), dict(ls="none", mfc="none", ms=10), "libzfp (serial)"),
    ("h5z-zfp", ("read", "hdf5"), dict(ls="none", ms=8, marker="x"), "H5Z-ZFP (HDF5)"),
)
MODE_COLORS = {"accuracy": "C0", "precision": "C2", "rate": "C3", "reversible": "C7"}


def rd_points(c, ds, codec, op, exec_, mode):
    """(bits per value, PSNR) of one codec and mode: the timed cases and the untimed sweep."""
    pts = set()
    for case in c.cases:
        if case[0] == ds and case[1] == mode:
            r = c.get(case, codec, op, exec_, 1)
            if r and finite(r["bits_per_value"]) and finite(r["psnr"]):
                pts.add((r["bits_per_value"], r["psnr"]))
    for r in c.rd:
        if r["dataset"] == ds and r["mode"] == mode and r["codec"] == codec and \
                finite(r["bits_per_value"]) and finite(r["psnr"]):
            pts.add((r["bits_per_value"], r["psnr"]))
    return sorted(pts)


def rd_figure(c, info):
    from matplotlib.lines import Line2D
    fig, axes = grid(len(c.datasets))
    for ax, ds in zip(axes, c.datasets):
        for codec, (op, exec_), style, _ in RD_CODECS:
            for mode in ("accuracy", "precision", "rate"):
                pts = rd_points(c, ds, codec, op, exec_, mode)
                if not pts:
                    continue
                kw = dict(style)
                kw.setdefault("marker", MODE_MARKERS[mode])
                if kw.get("mfc", 1) is None:
                    kw["mfc"] = MODE_COLORS[mode]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], color=MODE_COLORS[mode],
                        lw=1.2, **kw)
        # reversible: lossless, infinite PSNR: marked on the x axis
        for case in c.cases:
            if case[0] == ds and case[1] == "reversible":
                r = c.parz(case)
                if r and finite(r["bits_per_value"]):
                    ax.axvline(r["bits_per_value"], color=MODE_COLORS["reversible"], lw=1,
                               ls="--")
                    ax.annotate(" lossless (reversible)", (r["bits_per_value"], 0.03),
                                xycoords=("data", "axes fraction"), rotation=90, fontsize=7,
                                color="0.3", ha="right", va="bottom")
        ax.set_xscale("log", base=2)
        label_log_axis(ax, "x", 2)
        flagged = [x for x in c.cases if x[0] == ds and c.parz(x) and
                   (bound_broken(x, c.parz(x)) or psnr_meaningless(info, c.parz(x)))]
        ax.set_title(ds + (" (flagged points: see the report's error notes)" if flagged else ""),
                     fontsize=10)
        ax.set_xlabel("bits per value (compressed size)")
        ax.set_ylabel("PSNR (dB, value range)")
        ax.grid(True, which="both", alpha=0.3)
    handles = [Line2D([], [], color=MODE_COLORS[m], marker=MODE_MARKERS[m], label=m + " mode")
               for m in ("accuracy", "precision", "rate")]
    handles.append(Line2D([], [], color=MODE_COLORS["reversible"], ls="--",
                          label="reversible (lossless)"))
    for codec, _, style, label in RD_CODECS:
        kw = dict(style)
        kw.setdefault("marker", "o")
        kw["mfc"] = "k" if kw.get("mfc", 1) is None else kw.get("mfc")
        handles.append(Line2D([], [], color="k", label=label, **kw))
    legend_below(fig, handles, [h.get_label() for h in handles], 4)
    fig.suptitle("Rate-distortion: ParZ (filled, lines) against libzfp (hollow) and H5Z-ZFP (x); "
                 "higher and further left is better")
    fig.tight_layout(rect=(0, 0.07, 1, 0.96))
    return fig


def representative(c, ds, mode):
    """The case of a mode plotted against threads: its middle setting."""
    cases = [case for case in c.cases if case[0] == ds and case[1] == mode]
    return cases[len(cases) // 2] if cases else None


def errorbar(ax, pts, **kw):
    """pts: [(x, row)]; median with min-max bars."""
    pts = [(x, r) for x, r in pts if r and finite(r["gbps_median"])]
    if pts:
        ax.errorbar([x for x, _ in pts], [r["gbps_median"] for _, r in pts],
                    yerr=[[r["gbps_median"] - r["gbps_min"] for _, r in pts],
                          [r["gbps_max"] - r["gbps_median"] for _, r in pts]],
                    capsize=3, **kw)


def threads_figure(c):
    fig, axes = grid(len(c.datasets))
    ts = c.threads
    for ax, ds in zip(axes, c.datasets):
        acc, prec = representative(c, ds, "accuracy"), representative(c, ds, "precision")
        case = acc or prec or next((x for x in c.cases if x[0] == ds), None)
        if not case:
            continue
        for cs, codec, op, exec_, color, ls, label in (
                (acc, "parz", "decode", "omp", "C0", "-", "ParZ decode, accuracy (library)"),
                (prec, "parz", "decode", "omp", "C2", "-", "ParZ decode, precision (library)"),
                (acc, "parz", "read", "hdf5-omp", "C4", "-.", "ParZ HDF5 read, accuracy")):
            if cs:
                errorbar(ax, [(t, c.get(cs, codec, op, exec_, t)) for t in ts], marker="o",
                         color=color, ls=ls, label=label)
        r1 = c.get(case, "parz", "decode", "omp", ts[0]) if ts else None
        if r1 and finite(r1["gbps_median"]):
            ax.plot(ts, [r1["gbps_median"] * t / ts[0] for t in ts], ":", color="grey", lw=1,
                    label="linear scaling of ParZ decode")
        for codec, op, exec_, th, color, label in (
                ("zfp", "decode", "serial", 1, "C1", "libzfp decode (serial)"),
                ("h5z-zfp", "read", "hdf5", 1, "k", "H5Z-ZFP HDF5 read"),
                ("hdf5-none", "read", "hdf5", 1, "C7", "HDF5 read, no filter"),
                ("parz", "decode", "cuda-e2e", 0, "C3", "ParZ CUDA end-to-end"),
                ("parz", "decode", "cuda-kernel", 0, "C6", "ParZ CUDA kernel")):
            v = c.gbps(case, codec, op, exec_, th)
            if v:
                ax.axhline(v, ls="--", color=color, lw=1.2, label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        label_log_axis(ax)
        ax.set_xticks(ts)
        ax.set_xticklabels([str(t) for t in ts])
        ax.set_title("%s: %s" % (ds, ", ".join("%s %s" % (x[1], x[2]) for x in (acc, prec) if x)),
                     fontsize=10)
        ax.set_xlabel("OpenMP threads")
        ax.set_ylabel("GB/s of decoded data")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = {}, []
    for ax in axes:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in handles:
                handles[l] = h
                labels.append(l)
    legend_below(fig, [handles[l] for l in labels], labels, 4)
    fig.suptitle("Decode throughput against OpenMP threads (median, min-max bars; dashed: peers "
                 "and GPU at the accuracy setting)")
    fig.tight_layout(rect=(0, 0.09, 1, 0.96))
    return fig


def table_size_figure(c, info):
    """Per dataset, decode throughput on linear axes from 0 against C: OpenMP on the left axis,
    the CUDA kernel on the right one; the table's size at each C along the top; the default
    table's C marked."""
    ds_list = [ds for ds in c.datasets if c.sweep.get(ds)]
    fig, axes = grid(len(ds_list))
    handles = {}
    for ax, ds in zip(axes, ds_list):
        rows = c.sweep[ds]
        cs = sorted({r["segment_blocks"] for r in rows})
        pts = {ex: sorted((r["segment_blocks"], r) for r in rows
                          if r["exec"] == ex and r["status"] == "ok" and finite(r["gbps_median"]))
               for ex in ("omp", "cuda-kernel")}
        errorbar(ax, pts["omp"], marker="o", color="C0",
                 label="OpenMP %d threads (left axis)" % c.max_threads)
        ax.set_ylim(bottom=0)
        ax.set_ylabel("OpenMP decode GB/s", color="C0")
        axes_here = [ax]
        if pts["cuda-kernel"]:
            ax2 = ax.twinx()
            errorbar(ax2, pts["cuda-kernel"], marker="s", color="C3",
                     label="CUDA kernel (right axis)")
            ax2.set_ylim(bottom=0)
            ax2.set_ylabel("CUDA kernel decode GB/s", color="C3")
            axes_here.append(ax2)
        marks = default_marks(info, ds)
        ax.set_xscale("log", base=2)
        ticks = sorted(set(cs) | set(marks))
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(x) for x in ticks])
        ax.set_xlabel("C, blocks per segment")
        overhead = {r["segment_blocks"]: r["table_overhead"] for r in rows
                    if finite(r["table_overhead"])}
        top = ax.secondary_xaxis("top")
        top.set_xticks([x for x in cs if x in overhead])
        top.set_xticklabels(["%.2g%%" % (100 * overhead[x]) for x in cs if x in overhead],
                            fontsize=7)
        top.set_xlabel("table / payload", fontsize=8)
        for cb, what in sorted(marks.items()):
            style = dict(color="C2", ls="--") if what.startswith("auto") else dict(color="k", ls=":")
            ax.axvline(cb, lw=1.5, label="%s (C = %d here)" % (what, cb) if what.startswith("auto")
                       else "C = %d, %s" % (cb, what), **style)
        ax.set_title("%s (accuracy %s)" % (ds, rows[0]["setting"]), fontsize=10)
        ax.grid(True, alpha=0.3)
        for a in axes_here:
            for h, l in zip(*a.get_legend_handles_labels()):
                key = re.sub(r" \(C = \d+ here\)", "", l)
                handles.setdefault(key, h)
    legend_below(fig, list(handles.values()), list(handles.keys()), 4)
    what = "GPU kernel and OpenMP" if c.has_gpu else "OpenMP (no GPU in this run)"
    fig.suptitle("Decode throughput (median, min-max bars) against C, with the table size along "
                 "the top: %s" % what)
    fig.tight_layout(rect=(0, 0.07, 1, 0.96))
    return fig


def report(run_dir, out_dir):
    """Writes results.md and, with matplotlib, the plots of the run in run_dir into out_dir;
    returns the names written."""
    rows, meta = load(run_dir)
    if not rows:
        sys.exit("bench_report: %s/results.csv holds no results" % run_dir)
    os.makedirs(out_dir, exist_ok=True)
    c = Cases(rows)
    info = parse_meta(meta)
    plots = []
    if plt is None:
        print("bench_report: no matplotlib here: results.md without plots (draw them elsewhere "
              "with: bench_report.py RUN_DIR REPORT_DIR)", file=sys.stderr)
    else:
        figures = [("Rate-distortion", "rate_distortion.png", lambda: rd_figure(c, info)),
                   ("Decode throughput against threads", "decode_threads.png",
                    lambda: threads_figure(c))]
        if c.sweep:
            figures.append(("Throughput against table size", "table_size.png",
                            lambda: table_size_figure(c, info)))
        for title, name, draw in figures:
            fig = draw()
            fig.savefig(os.path.join(out_dir, name), dpi=90)
            plt.close(fig)
            plots.append((title, name))
    write_markdown(c, meta, out_dir, plots)
    return ["results.md"] + [p[1] for p in plots]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out_dir = sys.argv[2] if len(sys.argv) == 3 else sys.argv[1]
    names = report(sys.argv[1], out_dir)
    print("bench_report: wrote %s" % ", ".join(os.path.join(out_dir, n) for n in names))


if __name__ == "__main__":
    main()
