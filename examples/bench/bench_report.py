#!/usr/bin/env python3
"""Report of a parz_bench run: OUT/results.md and three PNG plots, from OUT/results.csv and
OUT/meta.txt alone (all measuring is done in C; this only reads the CSV and draws).

Usage: bench_report.py OUT_DIR

Needs only the standard library and matplotlib (no numpy, no h5py).
"""
import csv
import math
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

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
        for r in rows:
            if r["dataset"] not in self.datasets:
                self.datasets.append(r["dataset"])
            if r["mode"] == "sweep":
                self.sweep[r["dataset"]].append(r)
                continue
            case = (r["dataset"], r["mode"], r["setting"])
            if case not in self.cases:
                self.cases.append(case)
            self.probe[case + (r["codec"], r["op"], r["exec"], r["threads"])] = r
        self.threads = sorted({r["threads"] for r in rows
                               if r["exec"] == "omp" and r["mode"] != "sweep"})
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


def md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


def write_markdown(c, meta, out_dir, plots):
    T = c.max_threads
    md = ["# ParZ benchmark report", ""]
    md += ["Machine and run (from meta.txt):", ""] + ["    " + m for m in meta] + [""]
    md += ["Throughput is GB/s (10^9 bytes per second) of **uncompressed** data: median over the "
           "timed rounds, with (min-max) in brackets. All probes of one case (dataset, mode, "
           "setting) run round-robin in the same rounds, so ParZ and its peers see the same "
           "machine noise. Each array is ONE chunk (ParZ default table, C=32 blocks per segment "
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
    for case in c.cases:
        p = c.parz(case)
        if not p:
            continue
        z = c.get(case, "zfp", "decode", "serial", 1)
        h = c.get(case, "h5z-zfp", "read", "hdf5", 1)
        rows.append(case + (fmt(p["ratio"]), fmt(z["ratio"]) if z else "-",
                            fmt(h["ratio"]) if h else "-", fmt(p["bits_per_value"]),
                            fmt(100 * p["table_overhead"], "%.3f%%")
                            if finite(p["table_overhead"]) else "-",
                            fmt(p["max_err"]), fmt(p["rms_err"]), fmt(p["psnr"], "%.1f")))
    md += [md_table(("dataset", "mode", "setting", "ParZ ratio", "libzfp ratio",
                     "H5Z-ZFP ratio", "ParZ bits/value", "table/payload", "max error",
                     "RMS error", "PSNR dB"), rows), ""]

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

    md += ["## Peers in the same run (GB/s) and ParZ's speed ratio against them", ""]
    head = ["dataset", "mode", "setting", "libzfp encode", "libzfp decode", "H5Z-ZFP read",
            "HDF5 read, no filter", "ParZ HDF5 read 1 thread", "ParZ HDF5 read %d threads" % T]
    if c.has_gpu:
        head += ["ParZ HDF5 read CUDA"]
    head += ["ParZ OMP %d / libzfp decode" % T, "ParZ read %d / H5Z-ZFP read" % T]
    rows = []
    for case in c.cases:
        r = list(case)
        r += [fmt_spread(c.get(case, "zfp", op, "serial", 1)) for op in ("encode", "decode")]
        r += [fmt_spread(c.get(case, "h5z-zfp", "read", "hdf5", 1)),
              fmt_spread(c.get(case, "hdf5-none", "read", "hdf5", 1)),
              fmt_spread(c.get(case, "parz", "read", "hdf5-omp", 1)),
              fmt_spread(c.get(case, "parz", "read", "hdf5-omp", T))]
        if c.has_gpu:
            r += [fmt_spread(c.get(case, "parz", "read", "hdf5-cuda", 0))]
        a, b = c.gbps(case, "parz", "decode", "omp", T), c.gbps(case, "zfp", "decode", "serial", 1)
        r.append(fmt(a / b, "%.2fx") if a and b else "-")
        a, b = c.gbps(case, "parz", "read", "hdf5-omp", T), c.gbps(case, "h5z-zfp", "read",
                                                                    "hdf5", 1)
        r.append(fmt(a / b, "%.2fx") if a and b else "-")
        rows.append(r)
    md += [md_table(head, rows), ""]

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


def plot_rd(c, path):
    fig, axes = grid(len(c.datasets))
    for ax, ds in zip(axes, c.datasets):
        for codec, exec_, op, style, label in (
                ("parz", "serial", "decode", "-", "ParZ"),
                ("zfp", "serial", "decode", "--", "libzfp"),
                ("h5z-zfp", "hdf5", "read", ":", "H5Z-ZFP")):
            color = {"parz": "C0", "zfp": "C1", "h5z-zfp": "C2"}[codec]
            for mode in MODES:
                pts = []
                for case in c.cases:
                    if case[0] != ds or case[1] != mode:
                        continue
                    r = c.get(case, codec, op, exec_, 1)
                    if r and finite(r["bits_per_value"]) and finite(r["psnr"]):
                        pts.append((r["bits_per_value"], r["psnr"]))
                if not pts:
                    continue
                pts.sort()
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style,
                        marker=MODE_MARKERS[mode], color=color,
                        mfc=color if codec == "parz" else "none", ms=7 if codec == "parz" else 9,
                        label="%s %s" % (label, mode))
        # reversible: lossless, infinite PSNR: marked on the x axis
        for case in c.cases:
            if case[0] == ds and case[1] == "reversible":
                r = c.parz(case)
                if r and finite(r["bits_per_value"]):
                    ax.axvline(r["bits_per_value"], color="C0", lw=0.8, alpha=0.5)
                    ax.annotate("ParZ lossless", (r["bits_per_value"], 0.02),
                                xycoords=("data", "axes fraction"), rotation=90, fontsize=7,
                                color="C0")
        ax.set_xscale("log", base=2)
        ax.set_title(ds, fontsize=10)
        ax.set_xlabel("bits per value")
        ax.set_ylabel("PSNR (dB)")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(6, len(labels)), fontsize=8)
    fig.suptitle("Rate-distortion: ParZ (filled) against libzfp and H5Z-ZFP (hollow)")
    fig.tight_layout(rect=(0, 0.08, 1, 0.96))
    fig.savefig(path, dpi=90)
    plt.close(fig)


