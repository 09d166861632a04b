"""examples/plugin_demo.py, which scripts/demo.sh runs: reads timed after a warm-up, the
policies taking turns, reported as median and spread."""
import os
import subprocess
import sys

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "examples"))
import plugin_demo  # noqa: E402


def test_time_reads_leaves_out_the_cold_read_and_alternates():
    calls = []

    def read(policy):
        cold = policy not in calls
        calls.append(policy)
        return 1.0 if cold else 0.01 * len(calls)

    times = plugin_demo.time_reads(read, ("serial", "omp"), 3)
    assert calls == ["serial", "omp"] * 4
    assert times == {"serial": [0.03, 0.05, 0.07], "omp": [0.04, 0.06, 0.08]}


def test_demo_prints_median_and_spread(tmp_path):
    array = os.path.join(ROOT, "data", "egm96_geoid_f32le_721x1440.bin")
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "plugin_demo.py"), array,
                          str(tmp_path / "demo.h5"), "--reads", "2"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = [l for l in out.stdout.splitlines() if l.startswith("read    PARZ_EXEC=")]
    assert len(lines) == 2, out.stdout
    for line in lines:
        assert " median " in line and " spread " in line, line
        assert "over 2 reads after a warm-up read" in line, line
        assert "DIFFER" not in line, line
