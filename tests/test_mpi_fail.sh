#!/bin/sh
# Runs an MPI command that must fail: non-zero exit status, not a timeout (a hang) nor a signal,
# the expected message on its output.
#   clean: every rank stopped after agreeing ("stopping every rank"), no MPI_Abort, and the
#          file (unless "-") was never created;
#   abort: the ranks could not agree (one was blocked in a collective call) and MPI_Abort ended
#          them all;
#   stall: as abort, and the rank that waited for the others reports (as "waited W s, C s of
#          CPU") that it used at most a quarter of that time on the CPU: it did not spin.
# Usage: test_mpi_fail.sh clean|abort|stall <expected message> <file | -> <timeout s> <command...>
how=$1 expect=$2 file=$3 limit=$4
shift 4
[ "$file" != - ] && rm -f "$file"
log=$(mktemp)
timeout -k 5 "$limit" "$@" >"$log" 2>&1
rc=$?
cat "$log"
fail() { echo "test_mpi_fail: $*"; rm -f "$log"; exit 1; }
[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && fail "timed out after ${limit}s (hang)"
[ "$rc" -eq 0 ] && fail "the command succeeded; it should have failed"
[ "$rc" -gt 128 ] && fail "killed by signal $((rc - 128))"
grep -q -- "$expect" "$log" || fail "no message '$expect' in the output"
if [ "$how" = clean ]; then
  grep -q "stopping every rank" "$log" || fail "no agreed stop ('stopping every rank') in the output"
  grep -q "MPI_Abort" "$log" && fail "ended through MPI_Abort, not a clean agreed stop"
  [ "$file" != - ] && [ -e "$file" ] && fail "$file was written"
  [ "$file" != - ] && [ -e "$file.partial" ] && fail "$file.partial was left behind"
else
  grep -q "MPI_Abort" "$log" || fail "expected an MPI_Abort"
fi
if [ "$how" = stall ]; then
  spent=$(sed -n 's/.*(waited \([0-9.]*\) s, \([0-9.]*\) s of CPU).*/\1 \2/p' "$log" | head -n 1)
  [ -n "$spent" ] || fail "no 'waited W s, C s of CPU' report in the output"
  echo "$spent" | awk '{ exit !($2 * 4 <= $1) }' ||
    fail "the waiting rank spun: $spent (seconds waited, seconds of CPU)"
fi
rm -f "$log"
echo "test_mpi_fail: failed ($how) with status $rc, as expected"
