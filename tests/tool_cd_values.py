"""ctest: `parz cd-values` prints the same cd_values as the Python helper's parz.cd_values, and
the h5repack UD= string made of them; it refuses what the filter refuses. With --nccopy it prints
nccopy's -F specifications, one per variable; with --from FILE it reads the variables from what
ncdump prints (here a stand-in ncdump on PATH printing a hostile CDL header).
Usage: python3 tool_cd_values.py <parz executable>   (PYTHONPATH holding the parz package)"""
import os
import subprocess
import sys
import tempfile

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
    (["--accuracy", "1e-3", "--fill", "-1e34"], dict(accuracy=1e-3, fill_value=-1e34)),
    (["--fill", "-99", "--precision", "16", "--table", "lengths"],
     dict(precision=16, table=parz.TABLE_LENGTHS, fill_value=-99)),
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
    ["--accuracy", "1e-3", "--fill", "nan"], ["--accuracy", "1e-3", "--fill", "x"],
    ["--accuracy", "1e-3", "--fill"],
    ["--accuracy", "1e-3", "--from", "f.nc"],                      # --from without --nccopy
    ["--ud", "--nccopy", "t", "--accuracy", "1e-3"],
    ["--nccopy", "*", "--accuracy", "1e-3"],                       # '*' needs --from
    ["--nccopy", "a,,b", "--accuracy", "1e-3"], ["--nccopy", "", "--accuracy", "1e-3"],
    ["--nccopy", "t", "--from", "f.nc", "--fill", "1", "--accuracy", "1e-3"],
    ["--nccopy", "t", "--accuracy", "1e-3", "--table", "none"],
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

def spec(name, cd):
    return "%s,%d,%s\n" % (name, parz.FILTER_ID, ",".join(str(v) for v in cd))


# --nccopy: one line per variable, names escaped as CDL escapes them (nccopy reads `a\,b` as the
# name a,b; a line naming two variables "a|b" would be applied to neither)
NCCOPY = [
    (["--nccopy", "temp", "--accuracy", "1e-3"], [("temp", dict(accuracy=1e-3))]),
    (["--nccopy", "temp,/g/salt", "--fill", "-1e34", "--accuracy", "1e-3"],
     [(n, dict(accuracy=1e-3, fill_value=-1e34)) for n in ("temp", "/g/salt")]),
    (["--nccopy", "a\\,b,sp ace,p|q", "--reversible"],
     [(n, dict(reversible=True)) for n in ("a\\,b", "sp\\ ace", "p\\|q")]),
]
for args, lines in NCCOPY:
    want = "".join(spec(n, parz.cd_values(**kw)) for n, kw in lines)
    r = run(args)
    if r.returncode != 0 or r.stdout != want:
        failures.append("%s: got %r (exit %d, %s), expected %r"
                        % (args, r.stdout, r.returncode, r.stderr.strip(), want))

