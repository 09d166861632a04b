#!/bin/sh
# ctest bench_sh_quick: scripts/bench.sh --quick on one small array, with PARZ_BUILD_DIR set to
# the build tree under test. It must build parz_bench in that tree (no tree of its own), and
# leave results.csv, meta.txt and results.md (and the three plots where matplotlib is there).
#
#   check_bench_sh.sh SOURCE_DIR BUILD_DIR OUT_DIR ARRAY
set -u
src=$1 build=$2 out=$3 array=$4
rm -rf "$out"
log="$out.log"
PARZ_BUILD_DIR=$build bash "$src/scripts/bench.sh" --quick --out "$out" --data "$array" \
  -- --reps 1 --max-mib 0.5 >"$log" 2>&1
rc=$?
cat "$log"
fail() { echo "check_bench_sh: $*" >&2; exit 1; }
[ $rc -eq 0 ] || fail "bench.sh exited with $rc"
grep -q "building parz_bench in $build " "$log" || fail "bench.sh did not build in $build"
for f in results.csv meta.txt results.md; do
  [ -s "$out/$f" ] || fail "no $out/$f"
done
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  for f in rate_distortion.png decode_threads.png table_size.png; do
    [ -s "$out/$f" ] || fail "no $out/$f"
  done
fi
echo "check_bench_sh: ok"
