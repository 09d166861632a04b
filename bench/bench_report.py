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


def goals(c):
    """The performance goals of issues 4 (OpenMP) and 5 (CUDA), checked on this run."""
    T = c.max_threads
    md = ["## Against the goals of issues 4 and 5", ""]
    # issue 4: parallel efficiency on chunks of 16 MiB and more, accuracy and precision modes
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
    md += ["Issue 4, OpenMP: parallel efficiency at %d threads (throughput at %d / (%d x "
           "throughput at 1)) on chunks of 16 MiB and more, goal >= 85%%; ParZ HDF5 read at %d "
           "threads against the H5Z-ZFP read of the same data at the same setting, goal >= 10x "
           "at 16 threads." % (T, T, T, T), ""]
    if rows:
        md += [md_table(("dataset", "mode", "setting", "MiB", "decode efficiency",
                         "HDF5 read efficiency", "read / H5Z-ZFP read"), rows), ""]
    else:
        md += ["(no chunk of 16 MiB or more in this run)", ""]
    ov = [(c.parz(case)["table_overhead"], case) for case in c.cases
          if c.parz(case) and case[1] != "rate" and finite(c.parz(case)["table_overhead"])]
    if ov:
        ov.sort()
        md += ["Table overhead at the default table (variable-rate modes, %d cases): median "
               "%.3f%%, max %.3f%% (%s %s %s) of the payload; thesis: < 0.04%% for CPU-oriented "
               "tables." % (len(ov), 100 * ov[len(ov) // 2][0], 100 * ov[-1][0], *ov[-1][1]), ""]
    if not c.has_gpu:
        md += ["Issue 5, CUDA: no GPU in this run.", ""]
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
    md += ["Issue 5, CUDA: kernel decode throughput (GiB/s of decoded data, device events, chunk "
           "resident on the GPU) beside the device-to-device copy of the same bytes; end-to-end "
           "filter path (host chunk in, host array out) against OpenMP at %d threads. Goal: >= 500 "
           "GiB/s for float32 2D fixed accuracy at a ratio near 10, table <= 2%% of the payload."
           % T, ""]
    md += [md_table(("dataset", "mode", "setting", "type", "dims", "ratio", "table/payload",
                     "kernel GiB/s", "D2D copy GiB/s", "end-to-end GiB/s",
                     "end-to-end / OMP %d" % T), rows), ""]
    return md


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


def write_markdown(c, meta, out_dir, plots):
    T = c.max_threads
    md = ["# ParZ benchmark report", ""]
    md += ["Machine and run (from meta.txt):", ""] + ["    " + m for m in meta] + [""]
    skipped = [m for m in meta if "steps skipped:" in m and not m.endswith("skipped: 0")]
    if skipped:
        md += ["**Incomplete run**: %s (the time limit cut it short; the missing steps are "
               "absent from every table)." % skipped[0], ""]
    md += ["Throughput is GB/s (10^9 bytes per second) of **uncompressed** data: median over the "
           "timed rounds, with (min-max) in brackets. All probes of one case (dataset, mode, "
           "setting) run round-robin in the same rounds, so ParZ and its peers see the same "
           "machine noise. Each array is ONE chunk (ParZ default table, see `table:` above, "
           "unless stated); HDF5 datasets use the whole array as one chunk (rank-4 arrays stored "
           "as rank 3 for H5Z-ZFP, the same for every filter). Accuracy tolerances are relative to "
           "the value range (values of magnitude >= 1e9 are fill values and left out of the "
           "range); PSNR = 20 log10(range / RMS error). Ratio = raw bytes / compressed bytes "
           "(ParZ: whole chunk, header and table included). Table overhead = table bytes / payload "
           "bytes.", ""]
    md += ["## Headline ratios (ParZ against its peers, same run)", ""]
    rows = [(label, tag, "%.3g" % g, "%.3g-%.3g" % (lo, hi), n)
            for label, tag, g, lo, hi, n in headline(c)]
    md += [md_table(("ratio", "modes", "geometric mean", "min-max", "cases"), rows), ""]
    md += ["Speed ratios > 1: ParZ is faster. Size ratios > 1: ParZ is larger.", ""]

    md += ["## Compression: ratio, table overhead and error", ""]
    rows = []
    over = []
    for case in c.cases:
        p = c.parz(case)
        if not p:
            continue
        if case[1] == "accuracy" and finite(p["max_err"]) and p["max_err"] > p["value"] * 1.000001:
            over.append(case)
        z = c.get(case, "zfp", "decode", "serial", 1)
        h = c.get(case, "h5z-zfp", "read", "hdf5", 1)
        rows.append(case + (fmt(p["ratio"]), fmt(z["ratio"]) if z else "-",
                            fmt(h["ratio"]) if h else "-", fmt(p["bits_per_value"]),
                            fmt(100 * p["table_overhead"], "%.3f%%")
                            if finite(p["table_overhead"]) else "-",
                            fmt(p["max_err"]) + (" (!)" if case in over else ""),
                            fmt(p["rms_err"]), fmt(p["psnr"], "%.1f")))
    md += [md_table(("dataset", "mode", "setting", "ParZ ratio", "libzfp ratio",
                     "H5Z-ZFP ratio", "ParZ bits/value", "table/payload", "max error",
                     "RMS error", "PSNR dB"), rows), ""]
    if over:
        md += ["(!) max error above the tolerance: %s. libzfp and H5Z-ZFP give the same stream "
               "(same ratio and error); zfp codes a block relative to its largest value, so data "
               "sharing a block with fill values of magnitude ~1e10 keeps only float32's "
               "precision relative to 1e10. Fill values themselves are left out of the errors."
               % ", ".join("%s %s" % (x[0], x[2]) for x in over), ""]

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
    md += goals(c)

    if c.sweep:
        md += ["## Table size sweep (segment_blocks C), decode GB/s", ""]
        rows = []
        for ds in c.datasets:
            by_c = defaultdict(dict)
            for r in c.sweep.get(ds, []):
                by_c[r["segment_blocks"]][r["exec"]] = r
            for cb in sorted(by_c):
                rs = by_c[cb]
                any_r = next(iter(rs.values()))
                omp = next((v for k, v in rs.items() if k == "omp"), None)
                rows.append((ds, any_r["setting"], cb,
                             fmt(100 * any_r["table_overhead"], "%.3f%%"), fmt(any_r["ratio"]),
                             fmt_spread(omp), fmt_spread(rs.get("cuda-kernel"))))
        md += [md_table(("dataset", "accuracy", "C", "table/payload", "ratio",
                         "OMP %d threads" % T, "CUDA kernel"), rows), ""]

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


def log_axis(axis, base=10):
    """A log axis labelled with plain numbers: base 10 at 1, 2 and 5 times the powers of ten
    (0.05, 0.1, 0.2...) or at every tick on an axis shorter than a factor 4, base 2 at the
    powers of two."""
    from matplotlib import ticker

    def label(leads):
        def f(v, _pos):
            if v <= 0:
                return ""
            lo, hi = sorted(axis.get_view_interval())
            short = lo > 0 and hi / lo < 4  # a short axis: every tick labelled
            m = round(v / 10 ** math.floor(math.log10(v) + 1e-9), 6)
            return "%.3g" % v if base == 2 or short or m in leads else ""
        return ticker.FuncFormatter(f)
    axis.set_major_formatter(label((1,)))
    axis.set_minor_formatter(label((2, 5)) if base == 10 else ticker.NullFormatter())


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


def plot_rd(c, path):
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
        log_axis(ax.xaxis, 2)
        over = [x for x in c.cases if x[0] == ds and x[1] == "accuracy" and c.parz(x) and
                finite(c.parz(x)["max_err"]) and c.parz(x)["max_err"] > c.parz(x)["value"] * 1.000001]
        ax.set_title(ds + (" (fill values: tolerance not met, see report)" if over else ""),
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
    fig.savefig(path, dpi=90)
    plt.close(fig)


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


def plot_threads(c, path):
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
        log_axis(ax.yaxis)
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
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_table_size(c, path):
    ds_list = [ds for ds in c.datasets if c.sweep.get(ds)]
    fig, axes = grid(len(ds_list))
    for ax, ds in zip(axes, ds_list):
        rows = c.sweep[ds]
        ax2 = ax.twinx()
        for exec_, color, label in (("cuda-kernel", "C3", "CUDA kernel"),
                                    ("omp", "C0", "OpenMP %d threads" % c.max_threads)):
            pts = sorted((r["segment_blocks"], r) for r in rows
                         if r["exec"] == exec_ and r["status"] == "ok" and
                         finite(r["gbps_median"]))
            errorbar(ax, pts, marker="o", color=color, label=label)
        ov = sorted({(r["segment_blocks"], r["table_overhead"]) for r in rows
                     if finite(r["table_overhead"])})
        ax2.plot([o[0] for o in ov], [100 * o[1] for o in ov], "s--", color="grey", ms=4,
                 label="table / payload (%)")
        ax2.set_yscale("log")
        log_axis(ax2.yaxis)
        ax2.set_ylabel("table / payload (%)", color="grey")
        ax.set_xscale("log", base=2)
        ax.set_xticks([p for p in sorted({r["segment_blocks"] for r in rows})])
        ax.set_xticklabels([str(p) for p in sorted({r["segment_blocks"] for r in rows})])
        ax.set_yscale("log")
        log_axis(ax.yaxis)
        ax.set_xlabel("segment_blocks C (blocks per segment, log scale)")
        ax.set_ylabel("decode GB/s of decoded data")
        ax.set_title("%s (accuracy %s)" % (ds, rows[0]["setting"]), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        if ax is axes[0]:
            h1, l1 = ax.get_legend_handles_labels()
            h2, l2 = ax2.get_legend_handles_labels()
            legend_below(fig, h1 + h2, l1 + l2, 3)
    what = "GPU kernel and OpenMP" if c.has_gpu else "OpenMP (no GPU in this run)"
    fig.suptitle("Decode throughput (median, min-max bars) and table size against "
                 "segment_blocks C: %s" % what)
    fig.tight_layout(rect=(0, 0.07, 1, 0.96))
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    run_dir = sys.argv[1]
    out_dir = sys.argv[2] if len(sys.argv) == 3 else run_dir
    rows, meta = load(run_dir)
    if not rows:
        sys.exit("bench_report: %s/results.csv holds no results" % run_dir)
    os.makedirs(out_dir, exist_ok=True)
    c = Cases(rows)
    plots = []
    if plt is None:
        print("bench_report: no matplotlib here: results.md without plots (draw them elsewhere "
              "with: bench_report.py RUN_DIR REPORT_DIR)", file=sys.stderr)
    else:
        plots = [("Rate-distortion", "rate_distortion.png"),
                 ("Decode throughput against threads", "decode_threads.png")]
        plot_rd(c, os.path.join(out_dir, plots[0][1]))
        plot_threads(c, os.path.join(out_dir, plots[1][1]))
        if c.sweep:
            plots.append(("Throughput against table size", "table_size.png"))
            plot_table_size(c, os.path.join(out_dir, plots[2][1]))
    write_markdown(c, meta, out_dir, plots)
    print("bench_report: wrote %s" % ", ".join(
        os.path.join(out_dir, n) for n in ["results.md"] + [p[1] for p in plots]))


if __name__ == "__main__":
    main()
