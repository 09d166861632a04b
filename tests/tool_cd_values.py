"""ctest: `parz cd-values` prints the same cd_values as the Python helper's parz.cd_values, and
the h5repack UD= string made of them; it refuses what the filter refuses.
Usage: python3 tool_cd_values.py <parz executable>   (PYTHONPATH holding the parz package)"""
import subprocess
import sys

import parz

TOOL = sys.argv[1]

CASES = [
    (["--accuracy", "1e-3"], dict(accuracy=1e-3)),
    (["--accuracy", "0.01"], dict(accuracy=0.01)),
    (["--accuracy", "2.5e-300"], dict(accuracy=2.5e-300)),
    (["--rate", "8"], dict(rate=8)),
    (["--rate", "0.125"], dict(rate=0.125)),
    (["--precision", "16"], dict(precision=16)),
    (["--precision", "64"], dict(precision=64)),
    (["--reversible"], dict(reversible=True)),
    (["--expert", "1,16658,64,-1074"], dict(expert=(1, 16658, 64, -1074))),
    (["--expert", "64,64,64,-1075"], dict(expert=(64, 64, 64, -1075))),
    (["--accuracy", "1e-3", "--segment-blocks", "32"], dict(accuracy=1e-3, segment_blocks=32)),
    (["--reversible", "--partition-segments", "16"], dict(reversible=True, partition_segments=16)),
    (["--precision", "20", "--table", "lengths"], dict(precision=20, table=parz.TABLE_LENGTHS)),
    (["--table", "3", "--precision", "20"], dict(precision=20, table=parz.TABLE_LENGTHS)),
    (["--rate", "4", "--table", "none", "--segment-blocks", "8", "--partition-segments", "0"],
     dict(rate=4, table=parz.TABLE_NONE, segment_blocks=8, partition_segments=0)),
    (["--accuracy", "1e-5", "--segment-blocks", "1", "--partition-segments", "64", "--table",
      "hybrid"], dict(accuracy=1e-5, segment_blocks=1, partition_segments=64,
                      table=parz.TABLE_HYBRID)),
]

REFUSED = [
    [], ["--accuracy", "0"], ["--accuracy", "-1"], ["--accuracy", "nan"], ["--rate", "inf"],
    ["--accuracy", "1e-3x"], ["--precision", "0"], ["--precision", "65"],
    ["--expert", "1,2,3"], ["--expert", "1,2,3,4,5"], ["--expert", "5,4,64,-1074"],
    ["--accuracy", "1e-3", "--rate", "8"], ["--accuracy", "1e-3", "--table", "none"],
    ["--accuracy", "1e-3", "--table", "5"], ["--accuracy", "1e-3", "--segment-blocks", "65537"],
    ["--accuracy", "1e-3", "--partition-segments", "70000"], ["--accuracy"], ["--bogus"],
]


def run(args):
    return subprocess.run([TOOL, "cd-values"] + args, capture_output=True, text=True)


failures = []
for args, kwargs in CASES:
    cd = parz.cd_values(**kwargs)
    ud = "UD=%d,0,%d,%s" % (parz.FILTER_ID, len(cd), ",".join(str(v) for v in cd))
    want = "cd_values: %s\nh5repack:  -f %s\n" % (" ".join(str(v) for v in cd), ud)
    r = run(args)
    if r.returncode != 0 or r.stdout != want:
        failures.append("%s: got %r (exit %d, %s), expected %r"
                        % (args, r.stdout, r.returncode, r.stderr.strip(), want))
    r = run(["--ud"] + args)
    if r.returncode != 0 or r.stdout != ud + "\n":
        failures.append("--ud %s: got %r, expected %r" % (args, r.stdout, ud + "\n"))

for args in REFUSED:
    r = run(args)
    if r.returncode != 2 or r.stdout or "parz cd-values" not in r.stderr:
        failures.append("%s: not refused with a message (exit %d, stdout %r, stderr %r)"
                        % (args, r.returncode, r.stdout, r.stderr))

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("parz cd-values: %d cases equal parz.cd_values, %d refused" % (len(CASES), len(REFUSED)))