# --from, with a stand-in ncdump printing this header: groups, a user type, strings holding
# what looks like declarations and attributes, escaped names, a coordinate variable, cell bounds
# and an auxiliary coordinate, each type's fill value as ncdump -p 9,17 writes it.
CDL = r"""netcdf hostile {
types:
  compound cmp {
    int a ;
    float b ;
  }; // cmp
  byte enum flags {no = 0, yes = 1} ;
dimensions:
	time = UNLIMITED ; // (2 currently)
	x = 8 ;
	nv = 2 ;
variables:
	double time(time) ;
		time:bounds = "time_bnds" ;
	double time_bnds(time, nv) ;
	float x(x) ;
	float lat2d(time, x) ;
	float temp(time, x) ;
		temp:_FillValue = -9.99999979e+33f ;
		temp:coordinates = "lat2d" ;
		temp:comment = "float fake(x) ; fake:_FillValue = 1.f ;\n" ;
	double sst(time, x) ;
		sst:_FillValue = -9.9999999999999995e+33 ;
	double dnan(time, x) ;
		dnan:_FillValue = NaN ;
	float a\,b(time, x) ;
	int count(time, x) ;
		count:_FillValue = -99 ;
	int64 big(time, x) ;
		big:_FillValue = -9223372036854775806LL ;
	short sh(time, x) ;
	cmp c(x) ;
	float scalar ;

// global attributes:
		:history = "line ; two\n",
			"float ghost(x) ;" ;
		string :title = "t" ;

group: sub {
  dimensions:
  	z = 4 ;
  variables:
  	float z(z) ;
  	float v(z, x) ;
  		v:_FillValue = -999.f ;
  } // group sub
}
"""
# ncdump -s of a file whose temp nccopy would copy with its deflate, ignoring -F for it
DEFLATED_CDL = r"""netcdf deflated {
dimensions:
	x = 8 ;
variables:
	float x(x) ;
		x:_Storage = "contiguous" ;
	float temp(x, x) ;
		temp:_FillValue = -999.f ;
		temp:_Storage = "chunked" ;
		temp:_ChunkSizes = 8, 8 ;
		temp:_Shuffle = "true" ;
		temp:_DeflateLevel = 4 ;
	float plain(x, x) ;
		plain:_Storage = "chunked" ;

// global attributes:
		:_Format = "netCDF-4" ;
}
"""
F32_FILL = float(__import__("numpy").float32(-1e34))
FROM = [
    # '*': every data variable accuracy mode takes, the others left out with a reason
    (["--nccopy", "*", "--accuracy", "0.5"],
     [("temp", dict(accuracy=0.5, fill_value=F32_FILL)),
      ("sst", dict(accuracy=0.5, fill_value=-1e34)),
      ("dnan", dict(accuracy=0.5)),
      ("a\\,b", dict(accuracy=0.5)),
      ("/sub/v", dict(accuracy=0.5, fill_value=-999.0))],
     ["time:", "time_bnds:", "x:", "lat2d:", "count:", "big:", "sh:", "c:", "scalar:", "/sub/z:"]),
    (["--nccopy", "*", "--precision", "12"],
     [("temp", dict(precision=12, fill_value=F32_FILL)),
      ("sst", dict(precision=12, fill_value=-1e34)),
      ("dnan", dict(precision=12)),
      ("a\\,b", dict(precision=12)),
      ("count", dict(precision=12, fill_value=-99)),
      ("/sub/v", dict(precision=12, fill_value=-999.0))],
     ["time:", "time_bnds:", "x:", "lat2d:", "big:", "sh:", "c:", "scalar:", "/sub/z:"]),
    # '*' leaves coordinates out in reversible mode as well
    (["--nccopy", "*", "--reversible"],
     [("temp", dict(reversible=True, fill_value=F32_FILL)),
      ("sst", dict(reversible=True, fill_value=-1e34)),
      ("dnan", dict(reversible=True)),
      ("a\\,b", dict(reversible=True)),
      ("count", dict(reversible=True, fill_value=-99)),
      ("/sub/v", dict(reversible=True, fill_value=-999.0))],
     ["time:", "time_bnds:", "x:", "lat2d:", "big:", "sh:", "c:", "scalar:", "/sub/z:"]),
    # named: a coordinate variable only in reversible mode; a root name with or without '/'
    (["--nccopy", "x,/temp,/sub/v", "--reversible"],
     [("x", dict(reversible=True)), ("temp", dict(reversible=True, fill_value=F32_FILL)),
      ("/sub/v", dict(reversible=True, fill_value=-999.0))], []),
]
FROM_REFUSED = [
    ["--nccopy", "x", "--accuracy", "1"],       # coordinate variable, lossy
    ["--nccopy", "lat2d", "--rate", "8"],       # auxiliary coordinate
    ["--nccopy", "time_bnds", "--rate", "8"],   # cell bounds
    ["--nccopy", "count", "--accuracy", "1"],   # int in accuracy mode
    ["--nccopy", "big", "--precision", "8"],    # fill value beyond a double's integers
    ["--nccopy", "sh", "--reversible"], ["--nccopy", "c", "--reversible"],
    ["--nccopy", "scalar", "--reversible"], ["--nccopy", "fake", "--reversible"],
    ["--nccopy", "ghost", "--reversible"], ["--nccopy", "temp,nope", "--reversible"],
    ["--nccopy", "sub/v", "--reversible"],      # a group's variable is named from the root
]
with tempfile.TemporaryDirectory() as bindir:
    with open(os.path.join(bindir, "hostile.cdl"), "w") as f:
        f.write(CDL)
    fake = os.path.join(bindir, "ncdump")
    with open(fake, "w") as f:  # prints the header for hostile.nc; fails like ncdump otherwise
        f.write('#!/bin/sh\n[ "$1 $2 $3 $4" = "-h -s -p 9,17" ] || exit 9\n'
                'case "$5" in hostile.nc) cat "%s";; deflated.nc) cat "%s";;\n'
                '*) echo "ncdump: $5: No such file or directory" >&2; exit 1;; esac\n'
                % (os.path.join(bindir, "hostile.cdl"), os.path.join(bindir, "deflated.cdl")))
    with open(os.path.join(bindir, "deflated.cdl"), "w") as f:
        f.write(DEFLATED_CDL)
    os.chmod(fake, 0o755)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))

    def run_from(args, path="hostile.nc"):
        return subprocess.run([TOOL, "cd-values", "--from", path] + args, capture_output=True,
                              text=True, env=env)

    for args, lines, left_out in FROM:
        want = "".join(spec(n, parz.cd_values(**kw)) for n, kw in lines)
        r = run_from(args)
        told = [ln.split("left out ")[1] for ln in r.stderr.splitlines() if "left out " in ln]
        if r.returncode != 0 or r.stdout != want:
            failures.append("--from %s: got %r (exit %d, %s), expected %r"
                            % (args, r.stdout, r.returncode, r.stderr.strip(), want))
        if sorted(t.split()[0] for t in told) != sorted(left_out):
            failures.append("--from %s: left out %r, expected %r" % (args, told, left_out))
    for args in FROM_REFUSED:
        r = run_from(args)
        if r.returncode != 2 or r.stdout or "parz cd-values" not in r.stderr:
            failures.append("--from %s: not refused with a message (exit %d, stdout %r, "
                            "stderr %r)" % (args, r.returncode, r.stdout, r.stderr))
    for args in (["--nccopy", "temp", "--reversible"], ["--nccopy", "*", "--rate", "8"]):
        r = run_from(args, "deflated.nc")
        if r.returncode != 2 or r.stdout or "nccopy -d 0 deflated.nc plain.nc" not in r.stderr:
            failures.append("--from deflated.nc %s: not refused (exit %d, stdout %r, stderr %r)"
                            % (args, r.returncode, r.stdout, r.stderr))
    r = run_from(["--nccopy", "plain", "--rate", "8"], "deflated.nc")
    if r.returncode != 0 or r.stdout != spec("plain", parz.cd_values(rate=8)):
        failures.append("--from deflated.nc plain: exit %d, stdout %r, stderr %r"
                        % (r.returncode, r.stdout, r.stderr))
    r = run_from(["--nccopy", "temp", "--reversible"], "missing.nc")
    if r.returncode != 3 or r.stdout or "ncdump" not in r.stderr:
        failures.append("--from missing.nc: exit %d, stdout %r, stderr %r"
                        % (r.returncode, r.stdout, r.stderr))
    env["PATH"] = os.path.join(bindir, "nowhere")
    r = run_from(["--nccopy", "temp", "--reversible"])
    if r.returncode != 3 or "needs ncdump" not in r.stderr:
        failures.append("--from without ncdump: exit %d, stderr %r" % (r.returncode, r.stderr))

for args in REFUSED:
    r = run(args)
    if r.returncode != 2 or r.stdout or "parz cd-values" not in r.stderr:
        failures.append("%s: not refused with a message (exit %d, stdout %r, stderr %r)"
                        % (args, r.returncode, r.stdout, r.stderr))

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("parz cd-values: %d cases equal parz.cd_values, %d refused; --nccopy %d cases, --from %d "
      "cases and %d refused" % (len(CASES), len(REFUSED), len(NCCOPY), len(FROM),
                                len(FROM_REFUSED)))
