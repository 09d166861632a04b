#!/bin/sh
# Builds of lossless_lab measured side by side: each round runs every array through every build
# in turn (the builds' order reversed every other round), `--reps REPS --methods core`, the
# decode MB/s (the encode's with MEASURE=encode in the environment) of 1 MiB chunks and of the
# core (thread CPU time, best of REPS). Prints a row per run, then per array and build the median
# over the rounds and, against the first build, the median (min-max) of the ratios within a
# round: on a shared VM whose speed drifts, builds run in the same round are what compares.
#
#   side_by_side.sh ROUNDS REPS "ARRAY..." DATA_DIR LAB_FIRST LAB...
#   e.g. side_by_side.sh 6 5 "ccsm egm96 etopo5 hst levitus vasp" /work/shared/data \
#          /work/b/main/bench/lab/lossless/lossless_lab /work/b/mine/bench/lab/lossless/lossless_lab
set -eu
rounds=$1 reps=$2 arrays=$3 data=$4
shift 4
# the lab's table: the encode's MB/s in its 7th field, the decode's in its 8th
case "${MEASURE:-decode}" in
  encode) field=7 ;;
  decode) field=8 ;;
  *) echo "MEASURE is encode or decode, not $MEASURE" >&2; exit 2 ;;
esac
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
r=1
while [ "$r" -le "$rounds" ]; do
  if [ $((r % 2)) -eq 1 ]; then order="$*"; else order=$(printf '%s\n' "$@" | tac | tr '\n' ' '); fi
  for a in $arrays; do
    for lab in $order; do
      out=$("$lab" --reps "$reps" --methods core --only "$a" "$data")
      chunks=$(echo "$out" | awk -F'|' -v f="$field" '/core chunks/ {gsub(/ /, "", $f); print $f; exit}')
      core=$(echo "$out" | awk -F'|' -v f="$field" '/core \(codec/ {gsub(/ /, "", $f); print $f; exit}')
      echo "$r $a $lab $chunks $core" | tee -a "$rows"
    done
  done
  r=$((r + 1))
done
/usr/bin/python3 - "$rows" "$1" "${MEASURE:-decode}" <<'EOF'
import collections, statistics, sys
runs = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r, a, lab, chunks, core = line.split()
    runs[a, r][lab] = (float(chunks), float(core))
first = sys.argv[2]
for col, what in ((0, "1 MiB chunks"), (1, "core, whole array")):
    print("\n%s: %s MB/s, median (min-max) over the rounds; ratio to the first build"
          % (what, sys.argv[3]))
    for a in sorted({a for a, _ in runs}):
        rounds = [runs[k] for k in runs if k[0] == a]
        for lab in rounds[0]:
            v = [x[lab][col] for x in rounds]
            line = "%-10s %6.0f (%.0f-%.0f)" % (a, statistics.median(v), min(v), max(v))
            if lab != first:
                q = [x[lab][col] / x[first][col] for x in rounds]
                line += "  ratio %.3f (%.3f-%.3f)" % (statistics.median(q), min(q), max(q))
            print(line, lab)
EOF