def representative(c, ds):
    """The case whose decode speed is plotted against threads: the middle accuracy setting."""
    acc = [case for case in c.cases if case[0] == ds and case[1] == "accuracy"]
    if not acc:
        acc = [case for case in c.cases if case[0] == ds]
    return acc[len(acc) // 2] if acc else None


def plot_threads(c, path):
    fig, axes = grid(len(c.datasets))
    for ax, ds in zip(axes, c.datasets):
        case = representative(c, ds)
        if not case:
            continue
        ts = c.threads
        for codec, op, exec_, color, label in (
                ("parz", "decode", "omp", "C0", "ParZ decode (library)"),
                ("parz", "read", "hdf5-omp", "C4", "ParZ HDF5 read")):
            pts = [(t, c.get(case, codec, op, exec_, t)) for t in ts]
            pts = [(t, r) for t, r in pts if r and finite(r["gbps_median"])]
            if pts:
                ax.errorbar([t for t, _ in pts], [r["gbps_median"] for _, r in pts],
                            yerr=[[r["gbps_median"] - r["gbps_min"] for _, r in pts],
                                  [r["gbps_max"] - r["gbps_median"] for _, r in pts]],
                            marker="o", color=color, capsize=3, label=label)
        r1 = c.get(case, "parz", "decode", "omp", ts[0]) if ts else None
        if r1 and finite(r1["gbps_median"]):
            ax.plot(ts, [r1["gbps_median"] * t / ts[0] for t in ts], ":", color="grey", lw=1,
                    label="ParZ linear scaling")
        for codec, op, exec_, th, color, label in (
                ("zfp", "decode", "serial", 1, "C1", "libzfp decode (serial)"),
                ("h5z-zfp", "read", "hdf5", 1, "C2", "H5Z-ZFP HDF5 read"),
                ("hdf5-none", "read", "hdf5", 1, "C7", "HDF5 read, no filter"),
                ("parz", "decode", "cuda-e2e", 0, "C3", "ParZ CUDA end-to-end"),
                ("parz", "decode", "cuda-kernel", 0, "C5", "ParZ CUDA kernel")):
            v = c.gbps(case, codec, op, exec_, th)
            if v:
                ax.axhline(v, ls="--", color=color, lw=1.2, label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(ts)
        ax.set_xticklabels([str(t) for t in ts])
        ax.set_title("%s (%s %s)" % (ds, case[1], case[2]), fontsize=10)
        ax.set_xlabel("threads")
        ax.set_ylabel("decode GB/s (uncompressed)")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = {}, []
    for ax in axes:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in handles:
                handles[l] = h
                labels.append(l)
    fig.legend([handles[l] for l in labels], labels, loc="lower center", ncol=4, fontsize=8)
    fig.suptitle("Decode throughput against OpenMP threads (median, min-max bars)")
    fig.tight_layout(rect=(0, 0.08, 1, 0.96))
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
            if pts:
                ax.errorbar([p[0] for p in pts], [p[1]["gbps_median"] for p in pts],
                            yerr=[[p[1]["gbps_median"] - p[1]["gbps_min"] for p in pts],
                                  [p[1]["gbps_max"] - p[1]["gbps_median"] for p in pts]],
                            marker="o", color=color, capsize=3, label=label)
        ov = sorted({(r["segment_blocks"], r["table_overhead"]) for r in rows
                     if finite(r["table_overhead"])})
        ax2.plot([o[0] for o in ov], [100 * o[1] for o in ov], "s--", color="grey", ms=4,
                 label="table / payload (%)")
        ax2.set_yscale("log")
        ax2.set_ylabel("table / payload (%)", color="grey")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("segment_blocks C (blocks per segment)")
        ax.set_ylabel("decode GB/s")
        ax.set_title("%s (accuracy %s)" % (ds, rows[0]["setting"]), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        if ax is axes[0]:
            h1, l1 = ax.get_legend_handles_labels()
            h2, l2 = ax2.get_legend_handles_labels()
            fig.legend(h1 + h2, l1 + l2, loc="lower center", ncol=3, fontsize=8)
    what = "GPU kernel and OpenMP" if c.has_gpu else "OpenMP (no GPU in this run)"
    fig.suptitle("Decode throughput against table size: %s" % what)
    fig.tight_layout(rect=(0, 0.07, 1, 0.96))
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    rows, meta = load(out_dir)
    if not rows:
        sys.exit("bench_report: %s/results.csv holds no results" % out_dir)
    c = Cases(rows)
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
