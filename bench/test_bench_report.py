#!/usr/bin/env python3
"""ctest bench_report: bench_report.py on a tiny run written here (two arrays, one with fill
values whose errors wreck its PSNR, a table-size sweep, two thread counts), as a run of today's
parz_bench (auto C recorded) and as one of a version with a fixed C = 32.

Checks the report speaks to a user (no issue numbers, the table it measured named right), flags
the rows whose error bound does not hold or whose PSNR means nothing, draws table_size.png on
linear throughput axes from 0 with the default table's C marked, and labels the y axis of every
decode_threads.png panel."""
import csv
import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_report  # noqa: E402

FIELDS = ("dataset,dtype,shape,raw_bytes,mode,setting,value,codec,op,exec,threads,segment_blocks,"
          "ratio,bits_per_value,table_overhead,max_err,rms_err,psnr,gbps_median,gbps_min,"
          "gbps_max,reps,status").split(",")
RANGE = {"fillfield": 31.76, "smooth": 100.0}
SWEEP_C = (1, 2, 4, 8, 16, 32, 64)


def row(ds, mode, setting, value, codec, op, exec_, threads, c, max_err, gbps, ratio=4.0,
        table=0.01):
    rms = max_err / 10
    psnr = 20 * math.log10(RANGE[ds] / rms) if rms > 0 else math.inf
    return dict(dataset=ds, dtype="f32", shape="4x16x16", raw_bytes=4096, mode=mode,
                setting=setting, value=value, codec=codec, op=op, exec=exec_, threads=threads,
                segment_blocks=c, ratio=ratio, bits_per_value=32 / ratio, table_overhead=table,
                max_err=max_err, rms_err=rms, psnr=psnr, gbps_median=gbps, gbps_min=gbps * 0.97,
                gbps_max=gbps * 1.03, reps=3, status="ok")


