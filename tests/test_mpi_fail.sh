#!/bin/sh
# Runs an MPI command that must fail cleanly: exit status 1 (not a timeout, not a signal), the
# expected message on its output, and no output file left behind.
# Usage: test_mpi_fail.sh <expected message> <file that must not exist> <timeout s> <command...>
expect=$1 file=$2 limit=$3
shift 3
rm -f "$file"
log=$(mktemp)
timeout -k 5 "$limit" "$@" >"$log" 2>&1
rc=$?
cat "$log"
fail() { echo "test_mpi_fail: $*"; rm -f "$log"; exit 1; }
[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && fail "timed out after ${limit}s (hang)"
[ "$rc" -eq 0 ] && fail "the command succeeded; it should have failed"
[ "$rc" -gt 128 ] && fail "killed by signal $((rc - 128))"
grep -q -- "$expect" "$log" || fail "no message '$expect' in the output"
grep -q "stopping every rank" "$log" || fail "no agreed stop ('stopping every rank') in the output"
grep -q "MPI_Abort" "$log" && fail "ended through MPI_Abort, not a clean agreed stop"
[ -e "$file" ] && fail "$file was written"
rm -f "$log"
echo "test_mpi_fail: failed cleanly with status $rc, as expected"