def write_run(path, auto):
    """results.csv and meta.txt of a tiny run; auto: today's parz_bench (C per case recorded,
    auto C and fill values per dataset), else a version whose default was a fixed C = 32."""
    os.makedirs(path, exist_ok=True)
    rows = []
    for ds in ("fillfield", "smooth"):
        c = (4 if ds == "fillfield" else 16) if auto else 0
        tol = 1e-3 * RANGE[ds]
        # fill values wreck the values beside them: above the bound and above the whole range
        acc_err, prec_err = (306.0, 2.66e8) if ds == "fillfield" else (tol / 2, 0.01)
        for mode, setting, value, err in (("accuracy", "1e-03", tol, acc_err),
                                          ("precision", "16", 16, prec_err)):
            rows.append(row(ds, mode, setting, value, "parz", "decode", "serial", 1, c, err, 0.3))
            for t, g in ((1, 0.30), (2, 0.31)):  # hardly any gain: a narrow y range
                rows.append(row(ds, mode, setting, value, "parz", "decode", "omp", t, c, err, g))
        for cb in SWEEP_C:  # OpenMP within +-5%, the GPU falling with C
            rows.append(row(ds, "sweep", "1e-03", tol, "parz", "decode", "omp", 2, cb, tol / 2,
                            1.0 + 0.05 * ((cb * 7) % 3 - 1), table=0.3 / cb))
            rows.append(row(ds, "sweep", "1e-03", tol, "parz", "decode", "cuda-kernel", 0, cb,
                            tol / 2, 400.0 / cb ** 0.5, table=0.3 / cb))
    with open(os.path.join(path, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(path, "meta.txt"), "w") as f:
        f.write("gpu: test\nthreads: 1 2\n")
        if auto:
            f.write("table: default, auto C for variable rate (each case's C in results.csv, "
                    "auto_c below at the sweep's setting), C=32 for fixed rate, P=64 (sweep at "
                    "accuracy 0.001 x range)\n")
            f.write("dataset: fillfield f32 4096 bytes range 31.76 fill_values 100 auto_c 4\n")
            f.write("dataset: smooth f32 4096 bytes range 100 fill_values 0 auto_c 16\n")
        else:
            f.write("table: default C=32 P=64 (sweep at accuracy 0.001 x range)\n")
            f.write("dataset: fillfield f32 4096 bytes range 31.76\n")
            f.write("dataset: smooth f32 4096 bytes range 100\n")


def table_row(md, ds, mode):
    line = next(l for l in md.splitlines() if l.startswith("| %s | %s |" % (ds, mode)))
    return [x.strip() for x in line.strip("|").split("|")]


class TinyRun(unittest.TestCase):
    """A test with a temporary directory for the tiny runs."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, auto):
        path = os.path.join(self.tmp.name, "auto" if auto else "fixed")
        write_run(path, auto)
        return path


class Report(TinyRun):
    def run_report(self, auto):
        path = self.write(auto)
        bench_report.report(path, path)
        with open(os.path.join(path, "results.md")) as f:
            return path, f.read()

    def test_wording_for_users(self):
        for auto in (True, False):
            _, md = self.run_report(auto)
            for word in ("issue", "thesis", "goal", "default C=32"):
                self.assertNotIn(word, md)
        _, md = self.run_report(True)
        self.assertIn("auto C, the smallest power of two C", md)
        self.assertEqual(table_row(md, "fillfield", "accuracy")[3], "4")  # the C column
        _, md = self.run_report(False)
        self.assertIn("a fixed C = 32 blocks per segment in every chunk", md)
        self.assertIn("ParZ now picks C per chunk (auto C", md)

    def test_flags(self):
        _, md = self.run_report(True)
        acc = table_row(md, "fillfield", "accuracy")
        prec = table_row(md, "fillfield", "precision")
        self.assertTrue(acc[9].endswith("(!)"), acc)    # max error above the tolerance
        self.assertTrue(acc[11].endswith("(*)"), acc)   # PSNR over an error above the range
        self.assertFalse(prec[9].endswith("(!)"), prec)  # precision mode promises no bound
        self.assertTrue(prec[11].endswith("(*)"), prec)
        self.assertTrue(prec[11].startswith("-"), prec)
        for mode in ("accuracy", "precision"):
            self.assertNotIn("(", "".join(table_row(md, "smooth", mode)[9:]))
        self.assertIn("(!) **Error bound not met**", md)
        self.assertIn("(*) **PSNR meaningless**", md)
        self.assertIn("Here fillfield holds 100 fill values.", md)
        _, md = self.run_report(False)
        self.assertIn("did not record how many fill values", md)


@unittest.skipIf(bench_report.plt is None, "no matplotlib")
class Plots(TinyRun):
    def cases(self, auto):
        rows, meta = bench_report.load(self.write(auto))
        return bench_report.Cases(rows), bench_report.parse_meta(meta)

    def test_table_size_linear_with_default_marked(self):
        for auto, marks in ((True, {"fillfield": {4, 32}, "smooth": {16, 32}}),
                            (False, {"fillfield": {32}, "smooth": {32}})):
            c, info = self.cases(auto)
            fig = bench_report.table_size_figure(c, info)
            panels = [a for a in fig.axes if a.get_title()]
            self.assertEqual(len(panels), 2)
            for ax in panels:
                ds = ax.get_title().split()[0]
                self.assertEqual(ax.get_yscale(), "linear")
                self.assertEqual(ax.get_ylim()[0], 0)
                vertical = {round(l.get_xdata()[0]) for l in ax.lines
                            if len(set(l.get_xdata())) == 1 and len(l.get_xdata()) == 2}
                self.assertEqual(vertical, marks[ds], ds)
            twins = [a for a in fig.axes if not a.get_title() and a.get_ylabel()]
            self.assertTrue(twins and all(a.get_yscale() == "linear" and a.get_ylim()[0] == 0
                                          for a in twins))
            bench_report.plt.close(fig)

    def test_every_threads_panel_has_y_labels(self):
        c, _ = self.cases(True)
        fig = bench_report.threads_figure(c)
        fig.canvas.draw()
        panels = [a for a in fig.axes if a.get_visible()]
        self.assertEqual(len(panels), 2)
        for ax in panels:
            lo, hi = sorted(ax.get_ylim())
            shown = [t for t in ax.yaxis.get_major_ticks()
                     if lo <= t.get_loc() <= hi and t.label1.get_text()]
            self.assertGreaterEqual(len(shown), 2, ax.get_title())
        bench_report.plt.close(fig)

    def test_log_ticks(self):
        self.assertEqual(bench_report.log_ticks(0.03, 70), [0.1, 1, 10])
        self.assertEqual(bench_report.log_ticks(0.3, 4), [0.5, 1, 2])
        self.assertGreaterEqual(len(bench_report.log_ticks(2.2, 3.9)), 2)
        self.assertEqual(bench_report.log_ticks(0.3, 40, base=2), [0.5, 1, 2, 4, 8, 16, 32])
        self.assertLessEqual(len(bench_report.log_ticks(1e-6, 1e6)), 8)


if __name__ == "__main__":
    unittest.main()
